"""An in-memory Kafka cluster behind the plugin's broker client (``adapters.kafka.Broker``): what a MirrorMaker 2 full
reset asks of the cluster that holds the offset-syncs topic (partitions, start and end offsets, ``cleanup.policy``,
DeleteRecords, the records' keys) and what the MirrorMaker 2 pre-flight asks (that it answers). DeleteRecords is
refused while ``cleanup.policy`` has no ``delete``, as Kafka refuses it on a compacted-only topic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubectl_offsets.errors import OffsetsError


@dataclass
class Topic:
    starts: dict[int, int]
    ends: dict[int, int]
    policy: tuple[str | None, bool] = ("compact", True)  # (value, set on the topic)


@dataclass
class Kafka:
    topics: dict[str, Topic] = field(default_factory=dict)
    down: bool = False  # no answers (the recorded address is a port-forward that is gone)
    cluster_id: str = "in-memory-kafka"  # what every address of this cluster answers (recover --bootstrap-server)

    def broker(self):
        """A class standing in for ``adapters.kafka.Broker`` (monkeypatch it there)."""
        kafka = self

        class Broker:
            def __init__(self, bootstrap_servers: str, options: Any = (), timeout: float = 15.0):
                self.bootstrap_servers, self.timeout = bootstrap_servers, 0.0

            def _check(self) -> None:
                if kafka.down:
                    raise OffsetsError(f"no answer from the Kafka cluster at {self.bootstrap_servers}")

            def cluster_id(self):
                self._check()
                return kafka.cluster_id

            def existing_partitions(self, topics):
                self._check()
                return {t: (sorted(kafka.topics[t].ends) if t in kafka.topics else None) for t in topics}

            def earliest(self, partitions):
                self._check()
                return {(t, p): kafka.topics[t].starts[p] for t, p in partitions}

            def end(self, partitions):
                self._check()
                return {(t, p): kafka.topics[t].ends[p] for t, p in partitions}

            def keys(self, ranges):
                return []

            def topic_operations(self, topic):
                return None

            def topic_config(self, topic, name):
                self._check()
                return kafka.topics[topic].policy

            def set_topic_config(self, topic, name, value):
                self._check()
                kafka.topics[topic].policy = (value, value is not None)

            def delete_records(self, before, *, settle: float = 0.0):
                self._check()
                for (t, p), offset in before.items():
                    if "delete" not in (kafka.topics[t].policy[0] or ""):
                        raise OffsetsError(f"DeleteRecords refused on {t}: cleanup.policy has no 'delete'")
                    kafka.topics[t].starts[p] = max(kafka.topics[t].starts[p], offset)

        return Broker
