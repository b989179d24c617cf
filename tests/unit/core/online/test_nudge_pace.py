"""When a wait for the operator nudges it, on the in-memory cluster in virtual time.

A nudge is a write to the resource; one that lands while the operator is at work on it makes the operator's closing
patch a 409, a Warning and the action applied twice (strimzi.PASS_SECONDS_P99). So a wait nudges only once the
operator has taken clearly longer than its pass over that kind takes, or than it took to answer us before, and
never later than NUDGE_CEILING after our last write (a dropped event must still be brought back soon).
"""

from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.conventions import ANNOTATION_NUDGE
from kubectl_offsets.core.online.operator import NUDGE_AFTER, NUDGE_CEILING, PASS_MARGIN, OperatorClient
from kubectl_offsets.errors import OperationTimeoutError
from kubectl_offsets.model import WaitSettings
from kubectl_offsets.progress import SilentProgress
from tests.inmemory import Cluster


def _is_nudge(body) -> bool:
    """A JSON Patch that sets our nudge annotation (one key, or the whole annotations map when there was none)."""
    def sets_it(op) -> bool:
        if op.get("op") == "remove":
            return False
        value = op.get("value")
        return ANNOTATION_NUDGE.replace("/", "~1") in op.get("path", "") or \
            (isinstance(value, dict) and ANNOTATION_NUDGE in value)
    return isinstance(body, list) and any(sets_it(op) for op in body)


def nudges_while_silent(cluster: Cluster, client: OperatorClient, timeout: float) -> list[float]:
    """The seconds after the wait began at which it nudged an operator that answers nothing."""
    times: list[float] = []
    cluster.on_write = lambda verb, kind, name: times.append(cluster.clock.seconds)
    cluster.operator.running = False
    started, before = cluster.clock.seconds, len(cluster.writes)
    client.wait = WaitSettings(timeout=timeout)
    with pytest.raises(OperationTimeoutError):
        client.wait_for_connect_state("STOPPED")
    writes = cluster.writes[before:]
    assert len(writes) == len(times)
    return [round(at - started, 3) for at, (_, _, _, body) in zip(times, writes) if _is_nudge(body)]


def client_for(cluster: Cluster, kind: str, name: str) -> OperatorClient:
    resource = cluster.resource(name, kind)
    target = strimzi.connector_target(resource) if kind == strimzi.KIND_CONNECTOR else strimzi.mm2_targets(resource)[0]
    return OperatorClient(cluster.kube, target, WaitSettings(), SilentProgress())


def test_a_kafkaconnector_wait_nudges_every_eight_seconds_without_an_answer():
    cluster = Cluster()
    cluster.add_sink("sink")
    assert nudges_while_silent(cluster, client_for(cluster, strimzi.KIND_CONNECTOR, "sink"), 40) == [8, 16, 24, 32]


def test_a_mirrormaker2_wait_leaves_the_operator_its_longer_pass_before_the_first_nudge():
    cluster = Cluster()
    cluster.add_mirror("mirror")
    after = PASS_MARGIN * strimzi.PASS_SECONDS_P99[strimzi.KIND_MM2]
    assert after > NUDGE_AFTER
    assert nudges_while_silent(cluster, client_for(cluster, strimzi.KIND_MM2, "mirror"), 45) == [after, 2 * after]


def test_an_operator_that_was_slow_to_answer_is_nudged_later_but_never_past_the_ceiling():
    cluster = Cluster()
    cluster.add_sink("sink")
    client = client_for(cluster, strimzi.KIND_CONNECTOR, "sink")
    client.answered_after(12.0)  # it took 12 s to answer our stop
    assert nudges_while_silent(cluster, client, 40) == [18, 36]
    client.answered_after(100.0)  # an answer that came with the periodic pass
    assert client.nudge_after() == NUDGE_CEILING
    assert nudges_while_silent(cluster, client, 70) == [30, 60]


def test_a_wait_answered_by_the_operator_records_how_long_it_took():
    cluster = Cluster()
    cluster.add_sink("sink")
    client = client_for(cluster, strimzi.KIND_CONNECTOR, "sink")
    client.wait = WaitSettings(timeout=60)
    client.patch([{"op": "add", "path": "/spec/state", "value": "stopped"}])
    client.wait_for_connect_state("STOPPED")
    assert client.nudge_after() == NUDGE_AFTER  # the in-memory operator answers at once: nothing to learn
