"""compute without Spark or Kafka: parsing, connector semantics, the broker-index path with a fake broker, the
Connect offsets replay, reports and their schemas, the CLI's input checks, missing extras, lazy imports."""
from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest
from click.testing import CliRunner

from kubectl_offsets import schemas
from kubectl_offsets.adapters.spark.jobs import ConnectRecord, PoisonCriteria, PoisonScan, Record
from kubectl_offsets.adapters.spark.sources import Archive, LiveTopics
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets import times
from kubectl_offsets.core.compute import lag as lagging
from kubectl_offsets.core.compute import offsets_topic as topic
from kubectl_offsets.core.compute import poison
from kubectl_offsets.core.compute import positions as c
from kubectl_offsets.errors import InputError, MissingExtraError
from kubectl_offsets.model import OffsetsDocument

SINK, MIRROR = ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE


# --- parsing ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("2026-11-21T09:00:00Z", 1795251600000), ("2026-11-21T10:00:00+01:00", 1795251600000),
    ("2026-11-21T09:00:00", 1795251600000), ("2026-11-21T09:00:00.250Z", 1795251600250)])
def test_datetimes_are_utc_unless_they_say_otherwise(text, expected):
    assert times.parse_datetime(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "21/11/2026", "", "2026-13-01T00:00:00Z"])
def test_unparsable_datetime(text):
    with pytest.raises(InputError, match="not an ISO-8601 date-time"):
        times.parse_datetime(text)


@pytest.mark.parametrize("text,seconds", [("PT30M", 1800), ("P1DT12H", 129600), ("PT1H30M15S", 5415),
                                          ("P2D", 172800), ("pt5m", 300)])
def test_durations(text, seconds):
    assert times.parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["P", "PT", "30x", "P1H", "-PT1M"])
def test_bad_durations(text):
    with pytest.raises(InputError, match="is not a duration"):
        times.parse_duration(text)


def test_by_duration_counts_back_from_now():
    now = dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc)
    assert times.at_for_duration("PT3H", now) == times.parse_datetime("2026-11-21T09:00:00Z")


# --- connector semantics ------------------------------------------------------------------------------------------

def sink_doc(**stored):
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": "t", "kafka_partition": int(p[1:])}, "offset": {"kafka_offset": o}}
        for p, o in stored.items()]})


def mirror_doc(**stored):
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"cluster": "east", "topic": "t", "partition": int(p[1:])},
         "offset": None if o is None else {"offset": o}} for p, o in stored.items()]})


def test_kind_and_alias_from_a_document():
    assert c.kind_of_document(sink_doc(p0=1)) is SINK
    assert c.kind_of_document(mirror_doc(p0=1)) is MIRROR and c.alias_of_document(mirror_doc(p0=1)) == "east"
    assert c.kind_of_document(OffsetsDocument()) is None


def test_resume_positions_follow_what_each_kind_stores():
    assert c.resume_positions(SINK, sink_doc(p0=5)) == {("t", 0): 5}
    assert c.resume_positions(MIRROR, mirror_doc(p0=5, p1=None)) == {("t", 0): 6}  # null: no position


