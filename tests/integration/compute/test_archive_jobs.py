"""compute over archived data (Parquet and JSON lines) with a real local Spark, against plain-Python answers."""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.adapters.spark.jobs import PoisonCriteria
from kubectl_offsets.adapters.spark.sources import Archive
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.compute import poison
from kubectl_offsets.core.compute import positions as c
from kubectl_offsets.errors import InputError
from kubectl_offsets.model import OffsetsDocument

from . import data

pytestmark = pytest.mark.slow
SINK, MIRROR = ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE


def run(spark, source, operation, **kw):
    return c.compute(c.ComputeRequest(source, operation, **kw), spark=lambda needs_kafka: spark)


def resume_points(result) -> dict:
    """{(topic, partition): next record to read} read back from the document, through connect.py's semantics."""
    return c.resume_positions(result.kind, result.document) | {
        (e.partition["topic"], e.partition["partition"]): 0 for e in result.document if e.offset is None}


@pytest.fixture(params=["parquet", "json"])
def archive(request, parquet_archive, json_archive):
    if request.param == "parquet":
        return Archive(parquet_archive, "parquet")
    return Archive(json_archive, "json")


@pytest.mark.parametrize("kind", [SINK, MIRROR])
def test_to_datetime_matches_a_plain_scan(spark, recs, archive, kind):
    at = data.BASE_MS + 95_000  # between records: partition 0 -> offset 10, partition 1 -> 10 (3 s later)...
    result = run(spark, archive, c.Operation.TO_DATETIME, at_ms=at, kind=kind, source_alias="east")
    assert resume_points(result) == data.first_at_or_after(recs, at)
    assert result.method == "scan"
    by_offset = {(r.topic, r.partition, r.offset): r.ts_ms for r in recs}
    assert all(p.ts_ms == by_offset[(p.topic, p.partition, p.resume_at)] for p in result.positions)


def test_mirror_source_stores_one_less_and_null_for_record_zero(spark, archive):
    result = run(spark, archive, c.Operation.TO_DATETIME, at_ms=data.BASE_MS + 25_000, kind=MIRROR,
                 source_alias="east")
    stored = {(e.partition["topic"], e.partition["partition"]): e.offset for e in result.document}
    assert stored[("orders", 0)] == {"offset": 2}  # resume at 3 (ts 30 s) -> last replicated 2
    early = run(spark, archive, c.Operation.TO_EARLIEST, kind=MIRROR, source_alias="east")
    assert all(e.offset is None for e in early.document)  # resume at 0 has no stored form: a reset


def test_earliest_latest_and_a_time_after_everything(spark, recs, archive):
    ends = {tp: rs[-1].offset + 1 for tp, rs in data.by_partition(recs).items()}
    latest = run(spark, archive, c.Operation.TO_LATEST)
    assert resume_points(latest) == ends
    assert resume_points(run(spark, archive, c.Operation.TO_EARLIEST)) == {tp: 0 for tp in ends}
    assert resume_points(run(spark, archive, c.Operation.TO_DATETIME, at_ms=data.BASE_MS + 10**9)) == ends


def test_shift_by_moves_from_current_within_bounds(spark, archive):
    current = OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 30}},
        {"partition": {"kafka_topic": "orders", "kafka_partition": 1}, "offset": {"kafka_offset": 3}}]})
    result = run(spark, archive, c.Operation.SHIFT_BY, shift_by=-5, current=current)
    assert resume_points(result) == {("orders", 0): 25, ("orders", 1): 0}


def test_skip_poison_invalid_json_from_the_current_position(spark, recs, archive):
    current = OffsetsDocument.from_json({"offsets": [
        {"partition": {"cluster": "east", "topic": "orders", "partition": 0}, "offset": {"offset": 14}}]})
    result = run(spark, archive, c.Operation.SKIP_POISON, kind=MIRROR, source_alias="east", current=current,
                 poison=PoisonCriteria(invalid_json=True))
    starts = {("orders", 0): 15}
    assert resume_points(result) == data.past_first_poison(recs, data.invalid_json, starts)
    expected = [(r.topic, r.partition, r.offset) for r in recs if data.invalid_json(r)
                and r.offset >= starts.get((r.topic, r.partition), 0)]
    assert [(r.topic, r.partition, r.offset) for r in result.poison.records] == sorted(expected)
    report = poison.poison_report(result.poison, PoisonCriteria(invalid_json=True))  # validates against its schema
    assert report["total"] == len(expected) and not report["truncated"]


