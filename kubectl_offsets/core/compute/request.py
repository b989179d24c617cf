"""The flags of ``compute``, ``compute connect-offsets`` and ``lag`` as typed requests, checked and resolved here
(as ``AlterRequest.check_combination`` does for ``alter``): which operation, which records (a live topic or an
archive), which connector and where it stands (``--current FILE`` or listed through Strimzi with ``--target``).

The CLI fills these dataclasses from click's flags (same names) and renders what comes back; nothing here prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

from ...adapters.spark.jobs import PoisonCriteria
from ...adapters.spark.sources import Archive, LiveTopics, Source
from ... import files, strimzi
from ...connect import ConnectorKind, topic_partition_of
from ...errors import CheckFailedError, InputError
from ...model import ClusterConfig, OffsetsDocument
from ...progress import Progress
from .positions import ComputeRequest, Operation, SparkFactory, alias_of_document, kind_of_document

KeyValues = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SourceFlags:
    """Where the records come from: ``--bootstrap-server``/``--topic`` (live) or ``--data`` (an archive)."""

    bootstrap_server: str | None = None
    topics: tuple[str, ...] = ()
    kafka_options: KeyValues = ()
    data: str | None = None
    data_format: str = "parquet"
    columns: KeyValues = ()
    base64: bool = False

    def source(self, current: OffsetsDocument | None, kind: ConnectorKind | None) -> Source:
        """The live topics or the archive; live topics default to those the current offsets name."""
        if bool(self.bootstrap_server) == bool(self.data):
            raise InputError("give either --bootstrap-server (a live topic) or --data PATH (archived data)")
        if self.data:
            return Archive(self.data, self.data_format, dict(self.columns), tuple(self.topics), self.base64)
        if self.columns or self.base64:
            raise InputError("--column and --base64 describe --data; a live topic has the Kafka source's columns")
        topics = tuple(self.topics) or tuple(sorted({tp[0] for e in current or ()
                                                     if (tp := topic_partition_of(cast(ConnectorKind, kind), e.partition))}))
        if not topics:
            known = " (the connector has no offsets yet to take them from)" if current is not None else ""
            raise InputError(f"which topic?{known}", advice="give --topic TOPIC (repeatable)")
        assert self.bootstrap_server is not None
        return LiveTopics(self.bootstrap_server, topics, self.kafka_options)


@dataclass(frozen=True)
class SparkFlags:
    """``--master``, ``--spark-jars``, ``--spark-conf``: how a scan's SparkSession is built (only if one is needed)."""

    master: str = "local[*]"
    spark_jars: str | None = None
    spark_conf: KeyValues = ()

    def factory(self) -> SparkFactory:
        def make(needs_kafka: bool) -> Any:
            from ...adapters.spark.session import SparkSettings, build_session

            return build_session(SparkSettings(master=self.master, jars_dir=self.spark_jars,
                                               needs_kafka=needs_kafka, conf=self.spark_conf))
        return make


@dataclass(frozen=True)
class ConnectorFlags:
    """The connector whose offsets are meant: ``--target KIND/NAME`` (listed through Strimzi, the online list flow)
    or ``--current FILE``; ``--connector``/``--source-cluster`` pick one of a KafkaMirrorMaker2's connectors."""

    target: str | None = None
    current: str | None = None
    connector: str | None = None
    source_cluster: str | None = None
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    timeout: float = 300.0


