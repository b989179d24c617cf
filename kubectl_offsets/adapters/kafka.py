"""Broker requests through confluent-kafka (the ``kafka`` extra): topic partitions, log start and end offsets, and
the timestamp index (ListOffsets with a timestamp: the earliest offset whose timestamp is >= the given one).

These answer "where was each partition at 09:00" with one request per broker, O(partitions), where a scan would read
every record. The only module that imports confluent_kafka, always lazily.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..errors import InputError, MissingExtraError

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

    def earliest(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        return self._list_offsets(partitions, lambda spec: spec.earliest())

    def end(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        """The high watermark: the offset the next record will get."""
        return self._list_offsets(partitions, lambda spec: spec.latest())

    def offsets_for_time(self, partitions: Iterable[TopicPartition], ts_ms: int) -> dict[TopicPartition, int | None]:
        """The first offset whose timestamp is >= ts_ms, per partition; None when every record is older."""
        found = self._list_offsets(partitions, lambda spec: spec.for_timestamp(ts_ms))
        return {tp: (offset if offset >= 0 else None) for tp, offset in found.items()}

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

    def _unreachable(self, error: Exception) -> InputError:
        return InputError(f"cannot get answers from the Kafka broker at {self.bootstrap_servers}: {_reason(error)}",
                          advice="check --bootstrap-server (host:port, reachable from here) and the security "
                                 "settings (--kafka-option security.protocol=...)")


def _reason(error: Exception) -> str:
    inner = error.args[0] if error.args else None
    return str(inner.str() if hasattr(inner, "str") else error)


def _some(names: list[str], limit: int = 10) -> str:
    visible = [n for n in names if not n.startswith("__")]
    shown = ", ".join(visible[:limit]) or "none"
    return shown + (f" and {len(visible) - limit} more" if len(visible) > limit else "")

