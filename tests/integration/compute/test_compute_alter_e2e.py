"""compute -> alter -f on the real stack: the document computed for a KafkaConnector (read with --target through
the Strimzi emulator) makes the real FileStreamSink resume at the intended record, proven by its output file."""
from __future__ import annotations

import json

import pytest

from tests.integration.online.conftest import (_local_backups, cli, cluster, eventually, lab)  # noqa: F401 (fixtures)
from tests.unit.compute import data

pytestmark = pytest.mark.slow


def _produce_timed(env, topic: str, count: int, base_ms: int) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": env.bootstrap_servers, "log_level": 3})
    for i in range(count):
        producer.produce(topic, value=f"r{i}".encode(), partition=0, timestamp=base_ms + i * 10_000)
    assert producer.flush(30) == 0


def _committed(cli, conn) -> int | None:
    result = cli("list", conn.name, "-n", conn.ns, "-o", "json", "-q")
    offsets = json.loads(result.stdout)["offsets"] if result.exit_code == 0 else []
    return offsets[0]["offset"]["kafka_offset"] if offsets else None


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
    base = data.BASE_MS + 3_600_000 * 24 * 300  # recent enough for the broker's default retention
    conn = lab.sink("compute-e2e", records=0)
    _produce_timed(env, conn.topic, 12, base)
    lines = [f"r{i}" for i in range(12)]
    eventually("the sink wrote r0..r11", lambda: conn.file_lines() == lines or None)
    eventually("the sink committed 12", lambda: _committed(cli, conn) == 12, timeout=60, interval=1.0)

    # 1. A point in time, answered by the broker's index: resume at r6 (the first record at or after +55 s).
    document = _compute_and_alter(cli, conn, tmp_path, "--bootstrap-server", env.bootstrap_servers,
                                  "--to-datetime", data.iso(base + 55_000))
    assert document == {"offsets": [{"partition": {"kafka_topic": conn.topic, "kafka_partition": 0},
                                     "offset": {"kafka_offset": 6}}]}
    lines += [f"r{i}" for i in range(6, 12)]
    eventually("r6..r11 written again", lambda: conn.file_lines() == lines or None)
    eventually("the sink committed 12", lambda: _committed(cli, conn) == 12, timeout=60, interval=1.0)

    # 2. Content, answered by a Spark scan of the live topic: resume at the first record whose value is r9.
    document = _compute_and_alter(cli, conn, tmp_path, "--bootstrap-server", env.bootstrap_servers,
                                  "--find", "value = 'r9'", "--scan")
    assert document["offsets"][0]["offset"] == {"kafka_offset": 9}
    lines += ["r9", "r10", "r11"]
    eventually("r9..r11 written again", lambda: conn.file_lines() == lines or None)
