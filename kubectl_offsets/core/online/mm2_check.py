"""The MirrorMaker 2 pre-flight: does each stored source offset still point into its source partition?

A MirrorSourceConnector resumes at stored + 1. If retention or DeleteRecords moved the partition's log start past
that, the records in between are gone and were never replicated (``gap``); if the topic was recreated or truncated,
the stored offset points past the end (``ahead``); if the topic is gone, ``missing``. Kafka itself says nothing in
any of these cases, so ``alter``/``reset``/``undo`` of a MirrorSourceConnector run this check on the offsets the
connector will resume from and show the result in the preview, and ``kubectl offsets check`` runs it on its own.

The broker addresses come from the user (``--source-bootstrap-server``) or the KafkaMirrorMaker2's spec. The spec's
addresses are often only reachable inside the cluster; then the check says so in one line and the operation goes on
without it, unless the user insists (``--require-check``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ... import mirrormaker, schemas, strimzi
from ...connect import ConnectorKind
from ...errors import InputError, MissingExtraError, OffsetsError, PreconditionError
from ...model import OffsetsDocument

if TYPE_CHECKING:
    pass

BrokerFactory = Callable[[str, tuple[tuple[str, str], ...], float], Any]
DEFAULT_CHECK_TIMEOUT = 5.0  # an address only reachable in-cluster must not hold a command up long


@dataclass(frozen=True)
class Mm2Settings:
    """What the MirrorMaker 2 checks and the full reset need besides the custom resource."""

    source_bootstrap: str | None = None  # --source-bootstrap-server / --bootstrap-server
    target_bootstrap: str | None = None  # --target-bootstrap-server (offset-syncs on the target cluster)
    kafka_options: tuple[tuple[str, str], ...] = ()
    require_check: bool = False
    with_offset_syncs: bool = False  # reset: the full reset
    allow_shared_offset_syncs: bool = False  # full reset: truncate even when other mirrors use the topic
    # recover --bootstrap-server: the cluster holding the offset-syncs topic, instead of the address the full reset
    # recorded in its journal (often a port-forward that is gone)
    offset_syncs_bootstrap: str | None = None
    timeout: float = DEFAULT_CHECK_TIMEOUT


@dataclass(frozen=True)
class PartitionCheck:
    topic: str
    partition: int
    stored: int
    log_start: int | None
    log_end: int | None
    status: str

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "stored": self.stored,
                "logStart": self.log_start, "logEnd": self.log_end, "status": self.status}

    def describe(self) -> str:
        where = f"{self.topic}:{self.partition}"
        if self.status == mirrormaker.STATUS_MISSING:
            return f"{where} missing: the source partition does not exist (topic deleted?); stored offset {self.stored}"
        if self.status == mirrormaker.STATUS_GAP:
            assert self.log_start is not None  # a gap is measured against a known log start
            lost = self.log_start - self.stored - 1
            return (f"{where} gap: stored {self.stored}, log start {self.log_start}: records {self.stored + 1} to "
                    f"{self.log_start - 1} ({lost}) were never replicated and are gone from the source")
        if self.status == mirrormaker.STATUS_AHEAD:
            return (f"{where} ahead: stored {self.stored}, log end {self.log_end}: the stored record does not exist "
                    "(topic recreated or truncated?); the task would restart from auto.offset.reset")
        return f"{where} ok"


@dataclass
class CheckReport:
    connector: str
    source_alias: str | None
    bootstrap: str | None
    partitions: list[PartitionCheck] = field(default_factory=list)
    skipped: str | None = None  # why the check could not run

    @property
    def problems(self) -> list[PartitionCheck]:
        return [p for p in self.partitions if p.status in mirrormaker.PROBLEMS]

    def to_json(self) -> dict[str, Any]:
        return {"connector": self.connector, "sourceAlias": self.source_alias, "bootstrapServers": self.bootstrap,
                "checked": self.skipped is None, "skipped": self.skipped,
                "partitions": [p.to_json() for p in self.partitions],
                "problems": len(self.problems)}

    def warnings(self) -> list[str]:
        """Lines for a preview: one per problem, or the one line that says why there was no check."""
        if self.skipped is not None:
            return [f"MirrorMaker 2 pre-flight skipped: {self.skipped} (pass --source-bootstrap-server, or "
                    "--require-check to refuse without it)"]
        return [f"source offset {p.describe()}" for p in self.problems]


def check_document(document: dict[str, Any]) -> dict[str, Any]:
    schemas.validate("mm2-check", document, what="the check report")
    return document


def source_bootstrap(resource, target: strimzi.ConnectorTarget, settings: Mm2Settings) -> str | None:
    if settings.source_bootstrap:
        return settings.source_bootstrap
    source, _ = strimzi.mm2_clusters(resource, target)
    return source.get("bootstrapServers")


def check_offsets(resource, target: strimzi.ConnectorTarget, offsets: OffsetsDocument | None, settings: Mm2Settings,
                  *, broker: BrokerFactory | None = None) -> CheckReport:
    """Judge every stored offset of ``offsets`` (partitions of the mirror's source alias) against the source
    cluster. A broker out of reach gives a skipped report, or PreconditionError with ``require_check``."""
    bootstrap = source_bootstrap(resource, target, settings)
    report = CheckReport(target.connector_name, target.source_alias, bootstrap)
    stored = _stored_offsets(target, offsets)
    if not bootstrap:
        return _skip(report, "the mirror's source cluster has no bootstrapServers in the resource", settings)
    try:
        client = (broker or _default_broker)(bootstrap, settings.kafka_options, settings.timeout)
        if not stored:
            client.existing_partitions([])  # still prove the broker answers, so --require-check means something
            return report
        existing = client.existing_partitions(sorted({t for t, _ in stored}))
        present = [tp for tp in stored if tp[1] in (existing.get(tp[0]) or ())]
        starts, ends = client.earliest(present), client.end(present)
    except (InputError, MissingExtraError) as problem:
        return _skip(report, f"cannot reach the source cluster at {bootstrap}: {problem.message}", settings)
    for tp, offset in sorted(stored.items()):
        status = mirrormaker.classify(offset, starts.get(tp), ends.get(tp))
        report.partitions.append(PartitionCheck(tp[0], tp[1], offset, starts.get(tp), ends.get(tp), status))
    return report


def _stored_offsets(target: strimzi.ConnectorTarget, offsets: OffsetsDocument | None) -> dict[tuple[str, int], int]:
    found = {}
    for entry in offsets or ():
        partition, offset = entry.partition, entry.offset
        if partition.get("cluster") != target.source_alias or not offset or offset.get("offset") is None:
            continue
        found[(str(partition.get("topic")), int(partition.get("partition")))] = int(  # type: ignore[arg-type]
            offset["offset"])  # a MirrorSourceConnector partition always has a number (its schema)
    return found


def _skip(report: CheckReport, reason: str, settings: Mm2Settings) -> CheckReport:
    if settings.require_check:
        raise PreconditionError(f"--require-check: {reason}",
                                advice="pass --source-bootstrap-server HOST:PORT reachable from here (and "
                                       "--kafka-option for its security settings), or drop --require-check")
    report.skipped = reason
    return report


def _default_broker(bootstrap: str, options: tuple[tuple[str, str], ...], timeout: float):
    from ...adapters.kafka import Broker

    return Broker(bootstrap, options, timeout=timeout)


def require_reachable(live, settings: Mm2Settings | None) -> None:
    """With --require-check, refuse before anything is written (even the list that precedes the backup) when the
    source cluster cannot be asked."""
    if settings is None or not settings.require_check or live.target.kind != strimzi.KIND_MM2 \
            or live.kind is not ConnectorKind.MIRROR_SOURCE:
        return
    check_offsets(live.resource, live.target, None, settings)


def preflight(live, after: OffsetsDocument | None, settings: Mm2Settings | None) -> CheckReport | None:
    """The pre-flight of an alter/reset/undo: only for MirrorSourceConnectors, on the offsets it will resume from
    (``after``; for a reset nothing is stored afterwards, so only the broker's reachability is checked)."""
    if live.target.kind != strimzi.KIND_MM2 or live.kind is not ConnectorKind.MIRROR_SOURCE:
        return None
    try:
        return check_offsets(live.resource, live.target, after, settings or Mm2Settings())
    except PreconditionError:
        raise
    except OffsetsError as problem:  # never let the advisory check break the operation itself
        report = CheckReport(live.target.connector_name, live.target.source_alias, None)
        return _skip(report, problem.message, settings or Mm2Settings())
