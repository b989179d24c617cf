"""MirrorMaker 2 connector naming and configs for both CR layouts (§1.3, §2.6)."""
import pytest

from tests.env.emulator import mm2
from tests.env.emulator.conditions import ReconcileError


def v1_mm2(**mirror_extra):
    mirror = {"source": {"alias": "east", "bootstrapServers": "b:9092", "config": {"client.id": "c"}},
              "sourceConnector": {"tasksMax": 1, "config": {"refresh.topics.interval.seconds": 5}},
              "checkpointConnector": {"state": "stopped"},
              "topicsPattern": "^in$"}
    mirror.update(mirror_extra)
    return {"kind": "KafkaMirrorMaker2", "metadata": {"name": "m", "namespace": "ns"},
            "spec": {"target": {"alias": "west", "bootstrapServers": "b:9092", "groupId": "g",
                                "configStorageTopic": "c", "statusStorageTopic": "s", "offsetStorageTopic": "o"},
                     "mirrors": [mirror]}}


def legacy_mm2():
    return {"kind": "KafkaMirrorMaker2", "metadata": {"name": "m", "namespace": "ns"},
            "spec": {"connectCluster": "west",
                     "clusters": [{"alias": "east", "bootstrapServers": "e:9092"},
                                  {"alias": "west", "bootstrapServers": "w:9092"}],
                     "mirrors": [{"sourceCluster": "east", "targetCluster": "west",
                                  "sourceConnector": {}, "heartbeatConnector": {}, "checkpointConnector": {},
                                  "groupsPattern": ".*"}]}}


def test_v1_names_have_no_heartbeat_and_are_sorted():
    names = [c.name for c in mm2.generate(v1_mm2(heartbeatConnector={}))]
    assert names == ["east->west.MirrorCheckpointConnector", "east->west.MirrorSourceConnector"]


def test_legacy_names_include_heartbeat():
    names = [c.name for c in mm2.generate(legacy_mm2())]
    assert names == ["east->west.MirrorCheckpointConnector", "east->west.MirrorHeartbeatConnector",
                     "east->west.MirrorSourceConnector"]


def test_configmap_key_replaces_arrow():
    assert mm2.configmap_key("east->west.MirrorSourceConnector") == "east--west.MirrorSourceConnector.json"


def test_v1_source_connector_config():
    source = [c for c in mm2.generate(v1_mm2()) if c.type == mm2.SOURCE][0]
    assert source.connector_class == "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    cfg = source.config
    assert cfg["source.cluster.alias"] == "east" and cfg["target.cluster.alias"] == "west"
    assert cfg["source.cluster.bootstrap.servers"] == "b:9092"
    assert cfg["source.cluster.client.id"] == "c"
    assert cfg["topics"] == "^in$"
    assert cfg["refresh.topics.interval.seconds"] == "5"  # values become strings, as in Connect
    assert cfg["key.converter"].endswith("ByteArrayConverter")
    assert cfg["value.converter"].endswith("ByteArrayConverter")
    assert cfg["replication.factor"] == "1"
    assert source.spec["tasksMax"] == 1


def test_cr_config_overrides_emulator_defaults():
    m = v1_mm2(sourceConnector={"config": {"replication.factor": 3}})
    source = [c for c in mm2.generate(m) if c.type == mm2.SOURCE][0]
    assert source.config["replication.factor"] == "3"


def test_legacy_groups_pattern_and_bootstrap():
    checkpoint = [c for c in mm2.generate(legacy_mm2()) if c.type == mm2.CHECKPOINT][0]
    assert checkpoint.config["groups"] == ".*"
    assert checkpoint.config["source.cluster.bootstrap.servers"] == "e:9092"
    assert checkpoint.config["target.cluster.bootstrap.servers"] == "w:9092"


def test_legacy_unknown_alias_is_invalid():
    m = legacy_mm2()
    m["spec"]["mirrors"][0]["sourceCluster"] = "nowhere"
    with pytest.raises(ReconcileError) as err:
        mm2.generate(m)
    assert err.value.reason == "InvalidResourceException"


def test_legacy_target_must_be_connect_cluster():
    m = legacy_mm2()
    m["spec"]["connectCluster"] = "east"
    with pytest.raises(ReconcileError):
        mm2.generate(m)
