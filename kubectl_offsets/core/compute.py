"""Compute offsets from topic data: which record should the connector resume at, per partition.

The answer is always "resume at record N" per topic-partition; ``connect.py`` turns N into what the connector
stores (a sink stores N, a MirrorSourceConnector stores N-1, and N=0 is a null offset for it), so the document
this returns is what ``alter -f`` and ``gitops ... -f`` take as is.

Where the answer comes from:
- timestamps and bounds on a live topic (``--to-datetime``, ``--by-duration``, ``--to-earliest``, ``--to-latest``,
  ``--shift-by``): the broker's own index, one ListOffsets request (``adapters/kafka.py``), O(partitions);
- anything that looks at content (``--skip-poison``, ``--find``) or archived data: a Spark scan
  (``adapters/spark/``) that aggregates per partition on the executors. A time question on an archive reads the
  late records through a pushed filter (the reader skips row groups by their statistics) and the earlier ones
  only for partitions without a late record.

Also here: ``connect-offsets`` (Connect's offsets topic -> latest offsets per connector) and ``lag``.
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping

from .. import schemas
from ..connect import (ConnectorKind, entry_for, next_record_after_stored, position_of, stored_offset_to_resume_at,
                       topic_partition_of)
from ..errors import InputError
from ..model import OffsetEntry, OffsetsDocument
from ..output.progress import Progress, SilentProgress
from ..adapters.spark.jobs import ConnectRecord, PoisonCriteria, PoisonScan, Record
from ..adapters.spark.sources import LiveTopics, Source

TopicPartition = tuple[str, int]
# A live poison scan reads each partition in offset windows of this many records, four times larger each round,
# and stops reading a partition after the window that holds its first poison record: the answer needs no more.
POISON_WINDOW = 50_000
POISON_WINDOW_GROWTH = 4
SparkFactory = Callable[[bool], Any]  # needs_kafka -> SparkSession; called only when a scan is needed
BrokerFactory = Callable[[str, tuple[tuple[str, str], ...]], Any]


class Operation(str, enum.Enum):
    TO_DATETIME = "to-datetime"
    BY_DURATION = "by-duration"
    TO_EARLIEST = "to-earliest"
    TO_LATEST = "to-latest"
    SHIFT_BY = "shift-by"
    SKIP_POISON = "skip-poison"
    FIND = "find"

    @property
    def content_blind(self) -> bool:
        """Answered from timestamps and bounds alone, so a broker's index can answer without a scan."""
        return self not in (Operation.SKIP_POISON, Operation.FIND)


@dataclass(frozen=True)
class ComputeRequest:
    source: Source
    operation: Operation
    kind: ConnectorKind = ConnectorKind.SINK
    source_alias: str | None = None  # MirrorSourceConnector partitions name the source cluster
    at_ms: int | None = None  # --to-datetime / --by-duration, resolved to epoch ms
    shift_by: int | None = None
    poison: PoisonCriteria | None = None
    find: str | None = None
    current: OffsetsDocument | None = None  # where the connector stands (--current FILE or the cluster)
    scan: bool = False  # force a Spark scan on a live topic, even for timestamps
    report_limit: int = 10_000
    count_all: bool = False  # --count-all: a poison scan of a live topic reads to the end of every partition
    poison_window: int = POISON_WINDOW  # records per partition in a live poison scan's first window


@dataclass(frozen=True)
class Position:
    """Where one partition should resume, and why (shown on stderr next to the document)."""

    topic: str
    partition: int
    resume_at: int
    basis: str
    ts_ms: int | None = None


@dataclass
class ComputeResult:
    document: OffsetsDocument
    kind: ConnectorKind
    positions: list[Position]
    method: str  # "broker index" or "scan"
    poison: PoisonScan | None = None
    matches: list[Record] | None = None
    notes: list[str] = field(default_factory=list)


# --- inputs -----------------------------------------------------------------------------------------------------


def parse_datetime(text: str) -> int:
    """ISO-8601 -> epoch ms. Without a zone the time is UTC (said in --help), so scripts do not depend on the
    machine's zone."""
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError(f"--to-datetime '{text}' is not an ISO-8601 date-time",
                         advice="for example 2026-11-21T09:00:00Z or 2026-11-21T10:00:00+01:00") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return int(value.timestamp() * 1000)


_DURATION = re.compile(r"^P(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$")


