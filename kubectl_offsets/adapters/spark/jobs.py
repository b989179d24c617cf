"""The compute jobs. Each takes the normalised frame of ``sources.load`` and returns small Python objects.

Every job filters and aggregates per topic-partition on the executors (``groupBy(topic, partition)`` with
min/max/count/min_by over primitive columns, which Spark runs as hash aggregates), so what reaches the driver is one row per
partition, one row per distinct Connect key, or the poison records' coordinates (capped by ``limit``), never the
raw records. The driver's memory therefore does not grow with the topic.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

from ...errors import InputError, OffsetsError

T = TypeVar("T")

TopicPartition = tuple[str, int]


@dataclass(frozen=True)
class PartitionScan:
    """What the data holds for one partition (from the scan start on): bounds, count, first record at a time."""

    topic: str
    partition: int
    earliest: int
    end: int  # last offset seen + 1
    records: int
    first_at: int | None = None  # first offset whose timestamp is >= the asked time
    first_at_ms: int | None = None


@dataclass(frozen=True)
class Record:
    """A record's coordinates, without its content."""

    topic: str
    partition: int
    offset: int
    ts_ms: int | None
    reason: str | None = None


@dataclass(frozen=True)
class PoisonCriteria:
    where: str | None = None  # SQL predicate: records for which it is true are poison
    invalid_json: bool = False  # values that Jackson (what Connect's JsonConverter uses) cannot parse
    schema: Mapping[str, Any] | None = None  # a JSON Schema the value must match
    schema_name: str = "the schema"

    @property
    def empty(self) -> bool:
        return self.where is None and not self.invalid_json and self.schema is None


@dataclass(frozen=True)
class PoisonScan:
    first: dict[TopicPartition, int]  # first poison offset per partition (at or after the start)
    counts: dict[TopicPartition, int]
    records: list[Record]  # ordered by topic, partition, offset; at most ``limit``
    total: int
    # Partitions whose scan stopped before the end of the data, once their first poison record was found
    # (a live topic read in offset windows): counts and records cover the offsets before this one.
    scanned_until: dict[TopicPartition, int] = field(default_factory=dict)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.records)

    @property
    def complete(self) -> bool:
        return not self.scanned_until


def merge_poison_scans(scans: list[PoisonScan], limit: int, scanned_until: dict[TopicPartition, int]
                       ) -> PoisonScan:
    """One PoisonScan from the scans of disjoint offset ranges (the windows of a live topic)."""
    first: dict[TopicPartition, int] = {}
    counts: dict[TopicPartition, int] = {}
    for scan in scans:
        for tp, offset in scan.first.items():
            first[tp] = min(first.get(tp, offset), offset)
            counts[tp] = counts.get(tp, 0) + scan.counts[tp]
    records = sorted((r for scan in scans for r in scan.records), key=lambda r: (r.topic, r.partition, r.offset))
    return PoisonScan(first, counts, records[:limit], sum(counts.values()), dict(scanned_until))


# --- shared pieces ----------------------------------------------------------------------------------------------


def from_starts(frame: Any, starts: Mapping[TopicPartition, int] | None) -> Any:
    """Only records at or after each partition's start (where the connector stands); other partitions whole."""
    if not starts:
        return frame
    from pyspark.sql import functions as F

    spark = frame.sparkSession
    rows = [(t, p, o) for (t, p), o in starts.items()]
    table = spark.createDataFrame(rows, "s_topic string, s_partition int, s_start long")
    joined = frame.join(F.broadcast(table), (frame.topic == table.s_topic) & (frame.partition == table.s_partition),
                        "left")
    kept = joined.filter(F.col("s_start").isNull() | (F.col("offset") >= F.col("s_start")))
    return kept.drop("s_topic", "s_partition", "s_start")


def compile_predicate(frame: Any, sql: str, flag: str) -> Any:
    """A boolean Column for a SQL predicate over the frame's columns; an InputError that quotes Spark's reason when
    it does not parse, names an unknown column or is not boolean."""
    import logging

    from pyspark.errors import AnalysisException, ParseException
    from pyspark.sql import functions as F

    # PySpark logs every failed analysis as a JSON blob with a JVM stack; the InputError below says it better.
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    try:
        column = F.expr(sql)
        dtype = frame.select(column.alias("p")).dtypes[0][1]  # analysis is eager: unknown columns fail here
    except (ParseException, AnalysisException) as e:
        raise InputError(f"{flag} {sql!r} does not compile: {_spark_reason(e)}",
                         advice=f"the columns are {', '.join(frame.columns)}; key and value are text, e.g. "
                                f"{flag} \"get_json_object(value, '$.id') = '4711'\"") from None
    if dtype != "boolean":
        raise InputError(f"{flag} {sql!r} is of type {dtype}, not a condition", advice="write a predicate, e.g. a = b")
    return column


