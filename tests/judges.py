"""The judges: what a test checks the plugin's work against, read without the plugin.

- Connect's own word: ``GET /connectors/NAME/offsets`` and ``/status`` through the environment's ``connect_url`` (with
  Strimzi's real operator a router that finds the worker running NAME, tests/env/connect_router.py);
- Kafka's: a sink connector's consumer group (``connect-NAME``, Connect's default for a sink) read with the admin
  client, and the records a topic holds;
- the records a FileStreamSink wrote are its file (``Connector.file_lines`` in tests/integration/online/conftest.py).

The plugin's ``list`` asks the operator, which asks Connect: a test that judged a change by it would pass when both
the change and the list were wrong the same way. Its output is compared with these readers only where the output
itself is under test.
"""
from __future__ import annotations

import json

from contextlib import contextmanager
from typing import Any, Mapping

from tests.env.clients import ConnectRest, kafka_conf, unique_name
from tests.waits import eventually

ENTRIES = "offsets"


def sink_group(connector: str) -> str:
    """The consumer group of a sink connector (Connect's SinkUtils#consumerGroupId: ``connect-`` + its name)."""
    return f"connect-{connector}"


def by_partition(entries: list[Mapping[str, Any]]) -> dict[int, int]:
    """A sink's offsets document entries as {kafka_partition: kafka_offset}."""
    return {e["partition"]["kafka_partition"]: e["offset"]["kafka_offset"] for e in entries if e.get("offset")}


def canonical(entries: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Offsets document entries in one order. Connect lists partitions in its map's order, which may differ from one
    answer to the next (a list ConfigMap written by the operator against a later GET): the order is no fact."""
    return sorted(entries, key=lambda entry: json.dumps(entry, sort_keys=True))


def position(entries: list[Mapping[str, Any]]) -> int | None:
    """A FileStreamSource's stored byte position (None: nothing stored)."""
    found = [e["offset"]["position"] for e in entries if e.get("offset")]
    return found[0] if found else None


class Judges:
    def __init__(self, connect_url: str, bootstrap: str):
        self.connect, self.bootstrap = ConnectRest(connect_url), bootstrap
        self._admin = None

    # ---- Connect -------------------------------------------------------------------------------------------------
    def stored(self, connector: str) -> list[dict]:
        """The entries of Connect's offsets document for ``connector`` (every partition it stores)."""
        status, body = self.connect.get(ConnectRest.connector_path(connector, "/offsets"))
        if status != 200 or not isinstance(body, dict):
            raise AssertionError(f"GET /connectors/{connector}/offsets answered {status}: {str(body)[:300]}")
        return list(body.get(ENTRIES) or [])

    def state(self, connector: str) -> str | None:
        """Connect's state of the connector (RUNNING, PAUSED, STOPPED, FAILED; None: Connect does not know it)."""
        status, body = self.connect.get(ConnectRest.connector_path(connector, "/status"))
        return ((body or {}).get("connector") or {}).get("state") if status == 200 else None

    def knows(self, connector: str) -> bool:
        """Whether Connect has the connector (the operator deletes it from Connect after the resource is gone)."""
        return self.connect.get(ConnectRest.connector_path(connector))[0] == 200

    def source_position(self, connector: str) -> int | None:
        return position(self.stored(connector))

    def wait_stored(self, connector: str, done, what: str, timeout: float = 90.0) -> list[dict]:
        """Until ``done(entries)`` holds for what Connect stores (a source flushes its offsets about once a second)."""
        return eventually(f"{connector}: {what} stored in Connect",
                          lambda: (lambda entries: entries if done(entries) else None)(self.stored(connector)),
                          timeout, interval=0.5)

    # ---- Kafka ---------------------------------------------------------------------------------------------------
    @property
    def admin(self):
        if self._admin is None:
            from confluent_kafka.admin import AdminClient

            self._admin = AdminClient(kafka_conf(self.bootstrap))
        return self._admin

    def sink_offsets(self, connector: str, topic: str | None = None, *, but: int | None = None) -> dict[int, int]:
        """{partition: committed offset} of the sink's consumer group (of ``topic`` if given), partition ``but`` left
        out (a Lab.sink's live partition, which a producer keeps feeding: it moves on its own)."""
        return self.group_offsets(sink_group(connector), topic, but=but)

    def group_offsets(self, group: str, topic: str | None = None, *, but: int | None = None) -> dict[int, int]:
        """{partition: committed offset} of a consumer group, read with the admin client."""
        from confluent_kafka import ConsumerGroupTopicPartitions

        result = self.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(30)
        return {tp.partition: tp.offset for tp in result.topic_partitions or ()
                if tp.offset >= 0 and (topic is None or tp.topic == topic) and tp.partition != but}

    def wait_sink_offsets(self, connector: str, expected: Mapping[int, int], *, but: int | None = None,
                          timeout: float = 90.0) -> dict[int, int]:
        """Until the sink's group has committed exactly ``expected`` (Connect commits about once a second)."""
        wanted = dict(expected)
        eventually(f"{connector} to commit {wanted}", lambda: self.sink_offsets(connector, but=but) == wanted,
                   timeout, interval=0.5)
        return wanted

    def config_log(self, topic: str) -> list[tuple[str, Any]]:
        """A Connect cluster's config topic in order, as (key, decoded JSON value) records: Connect's own log of what
        it was told (``connector-NAME`` configurations, ``target-state-NAME`` states, task configurations)."""
        import json

        return [(m.key().decode(), json.loads(m.value()) if m.value() else None) for m in self._messages(topic, 0)]

    def created_in_state(self, config_topic: str, connector: str) -> str:
        """The state Connect created ``connector`` in: the target state recorded before its first configuration
        (``POST /connectors`` with ``initial_state``, KIP-980), else STARTED (created running, Connect's default)."""
        for key, value in self.config_log(config_topic):
            if key == f"target-state-{connector}" and value:
                # STOPPED is written as "state": "PAUSED" for workers before KIP-875, and "state.v2": "STOPPED"
                return value.get("state.v2") or value["state"]
            if key == f"connector-{connector}":
                return "STARTED"
        raise AssertionError(f"Connect's config topic {config_topic} has no record of connector {connector}")

    def end_offsets(self, topic: str, partitions: int = 1) -> dict[int, int]:
        """{partition: log-end offset} of ``topic``."""
        from confluent_kafka import TopicPartition

        with self._consumer() as consumer:
            return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
                    for p in range(partitions)}

    def topic_values(self, topic: str, partition: int = 0) -> list[str]:
        """Every record value in one partition of ``topic``, from its start to its end as of now."""
        return [m.value().decode() for m in self._messages(topic, partition)]

    @contextmanager
    def _consumer(self):
        from confluent_kafka import Consumer

        consumer = Consumer(kafka_conf(self.bootstrap, **{"group.id": unique_name("judge"),
                                                          "enable.auto.commit": False}))
        try:
            yield consumer
        finally:
            consumer.close()

    def _messages(self, topic: str, partition: int) -> list:
        """The records of one partition from its start to its end as of now."""
        from confluent_kafka import TopicPartition

        with self._consumer() as consumer:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            consumer.assign([TopicPartition(topic, partition, low)])
            messages, next_offset = [], low
            while next_offset < high:
                message = consumer.poll(10)
                if message is None:
                    raise AssertionError(f"{topic}:{partition} gave no record in 10s at offset {next_offset} of {high}")
                if not message.error():
                    messages.append(message)
                    next_offset = message.offset() + 1
            return messages