def parse_duration(text: str) -> dt.timedelta:
    """ISO-8601 ``PnDTnHnMnS`` as kafka-consumer-groups --by-duration takes it."""
    m = _DURATION.match(text.strip().upper())
    if not m or not any(m.groupdict().values()) or text.strip().upper().endswith("T"):
        raise InputError(f"--by-duration '{text}' is not an ISO-8601 duration",
                         advice="for example PT30M (30 minutes), PT6H, P1DT12H")
    parts = {k: float(v) if v else 0.0 for k, v in m.groupdict().items()}
    return dt.timedelta(days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"])


def at_for_duration(text: str, now: dt.datetime | None = None) -> int:
    now = now or dt.datetime.now(dt.timezone.utc)
    return int((now - parse_duration(text)).timestamp() * 1000)


def kind_of_document(document: OffsetsDocument) -> ConnectorKind | None:
    """Sink or MirrorSource, recognised by the partition keys (None for an empty or other document)."""
    kinds = set()
    for entry in document:
        keys = set(entry.partition)
        if {"kafka_topic", "kafka_partition"} <= keys:
            kinds.add(ConnectorKind.SINK)
        elif {"cluster", "topic", "partition"} <= keys:
            kinds.add(ConnectorKind.MIRROR_SOURCE)
        else:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def alias_of_document(document: OffsetsDocument | None) -> str | None:
    aliases = {e.partition.get("cluster") for e in document or ()}
    return aliases.pop() if len(aliases) == 1 else None


def resume_positions(kind: ConnectorKind, current: OffsetsDocument | None) -> dict[TopicPartition, int]:
    """Where the connector resumes per partition, from its stored offsets (partitions with a null offset have
    none: the consumer's reset policy decides)."""
    positions = {}
    for entry in current or ():
        tp = topic_partition_of(kind, entry.partition)
        stored = position_of(kind, entry.offset)
        if tp is not None and stored is not None:
            positions[tp] = next_record_after_stored(kind, stored)
    return positions


# --- compute ----------------------------------------------------------------------------------------------------


def compute(request: ComputeRequest, *, spark: SparkFactory | None = None, broker: BrokerFactory | None = None,
            progress: Progress | None = None) -> ComputeResult:
    """The offsets document for the request. ``spark`` makes a SparkSession only if a scan is needed."""
    progress = progress or SilentProgress()
    _check(request)
    client = _broker(broker, request.source) if isinstance(request.source, LiveTopics) else None
    live = _live_partitions(request, client, progress)
    if client is not None and request.operation.content_blind and not request.scan:
        progress.step(f"asking the broker's timestamp index ({sum(map(len, live.values()))} partitions)")
        return _result(request, _from_broker(request, live, client), "broker index")
    session = _spark(spark, request.source)
    progress.step(f"scanning {request.source.describe()} with Spark ({session.sparkContext.master})")
    return _scan(request, session, live, client, progress)


def _check(request: ComputeRequest) -> None:
    if request.kind not in (ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE):
        raise InputError(f"compute writes topic-partition offsets; a {request.kind.value} connector has none",
                         advice="use --for sink or --for mirror-source")
    if request.kind is ConnectorKind.MIRROR_SOURCE and not request.source_alias:
        raise InputError("a MirrorSourceConnector's offsets name the source cluster",
                         advice="add --source-alias ALIAS (the alias of the cluster the topic is replicated from)")
    if request.operation is Operation.SHIFT_BY and not request.current:
        raise InputError("--shift-by moves the connector's current offsets, which are not known",
                         advice="give them with --current FILE (kubectl offsets list NAME -o json > FILE)")
    if request.operation in (Operation.TO_DATETIME, Operation.BY_DURATION) and request.at_ms is None:
        raise InputError(f"--{request.operation.value} needs a time")


def _spark(factory: SparkFactory | None, source: Source) -> Any:
    if factory is None:
        from ..adapters.spark.session import SparkSettings, build_session

        return build_session(SparkSettings(needs_kafka=isinstance(source, LiveTopics)))
    return factory(isinstance(source, LiveTopics))


def _broker(factory: BrokerFactory | None, source: LiveTopics) -> Any:
    if factory is None:
        from ..adapters.kafka import Broker

        return Broker(source.bootstrap_servers, source.kafka_options)
    return factory(source.bootstrap_servers, source.kafka_options)


def _live_partitions(request: ComputeRequest, client: Any, progress: Progress) -> dict[str, list[int]]:
    """For a live topic: its partitions (also the check that the broker answers and the topic exists)."""
    if client is None:
        return {}
    progress.step(f"reading the partitions of {', '.join(request.source.topics)}")
    return client.partitions(request.source.topics)


def _from_broker(request: ComputeRequest, live: Mapping[str, list[int]], client: Any) -> list[Position]:
    partitions = [(t, p) for t, ps in live.items() for p in ps]
    earliest, end = client.earliest(partitions), client.end(partitions)
    found = client.offsets_for_time(partitions, request.at_ms) if request.at_ms is not None else {}
    bounds = {tp: (earliest[tp], end[tp]) for tp in partitions}
    return _bounded_positions(request, bounds, found, {})


def _bounded_positions(request: ComputeRequest, bounds: Mapping[TopicPartition, tuple[int, int]],
                       found: Mapping[TopicPartition, int | None], found_ms: Mapping[TopicPartition, int | None]
                       ) -> list[Position]:
    """Content-blind operations, from per-partition (earliest, end) and the first offset at the asked time."""
    current = resume_positions(request.kind, request.current)
    positions = []
    for tp, (earliest, end) in sorted(bounds.items()):
        op = request.operation
        if op in (Operation.TO_DATETIME, Operation.BY_DURATION):
            at = found.get(tp)
            positions.append(Position(*tp, end, "no record at or after the time: the end") if at is None
                             else Position(*tp, at, "first record at or after the time", found_ms.get(tp)))
        elif op is Operation.TO_EARLIEST:
            positions.append(Position(*tp, earliest, "earliest"))
        elif op is Operation.TO_LATEST:
            positions.append(Position(*tp, end, "latest (end)"))
        elif tp in current:
            wanted = current[tp] + (request.shift_by or 0)
            clamped = min(max(wanted, earliest), end)
            basis = f"current {current[tp]} shifted by {request.shift_by}"
            positions.append(Position(*tp, clamped, basis if clamped == wanted else basis + f", kept within "
                                                                                         f"[{earliest}, {end}]"))
    return positions


def _scan(request: ComputeRequest, session: Any, live: Mapping[str, list[int]], client: Any,
          progress: Progress) -> ComputeResult:
    from ..adapters.spark import jobs, sources
    from ..adapters.spark.monitor import TaskMonitor

    starts = _scan_starts(request, live, client)
    source = request.source
    if request.operation is Operation.SKIP_POISON and isinstance(source, LiveTopics) and not request.count_all:
        with TaskMonitor(session, lambda text: progress.waiting(f"Spark: {text}")):
            scan = _poison_in_windows(request, session, live, client, starts)
        result = _result(request, _poison_positions(scan), "scan")
        result.poison = scan
        progress.done()
        return result
    if isinstance(source, LiveTopics) and starts:
        source = LiveTopics(source.bootstrap_servers, source.topics, source.kafka_options,
                            starts=_all_partition_starts(live, starts))
    frame = sources.load(session, source, _needed_columns(request))
    with TaskMonitor(session, lambda text: progress.waiting(f"Spark: {text}")):
        if request.operation is Operation.SKIP_POISON:
            scan = jobs.scan_poison(jobs.from_starts(frame, starts), request.poison, request.report_limit)
            result = _result(request, _poison_positions(scan), "scan")
            result.poison = scan
        elif request.operation is Operation.FIND:
            matches = jobs.first_matches(jobs.from_starts(frame, starts), request.find)
            result = _result(request, [Position(m.topic, m.partition, m.offset, "first match", m.ts_ms)
                                       for m in matches], "scan")
            result.matches = matches
        elif request.at_ms is not None and not isinstance(source, LiveTopics):
            result = _result(request, _time_positions(jobs.scan_times(frame, request.at_ms)), "scan")
        else:
            scanned = jobs.scan_positions(frame, request.at_ms)
            bounds = {(s.topic, s.partition): (s.earliest, s.end) for s in scanned}
            found = {(s.topic, s.partition): s.first_at for s in scanned}
            found_ms = {(s.topic, s.partition): s.first_at_ms for s in scanned}
            result = _result(request, _bounded_positions(request, bounds, found, found_ms), "scan")
    progress.done()
    return result


def _time_positions(scanned: Iterable[Any]) -> list[Position]:
    """--to-datetime / --by-duration from an archive's scan_times: the same answers as _bounded_positions."""
    return [Position(s.topic, s.partition, s.end, "no record at or after the time: the end") if s.first_at is None
            else Position(s.topic, s.partition, s.first_at, "first record at or after the time", s.first_at_ms)
            for s in scanned]


def _needed_columns(request: ComputeRequest) -> tuple[str, ...]:
    if request.operation in (Operation.TO_DATETIME, Operation.BY_DURATION, Operation.FIND):
        return ("timestamp",)
    if request.operation is Operation.SKIP_POISON:
        criteria = request.poison or PoisonCriteria()
        needs_value = criteria.invalid_json or criteria.schema is not None
        return ("timestamp", "value") if needs_value else ("timestamp",)
    return ()


def _scan_starts(request: ComputeRequest, live: Mapping[str, list[int]], client: Any
                 ) -> dict[TopicPartition, int]:
    """A poison scan starts where the connector stands (never below a live partition's log start): only records
    it has not processed yet can stop it. --find looks at the whole partition ("replay from the order with id
    4711" usually points behind the connector), and so do the time-based operations."""
    if request.operation is not Operation.SKIP_POISON:
        return {}
    starts = resume_positions(request.kind, request.current)
    if live and starts:
        earliest = client.earliest([tp for tp in starts if tp[1] in live.get(tp[0], ())])
        starts = {tp: max(o, earliest.get(tp, o)) for tp, o in starts.items()}
    return starts


def _all_partition_starts(live: Mapping[str, list[int]], starts: Mapping[TopicPartition, int]
                          ) -> dict[str, dict[int, int]]:
    """Spark's Kafka source wants a start for every partition once one is given; -2 means the log start."""
    return {t: {p: starts.get((t, p), -2) for p in ps} for t, ps in live.items()}


def _poison_in_windows(request: ComputeRequest, session: Any, live: Mapping[str, list[int]], client: Any,
                       starts: Mapping[TopicPartition, int]) -> PoisonScan:
    """A live topic's poison scan, one offset window per partition at a time (Spark's Kafka source reads exact
    per-partition ranges): a partition whose window held a poison record is answered and not read further; the
    others go on with a window four times larger, up to the end offsets asked for before the first window."""
    from ..adapters.spark import jobs, sources

    source = request.source
    partitions = [(t, p) for t, ps in live.items() for p in ps]
    earliest, end = client.earliest(partitions), client.end(partitions)
    position = {tp: max(starts.get(tp, earliest[tp]), earliest[tp]) for tp in partitions}
    pending = [tp for tp in partitions if position[tp] < end[tp]]
    size, scans, stopped = request.poison_window, [], {}
    while pending:
        window_end = {tp: min(position[tp] + size, end[tp]) for tp in pending}
        window = LiveTopics(source.bootstrap_servers, source.topics, source.kafka_options,
                            starts=_by_topic(position, pending), ends=_by_topic(window_end, pending))
        scan = jobs.scan_poison(sources.load(session, window, _needed_columns(request)), request.poison,
                                request.report_limit)
        scans.append(scan)
        position.update(window_end)
        stopped.update({tp: position[tp] for tp in scan.first if position[tp] < end[tp]})
        pending = [tp for tp in pending if tp not in scan.first and position[tp] < end[tp]]
        size *= POISON_WINDOW_GROWTH
    return jobs.merge_poison_scans(scans, request.report_limit, stopped)


def _by_topic(offsets: Mapping[TopicPartition, int], partitions: Iterable[TopicPartition]) -> dict[str, dict[int, int]]:
    nested: dict[str, dict[int, int]] = {}
    for topic, partition in partitions:
        nested.setdefault(topic, {})[partition] = offsets[(topic, partition)]
    return nested


def _poison_positions(scan: PoisonScan) -> list[Position]:
    """Just past the first poison record per partition; the report lists the others."""
    positions = []
    for tp, first in sorted(scan.first.items()):
        more, until = scan.counts[tp] - 1, scan.scanned_until.get(tp)
        if until is None:
            basis = f"past poison record {first}" + (f" ({more} more poison after it)" if more else "")
        else:
            basis = f"past poison record {first} (read up to offset {until}" + \
                    (f", {more} more poison before it)" if more else ")")
        positions.append(Position(*tp, first + 1, basis))
    return positions


def _result(request: ComputeRequest, positions: list[Position], method: str) -> ComputeResult:
    entries = [entry_for(request.kind, p.topic, p.partition, stored_offset_to_resume_at(request.kind, p.resume_at),
                         source_alias=request.source_alias) for p in positions]
    document = OffsetsDocument.of(entries)
    schemas.validate(request.kind.schema_name, document.to_json(), what="the computed offsets")
    return ComputeResult(document, request.kind, positions, method)


# --- poison report ----------------------------------------------------------------------------------------------


def poison_report(scan: PoisonScan, criteria: PoisonCriteria) -> dict[str, Any]:
    """The ``--report`` document (schemas/poison-report.schema.json)."""
    report = {
        "criteria": _criteria_text(criteria),
        "total": scan.total,
        "truncated": scan.truncated,
        "complete": scan.complete,
        "partitions": [{"topic": t, "partition": p, "firstPoisonOffset": scan.first[(t, p)],
                        "poisonRecords": scan.counts[(t, p)],
                        **({"scannedUntil": scan.scanned_until[(t, p)]} if (t, p) in scan.scanned_until else {})}
                       for t, p in sorted(scan.first)],
        "records": [{"topic": r.topic, "partition": r.partition, "offset": r.offset,
                     "timestamp": iso_ms(r.ts_ms), "reason": r.reason} for r in scan.records],
    }
    schemas.validate("poison-report", report, what="the poison report")
    return report


def _criteria_text(criteria: PoisonCriteria) -> list[str]:
    texts = []
    if criteria.where is not None:
        texts.append(f"--where {criteria.where}")
    if criteria.invalid_json:
        texts.append("--invalid json")
    if criteria.schema is not None:
        texts.append(f"--invalid-against {criteria.schema_name}")
    return texts


def iso_ms(ts_ms: int | None) -> str | None:
    if ts_ms is None:
        return None
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.timezone.utc).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


