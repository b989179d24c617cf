"""connect-offsets on the real offsets topic of the test Connect worker (connect-cluster-offsets) equals what the
Connect REST API reports for each connector, before and after a reset (tombstones), live and from an archive."""
from __future__ import annotations

import pytest

from kubectl_offsets.adapters.spark.sources import Archive, LiveTopics
from kubectl_offsets import schemas
from kubectl_offsets.core.compute import offsets_topic as topic
from kubectl_offsets.model import OffsetsDocument
from tests.env.clients import unique_name
from tests.waits import eventually

pytestmark = pytest.mark.slow
OFFSETS_TOPIC = "connect-cluster-offsets"  # tests/env/kafka.py: Strimzi's default offset.storage.topic
OFFSETS_PARTITIONS = 5  # tests/env/kafka.py: offset.storage.partitions


def rest_offsets(connect, name: str) -> OffsetsDocument:
    status, body = connect.get(connect.connector_path(name, "/offsets"))
    assert status == 200, body
    return OffsetsDocument.from_json(body)


def wait_offsets(connect, name: str, done, timeout: float = 90.0) -> OffsetsDocument:
    return eventually(f"{name}: the expected offsets in Connect", lambda: (lambda document: document if done(document)
                      else None)(rest_offsets(connect, name)), timeout, interval=1)


def put_connector(connect, name: str, config: dict) -> None:
    status, body = connect.put(connect.connector_path(name, "/config"), config)
    assert status in (200, 201), body


def file_source(connect, tmp_path, lines: int) -> str:
    name = unique_name("file-src")
    path = tmp_path / f"{name}.txt"
    path.write_text("".join(f"line {i}\n" for i in range(lines)))
    put_connector(connect, name, {"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
                                  "tasks.max": "1", "file": str(path), "topic": unique_name("file-out")})
    size = path.stat().st_size
    wait_offsets(connect, name, lambda d: [e.offset for e in d] == [{"position": size}])
    return name


def mirror_source(connect, env, kafka_admin, live_orders, created: list) -> str:
    topic, recs = live_orders
    name = unique_name("mirror")
    created.append(name)  # deleted by the fixture even if the wait below fails
    put_connector(connect, name, {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "tasks.max": "1",
        "source.cluster.alias": "east", "target.cluster.alias": "west",
        "source.cluster.bootstrap.servers": env.bootstrap_servers,
        "target.cluster.bootstrap.servers": env.bootstrap_servers,
        "topics": topic, "replication.factor": "1", "offset-syncs.topic.replication.factor": "1",
        "sync.topic.acls.enabled": "false", "sync.topic.configs.enabled": "false",
        "refresh.topics.interval.seconds": "2",
        "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"})
    last = {p: max(r.offset for r in recs if r.partition == p) for p in range(3)}
    wait_offsets(connect, name, lambda d: {e.partition["partition"]: (e.offset or {}).get("offset")
                                           for e in d} == last, timeout=150)
    return name


def reset(connect, name: str) -> None:
    status, body = connect.put(connect.connector_path(name, "/stop"))
    assert status in (202, 204), body
    eventually(f"{name} STOPPED", lambda: (lambda s, b: s == 200 and b["connector"]["state"] == "STOPPED")(
        *connect.get(connect.connector_path(name, "/status"))), timeout=60)
    status, body = connect.delete(connect.connector_path(name, "/offsets"))
    assert status == 200, body


def computed(spark, source, names) -> topic.ConnectOffsets:
    return topic.connect_offsets(source, spark=lambda needs_kafka: spark, connectors=tuple(names))


@pytest.fixture
def created(connect):
    """Connector names to delete after the test. A MirrorSourceConnector left running on the shared worker would
    replicate every `heartbeats` topic of the broker into `east.heartbeats`, `east.east.heartbeats`, ... forever
    (source and target are one broker), so nothing outlives its test."""
    names: list[str] = []
    yield names
    for name in names:
        connect.delete(connect.connector_path(name))


def test_connect_offsets_equal_the_rest_api_before_and_after_a_reset(env, spark, connect, kafka_admin, live_orders,
                                                                     tmp_path, created, judge):
    names = created
    names += [file_source(connect, tmp_path, 30), file_source(connect, tmp_path, 7)]
    names.append(mirror_source(connect, env, kafka_admin, live_orders, created))
    live = LiveTopics(env.bootstrap_servers, (OFFSETS_TOPIC,))

    before = computed(spark, live, names)
    for name in names:
        assert before.connectors[name].same_offsets(rest_offsets(connect, name)), name
        assert len(before.connectors[name]) == len(rest_offsets(connect, name))

    ends = judge.end_offsets(OFFSETS_TOPIC, OFFSETS_PARTITIONS)
    for name in names[1:]:
        reset(connect, name)  # writes a tombstone per partition, synchronously: DELETE answers once they are in
    assert judge.end_offsets(OFFSETS_TOPIC, OFFSETS_PARTITIONS) != ends, "the reset wrote no tombstone"
    after = computed(spark, live, names)
    for name in names:
        expected = rest_offsets(connect, name)
        assert after.connectors[name].same_offsets(expected) and len(after.connectors[name]) == len(expected), name
    assert len(after.connectors[names[1]]) == 0 and len(after.connectors[names[-1]]) == 0
    assert len(after.connectors[names[0]]) == 1

    # History: every record, the tombstones included, oldest first per partition.
    history = list(topic.connect_history(live, spark=lambda needs_kafka: spark, connectors=(names[1],)))
    assert history[-1]["offset"] is None and any(h["offset"] is not None for h in history)

    # An archived copy of the offsets topic (JSON lines, text key/value) gives the same answer.
    copy = str(tmp_path / "offsets-archive")
    (spark.read.format("kafka").option("kafka.bootstrap.servers", env.bootstrap_servers)
     .option("subscribe", OFFSETS_TOPIC).load()
     .selectExpr("topic", "partition", "offset", "timestamp", "CAST(key AS STRING) AS key",
                 "CAST(value AS STRING) AS value").write.json(copy))
    archived = computed(spark, Archive(copy, "json"), names)
    for name in names:
        assert archived.connectors[name].same_offsets(after.connectors[name]), name
    schemas.validate("connect-offsets", after.to_json(), what="the export")