class FakeBroker:
    """Answers like a broker whose partitions hold offsets [10, 50) with record i at time 1000*i."""

    def __init__(self, *args):
        pass

    def partitions(self, topics):
        return {t: [0, 1] for t in topics}

    def existing_partitions(self, topics):
        return {t: None if t.startswith("gone") else [0, 1] for t in topics}

    def earliest(self, tps):
        return {tp: 10 for tp in tps}

    def end(self, tps):
        return {tp: 50 for tp in tps}

    def offsets_for_time(self, tps, ts_ms):
        offset = -(-ts_ms // 1000)
        return {tp: (max(offset, 10) if offset < 50 else None) for tp in tps}

    def timestamps_at(self, positions):
        return {tp: 1000 * offset for tp, offset in positions.items()}


def broker_compute(operation, **kw):
    def no_spark(_):
        raise AssertionError("no Spark for a content-blind question on a live topic")
    return c.compute(c.ComputeRequest(LiveTopics("b:9092", ("t",)), operation, **kw), spark=no_spark,
                     broker=FakeBroker)


def test_broker_index_path_for_sink_and_mirror():
    sink = broker_compute(c.Operation.TO_DATETIME, at_ms=20_500)
    assert sink.method == "broker index" and c.resume_positions(SINK, sink.document) == {("t", 0): 21, ("t", 1): 21}
    mirror = broker_compute(c.Operation.TO_DATETIME, at_ms=20_500, kind=MIRROR, source_alias="east")
    assert [e.offset for e in mirror.document] == [{"offset": 20}, {"offset": 20}]  # resume at 21 = stored 20
    late = broker_compute(c.Operation.TO_DATETIME, at_ms=99_000)
    assert c.resume_positions(SINK, late.document) == {("t", 0): 50, ("t", 1): 50}


def test_shift_by_is_kept_within_the_log():
    result = broker_compute(c.Operation.SHIFT_BY, shift_by=-30, current=sink_doc(p0=25, p1=45))
    assert c.resume_positions(SINK, result.document) == {("t", 0): 10, ("t", 1): 15}
    assert "kept within [10, 50]" in result.positions[0].basis
    with pytest.raises(InputError, match="--shift-by moves the connector's current offsets"):
        broker_compute(c.Operation.SHIFT_BY, shift_by=1)


def test_mirror_needs_an_alias_and_other_kinds_are_refused():
    with pytest.raises(InputError, match="name the source cluster"):
        broker_compute(c.Operation.TO_LATEST, kind=MIRROR)
    with pytest.raises(InputError, match="topic-partition offsets"):
        broker_compute(c.Operation.TO_LATEST, kind=ConnectorKind.FILE_SOURCE)


def test_lag_counts_from_the_resume_position_or_the_log_start():
    rows = lagging.lag(MIRROR, mirror_doc(p0=19), LiveTopics("b:9092", ()), broker=FakeBroker, now_ms=lambda: 60_000)
    assert [(r.partition, r.position, r.lag) for r in rows] == [(0, 20, 30), (1, None, 40)]
    # the oldest pending record: 20 (resume position) and 10 (log start), stamped 1000 ms per offset
    assert [r.time_lag_s for r in rows] == [40.0, 50.0]
    document = lagging.lag_document(rows)
    assert document["totalLag"] == 70 and document["maxTimeLagSeconds"] == 50.0
    assert document["thresholds"]["exceeded"] == []


def test_lag_measures_the_topics_that_exist():
    rows = lagging.lag(MIRROR, mirror_doc(p0=19), LiveTopics("b:9092", ("gone-topic",)), broker=FakeBroker)
    assert {r.topic for r in rows} == {"t"}
    with pytest.raises(InputError, match="none of the topics exists"):
        lagging.lag(MIRROR, OffsetsDocument(), LiveTopics("b:9092", ("gone-topic",)), broker=FakeBroker)


def test_lag_thresholds_name_the_partitions_over_them():
    rows = lagging.lag(MIRROR, mirror_doc(p0=19), LiveTopics("b:9092", ()), broker=FakeBroker, now_ms=lambda: 60_000)
    at_limit = lagging.LagThresholds(max_lag=40, max_age_s=50)
    assert at_limit.exceeded(rows) == []  # "more than N": equal passes
    over = lagging.LagThresholds(max_lag=35, max_age_s=45).exceeded(rows)
    assert over == [{"topic": "t", "partition": 1, "reason": "lag"}, {"topic": "t", "partition": 1, "reason": "age"}]
    unreadable = [lagging.LagRow("t", 0, 5, 9, 4, None, None)]  # a pending record whose age could not be read
    assert lagging.LagThresholds(max_age_s=3600).exceeded(unreadable) == [{"topic": "t", "partition": 0, "reason": "age"}]
    assert lagging.LagThresholds(max_lag=10).exceeded(unreadable) == []


def mirror_entries(stored: dict[tuple[str, int], int]) -> OffsetsDocument:
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"cluster": "east", "topic": t, "partition": p}, "offset": {"offset": o}}
        for (t, p), o in stored.items()]})


def test_lag_reports_partitions_ahead_of_the_log_and_partitions_that_are_gone():
    # t:0 resumes at 61, past the log end 50 (topic recreated or truncated); t:7 and gone-topic:0 do not exist.
    current = mirror_entries({("t", 0): 60, ("t", 1): 19, ("t", 7): 3, ("gone-topic", 0): 5})
    rows = lagging.lag(MIRROR, current, LiveTopics("b:9092", ()), broker=FakeBroker, now_ms=lambda: 60_000)
    by = {(r.topic, r.partition): r for r in rows}
    assert by[("t", 0)].status == "ahead" and by[("t", 0)].lag == 0 and by[("t", 0)].end == 50
    assert by[("t", 1)].status == "ok" and by[("t", 1)].lag == 30
    assert by[("t", 7)].status == "missing" and by[("t", 7)].end is None and by[("t", 7)].position == 4
    assert by[("gone-topic", 0)].status == "missing"
    document = lagging.lag_document(rows)  # no gate asked: a report, valid against its schema
    assert {(p["topic"], p["partition"]): p["status"] for p in document["partitions"]}[("t", 7)] == "missing"
    assert document["thresholds"]["exceeded"] == []


