"""Time travel in ``alter``: ``--to-datetime``, ``--by-duration``, ``--to-earliest``, ``--to-latest``, the options of
``kafka-consumer-groups --reset-offsets``, resolved through the broker's own index (one ListOffsets request per
broker and kind of question, no scan) and then applied by the normal alter flow (backup, journal, verify).

The broker is the cluster whose topics the connector reads: ``--bootstrap-server``, or by default the address in
the KafkaConnect spec (the mirror's source cluster for MirrorMaker 2). That address is usually only reachable
inside the Kubernetes cluster; when it is not reachable from here, nothing changes and the error says how to pass
one (a port-forward). MirrorMaker 2 semantics as everywhere: "resume at record N" stores N-1.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ... import strimzi
from ...connect import ConnectorKind, entry_for, stored_offset_to_resume_at, topic_partition_of
from ...errors import InputError, NotFoundError
from ...model import OffsetsDocument
from ...progress import Progress
from ..inputs import ConnectorFacts, validate_change
from .targets import TargetSpec, resolve

if TYPE_CHECKING:
    from ...adapters.kube import Kube

TopicPartition = tuple[str, int]
PROBE_TIMEOUT = 8.0  # seconds for the first answer from the broker; an unreachable address fails fast


@dataclass(frozen=True)
class TimeTravel:
    """What the user typed: one of the four questions, the partitions, and where the broker is."""

    to_datetime: str | None = None
    by_duration: str | None = None
    to_earliest: bool = False
    to_latest: bool = False
    topics: tuple[str, ...] = ()
    bootstrap_server: str | None = None
    kafka_options: tuple[tuple[str, str], ...] = ()
    allow_future: bool = False  # --allow-future: a --to-datetime in the future is meant (acts as --to-latest)

    @property
    def requested(self) -> bool:
        return bool(self.to_datetime or self.by_duration or self.to_earliest or self.to_latest)

    @property
    def flag(self) -> str:
        return ("--to-datetime" if self.to_datetime else "--by-duration" if self.by_duration
                else "--to-earliest" if self.to_earliest else "--to-latest")

    def check_combination(self) -> None:
        chosen = [bool(self.to_datetime), bool(self.by_duration), self.to_earliest, self.to_latest]
        if sum(chosen) != 1:
            raise InputError("give exactly one of --to-datetime, --by-duration, --to-earliest, --to-latest")
        for text in self.topics:
            _parse_topic(text)

    def at_ms(self, now: dt.datetime | None = None) -> int | None:
        """The asked time in epoch ms (--by-duration counts back from ``now``); None for earliest/latest."""
        from ...times import at_for_duration, parse_datetime  # the same parsing as `compute`

        if self.to_datetime:
            return parse_datetime(self.to_datetime, allow_future=self.allow_future)
        if self.by_duration:
            return at_for_duration(self.by_duration, now)
        return None


@dataclass(frozen=True)
class Resolved:
    """Where one partition resumes, and why (printed with the preview)."""

    topic: str
    partition: int
    resume_at: int
    basis: str
    record_ms: int | None = None  # --to-datetime/--by-duration: the timestamp of the record it resumes at


@dataclass
class TimeTravelRequest:
    """The change builder handed to ``operations.alter_offsets``: it answers the same questions as
    ``inputs.AlterRequest`` (check_combination, needs_current, build_change) from the broker."""

    travel: TimeTravel
    broker: Any  # adapters.kafka.Broker, already known to answer
    at_ms: int | None
    report: Callable[[list[Resolved]], None] = lambda positions: None
    positions: list[Resolved] = field(default_factory=list)

    def check_combination(self) -> None:
        self.travel.check_combination()

    @property
    def needs_current(self) -> bool:
        """Without --topic: every partition the connector has offsets for, known only by listing them."""
        return not self.travel.topics

    def build_change(self, facts: ConnectorFacts, current: OffsetsDocument | None) -> OffsetsDocument:
        if facts.kind not in (ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE):
            raise InputError(f"{self.travel.flag} needs topic-partition offsets, but this is a {facts.kind.value} "
                             "connector", advice='give its offsets with -f FILE in the {"offsets": [...]} form')
        partitions = self._partitions(facts, current)
        self.positions = resolve_positions(self.broker, partitions, self.travel, self.at_ms)
        entries = [entry_for(facts.kind, p.topic, p.partition, stored_offset_to_resume_at(facts.kind, p.resume_at),
                             source_alias=facts.source_alias) for p in self.positions]
        change = OffsetsDocument.of(entries)
        validate_change(change, facts)
        self.report(self.positions)
        return change

    def _partitions(self, facts: ConnectorFacts, current: OffsetsDocument | None) -> list[TopicPartition]:
        if not self.travel.topics:
            held = sorted({tp for e in current or () if e.offset is not None
                           and (tp := topic_partition_of(facts.kind, e.partition)) is not None})
            if not held:
                raise InputError(f"the connector has no offsets, so {self.travel.flag} has no partitions to move",
                                 advice="name them: --topic TOPIC or --topic TOPIC:0,1")
            return held
        wanted = [_parse_topic(text) for text in self.travel.topics]
        existing = self.broker.partitions(sorted({topic for topic, _ in wanted}))
        selected: list[TopicPartition] = []
        for topic, numbers in wanted:
            for number in numbers if numbers is not None else existing[topic]:
                if number not in existing[topic]:
                    raise InputError(f"topic '{topic}' has no partition {number} at {self.broker.bootstrap_servers}",
                                     advice=f"its partitions: {', '.join(map(str, existing[topic]))}")
                selected.append((topic, number))
        return sorted(set(selected))


def resolve_positions(broker, partitions: list[TopicPartition], travel: TimeTravel, at_ms: int | None
                      ) -> list[Resolved]:
    """One ListOffsets question per kind (earliest, end, at time), each answered by the partition leaders."""
    if travel.to_earliest:
        return [Resolved(topic, partition, offset, "earliest")
                for (topic, partition), offset in sorted(broker.earliest(partitions).items())]
    end = broker.end(partitions)
    if travel.to_latest:
        return [Resolved(*tp, end[tp], "latest (end)") for tp in sorted(partitions)]
    found = broker.records_at_time(partitions, at_ms)
    positions = []
    for tp in sorted(partitions):
        record = found.get(tp)
        if record is None:
            positions.append(Resolved(*tp, end[tp], "no record at or after the time: resumes at the end"))
        else:
            positions.append(Resolved(*tp, record[0], "first record at or after the time", record[1]))
    return positions


_TOPIC = re.compile(r"^(?P<topic>[^:]+)(?::(?P<partitions>\d+(?:,\d+)*))?$")


def _parse_topic(text: str) -> tuple[str, list[int] | None]:
    m = _TOPIC.match(text)
    if not m:
        raise InputError(f"--topic '{text}' is not of the form TOPIC or TOPIC:P1,P2")
    return m["topic"], [int(n) for n in m["partitions"].split(",")] if m["partitions"] else None


# --- the broker ----------------------------------------------------------------------------------------------------


def open_broker(kube: Kube, spec: TargetSpec, travel: TimeTravel, namespace: str | None, progress: Progress):
    """A Broker client that answered once, for the cluster the connector reads. Read-only: nothing changes."""
    address, where = (travel.bootstrap_server, "--bootstrap-server") if travel.bootstrap_server \
        else spec_bootstrap(kube, spec, namespace)
    return probe_broker(address, where, travel, progress)


def open_broker_for_connect(kube: Kube, connect_name: str, namespace: str, travel: TimeTravel, progress: Progress):
    """The same for a connector that does not exist yet (create): the KafkaConnect's bootstrap address."""
    if travel.bootstrap_server:
        return probe_broker(travel.bootstrap_server, "--bootstrap-server", travel, progress)
    try:
        connect = kube.get_connect(connect_name, namespace)
    except NotFoundError:
        connect = None
    address = ((connect or {}).get("spec") or {}).get("bootstrapServers")
    if not address:
        raise InputError(f"cannot read the bootstrap address of KafkaConnect '{connect_name}'",
                         advice="pass --bootstrap-server HOST:PORT")
    return probe_broker(address, "from the KafkaConnect spec", travel, progress)


