"""Real topics for compute: records with known timestamps, keys, poison values and a tombstone (tests/integration/compute/
data.py), produced into the test Kafka with explicit partitions and timestamps, in a topic that never expires them
(retention.ms=-1: the timestamps are in the past, and default retention would delete them at once)."""
from __future__ import annotations

from typing import Iterator

import pytest

from tests.env.clients import producer_conf, unique_name
from tests.integration.online.conftest import Cli, Cluster, local_backups_in_tmp, module_lab
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

    producer, errors = Producer(producer_conf(bootstrap)), []
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


@pytest.fixture(scope="session")
def spark_cluster(env):
    """spark://127.0.0.1:PORT of a standalone master with two workers (tests/env/spark.py). The one of an
    environment started with `python -m tests.env up --spark-cluster` when there is one; otherwise started here,
    once per session, only when a test asks for it, and stopped at the end. A cluster that does not start is an
    error (ComponentError with the daemons' log tails), never a skip."""
    if env.spark_master_url:
        yield env.spark_master_url  # env's own check_alive covers its daemons before every test
        return
    import dataclasses
    import tempfile
    from pathlib import Path

    from tests.env.environment import stop_all
    from tests.env.spark import start_cluster

    run_dir = Path(tempfile.mkdtemp(prefix="spark-cluster-", dir=env.run_dir))
    for sub in ("logs", "config", "data"):
        (run_dir / sub).mkdir()
    cluster = start_cluster(run_dir)
    # A watchdog of its own (an env.json in the cluster's dir): a killed pytest must not leak three JVMs.
    guard = dataclasses.replace(env, run_dir=str(run_dir), processes=dict(cluster.processes))
    guard.save()
    guard.start_reaper()
    try:
        yield cluster.master_url
    finally:
        stop_all(cluster.processes)


# ---- the online plugin against a KafkaConnect (compute -> alter -f end to end) -----------------------------------

@pytest.fixture(scope="session")
def cluster(kube_api) -> Cluster:
    return Cluster(kube_api)


@pytest.fixture(scope="session")
def cli(env, tmp_path_factory) -> Iterator[Cli]:
    """The plugin's CLI in-process; the local backup copies its alters take go to a temporary directory."""
    with local_backups_in_tmp(tmp_path_factory):
        yield Cli(env.kubeconfig)


@pytest.fixture(scope="module")
def lab(env, cluster, kafka_admin, tmp_path_factory, request):
    """A namespace + KafkaConnect for the module, with real FileStream connectors (tests/integration/online)."""
    with module_lab(env, cluster, kafka_admin, tmp_path_factory, request) as made:
        yield made
