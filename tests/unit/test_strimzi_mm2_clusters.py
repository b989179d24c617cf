"""Where a mirror's clusters are in both KafkaMirrorMaker2 layouts, and a connector's sibling in its mirror."""
from kubectl_offsets import strimzi

V1 = {"metadata": {"name": "m", "namespace": "kafka"},
      "spec": {"target": {"alias": "west", "bootstrapServers": "west:9092"},
               "mirrors": [{"source": {"alias": "east", "bootstrapServers": "east:9092"},
                            "sourceConnector": {}, "checkpointConnector": {"config": {"a": 1}}},
                           {"source": {"alias": "north", "bootstrapServers": "north:9092"}, "sourceConnector": {}}]}}
V1BETA2 = {"metadata": {"name": "m", "namespace": "kafka"},
           "spec": {"connectCluster": "west",
                    "clusters": [{"alias": "east", "bootstrapServers": "east:9092"},
                                 {"alias": "west", "bootstrapServers": "west:9092"}],
                    "mirrors": [{"sourceCluster": "east", "targetCluster": "west", "sourceConnector": {},
                                 "heartbeatConnector": {}}]}}


def test_clusters_in_both_layouts():
    for resource in (V1, V1BETA2):
        source = strimzi.resolve_mm2_target(resource, "east->west.MirrorSourceConnector")
        src, tgt = strimzi.mm2_clusters(resource, source)
        assert (src["bootstrapServers"], tgt["bootstrapServers"]) == ("east:9092", "west:9092")


def test_sibling_is_from_the_same_mirror_only():
    source = strimzi.resolve_mm2_target(V1, "east->west.MirrorSourceConnector")
    checkpoint = strimzi.mm2_sibling(V1, source, "checkpoint")
    assert checkpoint.connector_name == "east->west.MirrorCheckpointConnector"
    assert strimzi.mm2_connector_config(V1, checkpoint) == {"a": 1}
    north = strimzi.resolve_mm2_target(V1, "north->west.MirrorSourceConnector")
    assert strimzi.mm2_sibling(V1, north, "checkpoint") is None
    assert strimzi.mm2_sibling(V1BETA2, strimzi.resolve_mm2_target(V1BETA2, "source"), "checkpoint") is None
