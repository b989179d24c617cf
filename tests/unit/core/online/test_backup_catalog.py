"""Listing and pruning backup ConfigMaps without a cluster: which backups belong to which connector, what a prune
deletes (never the newest of a connector unless --keep 0, never a ConfigMap we do not own)."""

from __future__ import annotations

import datetime as dt

import pytest

from kubectl_offsets.conventions import (ANNOTATION_CONNECTOR, ANNOTATION_OPERATION, ANNOTATION_TAKEN_AT,
                                         LABEL_MANAGED_BY, LABEL_ROLE, LABEL_TARGET, MANAGED_BY)
from kubectl_offsets.core.online import backup_catalog as catalog
from kubectl_offsets.errors import InputError

NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.timezone.utc)


def backup(name, resource, connector, taken_at, *, namespace="kafka", operation="alter", owned=True,
           data="{\"offsets\": []}"):
    labels = {LABEL_ROLE: "backup", LABEL_TARGET: resource}
    if owned:
        labels[LABEL_MANAGED_BY] = MANAGED_BY
    return {"metadata": {"name": name, "namespace": namespace, "resourceVersion": f"rv-{name}", "labels": labels,
                         "annotations": {ANNOTATION_CONNECTOR: connector, ANNOTATION_TAKEN_AT: taken_at,
                                         ANNOTATION_OPERATION: operation}},
            "data": {"offsets.json": data}}


class FakeKube:
    """ConfigMaps to list and delete; ``resources``: the custom resources (for their journals); ``fail``: the
    answer (an exception) the API server gives to deleting a ConfigMap of that name."""

    namespace = "kafka"

    def __init__(self, configmaps, resources=(), fail=None):
        self.configmaps, self.deleted, self.asked = list(configmaps), [], []
        self.resources, self.fail = list(resources), dict(fail or {})

    def list_configmaps(self, namespace, selector):
        self.asked.append((namespace, selector))
        return [cm for cm in self.configmaps if namespace is None or cm["metadata"]["namespace"] == namespace]

    def delete_configmap(self, name, namespace, *, resource_version=None):
        if name in self.fail:
            raise self.fail[name]
        self.deleted.append((namespace, name, resource_version))

    def list_selected(self, kind, namespace, selector=None):
        return [r for r in self.resources if r["kind"] == kind
                and (namespace is None or r["metadata"]["namespace"] == namespace)]


SINK_OLD = backup("sink-offsets-backup-20261001t000000z", "sink", "sink", "2026-10-01T00:00:00Z")
SINK_MID = backup("sink-offsets-backup-20261120t000000z", "sink", "sink", "2026-11-20T00:00:00Z", operation="reset")
SINK_NEW = backup("sink-offsets-backup-20261126t110000z", "sink", "sink", "2026-11-26T11:00:00Z")
MM2_SRC = backup("mirror-offsets-backup-20261001t000000z", "mirror", "east->west.MirrorSourceConnector",
                 "2026-10-01T00:00:00Z")
MM2_CKP = backup("mirror-offsets-backup-20261001t000000z-2", "mirror", "east->west.MirrorCheckpointConnector",
                 "2026-10-01T00:00:00Z")
FOREIGN = backup("sink-offsets-backup-20200101t000000z", "sink", "sink", "2020-01-01T00:00:00Z", owned=False)


def test_find_lists_our_backups_newest_first_with_age_and_size():
    kube = FakeKube([SINK_OLD, SINK_NEW, SINK_MID])
    found = catalog.find(kube, catalog.Scope(namespace="kafka"), now=NOW)
    assert [b.name for b in found] == [SINK_NEW["metadata"]["name"], SINK_MID["metadata"]["name"],
                                       SINK_OLD["metadata"]["name"]]
    newest = found[0]
    assert (newest.connector, newest.resource, newest.operation) == ("sink", "sink", "alter")
    assert newest.age == dt.timedelta(hours=1)
    assert newest.size == len("offsets.json") + len("{\"offsets\": []}")
    assert kube.asked == [("kafka", f"{LABEL_ROLE}=backup,{LABEL_MANAGED_BY}={MANAGED_BY}")]


def test_find_for_a_target_keeps_only_that_resources_backups():
    kube = FakeKube([SINK_NEW, MM2_SRC, MM2_CKP])
    found = catalog.find(kube, catalog.Scope(namespace="kafka", resources=frozenset({("KafkaMirrorMaker2", "mirror")})),
                         now=NOW)
    assert sorted(b.connector for b in found) == ["east->west.MirrorCheckpointConnector",
                                                  "east->west.MirrorSourceConnector"]


def test_find_never_lists_a_configmap_without_our_managed_by_label():
    # the server filters by label; this guards against a selector that matched more than it should
    found = catalog.find(FakeKube([FOREIGN, SINK_NEW]), catalog.Scope(namespace="kafka"), now=NOW)
    assert [b.name for b in found] == [SINK_NEW["metadata"]["name"]]


def test_prune_keep_keeps_the_newest_n_of_each_connector():
    found = catalog.find(FakeKube([SINK_OLD, SINK_MID, SINK_NEW, MM2_SRC, MM2_CKP]),
                         catalog.Scope(namespace="kafka"), now=NOW)
    doomed = catalog.plan_prune(found, keep=1, older_than=None)
    # each MirrorMaker 2 connector has one backup: its newest, kept
    assert sorted(b.name for b in doomed) == sorted([SINK_OLD["metadata"]["name"], SINK_MID["metadata"]["name"]])