def _spark_reason(error: Exception) -> str:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def spark_failures(job: Callable[..., T]) -> Callable[..., T]:
    """A failed job becomes one clear error instead of a JVM stack. SQLSTATE class 22 (data exception: a cast or
    division in the user's predicate failing on some record under ANSI mode) is the user's to fix."""
    @functools.wraps(job)
    def run(*args: Any, **kwargs: Any) -> T:
        from pyspark.errors import PySparkException

        try:
            return job(*args, **kwargs)
        except PySparkException as e:
            state = e.getSqlState() or ""
            if state.startswith("22"):
                raise InputError(f"a predicate failed on a record: {_spark_reason(e)}",
                                 advice="JSON fields are text: compare with try_cast(... AS DOUBLE), which gives "
                                        "null instead of failing") from None
            raise OffsetsError(f"the Spark job failed: {_spark_reason(e)}",
                               advice="the lines from 'spark:' above have the details") from None
    return run


def _key(row: Any) -> TopicPartition:
    return row["topic"], int(row["partition"])


# --- point in time ----------------------------------------------------------------------------------------------


@spark_failures
def scan_positions(frame: Any, at_ms: int | None = None) -> list[PartitionScan]:
    """Per partition: earliest, end, count, and the first record at or after ``at_ms`` (if given)."""
    from pyspark.sql import functions as F

    aggregates = [F.min("offset").alias("earliest"), F.max("offset").alias("last"), F.count("*").alias("records")]
    if at_ms is not None:
        late = F.col("ts_ms") >= F.lit(at_ms)
        # Primitive aggregates only (min, min_by of longs): they run as a hash aggregate. A min over a struct would
        # make Spark sort every record of the partition first.
        aggregates += [F.min(F.when(late, F.col("offset"))).alias("first_at"),
                       F.min_by(F.when(late, F.col("ts_ms")), F.when(late, F.col("offset"))).alias("first_at_ms")]
    rows = frame.groupBy("topic", "partition").agg(*aggregates).collect()
    return sorted((_partition_scan(r, at_ms is not None) for r in rows), key=lambda s: (s.topic, s.partition))


def _partition_scan(row: Any, timed: bool) -> PartitionScan:
    first = row["first_at"] if timed else None
    return PartitionScan(row["topic"], int(row["partition"]), int(row["earliest"]), int(row["last"]) + 1,
                         int(row["records"]), None if first is None else int(first),
                         row["first_at_ms"] if timed else None)


@dataclass(frozen=True)
class TimeScan:
    """Per partition of an archive: the first record at or after a time, else (no such record) the end."""

    topic: str
    partition: int
    first_at: int | None
    first_at_ms: int | None
    end: int | None  # only known (and only needed) when first_at is None


def at_or_after(at_ms: int) -> Any:
    """``timestamp >= at`` on the frame's timestamp column itself (not on ts_ms, a computed column): an archive
    reader gets it as a pushed filter and skips the row groups (Parquet) or stripes (ORC) whose statistics say
    every record is earlier. Equivalent to ``ts_ms >= at`` because at is whole milliseconds."""
    from pyspark.sql import functions as F

    return F.col("timestamp") >= F.timestamp_millis(F.lit(at_ms))


def first_at_frame(frame: Any, at_ms: int, until_ms: int | None = None,
                   answered: Mapping[TopicPartition, int] | None = None) -> Any:
    """Per partition: the first offset at or after ``at_ms`` (and before ``until_ms``) and its time.

    ``answered``: partitions that already have a candidate (their first offset seen so far). Only the records that
    could still beat a candidate are read: an offset below the largest candidate, or a partition without one.
    Both are pushed filters, so a reader skips the row groups whose offsets (or partitions) rule them out."""
    from pyspark.sql import functions as F

    late = frame.filter(at_or_after(at_ms))
    if until_ms is not None:
        late = late.filter(F.col("timestamp") < F.timestamp_millis(F.lit(until_ms)))
    if answered:
        unanswered = ~functools.reduce(lambda a, b: a | b, _in_ranges(answered))
        late = late.filter((F.col("offset") < F.lit(max(answered.values()))) | unanswered)
    return late.groupBy("topic", "partition").agg(F.min("offset").alias("first_at"),
                                                  F.min_by("ts_ms", "offset").alias("first_at_ms"))


def _in_ranges(partitions: Iterable[TopicPartition]) -> list[Any]:
    from pyspark.sql import functions as F

    return [(F.col("topic") == topic) & F.col("partition").between(low, high)
            for topic, low, high in partition_ranges(partitions)]


