"""Status documents built for KafkaConnector and KafkaMirrorMaker2 (§2.3, §2.10)."""
from tests.env.emulator import conditions, kafka_connector, kafka_mirror_maker2
from tests.env.emulator.conditions import ReconcileError
from tests.env.emulator.connector_reconcile import ConnectorResult

CR = {"kind": "KafkaConnector", "metadata": {"name": "c", "namespace": "ns", "generation": 3},
      "spec": {"tasksMax": 2}}
RUNNING = {"name": "c", "connector": {"state": "RUNNING", "worker_id": "w"},
           "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w"}], "type": "source"}


def test_ready_status_carries_connect_status_and_task_count():
    warning = conditions.warning("ListOffsets", "m")
    status = kafka_connector.build_status(CR, ConnectorResult(RUNNING, ["t"], [warning]), None)
    assert [c["type"] for c in status["conditions"]] == ["Ready", "Warning"]
    assert status["connectorStatus"] == RUNNING
    assert status["tasksMax"] == 1  # tasks Connect reports, not spec.tasksMax
    assert status["topics"] == ["t"] and status["observedGeneration"] == 3


def test_failed_reconcile_drops_connector_status_and_topics():
    err = ReconcileError("IllegalArgumentException", "No enum constant x.y")
    status = kafka_connector.build_status(CR, None, err)
    assert status["conditions"][0]["type"] == "NotReady"
    assert "connectorStatus" not in status and "topics" not in status
    assert status["tasksMax"] == 2


def test_failed_task_is_not_ready():
    failed = dict(RUNNING, tasks=[{"id": 0, "state": "FAILED"}, {"id": 1, "state": "FAILED"}])
    status = kafka_connector.build_status(CR, ConnectorResult(failed, [], []), None)
    cond = status["conditions"][0]
    assert (cond["type"], cond["reason"], cond["message"]) == (
        "NotReady", "Throwable", "The following tasks have failed: 0, 1, see connectorStatus for more details.")


def test_mm2_connectors_sorted_by_name_and_failed_connector_not_ready():
    mm2 = {"kind": "KafkaMirrorMaker2", "metadata": {"name": "m", "namespace": "ns", "generation": 1},
           "spec": {"replicas": 1}}
    b = {"name": "b", "connector": {"state": "RUNNING"}, "tasks": []}
    a = {"name": "a", "connector": {"state": "FAILED"}, "tasks": []}
    status = kafka_mirror_maker2._status(mm2, [b, a], [], None)
    assert [c["name"] for c in status["connectors"]] == ["a", "b"]
    assert status["conditions"][0]["type"] == "NotReady"
    assert status["url"] == "http://m-mirrormaker2-api.ns.svc:8083"
