"""MirrorMaker 2's full reset (``reset --with-offset-syncs``, the FULL_RESET declaration) x every step x every fault
x the source connector's starting state, on the in-memory cluster with the emulator's KafkaMirrorMaker2 reconcile
and an in-memory Kafka for the offset-syncs topic (tests/inmemory/kafka.py). After the fault the user recovers as the
plugin said; then, judged by Connect's store and the topic:
- each connector's offsets are its old ones or reset, never anything else;
- the offset-syncs topic's cleanup.policy is the original one again (left with 'delete', retention would eat the
  syncs), and the topic is truncated only together with a reset source;
- no journal and no offsets request is left; both connectors are back in their states.
"""

from __future__ import annotations

import json

import pytest

from kubectl_offsets import mirrormaker
from kubectl_offsets.core.online import mm2_full_reset, operations
from kubectl_offsets.core.online.mm2_check import Mm2Settings
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.conventions import ANNOTATION_JOURNAL
from tests.inmemory import Cluster
from tests.inmemory.kafka import Kafka, Topic
from tests.inmemory.scenarios import STATES, Scenario, options, recover_as_told
from tests.unit.core.online.test_engine_faults import FAULTS, run_with_fault

SOURCE, CHECKPOINT = "east->west.MirrorSourceConnector", "east->west.MirrorCheckpointConnector"
SYNCS = mirrormaker.offset_syncs_topic("east", "west", {}).name
SOURCE_OFFSETS = {json.dumps({"cluster": "east", "partition": 0, "topic": "orders"}, sort_keys=True): {"offset": 5}}
CHECKPOINT_OFFSETS = {json.dumps({"group": "g", "partition": 0, "topic": "orders"}, sort_keys=True): {"offset": 0}}
CASES = [pytest.param(str(step.id), fault, state, id=f"{step.id}-{fault}-{state}")
         for step in mm2_full_reset.FULL_RESET.steps for fault in FAULTS for state in STATES]


def _prepare(cluster: Cluster, kafka: Kafka, state: str) -> Scenario:
    cluster.add_mirror("mirror")
    if STATES[state] is not None:
        mirror = cluster.resource("mirror", "KafkaMirrorMaker2")
        cluster.api.patch("KafkaMirrorMaker2", cluster.namespace, "mirror", [
            {"op": "add", "path": "/spec/mirrors/0/sourceConnector/state", "value": STATES[state]},
            {"op": "test", "path": "/metadata/resourceVersion", "value": mirror["metadata"]["resourceVersion"]}])
        cluster.run_until(cluster.clock.seconds + 10)
    cluster.worker.connectors[SOURCE].offsets.update(SOURCE_OFFSETS)
    cluster.worker.connectors[CHECKPOINT].offsets.update(CHECKPOINT_OFFSETS)
    kafka.topics[SYNCS] = Topic({0: 0}, {0: 40})
    settings = Mm2Settings(with_offset_syncs=True)
    spec = TargetSpec("kafkamirrormaker2/mirror", connector="source")
    return Scenario("mirror", "full reset", lambda: operations.reset_offsets(
        cluster.kube, spec, options=options(mm2=settings)), SOURCE_OFFSETS, {}, STATES[state],
        kind="KafkaMirrorMaker2", target=spec, mm2=settings)


def _check(cluster: Cluster, kafka: Kafka, scenario: Scenario) -> None:
    cluster.run_until(cluster.clock.seconds + cluster.operator.interval + 10)
    mirror = cluster.resource("mirror", "KafkaMirrorMaker2")
    annotations = mirror["metadata"].get("annotations") or {}
    assert ANNOTATION_JOURNAL not in annotations, annotations[ANNOTATION_JOURNAL]
    assert "strimzi.io/connector-offsets" not in annotations, annotations
    source, checkpoint = cluster.stored(SOURCE), cluster.stored(CHECKPOINT)
    assert source in (SOURCE_OFFSETS, {}), source
    assert checkpoint in (CHECKPOINT_OFFSETS, {}), checkpoint
    topic = kafka.topics[SYNCS]
    assert topic.policy == ("compact", True), f"cleanup.policy left as {topic.policy}"
    if topic.starts[0] == topic.ends[0]:
        assert source == {}, "the offset syncs were truncated, the source's offsets were not reset"
    stanza = mirror["spec"]["mirrors"][0]
    assert stanza["sourceConnector"].get("state") == scenario.spec_state
    assert "state" not in stanza["checkpointConnector"]
    assert "listOffsets" not in stanza["sourceConnector"] and "alterOffsets" not in stanza["sourceConnector"]
    assert cluster.connect_state(SOURCE) == scenario.state and cluster.connect_state(CHECKPOINT) == "RUNNING"


@pytest.mark.parametrize("step, fault, state", CASES)
def test_every_step_every_fault(step, fault, state, tmp_path, monkeypatch):
    import kubectl_offsets.adapters.kafka as adapter

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    kafka = Kafka()
    monkeypatch.setattr(adapter, "Broker", kafka.broker())
    cluster = Cluster()
    scenario = _prepare(cluster, kafka, state)
    failure, fired = run_with_fault(cluster, scenario, step, fault)
    recover_as_told(cluster, scenario, failure)
    _check(cluster, kafka, scenario)
    if not fired:
        assert failure is None and cluster.stored(SOURCE) == {} and cluster.stored(CHECKPOINT) == {}
