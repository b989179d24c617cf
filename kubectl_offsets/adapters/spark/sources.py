"""Where records come from: a live topic (Spark's Kafka source) or archived data Spark can read.

Either way the jobs see one frame with the Kafka source's columns, named as Spark's Kafka source names them:
``topic`` string, ``partition`` int, ``offset`` long, ``timestamp`` timestamp (UTC), ``key`` and ``value`` as
UTF-8 strings (so that ``--where "value:id = 4711"`` and ``--invalid json`` work on text), and ``ts_ms`` (the
timestamp in epoch milliseconds, for exact comparisons with a broker's timestamp index).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from ...errors import InputError

FORMATS = ("parquet", "json", "orc", "avro")
CANONICAL = ("topic", "partition", "offset", "timestamp", "key", "value", "headers")


@dataclass(frozen=True)
class LiveTopics:
    """A live topic through Spark's Kafka source. ``starts``: the first offset to read per partition, and only
    those partitions are read (None = every partition from the log start); ``ends``: where to stop per
    partition, exclusive (None = the end of the log when the scan starts)."""

    bootstrap_servers: str
    topics: tuple[str, ...]
    kafka_options: tuple[tuple[str, str], ...] = ()
    starts: Mapping[str, Mapping[int, int]] | None = None
    ends: Mapping[str, Mapping[int, int]] | None = None

    def describe(self) -> str:
        return f"topic {', '.join(self.topics)} at {self.bootstrap_servers}"


@dataclass(frozen=True)
class Archive:
    """Archived topic data. ``columns`` maps a canonical column to the archive's name (``--column a=b``);
    ``topic`` names the topic when the data has no topic column; ``base64`` when key/value are base64 text (what
    Spark's JSON writer makes of binary columns)."""

    path: str
    format: str = "parquet"
    columns: Mapping[str, str] = field(default_factory=dict)
    topics: tuple[str, ...] = ()
    base64: bool = False

    def describe(self) -> str:
        return f"{self.format} data at {self.path}"

    @property
    def has_statistics(self) -> bool:
        """Min/max per row group (Parquet) or stripe (ORC): a pushed filter skips data instead of reading it."""
        return self.format in ("parquet", "orc")


Source = LiveTopics | Archive


def load(spark: Any, source: Source, needed: tuple[str, ...]) -> Any:
    """The normalised frame, with at least the ``needed`` canonical columns (else a missing-column InputError)."""
    raw = _read_live(spark, source) if isinstance(source, LiveTopics) else _read_archive(spark, source)
    return _normalise(raw, source, needed)


def _read_live(spark: Any, source: LiveTopics) -> Any:
    reader = (spark.read.format("kafka")
              .option("kafka.bootstrap.servers", source.bootstrap_servers)
              # The connector's offsets may point below the log start after retention: read what is there.
              .option("failOnDataLoss", "false"))
    if source.starts:
        assign = {t: sorted(ps) for t, ps in source.starts.items()}
        starting = {t: {str(p): o for p, o in ps.items()} for t, ps in source.starts.items()}
        reader = reader.option("assign", json.dumps(assign)).option("startingOffsets", json.dumps(starting))
    else:
        reader = reader.option("subscribe", ",".join(source.topics)).option("startingOffsets", "earliest")
    for key, value in source.kafka_options:
        reader = reader.option(f"kafka.{key}", value)
    ending = json.dumps({t: {str(p): o for p, o in ps.items()} for t, ps in source.ends.items()}) \
        if source.ends else "latest"
    return reader.option("endingOffsets", ending).load()


def _read_archive(spark: Any, source: Archive) -> Any:
    from pyspark.errors import AnalysisException

    if source.format not in FORMATS:
        raise InputError(f"--format {source.format} is not supported", advice=f"choose one of {', '.join(FORMATS)}")
    try:
        return spark.read.format(source.format).load(source.path)
    except AnalysisException as e:
        raise _archive_error(source, e) from None


def _archive_error(source: Archive, error: Exception) -> InputError:
    text = str(error)
    if "PATH_NOT_FOUND" in text or "Path does not exist" in text:
        return InputError(f"--data {source.path}: no such file or directory")
    lowered = text.lower()
    if source.format == "avro" and ("data source" in lowered or "data_source" in lowered):
        return InputError("reading Avro needs the spark-avro module, which pyspark does not bundle",
                          advice="put org.apache.spark:spark-avro_2.13 (same version as pyspark) into --spark-jars "
                                 "DIR, or archive the topic as Parquet")
    return InputError(f"cannot read {source.describe()}: {_first_line(text)}")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def _normalise(raw: Any, source: Source, needed: tuple[str, ...]) -> Any:
    from pyspark.sql import functions as F

    frame = _renamed(raw, source.columns if isinstance(source, Archive) else {})
    present = set(frame.columns)
    has_topic = "topic" in present
    if "topic" not in present and isinstance(source, Archive) and len(source.topics) == 1:
        frame, present = frame.withColumn("topic", F.lit(source.topics[0])), present | {"topic"}
    missing = [c for c in ("topic", "partition", "offset", *needed) if c not in present]
    if missing:
        raise _missing_columns(missing, raw.columns, source)
    types = dict(frame.dtypes)
    columns = [F.col("topic").cast("string").alias("topic"), F.col("partition").cast("int").alias("partition"),
               F.col("offset").cast("long").alias("offset")]
    if "timestamp" in present:
        ts = _timestamp(types["timestamp"])
        columns += [ts.alias("timestamp"), F.unix_millis(ts).alias("ts_ms")]
    for name in ("key", "value"):
        if name in present:
            columns.append(_text(name, types[name], isinstance(source, Archive) and source.base64).alias(name))
    if "headers" in present:
        columns.append(F.col("headers"))
    frame = frame.select(*columns)
    if isinstance(source, Archive) and source.topics and has_topic:
        frame = frame.filter(F.col("topic").isin(list(source.topics)))
    return frame


def _renamed(raw: Any, columns: Mapping[str, str]) -> Any:
    for canonical, actual in columns.items():
        if canonical not in CANONICAL:
            raise InputError(f"--column {canonical}={actual}: '{canonical}' is not a Kafka source column",
                             advice=f"map one of {', '.join(CANONICAL)}")
        if actual not in raw.columns:
            raise InputError(f"--column {canonical}={actual}: the data has no column '{actual}'",
                             advice=f"its columns: {', '.join(raw.columns)}")
    # A column that is mapped, or whose canonical name is taken by a mapping, steps aside.
    replaced = set(columns) | set(columns.values())
    selected = [raw[c] for c in raw.columns if c not in replaced]
    return raw.select(*selected, *(raw[actual].alias(canonical) for canonical, actual in columns.items()))


def _missing_columns(missing: list[str], available: list[str], source: Source) -> InputError:
    hint = f"map them with --column NAME=COLUMN (the data has: {', '.join(available)})"
    if missing == ["topic"]:
        hint = "the data has no topic column: name the topic with --topic, or map it with --column topic=COLUMN"
    return InputError(f"{source.describe()} has no column {', '.join(missing)}", advice=hint)


def _timestamp(dtype: str) -> Any:
    """Kafka source archives keep a timestamp; other archives often hold epoch milliseconds or ISO text."""
    from pyspark.sql import functions as F

    column = F.col("timestamp")
    if dtype.startswith("timestamp"):
        return column
    if dtype in ("bigint", "int", "double", "float") or dtype.startswith("decimal"):
        return F.timestamp_millis(column.cast("long"))
    if dtype == "date":
        return column.cast("timestamp")
    return F.try_to_timestamp(column.cast("string"))


def _text(name: str, dtype: str, base64: bool) -> Any:
    from pyspark.sql import functions as F

    column = F.col(name)
    if base64 and dtype == "string":
        column = F.unbase64(column)
    return column.cast("string")
