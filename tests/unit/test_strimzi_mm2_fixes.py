"""Regression tests for the MirrorMaker 2 fixes found end to end (tests/integration/mirrormaker2)."""

import dataclasses

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.errors import InputError

V1BETA2 = {"metadata": {"name": "mirror", "namespace": "ns"},
           "spec": {"connectCluster": "west", "clusters": [{"alias": "east"}, {"alias": "west"}, {"alias": "north"}],
                    "mirrors": [{"sourceCluster": "east", "targetCluster": "west", "sourceConnector": {},
                                 "checkpointConnector": {}},
                                {"sourceCluster": "north", "targetCluster": "west", "sourceConnector": {}}]}}
V1 = {"metadata": {"name": "mirror", "namespace": "ns"},
      "spec": {"target": {"alias": "west"}, "mirrors": [{"source": {"alias": "east"}, "sourceConnector": {}}]}}


def test_v1beta2_is_preferred_when_served():
    # The v1 view of a v1beta2-layout KafkaMirrorMaker2 has no aliases at all (pruned by the API server).
    assert strimzi.VERSIONS.index("v1beta2") < strimzi.VERSIONS.index("v1")


@pytest.mark.parametrize("resource, path", [(V1BETA2, "/spec/mirrors/7/sourceCluster"),
                                            (V1, "/spec/mirrors/7/source/alias")])
def test_a_removed_mirror_keeps_its_guard_and_has_an_empty_stanza(resource, path):
    target = dataclasses.replace(strimzi.mm2_targets(resource)[0],
                                 stanza_path=("spec", "mirrors", 7, "sourceConnector"))
    assert target.stanza(resource) == {}
    assert target.stanza_guard(resource)[0] == {"op": "test", "path": path, "value": "east"}


@pytest.mark.parametrize("resource, path", [(V1BETA2, "/spec/mirrors/0/targetCluster"), (V1, "/spec/target/alias")])
def test_the_guard_also_pins_the_target_alias(resource, path):
    guard = strimzi.mm2_targets(resource)[0].stanza_guard(resource)
    assert guard[1] == {"op": "test", "path": path, "value": "west"}


def test_a_source_cluster_without_that_connector_is_named():
    with pytest.raises(InputError, match="no checkpoint connector replicating from source cluster 'north'") as error:
        strimzi.resolve_mm2_target(V1BETA2, "checkpoint", "north")
    assert "source clusters with a checkpoint connector: east" in error.value.advice
    with pytest.raises(InputError, match="source cluster 'nowhere'"):
        strimzi.resolve_mm2_target(V1BETA2, "source", "nowhere")


def test_a_full_name_contradicting_source_cluster_is_refused():
    assert strimzi.resolve_mm2_target(V1BETA2, "east->west.MirrorSourceConnector", "east").source_alias == "east"
    with pytest.raises(InputError, match="replicates from 'east', not from --source-cluster 'north'"):
        strimzi.resolve_mm2_target(V1BETA2, "east->west.MirrorSourceConnector", "north")


def test_the_topic_filter_honours_mirrormaker2_exclusions():
    from kubectl_offsets.core.online.targets import topic_filter

    resource = {"metadata": {"name": "m", "namespace": "n"},
                "spec": {"target": {"alias": "west"}, "mirrors": [
                    {"source": {"alias": "east"}, "sourceConnector": {}, "topicsPattern": "orders.*, audit",
                     "topicsExcludePattern": "orders-secret"},
                    {"source": {"alias": "north"}, "sourceConnector": {}, "topicsPattern": "orders.*"},
                    {"source": {"alias": "south"}, "sourceConnector": {"config": {"topics.exclude": "tmp.*"}}}]}}
    (first, second, third) = [topic_filter(t, resource)[0] for t in strimzi.mm2_targets(resource)]
    assert [first(t) for t in ("orders", "audit", "orders-secret", "auditx")] == [True, True, False, False]
    # Without an explicit exclusion MirrorMaker 2 still leaves out internal topics.
    assert [second(t) for t in ("orders-secret", "orders-x.internal", "orders.replica")] == [True, False, False]
    assert [third(t) for t in ("anything", "tmp1")] == [True, False]
