"""When a wait for STOPPED is over, on the in-memory cluster in virtual time.

Connect removes a stopped connector's task statuses at its leader's next rebalance, but a task's own last status write
(UNASSIGNED, once it has closed and made its last commit) can land after that removal and is then listed until the
next rebalance, which a stopped connector does not bring: CI met one under a connector deleted and created again under
the same name (Strimzi 0.51, 300 s without an answer). Such a task commits nothing more; one still RUNNING might.
"""

from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.core.online.operator import OperatorClient
from kubectl_offsets.errors import OperationTimeoutError
from kubectl_offsets.model import WaitSettings
from kubectl_offsets.progress import SilentProgress
from tests.inmemory import Cluster


def stopped_with_tasks(*task_states: str) -> tuple[Cluster, OperatorClient]:
    """A stopped sink whose status (written by an operator that then goes quiet) lists tasks in these states."""
    cluster = Cluster()
    cluster.add_sink("sink", state="stopped")
    cluster.operator.running = False
    tasks = [{"id": i, "state": state, "worker_id": "connect-0:8083"} for i, state in enumerate(task_states)]
    status = dict(cluster.resource("sink")["status"])
    status["connectorStatus"] = {"name": "sink", "type": "sink",
                                 "connector": {"state": "STOPPED", "worker_id": "connect-0:8083"}, "tasks": tasks}
    cluster.api.write_status("KafkaConnector", cluster.namespace, "sink", status)
    target = strimzi.connector_target(cluster.resource("sink"))
    return cluster, OperatorClient(cluster.kube, target, WaitSettings(timeout=60), SilentProgress())


def test_a_stopped_connector_without_tasks_is_stopped():
    cluster, client = stopped_with_tasks()
    started = cluster.clock.seconds
    client.wait_for_connect_state("STOPPED")
    assert cluster.clock.seconds - started < 1


def test_a_task_listed_as_unassigned_under_a_stopped_connector_has_shut_down():
    cluster, client = stopped_with_tasks("UNASSIGNED")
    started = cluster.clock.seconds
    client.wait_for_connect_state("STOPPED")
    assert cluster.clock.seconds - started < 1


@pytest.mark.parametrize("state", ["RUNNING", "PAUSED", "RESTARTING"])
def test_a_task_that_may_still_commit_holds_the_wait_and_the_timeout_names_it(state):
    _, client = stopped_with_tasks("UNASSIGNED", state)
    with pytest.raises(OperationTimeoutError) as raised:
        client.wait_for_connect_state("STOPPED")
    assert f"task 1 is still {state}" in str(raised.value), str(raised.value)
