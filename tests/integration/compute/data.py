"""Synthetic topic data with known timestamps, keys and poison records, and plain-Python answers to compare with.

The same records go into archives (unit tests) and into real topics (integration tests), so the expected answers
come from here, computed without Spark: a plain scan over the records.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

BASE_MS = 1_763_712_000_000  # 2025-11-21T08:00:00Z: only for topics created with retention.ms=-1, and archives


def recent_base_ms() -> int:
    """A base time for records produced to a topic that keeps the broker's default retention (7 days): an hour ago,
    to the second. A fixed date falls out of that retention as the calendar moves on, and the broker then deletes
    the records at its next retention check (every 5 minutes), whenever that lands in the test."""
    import time

    return (int(time.time()) - 3600) * 1000


@dataclass(frozen=True)
class Rec:
    topic: str
    partition: int
    offset: int
    ts_ms: int
    key: bytes
    value: bytes | None

    def json_or_none(self):
        try:
            return json.loads(self.value) if self.value is not None else None
        except ValueError:
            return None


POISON = (b"{broken", b"not json at all", b'{"id": 1,', b"\xff\xfe\x00garbage")


def records(topic: str = "orders", partitions: int = 3, per_partition: int = 40, base_ms: int = BASE_MS
            ) -> list[Rec]:
    """Per partition: one record every 10 s (partition p shifted by p*3 s), ids ``p*1000+o``, every 9th record
    from offset 5 on is poison, every 13th has status "cancelled", a tombstone at offset 20 of partition 1."""
    out = []
    for p in range(partitions):
        for o in range(per_partition):
            ts = base_ms + o * 10_000 + p * 3_000
            if o % 9 == 5:
                value = POISON[(o // 9 + p) % len(POISON)]
            elif p == 1 and o == 20:
                value = None
            else:
                status = "cancelled" if o % 13 == 7 else "ok"
                value = json.dumps({"id": p * 1000 + o, "status": status, "amount": o * 1.5}).encode()
            out.append(Rec(topic, p, o, ts, f"key-{o % 5}".encode(), value))
    return out


def iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).isoformat().replace("+00:00", "Z")


# --- independent answers -----------------------------------------------------------------------------------------

def by_partition(recs):
    parts = {}
    for r in recs:
        parts.setdefault((r.topic, r.partition), []).append(r)
    return {k: sorted(v, key=lambda r: r.offset) for k, v in parts.items()}


def first_at_or_after(recs, at_ms: int) -> dict:
    """Next record to read per partition: the first with timestamp >= at_ms, else the end."""
    out = {}
    for tp, rs in by_partition(recs).items():
        hits = [r.offset for r in rs if r.ts_ms >= at_ms]
        out[tp] = hits[0] if hits else rs[-1].offset + 1
    return out


def invalid_json(r: Rec) -> bool:
    return r.value is not None and r.json_or_none() is None


def past_first_poison(recs, is_poison, starts: dict | None = None) -> dict:
    out = {}
    for tp, rs in by_partition(recs).items():
        start = (starts or {}).get(tp, 0)
        hits = [r.offset for r in rs if r.offset >= start and is_poison(r)]
        if hits:
            out[tp] = hits[0] + 1
    return out


def first_match(recs, predicate, starts: dict | None = None) -> dict:
    out = {}
    for tp, rs in by_partition(recs).items():
        start = (starts or {}).get(tp, 0)
        hits = [r.offset for r in rs if r.offset >= start and predicate(r)]
        if hits:
            out[tp] = hits[0]
    return out


# --- archives ------------------------------------------------------------------------------------------------------

def write_parquet(recs, path: str, row_group_size: int | None = None) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("key", pa.binary()), ("value", pa.binary()), ("topic", pa.string()),
                        ("partition", pa.int32()), ("offset", pa.int64()),
                        ("timestamp", pa.timestamp("ms", tz="UTC")), ("timestampType", pa.int32())])
    table = pa.Table.from_pylist([{"key": r.key, "value": r.value, "topic": r.topic, "partition": r.partition,
                                   "offset": r.offset, "timestamp": dt.datetime.fromtimestamp(r.ts_ms / 1000,
                                                                                                dt.timezone.utc),
                                   "timestampType": 0} for r in recs], schema=schema)
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def write_json_lines(recs, path: str, *, columns: dict | None = None) -> str:
    """JSON lines with text key/value and epoch-ms timestamps; ``columns`` renames fields (to test --column)."""
    names = {"topic": "topic", "partition": "partition", "offset": "offset", "timestamp": "timestamp",
             "key": "key", "value": "value", **(columns or {})}
    with open(path, "w") as f:
        for r in recs:
            value = None if r.value is None else r.value.decode("utf-8", "replace")
            row = {names["topic"]: r.topic, names["partition"]: r.partition, names["offset"]: r.offset,
                   names["timestamp"]: r.ts_ms, names["key"]: r.key.decode(), names["value"]: value}
            f.write(json.dumps(row) + "\n")
    return path