def test_skip_poison_where_and_report_limit(spark, recs, archive):
    where = "get_json_object(value, '$.status') = 'cancelled'"
    result = run(spark, archive, c.Operation.SKIP_POISON, poison=PoisonCriteria(where=where), report_limit=2)
    cancelled = lambda r: (r.json_or_none() or {}).get("status") == "cancelled"  # noqa: E731
    assert resume_points(result) == data.past_first_poison(recs, cancelled)
    assert result.poison.total == sum(map(cancelled, recs)) and len(result.poison.records) == 2
    assert result.poison.truncated


def test_skip_poison_against_a_json_schema(spark, recs, archive):
    schema = {"type": "object", "required": ["id", "status"], "properties": {"amount": {"maximum": 45}}}
    result = run(spark, archive, c.Operation.SKIP_POISON, poison=PoisonCriteria(schema=schema, schema_name="o.json"))

    def bad(r):
        value = r.json_or_none()
        return r.value is not None and (not isinstance(value, dict) or "status" not in value
                                        or value.get("amount", 0) > 45)
    assert resume_points(result) == data.past_first_poison(recs, bad)
    reasons = {r.reason for r in result.poison.records}
    assert "value is not valid JSON" in reasons
    assert any("o.json: at $.amount" in reason for reason in reasons)


def test_find_first_match_per_partition(spark, recs, archive):
    result = run(spark, archive, c.Operation.FIND, find="get_json_object(value, '$.id') % 1000 = 17",
                 kind=MIRROR, source_alias="east")
    assert resume_points(result) == data.first_match(recs, lambda r: (r.json_or_none() or {}).get("id", -1)
                                                     % 1000 == 17)
    assert {(m.topic, m.partition, m.offset) for m in result.matches} == {("orders", p, 17) for p in range(3)}


def test_column_mapping_and_topic_for_data_without_topic(spark, recs, tmp_path):
    path = data.write_json_lines(recs, str(tmp_path / "renamed.json"),
                                 columns={"offset": "kafka_offset", "timestamp": "ts", "topic": "src"})
    source = Archive(path, "json", columns={"offset": "kafka_offset", "timestamp": "ts", "topic": "src"})
    at = data.BASE_MS + 200_000
    assert resume_points(run(spark, source, c.Operation.TO_DATETIME, at_ms=at)) == data.first_at_or_after(recs, at)


def test_base64_json_as_spark_writes_binary(spark, recs, parquet_archive, tmp_path):
    out = str(tmp_path / "spark-json")
    spark.read.parquet(parquet_archive).write.json(out)  # binary key/value become base64 text
    result = run(spark, Archive(out, "json", base64=True), c.Operation.SKIP_POISON,
                 poison=PoisonCriteria(invalid_json=True))
    assert resume_points(result) == data.past_first_poison(recs, data.invalid_json)


# --- errors ------------------------------------------------------------------------------------------------------

def test_missing_column_names_the_data_columns(spark, tmp_path, recs):
    path = data.write_json_lines(recs, str(tmp_path / "x.json"), columns={"offset": "pos"})
    with pytest.raises(InputError, match="has no column offset") as e:
        run(spark, Archive(path, "json"), c.Operation.TO_LATEST)
    assert "--column" in e.value.advice and "pos" in e.value.advice


def test_mapping_to_an_absent_column(spark, parquet_archive):
    with pytest.raises(InputError, match="no column 'kafka_offset'"):
        run(spark, Archive(parquet_archive, columns={"offset": "kafka_offset"}), c.Operation.TO_LATEST)


