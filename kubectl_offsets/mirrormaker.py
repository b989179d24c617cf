"""MirrorMaker 2's own facts (Apache Kafka, not Strimzi): where a mirror keeps its offset syncs, and what a
MirrorSourceConnector's stored offset means for the source partition it points into. Standard library only.

MirrorMaker 2 keeps its position in two stores:
- the MirrorSourceConnector's offsets in Connect's offsets topic (per source partition, the last record it
  replicated; ``connect.py``), which Strimzi lists, alters and resets;
- the offset-syncs topic, ``mm2-offset-syncs.<alias>.internal``, where the source task records (upstream offset,
  downstream offset) pairs that the MirrorCheckpointConnector reads to translate consumer-group offsets.

Sources (apache/kafka, connect/mirror and connect/mirror-client):
- ``MirrorSourceConfig#offsetSyncsTopic``: with ``offset-syncs.topic.location=source`` (the default) the topic lives
  on the SOURCE cluster and is named after the TARGET alias; with ``target`` it lives on the target cluster and is
  named after the SOURCE alias. So one topic can hold the syncs of several mirrors (every mirror from that source
  cluster to a target called the same, or from a source called the same to that target cluster).
- ``DefaultReplicationPolicy#offsetSyncsTopic``: ``"mm2-offset-syncs" + sep + alias + sep + "internal"`` where sep is
  ``replication.policy.separator`` (default ".") when ``replication.policy.internal.topic.separator.enabled`` (default
  true), else "."; ``IdentityReplicationPolicy`` inherits it. Other policies may name it otherwise (not supported).
- ``MirrorUtils#createSinglePartitionCompactedTopic``: the topic has one partition and ``cleanup.policy=compact``.
  Kafka refuses DeleteRecords on a topic whose policy lacks ``delete`` (``Partition#deleteRecordsOnLeader``), so
  truncating it means adding ``delete`` for the moment of the truncation and putting the policy back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

OFFSET_SYNCS_LOCATION = "offset-syncs.topic.location"
LOCATION_SOURCE, LOCATION_TARGET = "source", "target"
REPLICATION_POLICY_CLASS = "replication.policy.class"
REPLICATION_POLICY_SEPARATOR = "replication.policy.separator"
INTERNAL_SEPARATOR_ENABLED = "replication.policy.internal.topic.separator.enabled"
DEFAULT_POLICIES = ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
                    "org.apache.kafka.connect.mirror.IdentityReplicationPolicy")

CLEANUP_POLICY = "cleanup.policy"
CLEANUP_DELETE = "delete"
# What truncating the topic asks of the broker, by the ACL operation each request needs on the topic (Kafka's
# authorizer; the values are the names kafka-acls.sh --operation takes): reading cleanup.policy (DescribeConfigs),
# adding 'delete' and putting it back (IncrementalAlterConfigs), and DeleteRecords.
TRUNCATION_ACL_OPERATIONS = {"DESCRIBE_CONFIGS": "DescribeConfigs", "ALTER_CONFIGS": "AlterConfigs",
                             "DELETE": "Delete"}
TRUNCATION_REQUESTS = {"DESCRIBE_CONFIGS": "DescribeConfigs", "ALTER_CONFIGS": "AlterConfigs",
                       "DELETE": "DeleteRecords"}


@dataclass(frozen=True)
class OffsetSyncsTopic:
    """Where one MirrorSourceConnector writes its offset syncs: the topic name and which side's cluster holds it."""

    name: str
    location: str  # LOCATION_SOURCE or LOCATION_TARGET
    source_alias: str
    target_alias: str

    def describe(self) -> str:
        return f"topic '{self.name}' on the {self.location} cluster ({self.location} alias " \
               f"'{self.source_alias if self.location == LOCATION_SOURCE else self.target_alias}')"