@pytest.mark.parametrize("thresholds", [lagging.LagThresholds(max_lag=1000), lagging.LagThresholds(max_age_s=3600)])
def test_a_lag_gate_fails_closed_on_partitions_it_cannot_measure(thresholds):
    from kubectl_offsets.core.compute.request import gate
    from kubectl_offsets.errors import CheckFailedError, ExitStatus

    current = mirror_entries({("t", 0): 60, ("t", 1): 19, ("gone-topic", 0): 5})
    rows = lagging.lag(MIRROR, current, LiveTopics("b:9092", ()), broker=FakeBroker, now_ms=lambda: 60_000)
    document = lagging.lag_document(rows, thresholds)
    assert document["thresholds"]["exceeded"] == [
        {"topic": "gone-topic", "partition": 0, "reason": "missing"}, {"topic": "t", "partition": 0, "reason": "ahead"}]
    with pytest.raises(CheckFailedError) as failed:
        gate(document)
    assert failed.value.exit_status == ExitStatus.CHECK_FAILED
    assert "t:0 (ahead: resumes at 61, past the log end 50)" in failed.value.message
    assert "gone-topic:0 (missing: the partition does not exist)" in failed.value.message
    assert "kubectl offsets check" in (failed.value.advice or "")


# --- Connect's offsets topic ---------------------------------------------------------------------------------------

def rec(key, value, offset, ts=0, partition=0):
    return ConnectRecord(key, value, partition, offset, ts)


def test_replay_keeps_the_latest_value_and_drops_tombstones():
    records = [rec('["a",{"filename":"/f"}]', '{"position":10}', 0, 1),
               rec('["a",{"filename":"/g"}]', '{"position":3}', 1, 2),
               rec('["a",{"filename":"/g"}]', None, 2, 3),  # reset of /g
               rec('["b",{"cluster":"e","topic":"t","partition":0}]', '{"offset":41}', 3, 4),
               rec('not json', '{"x":1}', 4, 5), rec('["c"]', '{"x":1}', 5, 6), rec('[1,{}]', '{"x":1}', 6, 7)]
    result = topic._replay(records)
    assert result.ignored_keys == 3
    assert result.connectors["a"].to_json() == {"offsets": [{"partition": {"filename": "/f"},
                                                             "offset": {"position": 10}}]}
    assert result.connectors["b"].to_json()["offsets"][0]["offset"] == {"offset": 41}
    schemas.validate("connect-offsets", result.to_json(), what="export")


def test_connect_keys():
    assert topic.parse_connect_key('["my-src",{"filename":"/x"}]') == ("my-src", {"filename": "/x"})
    assert topic.parse_connect_key(None) is None and topic.parse_connect_key('{"a":1}') is None


# --- reports -------------------------------------------------------------------------------------------------------

def test_poison_report_validates_and_says_when_it_is_truncated():
    scan = PoisonScan(first={("t", 0): 5}, counts={("t", 0): 3},
                      records=[Record("t", 0, 5, 1_763_712_000_000, "value is not valid JSON")], total=3)
    report = poison.poison_report(scan, PoisonCriteria(invalid_json=True, where="key = 'x'"))
    assert report["truncated"] and report["total"] == 3
    assert report["records"][0]["timestamp"] == "2025-11-21T08:00:00.000Z"
    assert report["criteria"] == ["--where key = 'x'", "--invalid json"]


def test_schema_violation_messages():
    from kubectl_offsets.adapters.spark.jobs import schema_violation

    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    assert schema_violation(schema, "s.json", '{"id": 1}') is None
    assert schema_violation(schema, "s.json", None) is None  # a tombstone is not poison
    assert schema_violation(schema, "s.json", "{x") == "value is not valid JSON"
    assert schema_violation(schema, "s.json", '{"id": "1"}') == "does not match s.json: at $.id: '1' is not of " \
                                                                 "type 'integer'"


# --- CLI input checks (no Spark, no Kafka) ------------------------------------------------------------------------

def cli(*args):
    from kubectl_offsets.cli.root import root

    return CliRunner().invoke(root, ["compute", *args])