@dataclass(frozen=True)
class ComputeFlags:
    """Every ``compute`` flag; :meth:`request` checks their combination and resolves them."""

    source: SourceFlags
    connector: ConnectorFlags
    to_datetime: str | None = None
    allow_future: bool = False  # a --to-datetime in the future is meant (every partition resumes at its end)
    by_duration: str | None = None
    to_earliest: bool = False
    to_latest: bool = False
    shift_by: int | None = None
    skip_poison: bool = False
    where: str | None = None
    invalid: str | None = None
    invalid_against: str | None = None
    count_all: bool = False
    report: str | None = None
    report_limit: int = 10_000
    find_sql: str | None = None
    for_kind: str | None = None
    source_alias: str | None = None
    scan: bool = False

    def request(self, progress: Progress) -> ComputeRequest:
        operation = self.operation()
        at_ms = self._at(operation)  # a bad or future time is refused before any file or cluster is read
        kind, alias, current = self._connector(progress)
        source = self.source.source(current, kind)
        return ComputeRequest(
            source=source, operation=operation, kind=kind, source_alias=alias, at_ms=at_ms,
            shift_by=self.shift_by, poison=self._poison(operation), find=self.find_sql, current=current,
            scan=self.scan, report_limit=self.report_limit, count_all=self.count_all)

    def operation(self) -> Operation:
        chosen = [op for op, on in ((Operation.TO_DATETIME, self.to_datetime),
                                    (Operation.BY_DURATION, self.by_duration),
                                    (Operation.TO_EARLIEST, self.to_earliest),
                                    (Operation.TO_LATEST, self.to_latest),
                                    (Operation.SHIFT_BY, self.shift_by is not None),
                                    (Operation.SKIP_POISON, self.skip_poison),
                                    (Operation.FIND, self.find_sql)) if on]
        if len(chosen) != 1:
            got = f" (got {', '.join('--' + o.value for o in chosen)})" if chosen else ""
            raise InputError("choose exactly one of --to-datetime, --by-duration, --to-earliest, --to-latest, "
                             "--shift-by, --skip-poison, --find" + got, advice="kubectl offsets compute --help")
        criteria_given = self.where or self.invalid or self.invalid_against or self.report or self.count_all
        if self.allow_future and chosen[0] is not Operation.TO_DATETIME:
            raise InputError("--allow-future goes with --to-datetime")
        if criteria_given and chosen[0] is not Operation.SKIP_POISON:
            raise InputError("--where, --invalid, --invalid-against, --report and --count-all go with --skip-poison")
        return chosen[0]

    def _at(self, operation: Operation) -> int | None:
        from ...times import at_for_duration, parse_datetime

        if operation is Operation.TO_DATETIME:
            assert self.to_datetime is not None
            return parse_datetime(self.to_datetime, allow_future=self.allow_future)
        if operation is Operation.BY_DURATION:
            assert self.by_duration is not None
            return at_for_duration(self.by_duration)
        return None

    def _poison(self, operation: Operation) -> PoisonCriteria | None:
        if operation is not Operation.SKIP_POISON:
            return None
        schema, name = None, "the schema"
        if self.invalid_against:
            schema, name = _read_schema(self.invalid_against), self.invalid_against
        criteria = PoisonCriteria(where=self.where, invalid_json=self.invalid == "json", schema=schema,
                                  schema_name=name)
        if criteria.empty:
            raise InputError("--skip-poison needs to know what a poison record is",
                             advice="add --where SQL, --invalid json or --invalid-against SCHEMA_FILE")
        return criteria

    def _connector(self, progress: Progress) -> tuple[ConnectorKind, str | None, OffsetsDocument | None]:
        """(kind, source alias, current offsets) from --target, --current and --for/--source-alias."""
        flags = self.connector
        if flags.target and flags.current:
            raise InputError("--target reads the current offsets from the cluster; --current gives them: choose one")
        kind: ConnectorKind | None = None
        alias, current = None, None
        if flags.target:
            kind, alias, current = from_cluster(flags, progress)
        elif flags.current:
            current = read_current(flags.current, ConnectorKind(self.for_kind) if self.for_kind else None,
                                   self.source_alias)
            kind, alias = kind_of_document(current), alias_of_document(current)
        if self.for_kind:
            wanted = ConnectorKind(self.for_kind)
            if kind is not None and kind is not wanted:
                raise InputError(f"--for {wanted.value}, but the current offsets are a {kind.value} connector's")
            kind = wanted
        if kind is None:
            kind = ConnectorKind.SINK
            progress.step("offsets for a sink connector (--for mirror-source for a MirrorSourceConnector)")
        return kind, self.source_alias or alias, current


def _read_schema(path: str) -> dict[str, Any]:
    try:
        schema = json.loads(files.read_text(path, f"--invalid-against {path}"))
    except (ValueError, RecursionError) as e:
        raise InputError(f"--invalid-against {path} is not JSON: {e}") from None
    from ...schemas import check_user_schema

    check_user_schema(schema, what=f"--invalid-against {path}")
    return schema


def read_current(path: str, kind: ConnectorKind | None = None, source_alias: str | None = None) -> OffsetsDocument:
    """A --current file: the {"offsets": [...]} document (it says its kind), or the topic,partition,offset CSV
    that list -o csv prints (next record to read), which means what ``kind`` makes of it (default: a sink)."""
    from ..inputs import ConnectorFacts, read_offsets_file

    try:
        return read_offsets_file(path, ConnectorFacts(kind=kind or ConnectorKind.SINK, source_alias=source_alias))
    except ValueError:  # CSV rows for a MirrorSourceConnector, whose partitions name the source cluster
        raise InputError(f"--current {path}: CSV rows do not say the mirror's source cluster",
                         advice="add --source-alias ALIAS, or give the JSON that list -o json prints") from None


