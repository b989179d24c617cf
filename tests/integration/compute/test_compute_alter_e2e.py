"""compute -> alter -f on the real stack: the document computed for a KafkaConnector (read with --target through
the session's operator) makes the real FileStreamSink resume at the intended record, proven by its output file and
its consumer group (tests/judges.py)."""
from __future__ import annotations

import json

import pytest

from tests.env.clients import for_one_broker, producer_conf
from tests.env.kind.shared import KAFKA_CONNECT_READY_TIMEOUT
from tests.integration.online.conftest import eventually
from . import data

pytestmark = pytest.mark.slow


def _produce_timed(env, topic: str, count: int, base_ms: int) -> None:
    from confluent_kafka import Producer

    producer = Producer(producer_conf(env.bootstrap_servers))
    for i in range(count):
        producer.produce(topic, value=f"r{i}".encode(), partition=0, timestamp=base_ms + i * 10_000)
    assert producer.flush(30) == 0


def _compute_and_alter(cli, conn, tmp_path, *flags: str) -> dict:
    result = cli("compute", "--target", conn.name, "-n", conn.ns, *flags, "-o", "json")
    assert result.exit_code == 0, str(result)
    document = json.loads(result.stdout)
    path = tmp_path / "computed.json"
    path.write_text(result.stdout)
    altered = cli("alter", conn.name, "-n", conn.ns, "-f", str(path), "--yes")
    assert altered.exit_code == 0, str(altered)
    return document


def test_computed_offsets_make_the_real_sink_resume_at_the_intended_record(env, spark, lab, cli, tmp_path):
    base = data.recent_base_ms()  # the topic keeps the broker's default retention
    # A static topic: the computed document is compared whole, record for record (compute over a topic that keeps
    # receiving records is test_compute_live.py; alters beside live partitions, tests/integration/online).
    conn = lab.sink("compute-e2e", records=0, live=False)
    _produce_timed(env, conn.topic, 12, base)
    lines = [f"r{i}" for i in range(12)]
    eventually("the sink wrote r0..r11", lambda: conn.file_lines() == lines or None)
    lab.judge.wait_sink_offsets(conn.name, {0: 12})

    # 1. A point in time, answered by the broker's index: resume at r6 (the first record at or after +55 s).
    document = _compute_and_alter(cli, conn, tmp_path, "--bootstrap-server", env.bootstrap_servers,
                                  "--to-datetime", data.iso(base + 55_000))
    assert document == {"offsets": [{"partition": {"kafka_topic": conn.topic, "kafka_partition": 0},
                                     "offset": {"kafka_offset": 6}}]}
    lines += [f"r{i}" for i in range(6, 12)]
    lab.judge.wait_sink_offsets(conn.name, {0: 12})  # verified at 6 by the alter: r6..r11 came again since
    assert conn.file_lines() == lines

    # 2. Content, answered by a Spark scan of the live topic: resume at the first record whose value is r9.
    document = _compute_and_alter(cli, conn, tmp_path, "--bootstrap-server", env.bootstrap_servers,
                                  "--find", "value = 'r9'", "--scan")
    assert document["offsets"][0]["offset"] == {"kafka_offset": 9}
    lines += ["r9", "r10", "r11"]
    eventually("r9..r11 written again", lambda: conn.file_lines() == lines or None)


def _mm2(ns: str, name: str, src: str, tgt: str, bootstrap: str, topic: str) -> dict:
    """A v1 KafkaMirrorMaker2 whose source and target are the one test broker (tests/integration/env layout)."""
    mirror = {"source": {"alias": src, "bootstrapServers": bootstrap},
              "sourceConnector": {"tasksMax": 1, "config": {"refresh.topics.interval.seconds": 2,
                                                             "sync.topic.configs.enabled": False}},
              "topicsPattern": f"^{topic}$", "groupsPattern": "^none$"}
    # for_one_broker: Connect's and MirrorMaker 2's topics default to replication factor 3, which the one broker
    # refuses; with Strimzi's real operator the mirror's own worker would exit and never replicate.
    return for_one_broker(
        {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaMirrorMaker2", "metadata": {"name": name, "namespace": ns},
         "spec": {"replicas": 1, "mirrors": [mirror],
                  "target": {"alias": tgt, "bootstrapServers": bootstrap, "groupId": f"{name}-g",
                             "configStorageTopic": f"{name}-c", "statusStorageTopic": f"{name}-s",
                             "offsetStorageTopic": f"{name}-o"}}})


def _values(env, topic: str, at_least: int) -> list[str]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": env.bootstrap_servers, "group.id": f"read-{topic}",
                         "enable.auto.commit": False, "log_level": 3})
    try:
        def enough():
            try:
                low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=5)
            except Exception:  # the replicated topic may not exist yet
                return None
            return high if high - low >= at_least else None
        high = eventually(f"{at_least} records in {topic}", enough, timeout=150, interval=1.0)
        consumer.assign([TopicPartition(topic, 0, 0)])
        values = []
        while len(values) < high:
            msg = consumer.poll(5)
            assert msg is not None, f"{topic}: {len(values)} of {high}"
            values.append(msg.value().decode())
        return values
    finally:
        consumer.close()