# --- Connect's offsets topic ------------------------------------------------------------------------------------


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
    from ..adapters.spark import jobs, sources

    progress = progress or SilentProgress()
    session = _spark(spark, source)
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
        value = _json_or_none(record.value)
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


def _json_or_none(text: str | None) -> dict[str, Any] | None:
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def connect_history(source: Source, *, spark: SparkFactory | None = None, connectors: tuple[str, ...] = (),
                    progress: Progress | None = None) -> Iterator[dict[str, Any]]:
    """Every record of the offsets topic (``--from-beginning``), oldest first per partition, streamed."""
    from ..adapters.spark import jobs, sources

    progress = progress or SilentProgress()
    session = _spark(spark, source)
    progress.step(f"reading the history of Connect's offsets from {source.describe()}")
    frame = sources.load(session, source, ("key", "value", "timestamp"))
    for record in jobs.connect_history(frame, connectors):
        parsed = parse_connect_key(record.key)
        if parsed is not None:
            yield {"connector": parsed[0], "partition": parsed[1], "offset": _json_or_none(record.value),
                   "topicPartition": record.partition, "topicOffset": record.offset,
                   "timestamp": iso_ms(record.ts_ms)}


# --- lag --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LagRow:
    topic: str
    partition: int
    position: int | None  # where the connector resumes; None = no stored offset
    end: int
    lag: int
    oldest_pending_ms: int | None = None  # timestamp of the first record not yet replicated/consumed
    time_lag_s: float | None = 0.0  # its age when measured; 0 when nothing is pending, None when unreadable

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "position": self.position, "end": self.end,
                "lag": self.lag, "oldestPending": iso_ms(self.oldest_pending_ms), "timeLagSeconds": self.time_lag_s}


