"""The DeleteRecords under a full reset (adapters/kafka.py ``Broker.delete_records``) against the real broker.

The full reset allows deletion on the compacted offset-syncs topic (cleanup.policy=compact,delete) just before it
deletes. In KRaft the change is acknowledged once the controller has committed it; the partition leader applies it
to its log when it replays the metadata, a moment later (longer on a busy machine). A DeleteRecords in between is
refused with POLICY_VIOLATION: the truncation waits for the policy to arrive instead of failing the reset."""
from __future__ import annotations

import threading
import time
import uuid

import pytest

from kubectl_offsets.adapters.kafka import Broker
from kubectl_offsets.errors import ClusterError
from tests.env.clients import producer_conf


@pytest.fixture
def compacted(kafka_admin, env):
    """A compacted topic with 3 records, the way MirrorMaker 2 creates its offset-syncs topic."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewTopic

    topic = f"syncs-{uuid.uuid4().hex[:8]}"
    kafka_admin.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": "compact"})])[topic].result(30)
    producer = Producer(producer_conf(env.bootstrap_servers))
    for i in range(3):
        producer.produce(topic, key=f"k{i}".encode(), value=b"v")
    producer.flush(30)
    yield topic
    kafka_admin.delete_topics([topic])


def test_a_deletion_the_policy_does_not_allow_yet_waits_for_it(env, compacted):
    broker = Broker(env.bootstrap_servers)
    allowed = threading.Timer(1.5, broker.set_topic_config, (compacted, "cleanup.policy", "compact,delete"))
    allowed.start()
    started = time.monotonic()
    try:
        starts = broker.delete_records({(compacted, 0): 3}, settle=30)
    finally:
        allowed.join()
    assert starts == {(compacted, 0): 3}
    assert time.monotonic() - started >= 1.4, "deleted before the policy allowed it?"


def test_a_policy_that_never_allows_it_is_refused_after_the_wait(env, compacted):
    broker = Broker(env.bootstrap_servers)
    started = time.monotonic()
    with pytest.raises(ClusterError) as refused:
        broker.delete_records({(compacted, 0): 3}, settle=2)
    assert 2 <= time.monotonic() - started < 20
    assert "refused deleting records" in refused.value.message and "olicy" in refused.value.message
    assert broker.earliest([(compacted, 0)]) == {(compacted, 0): 0}, "nothing deleted"
