"""Strimzi facts: MirrorMaker 2 naming in both layouts, target resolution, ConfigMap keys, annotations."""

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.errors import InputError

V1BETA2 = {
    "metadata": {"name": "mirror", "namespace": "ns"},
    "spec": {"connectCluster": "west", "clusters": [{"alias": "east"}, {"alias": "west"}],
             "mirrors": [{"sourceCluster": "east", "targetCluster": "west", "topicsPattern": "orders.*",
                          "sourceConnector": {"state": "paused"}, "heartbeatConnector": {},
                          "checkpointConnector": {}},
                         {"sourceCluster": "north", "targetCluster": "west", "sourceConnector": {}}]},
}
V1 = {
    "metadata": {"name": "mirror", "namespace": "ns"},
    "spec": {"target": {"alias": "west"}, "mirrors": [{"source": {"alias": "east"}, "sourceConnector": {},
                                                        "checkpointConnector": {}}]},
}


def test_v1beta2_generates_source_heartbeat_checkpoint_names():
    names = [t.connector_name for t in strimzi.mm2_targets(V1BETA2)]
    assert names == ["east->west.MirrorSourceConnector", "east->west.MirrorCheckpointConnector",
                     "east->west.MirrorHeartbeatConnector", "north->west.MirrorSourceConnector"]


def test_v1_has_no_heartbeat_connector():
    names = [t.connector_name for t in strimzi.mm2_targets(V1)]
    assert names == ["east->west.MirrorSourceConnector", "east->west.MirrorCheckpointConnector"]
    with pytest.raises(InputError, match="v1 layout, which has no heartbeat"):
        strimzi.resolve_mm2_target(V1, "heartbeat")


def test_short_form_must_be_unambiguous():
    with pytest.raises(InputError, match="ambiguous") as error:
        strimzi.resolve_mm2_target(V1BETA2, "source")
    assert "east" in error.value.advice and "north" in error.value.advice
    target = strimzi.resolve_mm2_target(V1BETA2, "source", "north")
    assert target.connector_name == "north->west.MirrorSourceConnector"
    assert target.stanza_path == ("spec", "mirrors", 1, "sourceConnector")


def test_unknown_name_lists_valid_ones_and_spots_shell_mangling():
    with pytest.raises(InputError) as error:
        strimzi.resolve_mm2_target(V1, "east-")  # what `--connector east->west...` leaves after the shell
    assert "quote" in error.value.advice and "'east->west.MirrorSourceConnector'" in error.value.advice


def test_configmap_key_and_trigger_annotations():
    target = strimzi.resolve_mm2_target(V1, "source")
    assert target.configmap_key == "east--west.MirrorSourceConnector.json"
    assert target.trigger_annotations("alter") == {
        "strimzi.io/connector-offsets": "alter",
        "strimzi.io/mirrormaker-connector": "east->west.MirrorSourceConnector"}
    connector = strimzi.connector_target({"metadata": {"name": "sink", "namespace": "ns"}})
    assert connector.configmap_key == "offsets.json"
    assert connector.trigger_annotations("list") == {"strimzi.io/connector-offsets": "list"}
    with pytest.raises(ValueError):
        connector.trigger_annotations("List")  # the operator would go NotReady on this


def test_state_defaults_and_v1beta2_pause():
    target = strimzi.resolve_mm2_target(V1BETA2, "source", "east")
    assert target.spec_state(V1BETA2) == "paused"
    connector = strimzi.connector_target({"metadata": {"name": "c"}})
    assert connector.spec_state({"metadata": {"name": "c"}, "spec": {}}) == "running"
    assert connector.spec_state({"metadata": {"name": "c"}, "spec": {"pause": True}}) == "paused"


def test_parse_target_accepts_kubectl_spellings():
    assert strimzi.parse_target("my-sink") == ("KafkaConnector", "my-sink")
    assert strimzi.parse_target("kctr/my-sink") == ("KafkaConnector", "my-sink")
    assert strimzi.parse_target("kmm2/m") == ("KafkaMirrorMaker2", "m")
    assert strimzi.parse_target("kafkamirrormaker2.kafka.strimzi.io/m") == ("KafkaMirrorMaker2", "m")
    with pytest.raises(InputError, match="unknown resource type"):
        strimzi.parse_target("deployment/x")
    with pytest.raises(InputError, match="not a valid resource name"):
        strimzi.parse_target("My_Sink")


def test_mm2_stanza_guard_pins_the_mirror():
    target = strimzi.resolve_mm2_target(V1BETA2, "source", "north")
    assert target.stanza_guard(V1BETA2) == [{"op": "test", "path": "/spec/mirrors/1/sourceCluster", "value": "north"},
                                            {"op": "test", "path": "/spec/mirrors/1/targetCluster", "value": "west"}]
    assert target.stanza_pointer() == "/spec/mirrors/1/sourceConnector"


# --- where partitions can be checked (issue 10, defect 7) -----------------------------------------------------------

@pytest.mark.parametrize("bootstrap, expected", [
    ("my-cluster-kafka-bootstrap:9092", ("my-cluster", None)),
    ("my-cluster-kafka-bootstrap.kafka:9093", ("my-cluster", "kafka")),
    ("my-cluster-kafka-bootstrap.kafka.svc:9092", ("my-cluster", "kafka")),
    ("my-cluster-kafka-bootstrap.kafka.svc.cluster.local:9092", ("my-cluster", "kafka")),
    ("broker-0:9092, my-cluster-kafka-bootstrap.kafka.svc:9092", ("my-cluster", "kafka")),
    ("127.0.0.1:9092", None),
    ("kafka.example.com:9092", None),
    (None, None),
])
def test_kafka_cluster_of_bootstrap(bootstrap, expected):
    assert strimzi.kafka_cluster_of_bootstrap(bootstrap) == expected


def _kafkatopic(spec, *, ready="True", generation=2, observed=2, name="orders-kt"):
    return {"metadata": {"name": name, "generation": generation}, "spec": spec,
            "status": {"observedGeneration": observed, "conditions": [{"type": "Ready", "status": ready}]}}


def test_kafkatopic_partitions_only_when_the_topic_operator_confirmed_the_spec():
    assert strimzi.kafkatopic_partitions(_kafkatopic({"topicName": "orders", "partitions": 3})) == ("orders", 3)
    assert strimzi.kafkatopic_partitions(_kafkatopic({"partitions": 3})) == ("orders-kt", 3)
    assert strimzi.kafkatopic_partitions(_kafkatopic({"partitions": 3}, ready="False")) == ("orders-kt", None)
    assert strimzi.kafkatopic_partitions(_kafkatopic({"partitions": 2}, observed=1)) == ("orders-kt", None)
    assert strimzi.kafkatopic_partitions(_kafkatopic({})) == ("orders-kt", None)  # the broker's default applies