def from_cluster(flags: ConnectorFlags, progress: Progress
                 ) -> tuple[ConnectorKind, str | None, OffsetsDocument]:
    """The connector's kind and offsets, listed through Strimzi (the online list flow)."""
    from ...model import Options, WaitSettings
    from ..online import operations
    from ..online.targets import TargetSpec

    assert flags.target is not None
    kube = operations.connect(flags.cluster)
    spec = TargetSpec(flags.target, connector=flags.connector, source_cluster=flags.source_cluster)
    listed = operations.list_offsets(kube, spec, options=Options(wait=WaitSettings(timeout=flags.timeout)),
                                     progress=progress)
    return listed.kind, listed.target.source_alias, listed.offsets


@dataclass(frozen=True)
class ConnectOffsetsFlags:
    """``compute connect-offsets``: the offsets topic (live, default topic connect-cluster-offsets, or archived)."""

    source: SourceFlags
    connectors: str | None = None
    from_beginning: bool = False

    def resolved_source(self) -> Source:
        source = self.source
        if source.bootstrap_server and not source.topics:
            source = SourceFlags(**{**source.__dict__, "topics": (strimzi.CONNECT_OFFSETS_TOPIC,)})
        resolved = source.source(None, None)
        if isinstance(resolved, LiveTopics):
            check_live_topic(resolved)
        return resolved

    def connector_names(self) -> tuple[str, ...]:
        return tuple(c.strip() for c in (self.connectors or "").split(",") if c.strip())


def check_live_topic(source: LiveTopics) -> None:
    """The broker answers and the topic exists, before Spark starts (its own errors are far less clear)."""
    from ...adapters.kafka import Broker

    Broker(source.bootstrap_servers, source.kafka_options).partitions(source.topics)


@dataclass(frozen=True)
class LagFlags:
    """``lag``: the connector (--target or --current), the cluster it reads, and the thresholds."""

    connector: ConnectorFlags
    bootstrap_server: str
    topics: tuple[str, ...] = ()
    kafka_options: KeyValues = ()
    max_lag: int | None = None
    max_age: str | None = None

    def source(self) -> LiveTopics:
        return LiveTopics(self.bootstrap_server, tuple(self.topics), self.kafka_options)

    def max_age_seconds(self) -> float | None:
        """--max-age: 90s, 5m, 2h, 1d, or ISO-8601 (PT5M); validated before anything is read."""
        from ...times import parse_duration

        text = self.max_age
        if text is None:
            return None
        return parse_duration(text, "--max-age").total_seconds()

    def offsets(self, progress: Progress) -> tuple[ConnectorKind, OffsetsDocument]:
        """(kind, offsets): from --current FILE, or listed through Strimzi."""
        flags = self.connector
        if flags.current:
            # lag reads topic and partition only: the alias of CSV rows need not be known
            current = read_current(flags.current, _kind_from_target(flags.target), flags.source_cluster or "")
            kind = kind_of_document(current) or _kind_from_target(flags.target)
        else:
            kind, _, current = from_cluster(flags, progress)
        if kind not in (ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE):
            raise InputError(f"lag is measured for sink and MirrorSource connectors, not for {kind.value} connectors")
        return kind, current


def _kind_from_target(target: str | None) -> ConnectorKind:
    """An empty --current document does not say its kind: MirrorMaker 2 targets are mirror-source, others sink."""
    from ... import strimzi

    kind, _ = strimzi.parse_target(target)  # type: ignore[arg-type]  # lag's TARGET argument is required
    return ConnectorKind.MIRROR_SOURCE if kind == strimzi.KIND_MM2 else ConnectorKind.SINK


def gate(document: dict[str, Any]) -> None:
    """Fail (exit status 9) when the lag report says a threshold was exceeded."""
    exceeded = document["thresholds"]["exceeded"]
    if exceeded:
        rows = {(r["topic"], r["partition"]): r for r in document["partitions"]}
        shown = ", ".join(f"{e['topic']}:{e['partition']} ({_reason(e, rows[(e['topic'], e['partition'])])})"
                          for e in exceeded[:10])
        unmeasurable = any(e["reason"] in ("ahead", "missing") for e in exceeded)
        raise CheckFailedError(f"the lag gate failed on {len(exceeded)} partition(s): {shown}",
                               advice="the report above has the figures per partition" + (
                                   "; a partition that is ahead or missing cannot be measured (topic deleted, "
                                   "recreated or truncated): kubectl offsets check shows it, kubectl offsets alter "
                                   "--to-earliest/--to-latest --topic TOPIC (or reset) puts the connector back on "
                                   "the log" if unmeasurable else ""))


def _reason(exceeded: dict[str, Any], row: dict[str, Any]) -> str:
    if exceeded["reason"] == "ahead":
        return f"ahead: resumes at {row['position']}, past the log end {row['end']}"
    if exceeded["reason"] == "missing":
        return "missing: the partition does not exist"
    return exceeded["reason"]
