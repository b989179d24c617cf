"""Kafka Connect facts: which offset shapes each kind of connector uses and what a stored offset means.

Sources: ../shared/research/strimzi-offsets.md section 3.4 (KIP-875 formats) and anchors.md section 1.1.
Nothing here does I/O; the shorthand builders (``--set``, ``--skip-record``) live here because their meaning
is a Connect fact: a sink stores the *next* offset to read, MirrorSourceConnector stores the *last record
replicated* and resumes after it.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Mapping

from .model import OffsetEntry, OffsetsDocument

MIRROR_PACKAGE = "org.apache.kafka.connect.mirror."


class ConnectorKind(str, enum.Enum):
    SINK = "sink"
    MIRROR_SOURCE = "mirror-source"
    MIRROR_CHECKPOINT = "mirror-checkpoint"
    MIRROR_HEARTBEAT = "mirror-heartbeat"
    FILE_SOURCE = "file-source"
    SOURCE = "source"  # any other source connector: partitions and offsets are the connector's own maps

    @property
    def schema_name(self) -> str:
        """The document schema in ``schemas/`` that offsets of this kind must satisfy."""
        return {
            ConnectorKind.SINK: "offsets-sink",
            ConnectorKind.MIRROR_SOURCE: "offsets-mirror-source",
            ConnectorKind.MIRROR_CHECKPOINT: "offsets-mirror-checkpoint",
            ConnectorKind.MIRROR_HEARTBEAT: "offsets-mirror-heartbeat",
            ConnectorKind.FILE_SOURCE: "offsets-file-source",
            ConnectorKind.SOURCE: "offsets",
        }[self]

    @property
    def topic_partitioned(self) -> bool:
        """Whether partitions name a Kafka topic-partition, so that --set/--shift-by/--skip-record apply."""
        return self in (ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE)

    @property
    def offsets_ignored_by_runtime(self) -> bool:
        """Checkpoint and heartbeat tasks never read their stored offsets (research 2.12): altering them is
        harmless but pointless, so we ask for --force."""
        return self in (ConnectorKind.MIRROR_CHECKPOINT, ConnectorKind.MIRROR_HEARTBEAT)


_BY_CLASS = {
    MIRROR_PACKAGE + "MirrorSourceConnector": ConnectorKind.MIRROR_SOURCE,
    MIRROR_PACKAGE + "MirrorCheckpointConnector": ConnectorKind.MIRROR_CHECKPOINT,
    MIRROR_PACKAGE + "MirrorHeartbeatConnector": ConnectorKind.MIRROR_HEARTBEAT,
    "org.apache.kafka.connect.file.FileStreamSourceConnector": ConnectorKind.FILE_SOURCE,
    "FileStreamSource": ConnectorKind.FILE_SOURCE,
}


def connector_kind(connector_class: str | None, connect_type: str | None) -> ConnectorKind:
    """Classify a connector from its class and the ``type`` that Connect reports in its status
    (``sink``/``source``). The type wins for sinks: every sink uses the same consumer-group offsets."""
    if connect_type == "sink":
        return ConnectorKind.SINK
    if connector_class in _BY_CLASS:
        return _BY_CLASS[connector_class]
    if connector_class and connector_class.endswith("SinkConnector") and connect_type is None:
        return ConnectorKind.SINK
    return ConnectorKind.SOURCE


# --- topic-partition shorthands -------------------------------------------------------------------------------


def topic_partition_of(kind: ConnectorKind, partition: Mapping[str, Any]) -> tuple[str, int] | None:
    """The Kafka topic-partition a partition map refers to, for the kinds whose partitions are topic-partitions."""
    if kind is ConnectorKind.SINK:
        return str(partition["kafka_topic"]), int(partition["kafka_partition"])
    if kind is ConnectorKind.MIRROR_SOURCE:
        return str(partition["topic"]), int(partition["partition"])
    return None


def in_listing_order(kind: ConnectorKind, document: OffsetsDocument) -> OffsetsDocument:
    """The order people expect to read offsets in: by topic, then partition as a number (Connect returns them in
    whatever order its consumer or offsets store holds them); a MirrorSourceConnector's by source cluster first,
    other sources by their partition maps as sorted JSON."""
    def key(entry: OffsetEntry) -> tuple[Any, ...]:
        if kind is ConnectorKind.MIRROR_SOURCE:
            return (str(entry.partition.get("cluster")), *topic_partition_of(kind, entry.partition))
        if kind.topic_partitioned:
            return topic_partition_of(kind, entry.partition)
        return (json.dumps(dict(entry.partition), sort_keys=True),)

    return OffsetsDocument(tuple(sorted(document, key=key)))


def position_of(kind: ConnectorKind, offset: Mapping[str, Any] | None) -> int | None:
    """The numeric offset stored for a topic-partition kind (None when the partition has no offset)."""
    if offset is None:
        return None
    key = "kafka_offset" if kind is ConnectorKind.SINK else "offset"
    return int(offset[key])


def entry_for(kind: ConnectorKind, topic: str, partition: int, stored: int | None, *, source_alias: str | None = None
              ) -> OffsetEntry:
    """An entry storing exactly ``stored`` (Connect's own meaning) for a topic-partition."""
    if kind is ConnectorKind.SINK:
        return OffsetEntry({"kafka_topic": topic, "kafka_partition": partition},
                           None if stored is None else {"kafka_offset": stored})
    if kind is ConnectorKind.MIRROR_SOURCE:
        if source_alias is None:
            raise ValueError("a MirrorSourceConnector partition needs the source cluster alias")
        return OffsetEntry({"cluster": source_alias, "topic": topic, "partition": partition},
                           None if stored is None else {"offset": stored})
    raise ValueError(f"{kind.value} connectors do not store topic-partition offsets")


def stored_offset_to_resume_at(kind: ConnectorKind, next_record: int) -> int | None:
    """The value to store so that the connector's next record read is ``next_record``.

    A sink stores the next offset to read, so that is the value itself. MirrorSourceConnector stores the last
    record replicated and seeks to stored+1 on start; resuming at record 0 therefore has no stored form (-1 is
    rejected by Connect): return None, which resets the partition so replication starts from the beginning.
    """
    if kind is ConnectorKind.SINK:
        return next_record
    if kind is ConnectorKind.MIRROR_SOURCE:
        return next_record - 1 if next_record > 0 else None
    raise ValueError(f"{kind.value} connectors do not store topic-partition offsets")


def next_record_after_stored(kind: ConnectorKind, stored: int) -> int:
    """The inverse of :func:`stored_offset_to_resume_at`: where the connector will resume."""
    return stored if kind is ConnectorKind.SINK else stored + 1
