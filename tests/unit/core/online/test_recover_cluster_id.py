"""recover --bootstrap-server of an interrupted MirrorMaker 2 full reset must reach the cluster the journal recorded
(issue 28): the offset-syncs topic is truncated there, and a port-forward to another cluster with a topic of the same
name would have its records deleted. The full reset records the cluster id of the address it used; recover compares
the id behind --bootstrap-server before anything changes."""

from __future__ import annotations

import pytest

from kubectl_offsets import schemas, strimzi
from kubectl_offsets.core.online import mm2_full_reset
from kubectl_offsets.core.online.mm2_check import Mm2Settings
from kubectl_offsets.core.online.targets import LiveTarget
from kubectl_offsets.errors import InputError
from kubectl_offsets.model import Options

MIRROR = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaMirrorMaker2",
          "metadata": {"name": "mirror", "namespace": "kafka"},
          "spec": {"target": {"alias": "west", "bootstrapServers": "west:9092"},
                   "mirrors": [{"source": {"alias": "east", "bootstrapServers": "east:9092"},
                                "sourceConnector": {}, "checkpointConnector": {}}]}}
SYNCS = {"topic": "mm2-offset-syncs.west.internal", "location": "source", "bootstrap": "localhost:19092",
         "truncate_to": None, "checkpoint": None, "checkpoint_previous_state": None, "checkpoint_backup": None,
         "cleanup_policy": None, "truncated": False, "cluster_id": "east-cluster-id"}


class Journal:
    offset_syncs = SYNCS


class Broker:
    """The cluster behind an address, by the id its metadata reports."""

    ids = {"localhost:29092": "east-cluster-id", "localhost:39092": "some-other-cluster"}

    def __init__(self, bootstrap, settings):
        self.bootstrap_servers = bootstrap

    def cluster_id(self):
        return self.ids[self.bootstrap_servers]


def live() -> LiveTarget:
    source = next(t for t in strimzi.mm2_targets(MIRROR) if t.mm2_type == "MirrorSourceConnector")
    return LiveTarget(source, MIRROR)


def recover_with(monkeypatch, address):
    monkeypatch.setattr(mm2_full_reset, "_broker", Broker)
    options = Options(mm2=Mm2Settings(offset_syncs_bootstrap=address))
    return mm2_full_reset.for_recover(None, live(), Journal(), options, None)


def test_an_address_that_reaches_another_cluster_is_refused(monkeypatch):
    with pytest.raises(InputError, match="some-other-cluster.*east-cluster-id"):
        recover_with(monkeypatch, "localhost:39092")


def test_an_address_that_reaches_the_recorded_cluster_is_taken(monkeypatch):
    assert recover_with(monkeypatch, "localhost:29092") is not None


def test_the_full_reset_records_the_cluster_id_in_its_journal():
    plan = mm2_full_reset.FullResetPlan(live().target, None, None, "east:9092", cluster_id="east-cluster-id")
    plan.syncs = type("Syncs", (), {"name": "t", "location": "source"})()
    field = plan.journal_field()
    assert field["cluster_id"] == "east-cluster-id"
    assert schemas.errors("journal", {}) and not [e for e in schemas.errors("journal", {"offset_syncs": field})
                                                  if "offset_syncs" in e]