def test_computed_offsets_make_real_mirrormaker2_resume_at_the_intended_record(env, lab, cli, tmp_path):
    """MirrorSourceConnector stores the last replicated record: the computed document stores N-1 so that
    replication restarts at record N (r6), proven by the records appearing again in the target topic."""
    from tests.env.clients import create_topic, unique_name

    base = data.recent_base_ms()  # the source and the replicated topic keep the broker's default retention
    suffix = unique_name("x")[-6:]
    src, tgt, name = f"east{suffix}", f"west{suffix}", unique_name("mirror")
    topic = create_topic(lab.admin, unique_name("mm2-in"))
    _produce_timed(env, topic, 12, base)
    lab.cluster.custom.create_namespaced_custom_object("kafka.strimzi.io", "v1", lab.ns, "kafkamirrormaker2s",
                                                       _mm2(lab.ns, name, src, tgt, env.bootstrap_servers, topic))
    try:
        _mirror_resumes_at_the_computed_record(env, lab, cli, tmp_path, name, src, topic, base)
    finally:
        _remove_mirror(env, lab, name, src)


def _remove_mirror(env, lab, name: str, src: str) -> None:
    """A mirror left running on the shared worker would replicate every `heartbeats` topic into
    `east.heartbeats`, `east.east.heartbeats`, ... (source and target are one broker): delete the resource and,
    in case the operator does not get to it, its connectors."""
    from tests.env.clients import ConnectRest

    lab.cluster.custom.delete_namespaced_custom_object("kafka.strimzi.io", "v1", lab.ns, "kafkamirrormaker2s", name)
    rest = ConnectRest(env.connect_url)
    _, names = rest.get("/connectors")
    for connector in names or []:
        if connector.startswith(f"{src}->"):
            rest.delete(rest.connector_path(connector))


def _mirror_resumes_at_the_computed_record(env, lab, cli, tmp_path, name, src, topic, base) -> None:
    replicated = f"{src}.{topic}"  # DefaultReplicationPolicy
    assert _values(env, replicated, 12) == [f"r{i}" for i in range(12)]
    # Records flow as soon as Connect runs the connector; the operator's status for it can come later (the real
    # cadence), and until then the plugin rightly refuses ("has not reported a status yet").
    eventually("the operator's status for the mirror's source connector", lambda: any(
        (c.get("connector") or {}).get("state") == "RUNNING" and c.get("name", "").startswith(f"{src}->")
        for c in (lab.cluster.custom.get_namespaced_custom_object(
            "kafka.strimzi.io", "v1", lab.ns, "kafkamirrormaker2s", name).get("status") or {}).get("connectors") or []),
        timeout=KAFKA_CONNECT_READY_TIMEOUT, interval=1.0)  # a new KafkaMirrorMaker2: its own worker starts first

    target = f"kafkamirrormaker2/{name}"

    connector = next(c["name"] for c in (lab.cluster.custom.get_namespaced_custom_object(
        "kafka.strimzi.io", "v1", lab.ns, "kafkamirrormaker2s", name).get("status") or {}).get("connectors") or []
        if c["name"].startswith(f"{src}->") and c["name"].endswith(".MirrorSourceConnector"))
    # Connect flushes source offsets about once a second
    lab.judge.wait_stored(connector, lambda entries: [e["offset"] for e in entries] == [{"offset": 11}],
                          "offset 11")
    lag = cli("lag", target, "--connector", "source", "-n", lab.ns, "--bootstrap-server", env.bootstrap_servers,
              "-o", "json")
    assert lag.exit_code == 0, str(lag)
    measured = json.loads(lag.stdout)
    assert measured.pop("measuredAt").endswith("Z")
    assert measured == {"partitions": [{"topic": topic, "partition": 0, "position": 12, "end": 12, "lag": 0,
                                        "oldestPending": None, "timeLagSeconds": 0.0, "status": "ok"}],  # stored 11 = resumes at 12
                        "totalLag": 0, "maxTimeLagSeconds": 0.0,
                        "thresholds": {"maxLag": None, "maxAgeSeconds": None, "exceeded": []}}
    result = cli("compute", "--target", target, "--connector", "source", "-n", lab.ns, "--bootstrap-server",
                 env.bootstrap_servers, "--to-datetime", data.iso(base + 55_000), "-o", "json")
    assert result.exit_code == 0, str(result)
    assert json.loads(result.stdout) == {"offsets": [{"partition": {"cluster": src, "topic": topic, "partition": 0},
                                                      "offset": {"offset": 5}}]}  # resume at r6 = stored 5
    path = tmp_path / "mm2.json"
    path.write_text(result.stdout)
    altered = cli("alter", target, "--connector", "source", "-n", lab.ns, "-f", str(path), "--yes")
    assert altered.exit_code == 0, str(altered)
    assert _values(env, replicated, 18)[12:] == [f"r{i}" for i in range(6, 12)]
