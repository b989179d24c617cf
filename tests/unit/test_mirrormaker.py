"""MirrorMaker 2's own facts: the offset-syncs topic's name and cluster (MirrorSourceConfig#offsetSyncsTopic,
DefaultReplicationPolicy#offsetSyncsTopic) and the pre-flight's judgement of a stored source offset."""
import pytest

from kubectl_offsets import mirrormaker as mm


@pytest.mark.parametrize("config, name, location", [
    ({}, "mm2-offset-syncs.west.internal", "source"),  # default: on the source cluster, named after the target
    ({"offset-syncs.topic.location": "target"}, "mm2-offset-syncs.east.internal", "target"),
    ({"replication.policy.separator": "_"}, "mm2-offset-syncs_west_internal", "source"),
    ({"replication.policy.separator": "_", "replication.policy.internal.topic.separator.enabled": "false"},
     "mm2-offset-syncs.west.internal", "source"),
    ({"replication.policy.class": "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"},
     "mm2-offset-syncs.west.internal", "source"),
])
def test_offset_syncs_topic_follows_mirrormaker(config, name, location):
    topic = mm.offset_syncs_topic("east", "west", config)
    assert (topic.name, topic.location) == (name, location)


@pytest.mark.parametrize("config", [{"offset-syncs.topic.location": "elsewhere"},
                                    {"replication.policy.class": "com.example.MyPolicy"}])
def test_settings_we_cannot_predict_are_refused(config):
    with pytest.raises(ValueError):
        mm.offset_syncs_topic("east", "west", config)


@pytest.mark.parametrize("stored, start, end, status", [
    (4, 0, 5, "ok"),        # caught up: resumes at 5 = the end
    (2, 0, 5, "ok"),
    (2, 3, 5, "ok"),        # resumes at 3 = the log start: nothing lost
    (1, 3, 5, "gap"),       # resumes at 2 < 3: record 2 was never replicated and is gone
    (5, 0, 5, "ahead"),     # record 5 does not exist yet
    (40, 0, 3, "ahead"),    # the topic was recreated
    (4, None, None, "missing"),
])
def test_classify(stored, start, end, status):
    assert mm.classify(stored, start, end) == status


def test_delete_policy_is_added_once():
    assert mm.with_delete_policy("compact") == "compact,delete"
    assert mm.with_delete_policy("compact,delete") == "compact,delete"
    assert mm.with_delete_policy(None) == "delete"


def test_offset_sync_keys_decode_as_kafka_writes_them():
    # OffsetSync.KEY_SCHEMA: topic STRING (int16 length + UTF-8), partition INT32, big-endian
    key = (6).to_bytes(2, "big") + b"orders" + (3).to_bytes(4, "big")
    assert mm.offset_sync_key(key) == ("orders", 3)
    assert mm.offset_sync_key(key + b"x") is None and mm.offset_sync_key(None) is None
    assert mm.offset_sync_key(b"\x00\x10short") is None


def test_the_policy_is_put_back_with_the_exact_kafka_configs_command():
    head = "kafka-configs.sh --bootstrap-server b:9092 --entity-type topics --entity-name t --alter "
    assert mm.restore_policy_command("b:9092", "t", "compact", True) == head + "--add-config cleanup.policy=compact"
    assert mm.restore_policy_command("b:9092", "t", "compact,foo", True) == \
        head + "--add-config cleanup.policy=[compact,foo]"
    # Inherited from the broker: removed from the topic, so it inherits again.
    assert mm.restore_policy_command("b:9092", "t", "delete", False) == head + "--delete-config cleanup.policy"
