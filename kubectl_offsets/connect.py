"""Kafka Connect facts: which offset shapes each kind of connector uses and what a stored offset means.

Sources: KIP-875 (https://cwiki.apache.org/confluence/display/KAFKA/KIP-875%3A+First-class+offsets+support+in+Kafka+Connect) and
Kafka's source (github.com/apache/kafka, ``connect/``): ``runtime/.../storage/OffsetUtils.java#validateFormat``,
``runtime/.../util/SinkUtils.java`` (sink shapes), ``mirror/.../MirrorSourceConnector.java``,
``MirrorCheckpointConnector.java`` and ``MirrorHeartbeatConnector.java`` ``#alterOffsets``, ``MirrorSourceTask``
(resumes after the stored offset), ``file/.../FileStreamSourceConnector.java#alterOffsets``.
Nothing here does I/O; the shorthand builders (``--set``, ``--skip-record``) live here because their meaning
is a Connect fact: a sink stores the *next* offset to read, MirrorSourceConnector stores the *last record
replicated* and resumes after it.
"""

from __future__ import annotations

import enum
import json
from typing import Any, Mapping, cast, overload

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
        """Checkpoint and heartbeat tasks never read their stored offsets (their ``alterOffsets`` accept only offset 0:
        MirrorCheckpointConnector.java, MirrorHeartbeatConnector.java): altering them is
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


# --- offsets kept outside Connect (connect/runtime/.../Worker.java#completeModifyOffsetsCallback) ---------------
# A connector that does not override SinkConnector/SourceConnector#alterOffsets gets a 200 from PATCH/DELETE
# .../offsets with the caveat "if this connector manages offsets externally, they will need to be manually altered
# in the system that the connector uses"; Strimzi logs that answer only at debug level, so the user never sees it.

# Classes that override alterOffsets (Kafka's own): their offsets live in Connect only.
MANAGES_OFFSETS_IN_CONNECT = frozenset({
    "org.apache.kafka.connect.file.FileStreamSourceConnector", "FileStreamSource",
    "org.apache.kafka.connect.file.FileStreamSinkConnector", "FileStreamSink",
    MIRROR_PACKAGE + "MirrorSourceConnector", MIRROR_PACKAGE + "MirrorCheckpointConnector",
    MIRROR_PACKAGE + "MirrorHeartbeatConnector",
})

# Connectors known to keep their position outside Connect as well, and where (from each project's documentation).
OFFSETS_KEPT_OUTSIDE_CONNECT = {
    "io.confluent.connect.hdfs.HdfsSinkConnector": "the files it committed to HDFS (it recovers offsets from them)",
    "io.confluent.connect.hdfs3.Hdfs3SinkConnector": "the files it committed to HDFS (it recovers offsets from them)",
    "com.snowflake.kafka.connector.SnowflakeSinkConnector":
        "Snowflake (the offset token of each Snowpipe Streaming channel)",
    "io.tabular.iceberg.connect.IcebergSinkConnector":
        "the Iceberg table's snapshot metadata and its control-topic consumer group",
    "org.apache.iceberg.connect.IcebergSinkConnector":
        "the Iceberg table's snapshot metadata and its control-topic consumer group",
    "com.clickhouse.kafka.connect.ClickHouseSinkConnector": "ClickHouse (its exactly-once state in KeeperMap)",
}


def external_offsets_warning(connector_class: str | None) -> str | None:
    """What to tell the user before changing offsets of a connector that may keep them outside Connect, or None
    when Connect's offsets are the whole story."""
    if not connector_class or connector_class in MANAGES_OFFSETS_IN_CONNECT:
        return None
    where = OFFSETS_KEPT_OUTSIDE_CONNECT.get(connector_class)
    if where is not None:
        return (f"{connector_class} keeps its offsets in {where} too: kubectl-offsets changes only the offsets "
                "Connect stores, and the connector may resume from its own copy; change that one as well")
    return (f"if {connector_class} keeps offsets outside Connect (in the system it writes to or reads from), only "
            "Connect's copy changes: Connect then answers with a caveat that Strimzi logs only at debug level")


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
            return (str(entry.partition.get("cluster")), *cast("tuple[str, int]", topic_partition_of(kind, entry.partition)))
        if kind.topic_partitioned:  # topic_partition_of is None only for kinds that are not topic-partitioned
            return cast("tuple[str, int]", topic_partition_of(kind, entry.partition))
        return (json.dumps(dict(entry.partition), sort_keys=True),)

    return OffsetsDocument(tuple(sorted(document, key=key)))


@overload
def position_of(kind: ConnectorKind, offset: Mapping[str, Any]) -> int: ...


@overload
def position_of(kind: ConnectorKind, offset: None) -> None: ...


@overload
def position_of(kind: ConnectorKind, offset: Mapping[str, Any] | None) -> int | None: ...


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


# --- Kafka's limits on what an offset may name ----------------------------------------------------------------
# Kafka's own rules (org.apache.kafka.common.internals.Topic.validate): a topic name uses [a-zA-Z0-9._-], is at
# most 249 characters long and is neither "." nor ".."; a partition is an int, an offset a long.

MAX_TOPIC_LENGTH = 249
MAX_PARTITION = 2**31 - 1
MAX_OFFSET = 2**63 - 1
_LEGAL_TOPIC_CHARACTER = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def topic_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a Kafka topic, or None when it can."""
    if not name:
        return "a topic name cannot be empty"
    if name in (".", ".."):
        return f"a topic cannot be named '{name}'"
    if len(name) > MAX_TOPIC_LENGTH:
        return f"a topic name has at most {MAX_TOPIC_LENGTH} characters (this one has {len(name)})"
    illegal = sorted({c for c in name if c not in _LEGAL_TOPIC_CHARACTER})
    if illegal:
        shown = ", ".join(repr(c) for c in illegal[:5])
        return f"a topic name uses only letters, digits, '.', '_' and '-' (found {shown})"
    return None