@pytest.mark.parametrize("sql,message", [("value = ", "does not compile"), ("nosuch = 1", "does not compile"),
                                         ("offset + 1", "not a condition")])
def test_predicates_that_do_not_compile(spark, parquet_archive, sql, message):
    with pytest.raises(InputError, match=message):
        run(spark, Archive(parquet_archive), c.Operation.FIND, find=sql)


def test_missing_data_path(spark, tmp_path):
    with pytest.raises(InputError, match="no such file"):
        run(spark, Archive(str(tmp_path / "nothing-here")), c.Operation.TO_LATEST)


def test_the_document_is_what_alter_accepts(spark, archive):
    from kubectl_offsets import schemas

    result = run(spark, archive, c.Operation.TO_DATETIME, at_ms=data.BASE_MS, kind=MIRROR, source_alias="east")
    schemas.validate("offsets-mirror-source", result.document.to_json(), what="it")
    assert json.loads(result.document.dumps()) == result.document.to_json()


def test_cli_on_an_archive_yaml_report_and_csv_output(spark, recs, parquet_archive, tmp_path):
    """In-process CLI (the fixture's session is reused): YAML report file, CSV document (next record to read,
    whatever the connector stores), the positions table on stderr."""
    import yaml
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root

    report = tmp_path / "poison.yaml"
    result = CliRunner().invoke(root, ["compute", "--data", parquet_archive, "--skip-poison", "--invalid", "json",
                                       "--for", "mirror-source", "--source-alias", "east", "--report", str(report),
                                       "--master", "local[2]", "-o", "csv"])
    assert result.exit_code == 0, result.stderr
    expected = data.past_first_poison(recs, data.invalid_json)
    assert result.stdout.strip().splitlines() == [f"{t},{p},{o}" for (t, p), o in sorted(expected.items())]
    saved = yaml.safe_load(report.read_text())
    assert saved["total"] == sum(map(data.invalid_json, recs))
    assert "RESUME AT" in result.stderr and "past poison record" in result.stderr


# --- reading only what the question needs ---------------------------------------------------------------------

def _records_read(spark, action) -> int:
    """Records the scans of ``action`` read from the files (the stages' input metrics), beside its result."""
    context, gateway = spark.sparkContext._jsc.sc(), spark.sparkContext._gateway

    def stages():
        context.listenerBus().waitUntilEmpty(60_000)  # the status store learns of finished tasks asynchronously
        listed = context.statusStore().stageList(None, False, False, gateway.new_array(gateway.jvm.double, 0),
                                                 gateway.jvm.java.util.ArrayList())
        return {listed.apply(i).stageId(): listed.apply(i) for i in range(listed.size())}

    before = set(stages())
    result = action()
    return result, sum(s.inputRecords() for sid, s in stages().items() if sid not in before)


@pytest.fixture(scope="module")
def per_partition(tmp_path_factory):
    """Laid out as a sink connector archives a topic (S3/GCS sinks write objects per topic-partition): by
    partition and offset, ten records per Parquet row group; partition 2 stops 100 s in, no record after that."""
    recs = sorted((r for r in data.records() if r.partition != 2 or r.ts_ms < data.BASE_MS + 100_000),
                  key=lambda r: (r.partition, r.offset))
    return recs, data.write_parquet(recs, str(tmp_path_factory.mktemp("ordered") / "o.parquet"), row_group_size=10)


def test_a_time_question_reads_only_the_row_groups_it_needs(spark, per_partition):
    recs, path = per_partition
    at = data.BASE_MS + 350_000  # the last 5 of 40 records of partitions 0 and 1, in one row group each
    result, read = _records_read(spark, lambda: run(spark, Archive(path), c.Operation.TO_DATETIME, at_ms=at))
    assert resume_points(result) == data.first_at_or_after(recs, at)
    assert resume_points(result)[("orders", 2)] == 10  # no record at or after the time: the end
    # The late row group of partitions 0 and 1 (their answers), then partition 2's only row group (its end): 30
    # of 90 records. A full scan reads all 90.
    assert read <= 30, (read, len(recs))