def ends_without_late_frame(frame: Any, at_ms: int, found: list[TopicPartition]) -> Any:
    """Per partition that has no record at or after ``at_ms``: its end. Reads only the earlier records, without
    the partitions already answered; both conditions are pushed filters, so a reader skips the row groups of
    answered partitions where its statistics show a single partition (archives written per topic-partition, as
    sink connectors write them), and otherwise drops their records before the aggregate."""
    from pyspark.sql import functions as F

    # "not at or after", written so that it is pushed too (records without a time count as earlier).
    earlier = frame.filter((F.col("timestamp") < F.timestamp_millis(F.lit(at_ms))) | F.col("timestamp").isNull())
    answered = _in_ranges(found)
    if answered:
        earlier = earlier.filter(~functools.reduce(lambda a, b: a | b, answered))
    return earlier.groupBy("topic", "partition").agg(F.max("offset").alias("last"))


def partition_ranges(partitions: Iterable[TopicPartition]) -> list[tuple[str, int, int]]:
    """(topic, first, last) runs of consecutive partitions. "Not in these ranges" becomes ``partition < first OR
    partition > last`` in the reader, which row-group statistics can decide: a row group that holds every
    partition of a topic (records written in time order, as a whole-topic archive is) is skipped when all of them
    are answered, where "not in (0, 1, ... 7)" would need a group holding a single partition."""
    runs: list[tuple[str, int, int]] = []
    for topic, partition in sorted(partitions):
        if runs and runs[-1][0] == topic and runs[-1][2] == partition - 1:
            runs[-1] = (topic, runs[-1][1], partition)
        else:
            runs.append((topic, partition, partition))
    return runs


# How far past the time the first passes of a time question on an archive with statistics read (ms): a minute,
# an hour, a day, until one finds a record. Most partitions have a record within a minute of any time; their
# first offsets then bound the rest of the scan (see scan_times).
TIME_WINDOWS_MS = (60_000, 3_600_000, 86_400_000)


@spark_failures
def scan_times(frame: Any, at_ms: int, *, statistics: bool = True) -> list[TimeScan]:
    """The time question on an archive, as small jobs instead of one full aggregation; only one row per partition
    reaches the driver from each.

    With ``statistics`` (Parquet, ORC: row groups or stripes carry min/max), the late records are read in two
    steps. A first window past the time (TIME_WINDOWS_MS) gives candidates: the first offset of each partition in
    it. Then the rest of the late records, but only those that could come first: offsets below the largest
    candidate, or partitions without one. Timestamps need not follow offsets (producers set them), so the rest is
    always read: in a time-ordered archive its statistics rule out nearly every row group, where one pass would
    read everything from the time on. Without statistics (JSON) every pass is a full read: one pass.
    Then the earlier records give the end of the partitions that have no late record."""
    found: dict[TopicPartition, tuple[int, Any]] = {}
    late_from = at_ms
    for width in TIME_WINDOWS_MS if statistics else ():
        _keep_first(found, first_at_frame(frame, late_from, at_ms + width).collect())
        late_from = at_ms + width
        if found:
            break
    candidates = {tp: offset for tp, (offset, _) in found.items()}
    _keep_first(found, first_at_frame(frame, late_from, None, candidates).collect())
    ends = ends_without_late_frame(frame, at_ms, sorted(found)).collect()
    scans = [TimeScan(t, p, offset, ts_ms, None) for (t, p), (offset, ts_ms) in found.items()]
    scans += [TimeScan(r["topic"], int(r["partition"]), None, None, int(r["last"]) + 1) for r in ends]
    return sorted(scans, key=lambda s: (s.topic, s.partition))


def _keep_first(found: dict[TopicPartition, tuple[int, Any]], rows: Iterable[Any]) -> None:
    for row in rows:
        offset = int(row["first_at"])
        if _key(row) not in found or offset < found[_key(row)][0]:
            found[_key(row)] = (offset, row["first_at_ms"])


# --- predicates -------------------------------------------------------------------------------------------------


@spark_failures
def first_matches(frame: Any, sql: str) -> list[Record]:
    """Per partition, the first record (by offset) for which ``sql`` is true."""
    from pyspark.sql import functions as F

    predicate = compile_predicate(frame, sql, "--find")
    rows = (frame.filter(predicate).groupBy("topic", "partition")
            .agg(F.min("offset").alias("first"), F.min_by("ts_ms", "offset").alias("first_ms")).collect())
    found = [Record(r["topic"], int(r["partition"]), int(r["first"]), r["first_ms"]) for r in rows]
    return sorted(found, key=lambda m: (m.topic, m.partition))


# --- poison records ---------------------------------------------------------------------------------------------