@dataclass(frozen=True)
class LagThresholds:
    """Exit-status gates for ``lag``: a partition lagging more than ``max_lag`` records, or whose oldest pending
    record is older than ``max_age_s`` seconds, fails the gate (a pending record whose age cannot be read counts
    as too old: the gate must not pass on missing data)."""

    max_lag: int | None = None
    max_age_s: float | None = None

    def exceeded(self, rows: list[LagRow]) -> list[dict[str, Any]]:
        found = []
        for row in rows:
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
    client = _broker(broker, LiveTopics(source.bootstrap_servers, topics, source.kafka_options))
    progress.step(f"asking {source.bootstrap_servers} for the end offsets of {', '.join(topics)}")
    found = client.existing_partitions(topics)
    for topic in sorted(t for t, ps in found.items() if ps is None):
        progress.warn(f"topic '{topic}' does not exist at {source.bootstrap_servers}: not measured (deleted since "
                      "the connector stored an offset for it?)")
    partitions = [(t, p) for t, ps in found.items() for p in ps or ()]
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
    rows = []
    for tp in sorted(partitions):
        lag_records = max(end[tp] - starts[tp], 0)
        stamp = stamps.get(tp)
        age = 0.0 if not lag_records else (None if stamp is None else max(measured - stamp, 0) / 1000.0)
        rows.append(LagRow(tp[0], tp[1], positions.get(tp), end[tp], lag_records, stamp, age))
    return rows


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
