"""Real topics for compute: records with known timestamps, keys, poison values and a tombstone (tests/integration/compute/
data.py), produced into the test Kafka with explicit partitions and timestamps, in a topic that never expires them
(retention.ms=-1: the timestamps are in the past, and default retention would delete them at once)."""
from __future__ import annotations

import pytest

from tests.env.clients import kafka_conf, unique_name
from . import data
from .session import make_spark


@pytest.fixture(scope="session")
def spark(env):
    session = make_spark()
    yield session
    session.stop()


def create_topic(admin, name: str, partitions: int) -> str:
    from confluent_kafka.admin import NewTopic

    topic = NewTopic(name, num_partitions=partitions, replication_factor=1, config={"retention.ms": "-1"})
    admin.create_topics([topic])[name].result(timeout=30)
    return name


def produce_records(bootstrap: str, recs) -> None:
    from confluent_kafka import Producer

    producer, errors = Producer(kafka_conf(bootstrap, **{"enable.idempotence": True})), []
    for r in recs:
        producer.produce(r.topic, key=r.key, value=r.value, partition=r.partition, timestamp=r.ts_ms,
                         on_delivery=lambda err, _m: errors.append(err) if err else None)
    assert producer.flush(30) == 0 and not errors, errors


@pytest.fixture(scope="session")
def live_orders(env, kafka_admin):
    """(topic, records as produced) — session scoped: producing and Spark startup are the slow parts."""
    topic = create_topic(kafka_admin, unique_name("orders"), 3)
    recs = data.records(topic=topic)
    produce_records(env.bootstrap_servers, recs)
    return topic, recs


@pytest.fixture(scope="session")
def recs():
    return data.records()


@pytest.fixture(scope="session")
def parquet_archive(recs, tmp_path_factory):
    return data.write_parquet(recs, str(tmp_path_factory.mktemp("archive") / "orders.parquet"))


@pytest.fixture(scope="session")
def json_archive(recs, tmp_path_factory):
    return data.write_json_lines(recs, str(tmp_path_factory.mktemp("archive-json") / "orders.json"))
