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

Beside it in ``core/compute/``: ``poison.py`` (live poison scans in windows,
the report), ``offsets_topic.py`` (``compute connect-offsets``), ``lag.py`` (``lag``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from ... import schemas
from ...connect import (ConnectorKind, entry_for, next_record_after_stored, position_of, stored_offset_to_resume_at,
                       topic_partition_of)
from ...errors import InputError
from ...model import OffsetsDocument
from ...progress import Progress, SilentProgress
from ...adapters.spark.jobs import PoisonCriteria, PoisonScan, Record
from ...adapters.spark.sources import LiveTopics, Source
from .poison import POISON_WINDOW, TopicPartition, poison_in_windows
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


# --- the connector's current position -------------------------------------------------------------------------------


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
    client = broker_for(broker, request.source) if isinstance(request.source, LiveTopics) else None
    live = _live_partitions(request, client, progress)
    if client is not None and request.operation.content_blind and not request.scan:
        progress.step(f"asking the broker's timestamp index ({sum(map(len, live.values()))} partitions)")
        return _result(request, _from_broker(request, live, client), "broker index")
    session = spark_for(spark, request.source)
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


def spark_for(factory: SparkFactory | None, source: Source) -> Any:
    if factory is None:
        from ...adapters.spark.session import SparkSettings, build_session

        return build_session(SparkSettings(needs_kafka=isinstance(source, LiveTopics)))
    return factory(isinstance(source, LiveTopics))


def broker_for(factory: BrokerFactory | None, source: LiveTopics) -> Any:
    if factory is None:
        from ...adapters.kafka import Broker

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
    from ...adapters.spark import jobs, sources
    from ...adapters.spark.monitor import TaskMonitor

    starts = _scan_starts(request, live, client)
    source = request.source
    if request.operation is Operation.SKIP_POISON and isinstance(source, LiveTopics) and not request.count_all:
        with TaskMonitor(session, lambda text: progress.waiting(f"Spark: {text}")):
            scan = poison_in_windows(source, request.poison, session, live, client, starts, _needed_columns(request),
                                     report_limit=request.report_limit, first_window=request.poison_window)
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
            result = _result(request, _time_positions(jobs.scan_times(frame, request.at_ms,
                                                                      statistics=source.has_statistics)),
                             "scan")
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


