"""``lag``: per partition, the end offset minus where the connector resumes, the age of the oldest record not yet
replicated or consumed, and the thresholds that fail the command."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Callable

from ... import mirrormaker, schemas
from ...adapters.spark.sources import LiveTopics
from ...connect import ConnectorKind
from ...errors import InputError
from ...model import OffsetsDocument
from ...progress import Progress, SilentProgress
from .positions import BrokerFactory, broker_for, resume_positions
from ...times import iso_ms


# A partition's lag cannot be measured when the connector resumes past the end of its log (the topic was recreated
# or truncated: Connect's consumer gets OffsetOutOfRange) or the partition no longer exists (the topic was deleted,
# or recreated with fewer partitions). The numbers would say "no lag": a gate must not pass on them.
STATUS_OK, STATUS_AHEAD, STATUS_MISSING = mirrormaker.STATUS_OK, mirrormaker.STATUS_AHEAD, mirrormaker.STATUS_MISSING


@dataclass(frozen=True)
class LagRow:
    topic: str
    partition: int
    position: int | None  # where the connector resumes; None = no stored offset
    end: int | None  # None: the partition does not exist (status missing)
    lag: int
    oldest_pending_ms: int | None = None  # timestamp of the first record not yet replicated/consumed
    time_lag_s: float | None = 0.0  # its age when measured; 0 when nothing is pending, None when unreadable
    status: str = STATUS_OK  # ok | ahead (resumes past the log end) | missing (no such partition)

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "position": self.position, "end": self.end,
                "lag": self.lag, "oldestPending": iso_ms(self.oldest_pending_ms), "timeLagSeconds": self.time_lag_s,
                "status": self.status}

    def problem(self) -> str | None:
        """Why this partition's lag cannot be trusted, for the gate's message; None when it can."""
        if self.status == STATUS_AHEAD:
            return f"ahead: resumes at {self.position}, past the log end {self.end}"
        if self.status == STATUS_MISSING:
            return "missing: the partition does not exist"
        return None


@dataclass(frozen=True)
class LagThresholds:
    """Exit-status gates for ``lag``: a partition lagging more than ``max_lag`` records, or whose oldest pending
    record is older than ``max_age_s`` seconds, fails the gate. The gate fails closed: a pending record whose age
    cannot be read counts as too old, and a partition whose lag cannot be measured (ahead of its log, or gone)
    fails any gate."""

    max_lag: int | None = None
    max_age_s: float | None = None

    @property
    def active(self) -> bool:
        return self.max_lag is not None or self.max_age_s is not None

    def exceeded(self, rows: list[LagRow]) -> list[dict[str, Any]]:
        found = []
        for row in rows:
            if row.status != STATUS_OK:
                if self.active:
                    found.append({"topic": row.topic, "partition": row.partition, "reason": row.status})
                continue
            if self.max_lag is not None and row.lag > self.max_lag:
                found.append({"topic": row.topic, "partition": row.partition, "reason": "lag"})
            if self.max_age_s is not None and row.lag > 0 and (row.time_lag_s is None
                                                                or row.time_lag_s > self.max_age_s):
                found.append({"topic": row.topic, "partition": row.partition, "reason": "age"})
        return found


def lag(kind: ConnectorKind, current: OffsetsDocument, source: LiveTopics, *, broker: BrokerFactory | None = None,
        progress: Progress | None = None, now_ms: Callable[[], int] | None = None) -> list[LagRow]:
    """Per partition: end offset minus where the connector resumes, and the age of the oldest record not yet
    replicated (its timestamp on the source, read with one fetch per lagging partition). Partitions of the
    connector's topics without a stored offset count from the log start (the consumer's auto.offset.reset=earliest,
    MirrorMaker 2's default)."""
    progress = progress or SilentProgress()
    positions = resume_positions(kind, current)
    topics = tuple(sorted({t for t, _ in positions} | set(source.topics)))
    if not topics:
        raise InputError("no topics to measure: the connector has no offsets",
                         advice="name the topics with --topic")
    client = broker_for(broker, LiveTopics(source.bootstrap_servers, topics, source.kafka_options))
    progress.step(f"asking {source.bootstrap_servers} for the end offsets of {', '.join(topics)}")
    found = client.existing_partitions(topics)
    for topic in sorted(t for t, ps in found.items() if ps is None):
        progress.warn(f"topic '{topic}' does not exist at {source.bootstrap_servers}: not measured (deleted since "
                      "the connector stored an offset for it?)")
    partitions = [(t, p) for t, ps in found.items() for p in ps or ()]
    missing = sorted(tp for tp in positions if tp not in set(partitions))
    if not partitions:
        raise InputError(f"none of the topics exists at {source.bootstrap_servers}: {', '.join(topics)}",
                         advice="check --bootstrap-server: for MirrorMaker 2 it is the SOURCE cluster")
    earliest, end = client.earliest(partitions), client.end(partitions)
    starts = {}
    for tp in partitions:
        position = positions.get(tp)
        starts[tp] = earliest[tp] if position is None else max(position, earliest[tp])
    pending = {tp: start for tp, start in starts.items() if end[tp] > start}
    stamps = client.timestamps_at(pending) if pending else {}
    measured = (now_ms or _now_ms)()
    rows = [LagRow(t, p, positions[(t, p)], None, 0, None, None, STATUS_MISSING) for t, p in missing]
    for tp in partitions:
        lag_records = max(end[tp] - starts[tp], 0)
        stamp = stamps.get(tp)
        age = 0.0 if not lag_records else (None if stamp is None else max(measured - stamp, 0) / 1000.0)
        position = positions.get(tp)
        status = STATUS_AHEAD if position is not None and position > end[tp] else STATUS_OK
        rows.append(LagRow(tp[0], tp[1], position, end[tp], lag_records, stamp, age, status))
    return sorted(rows, key=lambda row: (row.topic, row.partition))


def _now_ms() -> int:
    return int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000)


def lag_document(rows: list[LagRow], thresholds: LagThresholds | None = None,
                 measured_at: dt.datetime | None = None) -> dict[str, Any]:
    thresholds = thresholds or LagThresholds()
    ages = [r.time_lag_s for r in rows if r.time_lag_s is not None]
    document = {"partitions": [r.to_json() for r in rows], "totalLag": sum(r.lag for r in rows),
                "maxTimeLagSeconds": max(ages) if ages else None,
                "measuredAt": (measured_at or dt.datetime.now(dt.timezone.utc)).replace(microsecond=0)
                .isoformat().replace("+00:00", "Z"),
                "thresholds": {"maxLag": thresholds.max_lag, "maxAgeSeconds": thresholds.max_age_s,
                               "exceeded": thresholds.exceeded(rows)}}
    schemas.validate("lag", document, what="the lag report")
    return document

