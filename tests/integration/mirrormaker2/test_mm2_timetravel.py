"""Time travel for a real MirrorSourceConnector: ``alter kmm2/NAME --connector source --to-datetime`` lands on the
records of that time (stored = last replicated, so resume at N stores N-1), and a partition whose records are all
older than the time resumes at its end: nothing of it is replicated again.

Own KafkaMirrorMaker2 (the era's layout, one mirror, one source connector) on a two-partition topic with chosen record
timestamps; the source cluster's address is taken from the mirror's spec (the default).
"""
from __future__ import annotations

import time
import uuid

import pytest

from tests.env.clients import create_topic, kafka_conf, one_mirror_mm2, producer_conf

from tests.waits import eventually

from .conftest import GROUP, PLURAL, PROFILE, SOURCE_CONFIG

VERSION = PROFILE.preferred_version


def partition_counts(bootstrap: str, topic: str) -> dict[int, int]:
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": f"r-{uuid.uuid4().hex[:6]}"}))
    try:
        counts = {}
        for p in (0, 1):
            try:
                low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=5)
            except KafkaException:
                low, high = 0, 0
            counts[p] = high - low
        return counts
    finally:
        consumer.close()


def partition_values(bootstrap: str, topic: str, partition: int, count: int) -> list[str]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": f"r-{uuid.uuid4().hex[:6]}",
                                                 "enable.auto.commit": False}))
    try:
        consumer.assign([TopicPartition(topic, partition, 0)])
        values, deadline = [], time.monotonic() + 30
        while len(values) < count and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and not msg.error():
                values.append(msg.value().decode())
        return values
    finally:
        consumer.close()


@pytest.fixture(scope="module")
def timed_mirror(env, kube_api, kafka_admin, judge):
    from confluent_kafka import Producer
    from kubernetes import client

    tag = uuid.uuid4().hex[:6]
    ns, name, src, tgt, topic = f"mm2-tt-{tag}", f"tt-{tag}", f"ttsrc{tag}", f"tttgt{tag}", f"ttorders-{tag}"
    core, custom = client.CoreV1Api(kube_api), client.CustomObjectsApi(kube_api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(
        name=ns, labels={"kubectl-offsets-test": "true"})))
    create_topic(kafka_admin, topic, partitions=2)
    t0 = (int(time.time()) - 3600) * 1000
    producer = Producer(producer_conf(env.bootstrap_servers))
    for i in range(6):
        producer.produce(topic, value=f"p0-{i}".encode(), partition=0, timestamp=t0 + i * 1000)
    for i in range(3):
        producer.produce(topic, value=f"p1-{i}".encode(), partition=1, timestamp=t0 - 600_000 + i * 1000)
    assert producer.flush(30) == 0
    producer = None
    mirror = {"sourceConnector": {"tasksMax": 1, "config": dict(SOURCE_CONFIG)}, "topicsPattern": f"^{topic}$"}
    custom.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL,
                                           one_mirror_mm2(name, src, tgt, env.bootstrap_servers, mirror))
    target_topic = f"{src}.{topic}"
    eventually("all 9 records replicated", lambda: partition_counts(env.bootstrap_servers, target_topic) == {0: 6, 1: 3},
             timeout=120)
    connector = f"{src}->{tgt}.MirrorSourceConnector"
    # the worker flushes source offsets periodically; time travel starts from what is stored
    stored_at(judge, connector, {0: 5, 1: 2}, "the replicated positions stored")
    yield {"ns": ns, "name": name, "src": src, "tgt": tgt, "topic": topic, "target_topic": target_topic, "t0": t0,
           "connector": connector}
    try:
        custom.delete_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, name)
    finally:
        core.delete_namespace(ns)


def stored_at(judge, connector: str, offsets: dict[int, int], what: str) -> None:
    """Until Connect stores ``offsets`` ({partition: last replicated offset}) for the MirrorSourceConnector."""
    judge.wait_stored(connector, lambda entries: {e["partition"]["partition"]: e["offset"]["offset"]
                                                  for e in entries if e.get("offset")} == offsets, what, timeout=120)


def test_mirror_source_time_travel_replicates_from_the_record_of_that_time(timed_mirror, cli, env, judge):
    m = timed_mirror
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((m["t0"] + 2500) / 1000)) + ".500Z"

    run = cli("alter", f"kmm2/{m['name']}", "-n", m["ns"], "--connector", "source", "--to-datetime", at, "--yes",
              "-o", "json").ok()

    assert "from the mirror's source cluster" in run.err
    assert "no record at or after the time: resumes at the end" in run.err
    import json

    stored = {e["partition"]["partition"]: e["offset"]["offset"] for e in json.loads(run.out)["offsets"]}
    assert stored == {0: 2, 1: 2}  # resume at 3 stores 2 (last replicated); partition 1 resumes at its end (3)
    # Replication goes on from record 3 of partition 0: p0-3..p0-5 arrive on the target a second time; nothing of
    # partition 1 does.
    eventually("p0-3..p0-5 replicated again", lambda: partition_counts(env.bootstrap_servers, m["target_topic"])[0] == 9,
             timeout=90)
    assert partition_values(env.bootstrap_servers, m["target_topic"], 0, 9)[6:] == ["p0-3", "p0-4", "p0-5"]
    # Stored at both ends again: everything it read since the alter is on the target, and no more can come.
    stored_at(judge, m["connector"], {0: 5, 1: 2}, "the ends stored again")
    assert partition_counts(env.bootstrap_servers, m["target_topic"]) == {0: 9, 1: 3}