@spark_failures
def scan_poison(frame: Any, criteria: PoisonCriteria, limit: int) -> PoisonScan:
    """Every record that the criteria call poison: first and count per partition, and up to ``limit`` of them."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    reason = _reason_column(frame, criteria)
    poison = (frame.select("topic", "partition", "offset", "ts_ms", reason.alias("reason"))
              .filter(F.col("reason").isNotNull()))
    poison.persist(StorageLevel.MEMORY_AND_DISK)  # two actions below; only the poison rows are kept
    try:
        per_partition = poison.groupBy("topic", "partition").agg(F.min("offset").alias("first"),
                                                                F.count("*").alias("n")).collect()
        listed = poison.orderBy("topic", "partition", "offset").limit(limit).collect() if limit > 0 else []
    finally:
        poison.unpersist()
    return PoisonScan(first={_key(r): int(r["first"]) for r in per_partition},
                      counts={_key(r): int(r["n"]) for r in per_partition},
                      records=[Record(r["topic"], int(r["partition"]), int(r["offset"]), r["ts_ms"], r["reason"])
                               for r in listed],
                      total=sum(int(r["n"]) for r in per_partition))


def _reason_column(frame: Any, criteria: PoisonCriteria) -> Any:
    """One text column: why a record is poison, or null. The first criterion that applies gives the reason."""
    from pyspark.sql import functions as F

    reasons = []
    if criteria.where is not None:
        predicate = compile_predicate(frame, criteria.where, "--where")
        reasons.append(F.when(predicate, F.lit(f"matches --where {criteria.where}")))
    if criteria.invalid_json:
        # try_parse_json runs in the JVM (no Python per record) and parses with Jackson, as JsonConverter does.
        reasons.append(F.when(F.col("value").isNotNull() & F.try_parse_json("value").isNull(),
                              F.lit("value is not valid JSON")))
    if criteria.schema is not None:
        reasons.append(_schema_udf(criteria.schema, criteria.schema_name)(F.col("value")))
    if not reasons:
        raise InputError("--skip-poison needs a criterion", advice="add --where SQL, --invalid json or "
                                                                   "--invalid-against SCHEMA_FILE")
    return reasons[0] if len(reasons) == 1 else F.coalesce(*reasons)


def _schema_udf(schema: Mapping[str, Any], name: str) -> Any:
    """A Python UDF (jsonschema has no JVM twin); it runs on the executors, which need jsonschema installed."""
    from pyspark.sql import functions as F

    schema = dict(schema)

    def violation(value):  # no type hints: PySpark would read them as a pandas UDF's
        return schema_violation(schema, name, value)

    return F.udf(violation, "string", useArrow=False)  # Arrow UDFs need pandas, which the extra does not install


_VALIDATORS: dict[str, Any] = {}


def schema_violation(schema: Mapping[str, Any], name: str, value: str | None) -> str | None:
    """Why ``value`` (JSON text) does not match ``schema``, or None. Null values (tombstones) are not poison."""
    import json

    if value is None:
        return None
    try:
        document = json.loads(value)
    except ValueError:
        return "value is not valid JSON"
    validator = _VALIDATORS.get(name)
    if validator is None:
        import jsonschema

        validator = _VALIDATORS[name] = jsonschema.validators.validator_for(schema)(schema)
    import jsonschema.exceptions

    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"does not match {name}: at ${where}: {error.message}"


# --- Connect's offsets topic ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConnectRecord:
    """One record of Connect's offsets topic: key and value are JSON text (value None = tombstone)."""

    key: str
    value: str | None
    partition: int
    offset: int
    ts_ms: int | None


def _connect_records(frame: Any, connectors: tuple[str, ...]) -> Any:
    from pyspark.sql import functions as F

    frame = frame.filter(F.col("key").isNotNull())
    if connectors:
        frame = frame.filter(F.get_json_object("key", "$[0]").isin(list(connectors)))
    return frame


@spark_failures
def latest_connect_records(frame: Any, connectors: tuple[str, ...] = ()) -> list[ConnectRecord]:
    """The last record per key and topic partition (what a compacted topic converges to)."""
    from pyspark.sql import functions as F

    latest = (_connect_records(frame, connectors).groupBy("key", "partition")
              .agg(F.max_by(F.struct("value", "offset", "ts_ms"), "offset").alias("last")).collect())
    return [ConnectRecord(r["key"], r["last"]["value"], int(r["partition"]), int(r["last"]["offset"]),
                          r["last"]["ts_ms"]) for r in latest]


def connect_history(frame: Any, connectors: tuple[str, ...] = ()) -> Iterator[ConnectRecord]:
    """Every record in topic-partition and offset order, streamed one partition at a time (toLocalIterator)."""
    ordered = _connect_records(frame, connectors).select("key", "value", "partition", "offset", "ts_ms")
    for r in ordered.orderBy("partition", "offset").toLocalIterator():
        yield ConnectRecord(r["key"], r["value"], int(r["partition"]), int(r["offset"]), r["ts_ms"])