@pytest.mark.parametrize("args,message", [
    ([], "choose exactly one of"),
    (["--data", "x", "--to-latest", "--to-earliest"], "got --to-earliest, --to-latest"),
    (["--data", "x", "--to-latest", "--where", "a = 1"], "go with --skip-poison"),
    (["--data", "x", "--skip-poison"], "needs to know what a poison record is"),
    (["--to-latest"], "either --bootstrap-server"),
    (["--data", "x", "--bootstrap-server", "b:1", "--to-latest"], "either --bootstrap-server"),
    (["--bootstrap-server", "b:1", "--to-latest"], "which topic?"),
    (["--bootstrap-server", "b:1", "--topic", "t", "--column", "offset=o", "--to-latest"], "describe --data"),
    (["--data", "x", "--to-datetime", "noon"], "not an ISO-8601 date-time"),
    (["--data", "x", "--by-duration", "2 hours"], "--by-duration '2 hours' is not a duration"),
    (["--data", "x", "--to-latest", "--target", "s", "--current", "f"], "choose one"),
    (["--data", "x", "--skip-poison", "--invalid-against", "/nonexistent.json"], "--invalid-against"),
])
def test_cli_input_errors(args, message):
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_cli_for_contradicting_current(tmp_path):
    path = tmp_path / "now.json"
    path.write_text(sink_doc(p0=3).dumps())
    result = cli("--data", "x", "--to-latest", "--current", str(path), "--for", "mirror-source")
    assert result.exit_code == 2 and "are a sink connector's" in result.stderr


def test_kafka_option_needs_key_value():
    result = cli("--bootstrap-server", "b:1", "--topic", "t", "--kafka-option", "oops", "--to-latest")
    assert result.exit_code == 2 and "is not KEY=VALUE" in result.stderr


# --- extras and imports --------------------------------------------------------------------------------------------

def test_missing_pyspark_is_a_missing_extra(monkeypatch):
    from kubectl_offsets.adapters.spark import session

    monkeypatch.setitem(sys.modules, "pyspark", None)
    with pytest.raises(MissingExtraError, match="'spark' extra") as e:
        session.require_pyspark()
    assert "kubectl-offsets[spark]" in e.value.advice
    with pytest.raises(MissingExtraError):
        c.compute(c.ComputeRequest(Archive("/x"), c.Operation.TO_LATEST))


def test_missing_confluent_kafka_is_a_missing_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "confluent_kafka", None)
    with pytest.raises(MissingExtraError, match="'kafka' extra"):
        c.compute(c.ComputeRequest(LiveTopics("b:1", ("t",)), c.Operation.TO_LATEST))


def test_kafka_jars_are_found_never_fetched(tmp_path, monkeypatch):
    from kubectl_offsets.adapters.spark import session

    (tmp_path / "spark-sql-kafka-0-10_2.13-4.2.0.jar").write_text("")
    (tmp_path / "kafka-clients-3.9.2.jar").write_text("")
    assert len(session.kafka_jars(str(tmp_path))) == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(session.JARS_ENV, str(empty))
    with pytest.raises(InputError, match="holds no spark-sql-kafka-0-10 jar") as e:
        session.kafka_jars()
    assert "--spark-jars" in e.value.advice
    conf = session._base_conf(session.SparkSettings(master="local[1]"))
    assert conf["spark.driver.bindAddress"] == "127.0.0.1" and conf["spark.ui.enabled"] == "false"
    assert not any("packages" in k for k in conf)


@pytest.mark.parametrize("command", [["compute", "--help"], ["compute", "connect-offsets", "--help"],
                                     ["lag", "--help"], ["check", "--help"], ["reset", "--help"], ["--help"]])
def test_help_imports_neither_pyspark_nor_confluent_kafka(command):
    code = ("import sys; from kubectl_offsets.cli.root import run; run(%r); "
            "print([m for m in sys.modules if m.split('.')[0] in ('pyspark', 'confluent_kafka', 'py4j')])" % command)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr


# --- poison scans in windows ----------------------------------------------------------------------------------

def test_poison_windows_merge_into_one_scan_that_says_where_it_stopped():
    from kubectl_offsets.adapters.spark.jobs import PoisonScan, Record, merge_poison_scans

    first = PoisonScan({("t", 1): 3}, {("t", 1): 2}, [Record("t", 1, 3, None, "x"), Record("t", 1, 4, None, "x")], 2)
    second = PoisonScan({("t", 0): 90}, {("t", 0): 1}, [Record("t", 0, 90, None, "x")], 1)
    merged = merge_poison_scans([first, second], limit=2, scanned_until={("t", 1): 10, ("t", 0): 200})
    assert merged.first == {("t", 1): 3, ("t", 0): 90} and merged.total == 3 and merged.truncated
    assert [(r.partition, r.offset) for r in merged.records] == [(0, 90), (1, 3)]  # ordered, then cut
    assert not merged.complete
    positions = {p.partition: p for p in c._poison_positions(merged)}
    assert positions[1].resume_at == 4 and positions[1].basis == \
        "past poison record 3 (read up to offset 10, 1 more poison before it)"
    assert positions[0].basis == "past poison record 90 (read up to offset 200)"
    report = poison.poison_report(merged, PoisonCriteria(invalid_json=True))  # validates against the schema
    assert report["complete"] is False and [p.get("scannedUntil") for p in report["partitions"]] == [200, 10]
