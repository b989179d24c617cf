"""The full reset's "shared offset-syncs topic" refusal (core/online/mm2_full_reset.py ``sharing_pairs``): another
mirror whose syncs go to the same topic on the same cluster is found however its bootstrap address is spelled
(Strimzi's Service names, short or qualified, any listener port) and in whichever namespace it lives, as far as
the user may list KafkaMirrorMaker2 resources."""
from __future__ import annotations

import pytest

from kubectl_offsets import mirrormaker, strimzi
from kubectl_offsets.core.online.mm2_full_reset import sharing_pairs
from kubectl_offsets.core.online.targets import LiveTarget
from kubectl_offsets.errors import ForbiddenError
from kubectl_offsets.progress import SilentProgress


def _mirror(name: str, namespace: str, source_alias: str, bootstrap: str, target_alias: str = "west") -> dict:
    return {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaMirrorMaker2",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"target": {"alias": target_alias, "bootstrapServers": "west-kafka-bootstrap:9092"},
                     "mirrors": [{"source": {"alias": source_alias, "bootstrapServers": bootstrap},
                                  "sourceConnector": {}}]}}


class Kube:
    """Lists KafkaMirrorMaker2 resources in all namespaces, or (``cluster_wide=False``) is forbidden to."""

    def __init__(self, resources: list[dict], *, cluster_wide: bool = True):
        self.resources, self.cluster_wide = resources, cluster_wide

    def list_selected(self, kind, namespace, selector=None):
        assert kind == strimzi.KIND_MM2
        if namespace is None and not self.cluster_wide:
            raise ForbiddenError("not allowed: list kafkamirrormaker2s in all namespaces")
        return [r for r in self.resources if namespace in (None, r["metadata"]["namespace"])]

    def list(self, kind, namespace, **_):
        return self.list_selected(kind, namespace)


class Warnings(SilentProgress):
    def __init__(self):
        super().__init__()
        self.warnings: list[str] = []

    def warn(self, message: str) -> None:
        self.warnings.append(message)


def _pairs(ours: dict, others: list[dict], **kube):
    target = strimzi.resolve_mm2_target(ours, "source")
    live = LiveTarget(target, ours)
    syncs = mirrormaker.offset_syncs_topic("east", "west", {})
    progress = Warnings()
    bootstrap = strimzi.mm2_clusters(ours, target)[0]["bootstrapServers"]
    found = sharing_pairs(Kube([ours, *others], **kube), live, syncs, bootstrap, progress)
    return found, progress.warnings


@pytest.mark.parametrize("spelling", [
    "east-kafka-bootstrap:9092",                          # short: the Service in the resource's own namespace
    "east-kafka-bootstrap.kafka:9092",
    "east-kafka-bootstrap.kafka.svc:9093",                # another listener of the same cluster
    "EAST-kafka-bootstrap.kafka.svc.cluster.local:9092",
    "east-kafka-0.east-kafka-brokers.kafka.svc:9092",     # a broker pod behind the headless Service
    "somewhere-else:9092,east-kafka-bootstrap.kafka.svc.example.org:9092",  # one address in common is enough
])
def test_the_same_cluster_spelled_another_way_is_found(spelling):
    ours = _mirror("ours", "kafka", "east", "east-kafka-bootstrap.kafka.svc:9092")
    other = _mirror("other", "kafka", "north", spelling)
    found, _ = _pairs(ours, [other])
    assert found == ["kafkamirrormaker2/other 'north->west'"]


def test_a_mirror_in_another_namespace_is_found_and_named_with_its_namespace():
    ours = _mirror("ours", "kafka", "east", "east-kafka-bootstrap:9092")
    elsewhere = _mirror("far", "team-b", "south", "east-kafka-bootstrap.kafka.svc.cluster.local:9092")
    found, warnings = _pairs(ours, [elsewhere])
    assert found == ["kafkamirrormaker2/far -n team-b 'south->west'"]
    assert warnings == []


def test_a_short_name_means_the_cluster_in_the_resources_own_namespace():
    ours = _mirror("ours", "kafka", "east", "east-kafka-bootstrap:9092")
    # The same short name in another namespace is that namespace's own cluster called east.
    lookalike = _mirror("twin", "team-b", "south", "east-kafka-bootstrap:9092")
    other_port = _mirror("port", "kafka", "north", "broker.example.org:9093")
    found, _ = _pairs(_mirror("ours", "kafka", "east", "broker.example.org:9092"), [other_port])
    assert found == [], "outside Strimzi's naming, another port may be another cluster"
    found, _ = _pairs(ours, [lookalike])
    assert found == []


def test_without_the_right_to_list_all_namespaces_it_compares_its_own_and_says_so():
    ours = _mirror("ours", "kafka", "east", "east-kafka-bootstrap:9092")
    here = _mirror("other", "kafka", "north", "east-kafka-bootstrap.kafka:9092")
    elsewhere = _mirror("far", "team-b", "south", "east-kafka-bootstrap.kafka:9092")
    found, warnings = _pairs(ours, [here, elsewhere], cluster_wide=False)
    assert found == ["kafkamirrormaker2/other 'north->west'"]
    assert len(warnings) == 1 and "namespace kafka" in warnings[0] and "all namespaces" in warnings[0]


def test_strimzi_cluster_keys():
    keys = strimzi.kafka_cluster_keys
    assert keys("c-kafka-bootstrap:9092", "ns") == keys("c-kafka-bootstrap.ns.svc.cluster.local:9093", "other")
    assert keys("c-kafka-bootstrap:9092", "ns") != keys("c-kafka-bootstrap:9092", "other")
    assert keys("Host.Example:9092, other:1", "ns") == frozenset({"host.example:9092", "other:1"})
    assert keys(None, "ns") == frozenset()