def offset_syncs_topic(source_alias: str, target_alias: str, config: Mapping[str, object]) -> OffsetSyncsTopic:
    """The offset-syncs topic of the mirror ``source_alias -> target_alias`` whose connector config is ``config``.
    Raises ValueError for settings MirrorMaker 2 itself would refuse or a replication policy we cannot predict."""
    location = str(config.get(OFFSET_SYNCS_LOCATION, LOCATION_SOURCE)).strip().lower()
    if location not in (LOCATION_SOURCE, LOCATION_TARGET):
        raise ValueError(f"{OFFSET_SYNCS_LOCATION}={location!r} is neither 'source' nor 'target'")
    policy = str(config.get(REPLICATION_POLICY_CLASS, DEFAULT_POLICIES[0])).strip()
    if policy not in DEFAULT_POLICIES:
        raise ValueError(f"{REPLICATION_POLICY_CLASS}={policy} may name the offset-syncs topic its own way")
    separator = str(config.get(REPLICATION_POLICY_SEPARATOR, "."))
    if str(config.get(INTERNAL_SEPARATOR_ENABLED, "true")).strip().lower() != "true":
        separator = "."
    alias = target_alias if location == LOCATION_SOURCE else source_alias
    return OffsetSyncsTopic(f"mm2-offset-syncs{separator}{alias}{separator}internal", location, source_alias,
                            target_alias)


def offset_sync_key(key: bytes | None) -> tuple[str, int] | None:
    """The source (topic, partition) of one offset-syncs record: ``OffsetSync.KEY_SCHEMA`` is Kafka's protocol
    Struct (topic STRING = int16 length + UTF-8, partition INT32, big-endian). None for a key of another shape."""
    if not key or len(key) < 6:
        return None
    size = int.from_bytes(key[:2], "big", signed=True)
    if size < 0 or len(key) != 2 + size + 4:
        return None
    try:
        topic = key[2:2 + size].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return topic, int.from_bytes(key[2 + size:], "big", signed=True)


def with_delete_policy(policy: str | None) -> str:
    """The cleanup.policy that lets DeleteRecords run: the given one plus ``delete``."""
    parts = [p.strip() for p in (policy or "").split(",") if p.strip()]
    return ",".join(parts if CLEANUP_DELETE in parts else [*parts, CLEANUP_DELETE])


def restore_policy_command(bootstrap: str, topic: str, value: str | None, explicit: bool) -> str:
    """The kafka-configs.sh command (Kafka's bin/, also in every Strimzi broker pod) that puts a topic's
    cleanup.policy back: the value set on the topic, or removed from it when it was inherited (``explicit`` False).
    A list value goes in brackets, as kafka-configs parses them."""
    change = f"--add-config {CLEANUP_POLICY}={f'[{value}]' if ',' in (value or '') else value}" \
        if explicit and value is not None else f"--delete-config {CLEANUP_POLICY}"
    return f"kafka-configs.sh --bootstrap-server {bootstrap} --entity-type topics --entity-name {topic} --alter {change}"


# --- where a stored offset points ----------------------------------------------------------------------------------

STATUS_OK, STATUS_GAP, STATUS_AHEAD, STATUS_MISSING = "ok", "gap", "ahead", "missing"
PROBLEMS = (STATUS_GAP, STATUS_AHEAD, STATUS_MISSING)


def classify(stored: int, log_start: int | None, log_end: int | None) -> str:
    """Judge a MirrorSourceConnector's stored offset (the last record it replicated; it resumes at stored + 1)
    against the source partition's log start and end offsets (end = the offset the next record will get).

    - missing: the partition does not exist (topic deleted, or recreated with fewer partitions);
    - gap: stored + 1 < log start: the records in between were never replicated and are gone (retention,
      DeleteRecords); replication would silently jump over them;
    - ahead: stored + 1 > log end: the stored record does not exist (topic recreated or truncated); the task's
      consumer gets OffsetOutOfRange and starts over from auto.offset.reset, or waits for offsets never written;
    - ok otherwise (stored + 1 == log end means fully caught up)."""
    if log_start is None or log_end is None:
        return STATUS_MISSING
    if stored + 1 < log_start:
        return STATUS_GAP
    if stored + 1 > log_end:
        return STATUS_AHEAD
    return STATUS_OK
