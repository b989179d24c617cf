"""Do the partitions a change names exist? Asked before the first change, where the cluster can tell.

Connect stores an offset for any partition it is given; for a sink it then fails the alter with a 500 (the consumer
group commit is refused for an unknown partition), after the connector was already stopped. So before anything
changes we look, in this order:
- the brokers, when the user gives ``--bootstrap-server`` (the truth, if reachable);
- Strimzi ``KafkaTopic`` resources of the connector's Kafka cluster, when the Topic Operator manages them and has
  confirmed the current spec (``strimzi.kafkatopic_partitions``);
- otherwise a partition that is not among the connector's current offsets cannot be checked: it is returned, so the
  preview shows it and confirmation (``--yes`` in scripts) accepts it knowingly.

A partition these sources show not to exist is refused with the count they report. Only topic-partition
connectors (sinks, MirrorSourceConnector) are checked; a MirrorSourceConnector's partitions are on its source
cluster, which is therefore where --bootstrap-server and KafkaTopics are looked up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, cast

from ... import strimzi
from ...connect import topic_partition_of
from ...errors import ForbiddenError, InputError, NotFoundError, OffsetsError
from ...model import OffsetsDocument
from .targets import LiveTarget

if TYPE_CHECKING:
    from ...adapters.kube import Kube

TopicPartition = tuple[str, int]


@dataclass
class PartitionChecker:
    """One connector's partition facts, looked up once per command (the preflight and the preview share them)."""

    kube: Kube
    live: LiveTarget
    bootstrap_servers: str | None = None
    kafka_options: tuple[tuple[str, str], ...] = ()
    _known: dict[str, tuple[set[int], str]] = field(default_factory=dict)  # topic -> (partitions, who says so)
    _asked: set[str] = field(default_factory=set)

    def check(self, change: OffsetsDocument | None, current: OffsetsDocument | None) -> list[TopicPartition]:
        """Refuse partitions known not to exist; return those nobody could vouch for (absent from ``current``)."""
        wanted = self._requested(change)
        if not wanted:
            return []
        self._learn({topic for topic, _ in wanted})
        missing = [(t, p) for t, p in wanted if t in self._known and p not in self._known[t][0]]
        if missing:
            raise InputError("; ".join(self._describe_missing(t, p) for t, p in missing) + "; nothing was changed",
                             advice="fix the partition numbers (partitions count from 0)")
        listed = {topic_partition_of(self.live.kind, e.partition) for e in current or ()}
        return [(t, p) for t, p in wanted if t not in self._known and (t, p) not in listed]

    def _requested(self, change: OffsetsDocument | None) -> list[TopicPartition]:
        kind = self.live.kind
        if change is None or not kind.topic_partitioned:
            return []
        # A null offset only removes what Connect stores: harmless for a partition that does not exist.
        return sorted({cast("tuple[str, int]", topic_partition_of(kind, e.partition))  # topic-partitioned kind
                       for e in change if e.offset is not None})

    def _describe_missing(self, topic: str, partition: int) -> str:
        partitions, source = self._known[topic]
        count = len(partitions)
        return (f"partition {partition} of topic '{topic}' does not exist: {source} says the topic has {count} "
                f"partition{'s' if count != 1 else ''} ({_ranges(partitions)})")

    def _learn(self, topics: set[str]) -> None:
        new = topics - self._asked
        if not new:
            return
        self._asked |= new
        if self.bootstrap_servers:
            self._from_brokers(new)
        else:
            self._from_kafkatopics(new)

    def _from_brokers(self, topics: set[str]) -> None:
        from ...adapters.kafka import Broker  # confluent-kafka: only when --bootstrap-server is given

        assert self.bootstrap_servers  # _learn asks the brokers only when there are some
        try:
            found = Broker(self.bootstrap_servers, self.kafka_options).partitions(sorted(topics))
        except OffsetsError:
            if self.live.target.kind != strimzi.KIND_MM2:
                raise  # a KafkaConnector's user named brokers we cannot reach: refuse before any change
            # MirrorMaker 2: the same address serves its pre-flight, which says in one line that it was skipped
            # and goes on (issue 15; --require-check insists); the partitions then count as unverified.
            return
        for topic, partitions in found.items():
            self._known[topic] = (set(partitions), f"the brokers at {self.bootstrap_servers}")

    def _from_kafkatopics(self, topics: set[str]) -> None:
        located = self._kafka_cluster()
        if located is None:
            return
        cluster, namespace = located
        try:
            resources = self.kube.list(strimzi.KIND_TOPIC, namespace)
        except (NotFoundError, ForbiddenError):
            return  # no KafkaTopic CRD (no Topic Operator), or we may not read them: fall back to confirmation
        for resource in resources:
            if ((resource.get("metadata") or {}).get("labels") or {}).get(strimzi.LABEL_CLUSTER) != cluster:
                continue
            topic, count = strimzi.kafkatopic_partitions(resource)
            if topic in topics and count is not None:
                name = resource["metadata"]["name"]
                self._known[topic] = (set(range(count)), f"KafkaTopic {namespace}/{name}")

    def _kafka_cluster(self) -> tuple[str, str] | None:
        """The Strimzi Kafka cluster (name, namespace) holding the connector's partitions, if its bootstrap address
        names one."""
        target, resource = self.live.target, self.live.resource
        connect = None
        if target.kind == strimzi.KIND_CONNECTOR:
            try:
                # cast: targets._check_connect_cluster refuses a KafkaConnector without the label before this
                connect = self.kube.get_connect(cast(str, strimzi.connect_cluster_of(resource)), target.namespace)
            except (NotFoundError, ForbiddenError):
                return None
        located = strimzi.kafka_cluster_of_bootstrap(strimzi.bootstrap_servers_of(target, resource, connect))
        if located is None:
            return None
        cluster, namespace = located
        return cluster, namespace or target.namespace


def describe(partitions: Iterable[TopicPartition]) -> str:
    return ", ".join(f"{topic}:{partition}" for topic, partition in partitions)


def _ranges(partitions: set[int]) -> str:
    ordered = sorted(partitions)
    if ordered == list(range(len(ordered))):
        return f"0..{len(ordered) - 1}" if ordered else "none"
    return ", ".join(map(str, ordered))
