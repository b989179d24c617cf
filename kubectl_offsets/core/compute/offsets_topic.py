"""``compute connect-offsets``: Connect's offsets topic replayed into the latest offsets per connector, or its
whole history."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ...adapters.spark.jobs import ConnectRecord
from ...adapters.spark.sources import Source
from ...model import OffsetEntry, OffsetsDocument
from ...progress import Progress, SilentProgress
from .positions import SparkFactory, spark_for
from ...times import iso_ms


@dataclass
class ConnectOffsets:
    """The latest offsets per connector, as Connect's GET /connectors/{c}/offsets would list them."""

    connectors: dict[str, OffsetsDocument]
    ignored_keys: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"connectors": {name: doc.to_json() for name, doc in sorted(self.connectors.items())}}


def connect_offsets(source: Source, *, spark: SparkFactory | None = None, connectors: tuple[str, ...] = (),
                    progress: Progress | None = None) -> ConnectOffsets:
    """Replay the offsets topic the way Connect's KafkaOffsetBackingStore does: last value per key wins, a
    tombstone removes the partition, keys that are not ``["connector", {partition}]`` are ignored."""
    from ...adapters.spark import jobs, sources

    progress = progress or SilentProgress()
    session = spark_for(spark, source)
    progress.step(f"reading Connect's offsets from {source.describe()}")
    frame = sources.load(session, source, ("key", "value", "timestamp"))
    latest = jobs.latest_connect_records(frame, connectors)
    result = _replay(sorted(latest, key=lambda r: (r.ts_ms or 0, r.partition, r.offset)))
    for name in connectors:
        result.connectors.setdefault(name, OffsetsDocument())
    return result


def _replay(records: Iterable[ConnectRecord]) -> ConnectOffsets:
    state: dict[str, dict[Any, OffsetEntry]] = {}
    ignored = 0
    for record in records:
        parsed = parse_connect_key(record.key)
        if parsed is None:
            ignored += 1
            continue
        name, partition = parsed
        entries = state.setdefault(name, {})
        value = json_or_none(record.value)
        entry = OffsetEntry(partition, value)
        if value is None:
            entries.pop(entry.key, None)  # tombstone (or an unreadable value): Connect forgets the partition
        else:
            entries[entry.key] = entry
    return ConnectOffsets({n: OffsetsDocument(tuple(e.values())) for n, e in state.items()}, ignored)


def parse_connect_key(key: str | None) -> tuple[str, dict[str, Any]] | None:
    """``["<connector>", {partition}]`` -> (connector, partition); None for any other key (Connect ignores it)."""
    try:
        value = json.loads(key) if key is not None else None
    except ValueError:
        return None
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], dict):
        return value[0], value[1]
    return None


def json_or_none(text: str | None) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def connect_history(source: Source, *, spark: SparkFactory | None = None, connectors: tuple[str, ...] = (),
                    progress: Progress | None = None) -> Iterator[dict[str, Any]]:
    """Every record of the offsets topic (``--from-beginning``), oldest first per partition, streamed."""
    from ...adapters.spark import jobs, sources

    progress = progress or SilentProgress()
    session = spark_for(spark, source)
    progress.step(f"reading the history of Connect's offsets from {source.describe()}")
    frame = sources.load(session, source, ("key", "value", "timestamp"))
    for record in jobs.connect_history(frame, connectors):
        parsed = parse_connect_key(record.key)
        if parsed is not None:
            yield {"connector": parsed[0], "partition": parsed[1], "offset": json_or_none(record.value),
                   "topicPartition": record.partition, "topicOffset": record.offset,
                   "timestamp": iso_ms(record.ts_ms)}