def test_prune_older_than_never_takes_the_newest_backup_of_a_connector():
    found = catalog.find(FakeKube([SINK_OLD, SINK_MID, MM2_SRC]), catalog.Scope(namespace="kafka"), now=NOW)
    doomed = catalog.plan_prune(found, keep=None, older_than=dt.timedelta(days=3))
    # SINK_MID is 6 days old but the newest of sink; MM2_SRC is old but the only one of its connector
    assert [b.name for b in doomed] == [SINK_OLD["metadata"]["name"]]


def test_prune_keep_zero_is_the_explicit_way_to_delete_the_newest_too():
    found = catalog.find(FakeKube([SINK_MID, MM2_SRC]), catalog.Scope(namespace="kafka"), now=NOW)
    assert len(catalog.plan_prune(found, keep=0, older_than=dt.timedelta(days=3))) == 2


def test_prune_keep_and_older_than_together_delete_only_what_both_allow():
    found = catalog.find(FakeKube([SINK_OLD, SINK_MID, SINK_NEW]), catalog.Scope(namespace="kafka"), now=NOW)
    doomed = catalog.plan_prune(found, keep=1, older_than=dt.timedelta(days=30))
    assert [b.name for b in doomed] == [SINK_OLD["metadata"]["name"]]


def test_prune_needs_a_rule_and_a_non_negative_keep():
    with pytest.raises(InputError):
        catalog.plan_prune([], keep=None, older_than=None)
    with pytest.raises(InputError):
        catalog.plan_prune([], keep=-1, older_than=None)


def test_delete_passes_the_resource_version_it_showed():
    kube = FakeKube([SINK_OLD, SINK_NEW])
    found = catalog.find(kube, catalog.Scope(namespace="kafka"), now=NOW)
    catalog.delete(kube, catalog.plan_prune(found, keep=1, older_than=None))
    assert kube.deleted == [("kafka", SINK_OLD["metadata"]["name"], f"rv-{SINK_OLD['metadata']['name']}")]


def test_delete_refuses_a_configmap_that_is_not_ours():
    foreign = catalog.Backup.from_configmap(FOREIGN, NOW)
    with pytest.raises(InputError):
        catalog.delete(FakeKube([]), [foreign])


# --- issue 28 ---------------------------------------------------------------------------------------------------------

APP_SINK = backup("app-offsets-backup-20261001t000000z", "app", "app", "2026-10-01T00:00:00Z")
APP_MIRROR = backup("app-offsets-backup-20261002t000000z", "app", "east->west.MirrorSourceConnector",
                    "2026-10-02T00:00:00Z")


def test_a_target_names_one_kind_not_every_resource_of_that_name():
    """kafkaconnector/app and kafkamirrormaker2/app both label their backups 'app': the kind tells them apart (a
    KafkaConnector's connector has the resource's name; a mirror's connectors have generated names)."""
    kube = FakeKube([APP_SINK, APP_MIRROR])
    sink = catalog.find(kube, catalog.Scope(namespace="kafka", resources=frozenset({("KafkaConnector", "app")})),
                        now=NOW)
    assert [b.name for b in sink] == [APP_SINK["metadata"]["name"]]
    mirror = catalog.find(kube, catalog.Scope(namespace="kafka", resources=frozenset({("KafkaMirrorMaker2", "app")})),
                          now=NOW)
    assert [b.name for b in mirror] == [APP_MIRROR["metadata"]["name"]]


def test_a_prune_that_meets_404_or_409_deletes_the_rest_and_reports_each():
    from kubectl_offsets.adapters.kube import ConflictError
    from kubectl_offsets.errors import NotFoundError

    gone, changed = SINK_OLD["metadata"]["name"], SINK_MID["metadata"]["name"]
    kube = FakeKube([SINK_OLD, SINK_MID, MM2_SRC, MM2_CKP],
                    fail={gone: NotFoundError("gone"), changed: ConflictError("changed")})
    found = catalog.find(kube, catalog.Scope(namespace="kafka"), now=NOW)
    report = catalog.delete(kube, catalog.plan_prune(found, keep=0, older_than=None))
    assert [b.name for b in report.deleted] == [b for _, b, _ in kube.deleted]
    assert {b.name for b in report.deleted} == {MM2_SRC["metadata"]["name"], MM2_CKP["metadata"]["name"]}
    assert [b.name for b in report.gone] == [gone] and [b.name for b in report.changed] == [changed]


def sink_resource(backup_name: str) -> dict:
    from kubectl_offsets.core.online.journal import Journal

    journal = Journal(operation="alter", id="abcd1234", started="2026-10-01T00:00:00Z", kind="KafkaConnector",
                      resource="sink", connector="sink", previous_state=None, previous_alter_offsets=None,
                      backup=backup_name, offsets_configmap="sink-offsets-alter")
    return {"kind": "KafkaConnector", "metadata": {"name": "sink", "namespace": "kafka",
                                                   "annotations": {"kubectl-offsets.io/journal":
                                                                   journal.to_annotation()}}}


def test_a_backup_an_open_journal_names_is_never_pruned():
    """recover restores from it: an interrupted operation's backup outlives any --keep or --older-than."""
    kube = FakeKube([SINK_OLD, SINK_MID, SINK_NEW], resources=[sink_resource(SINK_OLD["metadata"]["name"])])
    found = catalog.find(kube, catalog.Scope(namespace="kafka"), now=NOW)
    kept = catalog.named_by_journals(kube, catalog.Scope(namespace="kafka"))
    assert kept == {("kafka", SINK_OLD["metadata"]["name"])}
    doomed = catalog.plan_prune(found, keep=0, older_than=None, protected=kept)
    assert SINK_OLD["metadata"]["name"] not in [b.name for b in doomed] and len(doomed) == 2
