"""compute against a real topic: the broker's timestamp index and Spark scans, checked against the broker's own
offsets-for-times (a consumer, through confluent-kafka) and a plain-Python scan of the consumed records; the same
answers from archived Parquet and JSON copies written here from what was consumed."""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.adapters.spark.jobs import PoisonCriteria
from kubectl_offsets.adapters.spark.sources import Archive, LiveTopics
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets import times
from kubectl_offsets.core.compute import lag as lagging
from kubectl_offsets.core.compute import poison
from kubectl_offsets.core.compute import positions as c
from kubectl_offsets.errors import InputError
from kubectl_offsets.model import OffsetsDocument
from tests.env.clients import kafka_conf, unique_name
from . import data

pytestmark = pytest.mark.slow
SINK, MIRROR = ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE


def run(spark, source, operation, **kw):
    return c.compute(c.ComputeRequest(source, operation, **kw), spark=lambda needs_kafka: spark)


def resume_points(result) -> dict:
    points = c.resume_positions(result.kind, result.document)
    points.update({(e.partition["topic"], e.partition["partition"]): 0 for e in result.document if e.offset is None})
    return points


def broker_offsets_for_times(bootstrap: str, topic: str, partitions: int, at_ms: int) -> dict:
    """The independent answer: a consumer's offsetsForTimes; -1 (nothing that late) means the end offset."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": unique_name("oft")}))
    try:
        found = consumer.offsets_for_times([TopicPartition(topic, p, at_ms) for p in range(partitions)], timeout=30)
        out = {}
        for tp in found:
            end = consumer.get_watermark_offsets(TopicPartition(topic, tp.partition), timeout=30)[1]
            out[(topic, tp.partition)] = tp.offset if tp.offset >= 0 else end
        return out
    finally:
        consumer.close()


def consume_all(bootstrap: str, topic: str, expected: int) -> list[data.Rec]:
    """Every record of the topic as the broker returns it (timestamps, keys, values, offsets)."""
    from confluent_kafka import Consumer

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": unique_name("scan"), "auto.offset.reset": "earliest",
                                                 "enable.auto.commit": False}))
    consumer.subscribe([topic])
    got = []
    try:
        while len(got) < expected:
            msg = consumer.poll(10)
            assert msg is not None, f"only {len(got)} of {expected} records arrived"
            assert not msg.error(), msg.error()
            got.append(data.Rec(msg.topic(), msg.partition(), msg.offset(), msg.timestamp()[1], msg.key(),
                                msg.value()))
    finally:
        consumer.close()
    return got


AT_TIMES = [data.BASE_MS - 1, data.BASE_MS + 95_000, data.BASE_MS + 200_001, data.BASE_MS + 10**9]


@pytest.mark.parametrize("kind", [SINK, MIRROR])
def test_broker_index_equals_offsets_for_times(env, live_orders, kind):
    topic, recs = live_orders
    source = LiveTopics(env.bootstrap_servers, (topic,))
    for at in AT_TIMES:
        result = c.compute(c.ComputeRequest(source, c.Operation.TO_DATETIME, kind=kind, source_alias="east",
                                            at_ms=at), spark=_no_spark)
        assert result.method == "broker index"
        expected = broker_offsets_for_times(env.bootstrap_servers, topic, 3, at)
        assert resume_points(result) == expected == data.first_at_or_after(recs, at), at


def _no_spark(needs_kafka):
    raise AssertionError("a timestamp question on a live topic must not start Spark")


def test_spark_scan_of_the_live_topic_agrees_with_the_index(env, spark, live_orders):
    topic, _ = live_orders
    source = LiveTopics(env.bootstrap_servers, (topic,))
    for at in AT_TIMES[:3]:
        scanned = run(spark, source, c.Operation.TO_DATETIME, at_ms=at, scan=True, kind=MIRROR, source_alias="east")
        indexed = run(spark, source, c.Operation.TO_DATETIME, at_ms=at, kind=MIRROR, source_alias="east")
        assert scanned.method == "scan" and scanned.document.same_offsets(indexed.document)
        assert scanned.document.to_json() == indexed.document.to_json()


def test_earliest_latest_and_shift_from_the_broker(env, live_orders):
    topic, recs = live_orders
    source = LiveTopics(env.bootstrap_servers, (topic,))
    ends = {tp: rs[-1].offset + 1 for tp, rs in data.by_partition(recs).items()}
    assert resume_points(c.compute(c.ComputeRequest(source, c.Operation.TO_LATEST))) == ends
    early = c.compute(c.ComputeRequest(source, c.Operation.TO_EARLIEST, kind=MIRROR, source_alias="east"))
    assert [e.offset for e in early.document] == [None, None, None]  # resume at 0: MirrorSource reset
    current = _mirror_current(topic, {0: 9, 1: 38})  # last replicated 9 -> resumes at 10
    shifted = c.compute(c.ComputeRequest(source, c.Operation.SHIFT_BY, kind=MIRROR, source_alias="east",
                                         shift_by=5, current=current))
    assert resume_points(shifted) == {(topic, 0): 15, (topic, 1): 40}  # 39 + 5 is kept at the end, 40


def _mirror_current(topic: str, stored: dict) -> OffsetsDocument:
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"cluster": "east", "topic": topic, "partition": p}, "offset": {"offset": o}}
        for p, o in stored.items()]})


@pytest.mark.parametrize("kind", [SINK, MIRROR])
def test_skip_poison_live_then_the_same_from_parquet_and_json_copies(env, spark, live_orders, tmp_path, kind):
    topic, recs = live_orders
    consumed = consume_all(env.bootstrap_servers, topic, len(recs))
    current = _mirror_current(topic, {0: 13, 2: 0}) if kind is MIRROR else OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 14}},
        {"partition": {"kafka_topic": topic, "kafka_partition": 2}, "offset": {"kafka_offset": 1}}]})
    starts = {(topic, 0): 14, (topic, 2): 1}
    expected = data.past_first_poison(consumed, data.invalid_json, starts)
    criteria = PoisonCriteria(invalid_json=True)
    sources = [LiveTopics(env.bootstrap_servers, (topic,)),
               Archive(data.write_parquet(consumed, str(tmp_path / "copy.parquet")), "parquet"),
               Archive(data.write_json_lines(consumed, str(tmp_path / "copy.json")), "json")]
    for source in sources:
        result = run(spark, source, c.Operation.SKIP_POISON, kind=kind, source_alias="east", current=current,
                     poison=criteria)
        assert resume_points(result) == expected, source
        listed = [(r.partition, r.offset) for r in result.poison.records]
        assert listed == sorted((r.partition, r.offset) for r in consumed if data.invalid_json(r)
                                and r.offset >= starts.get((r.topic, r.partition), 0)), source


def test_find_and_where_on_the_live_topic(env, spark, live_orders):
    topic, recs = live_orders
    consumed = consume_all(env.bootstrap_servers, topic, len(recs))
    source = LiveTopics(env.bootstrap_servers, (topic,))
    found = run(spark, source, c.Operation.FIND, find="key = 'key-3' AND try_cast(get_json_object(value, '$.amount') AS DOUBLE) > 30")
    expected = data.first_match(consumed, lambda r: r.key == b"key-3" and (r.json_or_none() or {}).get("amount", 0)
                                > 30)
    assert resume_points(found) == expected
    with pytest.raises(InputError, match="a predicate failed on a record") as e:  # ANSI cast of '4.5' to bigint
        run(spark, source, c.Operation.FIND, find="get_json_object(value, '$.amount') > 30")
    assert "try_cast" in e.value.advice
    where = "get_json_object(value, '$.status') = 'cancelled'"
    skipped = run(spark, source, c.Operation.SKIP_POISON, poison=PoisonCriteria(where=where))
    cancelled = lambda r: (r.json_or_none() or {}).get("status") == "cancelled"  # noqa: E731
    assert resume_points(skipped) == data.past_first_poison(consumed, cancelled)


def test_lag_from_mirror_offsets_and_end_offsets(env, live_orders):
    topic, recs = live_orders
    now = 4_000_000_000_000  # a fixed "now", so the ages are exact
    rows = lagging.lag(MIRROR, _mirror_current(topic, {0: 9, 2: 39}), LiveTopics(env.bootstrap_servers, ()),
                 now_ms=lambda: now)
    document = lagging.lag_document(rows, lagging.LagThresholds(max_lag=35))
    by_partition = {r["partition"]: r for r in document["partitions"]}
    stamp = {(r.partition, r.offset): r.ts_ms for r in recs}
    p0, p1 = stamp[(0, 10)], stamp[(1, 0)]
    # The time lag is the age of the oldest record not yet replicated: record 10 of p0, record 0 of p1 (no offset).
    assert by_partition[0] == {"topic": topic, "partition": 0, "position": 10, "end": 40, "lag": 30,
                               "oldestPending": times.iso_ms(p0), "timeLagSeconds": (now - p0) / 1000, "status": "ok"}
    assert by_partition[1] == {"topic": topic, "partition": 1, "position": None, "end": 40, "lag": 40,
                               "oldestPending": times.iso_ms(p1), "timeLagSeconds": (now - p1) / 1000, "status": "ok"}
    assert by_partition[2]["lag"] == 0 and by_partition[2]["timeLagSeconds"] == 0 and document["totalLag"] == 70
    assert document["thresholds"]["exceeded"] == [{"topic": topic, "partition": 1, "reason": "lag"}]


def test_unreachable_broker_and_missing_topic(env):
    with pytest.raises(InputError, match="cannot get answers from the Kafka broker"):
        c.compute(c.ComputeRequest(LiveTopics("127.0.0.1:9", ("t",)), c.Operation.TO_LATEST), spark=_no_spark)
    with pytest.raises(InputError, match="does not exist") as e:
        c.compute(c.ComputeRequest(LiveTopics(env.bootstrap_servers, ("no-such-topic-here",)),
                                   c.Operation.TO_LATEST), spark=_no_spark)
    assert "existing topics" in e.value.advice


def test_cli_prints_the_document_alter_takes(env, live_orders):
    import subprocess
    import sys

    topic, recs = live_orders
    out = subprocess.run([sys.executable, "-m", "kubectl_offsets", "compute", "--bootstrap-server",
                          env.bootstrap_servers, "--topic", topic, "--to-datetime", data.iso(data.BASE_MS + 95_000),
                          "--for", "mirror-source", "--source-alias", "east", "-o", "json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert {e["partition"]["partition"]: e["offset"]["offset"] for e in document["offsets"]} == {0: 9, 1: 9, 2: 8}  # resume at 10, 10, 9
    assert "broker index" in out.stderr and "pyspark" not in out.stderr
    bad = subprocess.run([sys.executable, "-m", "kubectl_offsets", "compute", "--bootstrap-server",
                          env.bootstrap_servers, "--topic", topic, "--to-datetime", "yesterday"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not an ISO-8601 date-time" in bad.stderr


def _cli(*args):
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root

    return CliRunner().invoke(root, list(args))


def test_cli_skip_poison_report_and_lag(env, spark, live_orders, tmp_path):
    """In-process CLI (the fixture's SparkSession is reused): the report file validates, the stderr table lists
    the poison records, the document on stdout is the sink's; lag from a --current file."""
    from kubectl_offsets import schemas

    topic, recs = live_orders
    current = tmp_path / "current.json"
    current.write_text(json.dumps({"offsets": [
        {"partition": {"kafka_topic": topic, "kafka_partition": p}, "offset": {"kafka_offset": 30}}
        for p in range(3)]}))
    report = tmp_path / "poison.json"
    result = _cli("compute", "--bootstrap-server", env.bootstrap_servers, "--skip-poison", "--invalid", "json",
                  "--current", str(current), "--report", str(report), "--master", "local[2]", "-o", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    expected = data.past_first_poison(recs, data.invalid_json, {(topic, p): 30 for p in range(3)})
    assert {e["partition"]["kafka_partition"]: e["offset"]["kafka_offset"] for e in document["offsets"]} == \
        {p: o for (_, p), o in expected.items()}
    saved = json.loads(report.read_text())
    schemas.validate("poison-report", saved, what="report")
    assert saved["total"] == sum(1 for r in recs if r.offset >= 30 and data.invalid_json(r))
    assert "REASON" in result.stderr and "value is not valid JSON" in result.stderr

    lag = _cli("lag", "kafkaconnector/my-sink", "--bootstrap-server", env.bootstrap_servers, "--current",
               str(current), "-o", "json")
    assert lag.exit_code == 0, lag.stderr
    assert json.loads(lag.stdout)["totalLag"] == 3 * (40 - 30)


def test_cli_connect_offsets_single_connector_is_a_plain_document(env, spark, connect, tmp_path):
    from .test_connect_offsets import file_source, rest_offsets

    name = file_source(connect, tmp_path, 5)
    try:
        _check_cli_connect_offsets(env, connect, name, rest_offsets)
    finally:
        connect.delete(connect.connector_path(name))


def _check_cli_connect_offsets(env, connect, name, rest_offsets):
    result = _cli("compute", "connect-offsets", "--bootstrap-server", env.bootstrap_servers, "--connectors", name,
                  "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert OffsetsDocument.from_json(json.loads(result.stdout)).same_offsets(rest_offsets(connect, name))
    table = _cli("compute", "connect-offsets", "--bootstrap-server", env.bootstrap_servers, "--connectors",
                 f"{name},other", "--from-beginning", "-o", "csv")
    assert table.exit_code == 0, table.stderr
    assert table.stdout.splitlines()[0] == "connector,partition,offset,topicPartition,topicOffset,timestamp"
    assert all(line.startswith(name + ",") for line in table.stdout.splitlines()[1:])


def test_a_live_poison_scan_stops_reading_a_partition_after_its_first_poison(env, spark, live_orders):
    """Windows of 4 records, then 16: partition 0 (from 14) is answered by its first window, 1 (from 0) and 2
    (from 1) by their second; nothing after those windows is read. --count-all reads to the end: the same
    answers, every poison record counted."""
    from kubectl_offsets import schemas

    topic, recs = live_orders
    starts = {(topic, 0): 14, (topic, 2): 1}
    current = OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": t, "kafka_partition": p}, "offset": {"kafka_offset": o}}
        for (t, p), o in starts.items()]})
    source, criteria = LiveTopics(env.bootstrap_servers, (topic,)), PoisonCriteria(invalid_json=True)
    windowed = run(spark, source, c.Operation.SKIP_POISON, current=current, poison=criteria, poison_window=4)
    full = run(spark, source, c.Operation.SKIP_POISON, current=current, poison=criteria, count_all=True)
    expected = data.past_first_poison(recs, data.invalid_json, starts)
    assert resume_points(windowed) == resume_points(full) == expected
    until = {(topic, 0): 18, (topic, 1): 20, (topic, 2): 21}
    assert windowed.poison.scanned_until == until and full.poison.complete
    in_windows = [r for r in recs if data.invalid_json(r)
                  and starts.get((r.topic, r.partition), 0) <= r.offset < until[(r.topic, r.partition)]]
    assert [(r.partition, r.offset) for r in windowed.poison.records] == [(r.partition, r.offset) for r in in_windows]
    assert windowed.poison.total == len(in_windows) < full.poison.total
    report = poison.poison_report(windowed.poison, criteria)
    schemas.validate("poison-report", report, what="report")
    assert report["complete"] is False and {p["partition"]: p["scannedUntil"] for p in report["partitions"]} == \
        {p: o for (_, p), o in until.items()}
    assert "read up to offset 18" in windowed.positions[0].basis
