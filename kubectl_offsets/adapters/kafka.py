"""Broker requests through confluent-kafka (the ``kafka`` extra): topic partitions, log start and end offsets, and
the timestamp index (ListOffsets with a timestamp: the earliest offset whose timestamp is >= the given one).

These answer "where was each partition at 09:00" with one request per broker, O(partitions), where a scan would read
every record. Also the few writes MirrorMaker 2's full reset needs (DeleteRecords, one topic config) and the
timestamp of the record at an offset (lag's time lag). The only module that imports confluent_kafka, always lazily.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from ..errors import ClusterError, InputError, KafkaUnreachableError, MissingExtraError, OffsetsError

TopicPartition = tuple[str, int]
DEFAULT_TIMEOUT = 15.0


def _library() -> Any:
    try:
        import confluent_kafka
        import confluent_kafka.admin
    except ImportError:
        raise MissingExtraError("kafka", "confluent-kafka") from None
    return confluent_kafka


def available() -> bool:
    try:
        _library()
    except MissingExtraError:
        return False
    return True


class Broker:
    """One Kafka cluster, reached through ``bootstrap_servers`` with extra client settings (librdkafka names)."""

    def __init__(self, bootstrap_servers: str, options: Iterable[tuple[str, str]] = (),
                 timeout: float = DEFAULT_TIMEOUT):
        kafka = _library()
        self.bootstrap_servers = bootstrap_servers
        self.timeout = timeout
        # log_level 0: librdkafka's own connection-refused lines would repeat on stderr; we raise one clear error.
        config = {"bootstrap.servers": bootstrap_servers, "log_level": 0, "socket.timeout.ms": int(timeout * 1000),
                  **dict(options)}
        self._config = config
        try:
            self._admin = kafka.admin.AdminClient(config)
        except (kafka.KafkaException, ValueError, TypeError) as e:
            raise InputError(f"the Kafka client rejects its settings: {e}",
                             advice="--kafka-option names librdkafka settings for broker requests "
                                    "(security.protocol, sasl.mechanism, ssl.ca.location, ...)") from None

    def partitions(self, topics: Iterable[str]) -> dict[str, list[int]]:
        """The partitions of each topic; InputError for a topic that does not exist or a broker out of reach."""
        kafka = _library()
        try:
            # All topics, not list_topics(topic=t): asking for one topic can auto-create it on the broker.
            metadata = self._admin.list_topics(timeout=self.timeout)
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None
        found = {}
        for topic in topics:
            info = metadata.topics.get(topic)
            if info is None or info.error is not None or not info.partitions:
                raise InputError(f"topic '{topic}' does not exist at {self.bootstrap_servers}",
                                 advice=f"existing topics: {_some(sorted(metadata.topics))}")
            found[topic] = sorted(info.partitions)
        return found

    def existing_partitions(self, topics: Iterable[str]) -> dict[str, list[int] | None]:
        """Like ``partitions``, but a topic that does not exist maps to None instead of raising (the MirrorMaker 2
        pre-flight reports it as "missing")."""
        kafka = _library()
        try:
            metadata = self._admin.list_topics(timeout=self.timeout)
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None
        found: dict[str, list[int] | None] = {}
        for topic in topics:
            info = metadata.topics.get(topic)
            found[topic] = None if info is None or info.error is not None or not info.partitions \
                else sorted(info.partitions)
        return found

    def cluster_id(self) -> str | None:
        """The id of the Kafka cluster behind the address (its metadata's cluster id; None from a broker too old
        to say): the same cluster whatever address or port-forward reaches it."""
        kafka = _library()
        try:
            return self._admin.list_topics(timeout=self.timeout).cluster_id
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None

    def earliest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, lambda spec: spec.earliest())

    def end(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The high watermark: the offset the next record will get."""
        return self._list_offsets(partitions, lambda spec: spec.latest())

    def offsets_for_time(self, partitions: Iterable[TopicPartition], ts_ms: int) -> dict[TopicPartition, int | None]:
        """The first offset whose timestamp is >= ts_ms, per partition; None when every record is older."""
        found = self._list_offsets(partitions, lambda spec: spec.for_timestamp(ts_ms))
        return {tp: (offset if offset >= 0 else None) for tp, offset in found.items()}

    def timestamps_at(self, positions: Mapping[TopicPartition, int]) -> dict[TopicPartition, int | None]:
        """The timestamp (ms) of the record at each given offset, read with an assigned consumer that commits
        nothing and joins no group; None where no record could be read there (deleted, or past the end)."""
        kafka = _library()
        if not positions:
            return {}
        consumer = kafka.Consumer({**self._config, "group.id": "kubectl-offsets-reader", "enable.auto.commit": False,
                                   "enable.partition.eof": True, "auto.offset.reset": "error"})
        try:
            consumer.assign([kafka.TopicPartition(t, p, o) for (t, p), o in positions.items()])
            found: dict[TopicPartition, int | None] = {}
            deadline = time.monotonic() + self.timeout
            while len(found) < len(positions) and time.monotonic() < deadline:
                message = consumer.poll(0.5)
                if message is None:
                    continue
                tp = (message.topic(), message.partition())
                if tp in found or tp not in positions:
                    continue
                if message.error() is not None:  # end of partition, or the offset is out of range
                    found[tp] = None
                else:
                    stamp = message.timestamp()[1]
                    found[tp] = stamp if stamp >= 0 else None  # -1: the record carries no timestamp
                consumer.pause([kafka.TopicPartition(*tp)])
            return {tp: found.get(tp) for tp in positions}
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None
        finally:
            consumer.close()

    def keys(self, ranges: Mapping[TopicPartition, tuple[int, int]]) -> list[bytes | None]:
        """The keys of every record in [start, end) per partition (a small compacted topic such as MirrorMaker 2's
        offset syncs), read with an assigned consumer that commits nothing."""
        kafka = _library()
        wanted = {tp: (start, end) for tp, (start, end) in ranges.items() if end > start}
        if not wanted:
            return []
        consumer = kafka.Consumer({**self._config, "group.id": "kubectl-offsets-reader", "enable.auto.commit": False,
                                   "enable.partition.eof": True, "auto.offset.reset": "earliest"})
        found: list[bytes | None] = []
        try:
            consumer.assign([kafka.TopicPartition(t, p, start) for (t, p), (start, _) in wanted.items()])
            open_ = set(wanted)
            deadline = time.monotonic() + self.timeout
            while open_ and time.monotonic() < deadline:
                message = consumer.poll(0.5)
                if message is None:
                    continue
                tp = (message.topic(), message.partition())
                if message.error() is not None:  # end of partition: everything below its end was read
                    open_.discard(tp)
                    continue
                found.append(message.key())
                if message.offset() + 1 >= wanted[tp][1]:
                    open_.discard(tp)
            return found
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None
        finally:
            consumer.close()

    def topic_config(self, topic: str, name: str) -> tuple[str | None, bool]:
        """(value, set on the topic itself) of one topic config; False = inherited from the broker or default."""
        kafka = _library()
        resource = kafka.admin.ConfigResource(kafka.admin.ResourceType.TOPIC, topic)
        try:
            entries = self._admin.describe_configs([resource], request_timeout=self.timeout)[resource].result()
        except kafka.KafkaException as e:
            raise self._failed(f"describing the configs of topic '{topic}'", e) from None
        entry = entries.get(name)
        if entry is None:
            return None, False
        return entry.value, entry.source == kafka.admin.ConfigSource.DYNAMIC_TOPIC_CONFIG.value

    def set_topic_config(self, topic: str, name: str, value: str | None) -> None:
        """Set one topic config (incrementally: no other config changes), or remove it from the topic (None), so
        it inherits the broker's value again."""
        kafka = _library()
        op = kafka.admin.AlterConfigOpType.DELETE if value is None else kafka.admin.AlterConfigOpType.SET
        entry = kafka.admin.ConfigEntry(name, value, incremental_operation=op)
        resource = kafka.admin.ConfigResource(kafka.admin.ResourceType.TOPIC, topic, incremental_configs=[entry])
        try:
            self._admin.incremental_alter_configs([resource], request_timeout=self.timeout)[resource].result()
        except kafka.KafkaException as e:
            raise self._failed(f"changing {name} of topic '{topic}'", e) from None

    def topic_operations(self, topic: str) -> set[str] | None:
        """The ACL operations (Kafka's names: DELETE, ALTER_CONFIGS, ...) this client may perform on the topic, as
        the broker's authorizer answers them (Metadata with include_topic_authorized_operations, KIP-430): asked
        before a change, so a missing permission refuses before anything is touched. None when the broker does
        not say (or the topic does not exist); an empty set when the client may not even describe the topic."""
        kafka = _library()
        try:
            future = self._admin.describe_topics(kafka.TopicCollection([topic]), request_timeout=self.timeout,
                                                 include_authorized_operations=True)[topic]
            description = future.result()
        except kafka.KafkaException as e:
            if _error_code(e) in _authorization_codes(kafka):
                return set()
            if _error_code(e) == kafka.KafkaError.UNKNOWN_TOPIC_OR_PART:
                return None
            raise self._failed(f"describing topic '{topic}'", e) from None
        operations = description.authorized_operations
        return None if operations is None else {op.name for op in operations}

    def delete_records(self, before: Mapping[TopicPartition, int], *, settle: float = 0.0
                       ) -> dict[TopicPartition, int]:
        """Delete every record below the given offset per partition (Kafka's DeleteRecords: the log start moves
        up; the topic stays). Returns the new log start per partition.

        ``settle``: for that many seconds, a refusal for the topic's cleanup.policy (POLICY_VIOLATION) is asked
        again. A policy that allows deletion, set just before, is acknowledged once the controller has committed
        it, but the partition leader applies it to its log only when it replays the metadata: a moment later, and
        longer on a busy broker."""
        kafka = _library()
        request = [kafka.TopicPartition(t, p, o) for (t, p), o in before.items()]
        if not request:
            return {}
        deadline = time.monotonic() + settle
        while True:
            try:
                futures = self._admin.delete_records(request, request_timeout=self.timeout)
                return {(tp.topic, tp.partition): int(f.result().low_watermark) for tp, f in futures.items()}
            except kafka.KafkaException as e:
                if _error_code(e) != kafka.KafkaError.POLICY_VIOLATION or time.monotonic() >= deadline:
                    raise self._failed("deleting records", e) from None
            time.sleep(0.25)

    def records_at_time(self, partitions: Iterable[TopicPartition], ts_ms: int
                        ) -> dict[TopicPartition, tuple[int, int | None] | None]:
        """Like offsets_for_time, with the timestamp of that first record (ListOffsets answers both); None when
        every record of the partition is older."""
        found = self._list_infos(partitions, lambda spec: spec.for_timestamp(ts_ms))
        result: dict[TopicPartition, tuple[int, int | None] | None] = {}
        for tp, info in found.items():
            stamp = getattr(info, "timestamp", None)
            result[tp] = None if info.offset < 0 else (int(info.offset), None if stamp is None or stamp < 0
                                                          else int(stamp))
        return result

    def _list_offsets(self, partitions: Iterable[TopicPartition], spec_of: Any) -> dict[TopicPartition, int]:
        return {tp: int(info.offset) for tp, info in self._list_infos(partitions, spec_of).items()}

    def _list_infos(self, partitions: Iterable[TopicPartition], spec_of: Any) -> dict[TopicPartition, Any]:
        kafka = _library()
        spec = spec_of(kafka.admin.OffsetSpec)
        request = {kafka.TopicPartition(t, p): spec for t, p in partitions}
        if not request:
            return {}
        try:
            futures = self._admin.list_offsets(request, request_timeout=self.timeout)
            return {(tp.topic, tp.partition): f.result() for tp, f in futures.items()}
        except kafka.KafkaException as e:
            raise self._unreachable(e) from None

    def _failed(self, what: str, error: Exception) -> OffsetsError:
        """The broker's answer (an error code of the protocol: ACLs, policy, ...) as a refusal; librdkafka's own
        errors (negative codes: transport, timeout, resolution) as a broker out of reach."""
        code = _error_code(error)
        if isinstance(code, int) and code < 0:
            return self._unreachable(error)
        return self._refused(what, error)

    def _refused(self, what: str, error: Exception) -> ClusterError:
        return ClusterError(f"the Kafka broker at {self.bootstrap_servers} refused {what}: {_reason(error)}",
                            advice="check the client's ACLs (DeleteRecords and AlterConfigs on the topic) and "
                                   "--kafka-option security settings")

    def _unreachable(self, error: Exception) -> KafkaUnreachableError:
        return KafkaUnreachableError(f"cannot get answers from the Kafka broker at {self.bootstrap_servers}: {_reason(error)}",
                          advice="check --bootstrap-server (host:port, reachable from here) and the security "
                                 "settings (--kafka-option security.protocol=...)")


def _error_code(error: Exception) -> Any:
    return error.args[0].code() if error.args and hasattr(error.args[0], "code") else None


def _authorization_codes(kafka: Any) -> tuple[Any, ...]:
    return (kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED, kafka.KafkaError.CLUSTER_AUTHORIZATION_FAILED)


def _reason(error: Exception) -> str:
    inner: Any = error.args[0] if error.args else None
    return str(inner.str() if hasattr(inner, "str") else error)


def _some(names: list[str], limit: int = 10) -> str:
    visible = [n for n in names if not n.startswith("__")]
    shown = ", ".join(visible[:limit]) or "none"
    return shown + (f" and {len(visible) - limit} more" if len(visible) > limit else "")

