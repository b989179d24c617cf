"""`kubectl offsets list --lag`: for every listed connector that reads Kafka topics (sinks, MirrorMaker 2 source
connectors), per partition the stored position, the log-end offset and the lag, as `kafka-consumer-groups
--describe` prints them. The offsets come from the fleet list (one listOffsets per connector), the ends from one
broker (``lag.lag``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...adapters.spark.sources import LiveTopics
from ...errors import InputError
from ...progress import Progress
from ..online.fleet import FleetDocument, Member
from .lag import lag
from .positions import BrokerFactory


@dataclass(frozen=True)
class PartitionLag:
    member: Member
    topic: str
    partition: int
    current: int | None  # where the connector resumes (None: no stored offset, counted from the log start)
    end: int | None
    lag: int | None  # None: not measurable (the connector resumes past the log end, or the topic is gone)

    def to_json(self) -> dict[str, Any]:
        return {"namespace": self.member.namespace, "kind": self.member.kind, "name": self.member.name,
                "connector": self.member.connector, "topic": self.topic, "partition": self.partition,
                "currentOffset": self.current, "logEndOffset": self.end, "lag": self.lag}


def lag_rows(document: FleetDocument, bootstrap: str, kafka_options: tuple[tuple[str, str], ...], *,
             broker: BrokerFactory | None = None, progress: Progress | None = None) -> list[PartitionLag]:
    rows: list[PartitionLag] = []
    for entry in document.entries:
        if entry.kind is None or not entry.kind.topic_partitioned or not len(entry.offsets):
            continue  # a file source's positions have no log end; nothing stored means no topics known
        try:
            measured = lag(entry.kind, entry.offsets, LiveTopics(bootstrap, (), kafka_options), broker=broker,
                           progress=progress)
        except InputError as error:  # none of its topics at that broker (another cluster's connector)
            if progress is not None:
                progress.warn(f"{entry.member.namespace}/{entry.member.connector}: {error.message}")
            continue
        rows += [PartitionLag(entry.member, r.topic, r.partition, r.position, r.end, r.lag) for r in measured]
    return rows