def probe_broker(address: str, where: str, travel: TimeTravel, progress: Progress):
    from ...adapters.kafka import Broker

    progress.step(f"asking the broker at {address} ({where}) for the partitions' offsets")
    broker = Broker(address, travel.kafka_options, timeout=PROBE_TIMEOUT)
    try:
        broker.partitions([])  # a metadata request: proves the address answers before anything else happens
    except InputError as error:  # KafkaUnreachableError keeps its own exit status
        raise type(error)(error.message, advice=_unreachable_advice(where)) from None
    return broker


def spec_bootstrap(kube: Kube, spec: TargetSpec, namespace: str | None) -> tuple[str, str]:
    live = resolve(kube, spec, namespace)
    connect = None
    if live.target.kind == strimzi.KIND_CONNECTOR:
        cluster = strimzi.connect_cluster_of(live.resource)
        try:
            connect = kube.get_connect(cluster, live.target.namespace) if cluster else None
        except NotFoundError:
            connect = None
    address = strimzi.bootstrap_servers_of(live.target, live.resource, connect)
    if not address:
        raise InputError(f"cannot tell which Kafka cluster {live.target.display} reads",
                         advice="pass --bootstrap-server HOST:PORT")
    what = "the KafkaConnect spec" if live.target.kind == strimzi.KIND_CONNECTOR else "the mirror's source cluster"
    return address, f"from {what}"


def _unreachable_advice(where: str) -> str:
    advice = ("nothing was changed. The address in the spec is usually only reachable inside the Kubernetes "
              "cluster: forward a port to a broker, e.g. kubectl port-forward -n NS pod/<kafka-broker-pod> 9092, "
              "and pass --bootstrap-server localhost:9092 (plus --kafka-option security.protocol=... when the "
              "listener needs TLS or SASL)") if where != "--bootstrap-server" else (
        "nothing was changed; check --bootstrap-server (reachable from here, e.g. through kubectl port-forward) "
        "and --kafka-option for TLS/SASL")
    return advice