def test_a_whole_topic_archive_in_time_order_is_read_only_from_the_time_on(spark, recs, tmp_path):
    """Laid out as a whole-topic dump is (every row group holds every partition, in time order): when every
    partition has a record at or after the time, the earlier row groups are never read, neither for the answers
    nor to look for partitions without a late record (the reader rules those out by the partition statistics)."""
    ordered = sorted(recs, key=lambda r: r.ts_ms)
    path = data.write_parquet(ordered, str(tmp_path / "t.parquet"), row_group_size=12)  # 4 records per partition
    at = data.BASE_MS + 300_000  # the last 10 records of each of the 3 partitions: 30 of 120
    result, read = _records_read(spark, lambda: run(spark, Archive(path), c.Operation.TO_DATETIME, at_ms=at))
    assert resume_points(result) == data.first_at_or_after(recs, at)
    # The row groups from the time on (a partial one included), read once; a full scan reads all 120.
    assert read <= 36, (read, len(recs))


def test_an_early_time_in_a_time_ordered_archive_reads_a_window_not_everything_after_it(spark, recs, tmp_path):
    """75 % of the records are at or after the time. The first minute past it gives every partition a candidate;
    the rest of the late records cannot hold a smaller offset by the statistics, so they are not read."""
    ordered = sorted(recs, key=lambda r: r.ts_ms)
    path = data.write_parquet(ordered, str(tmp_path / "t.parquet"), row_group_size=12)  # 4 records per partition
    at = data.BASE_MS + 100_000  # offsets 10..39 of each partition: 90 of 120 records, in 8 row groups (96)
    result, read = _records_read(spark, lambda: run(spark, Archive(path), c.Operation.TO_DATETIME, at_ms=at))
    assert resume_points(result) == data.first_at_or_after(recs, at)
    # The minute from the time on: offsets 10..15, in two row groups.
    assert read <= 24, (read, len(recs))


def test_a_record_stamped_later_than_the_window_with_a_smaller_offset_still_comes_first(spark, recs, tmp_path):
    """Producers set timestamps: partition 0's offset 5 carries a time ten hours on. It is at or after the time,
    and before the first record of the window in offset order, so it is the answer."""
    import dataclasses

    late = data.BASE_MS + 36_000_000
    skewed = [dataclasses.replace(r, ts_ms=late) if (r.partition, r.offset) == (0, 5) else r for r in recs]
    path = data.write_parquet(sorted(skewed, key=lambda r: r.ts_ms), str(tmp_path / "s.parquet"), row_group_size=12)
    at = data.BASE_MS + 100_000
    result = run(spark, Archive(path), c.Operation.TO_DATETIME, at_ms=at)
    expected = data.first_at_or_after(skewed, at)
    assert expected[("orders", 0)] == 5
    assert resume_points(result) == expected
    assert {(p.topic, p.partition): p.ts_ms for p in result.positions}[("orders", 0)] == late


def test_partition_ranges_make_the_answered_partitions_decidable_by_statistics():
    from kubectl_offsets.adapters.spark.jobs import partition_ranges

    assert partition_ranges([("a", 2), ("a", 0), ("a", 1), ("a", 5), ("b", 0)]) == [("a", 0, 2), ("a", 5, 5),
                                                                                   ("b", 0, 0)]
    assert partition_ranges([]) == []


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_the_time_predicate_is_pushed_into_the_reader(spark, per_partition, tmp_path, fmt):
    from kubectl_offsets.adapters.spark import jobs, sources

    _, path = per_partition
    if fmt == "orc":
        spark.read.parquet(path).write.orc(str(tmp_path / "o.orc"))
        path = str(tmp_path / "o.orc")
    frame = sources.load(spark, Archive(path, fmt), ("timestamp",))
    plan = jobs.first_at_frame(frame, data.BASE_MS)._jdf.queryExecution().executedPlan().toString()
    assert "PushedFilters: [IsNotNull(timestamp), GreaterThanOrEqual(timestamp," in plan, plan
