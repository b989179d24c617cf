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
    namespace = "kafka"

    def __init__(self, configmaps):
        self.configmaps, self.deleted, self.asked = list(configmaps), [], []

    def list_configmaps(self, namespace, selector):
        self.asked.append((namespace, selector))
        return [cm for cm in self.configmaps if namespace is None or cm["metadata"]["namespace"] == namespace]

    def delete_configmap(self, name, namespace, *, resource_version=None):
        self.deleted.append((namespace, name, resource_version))


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
    found = catalog.find(kube, catalog.Scope(namespace="kafka", resources=frozenset({"mirror"})), now=NOW)
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
