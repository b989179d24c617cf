"""`list` without a target: every connector of the namespace from the resources' status (no listOffsets), and with
--lag the per-partition end offsets and lag of those that read Kafka topics."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kubectl_offsets import strimzi
from kubectl_offsets.cli.root import root
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.compute import connectors_lag
from kubectl_offsets.core.online import connectors, fleet, operations
from kubectl_offsets.model import OffsetsDocument
from tests.unit.core.compute.test_compute_pure import FakeBroker
from tests.unit.core.online.test_fleet import MM2, SINK, FakeKube


def with_status(resource, status):
    copy = json.loads(json.dumps(resource))
    copy["status"] = status
    return copy


RUNNING_SINK = with_status(SINK, {"connectorStatus": {
    "name": "orders-sink", "type": "sink", "connector": {"state": "RUNNING"},
    "tasks": [{"id": 0, "state": "RUNNING"}, {"id": 1, "state": "FAILED"}]}})
MIRROR = with_status(MM2, {"connectors": [
    {"name": "east->west.MirrorSourceConnector", "type": "source", "connector": {"state": "PAUSED"},
     "tasks": [{"id": 0, "state": "PAUSED"}]}]})


def test_overview_has_one_row_per_connector_from_the_status():
    kube = FakeKube({strimzi.KIND_CONNECTOR: [RUNNING_SINK], strimzi.KIND_MM2: [MIRROR]})
    rows = connectors.overview(kube, fleet.Selection())
    assert [r.to_json() for r in rows] == [
        {"namespace": "kafka", "name": "orders-sink", "kind": "KafkaConnector", "connector": "orders-sink",
         "type": "sink", "class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "state": "RUNNING",
         "tasksRunning": 1, "tasks": 2},
        {"namespace": "kafka", "name": "kmm2/mirror", "kind": "KafkaMirrorMaker2",
         "connector": "east->west.MirrorCheckpointConnector", "type": None,
         "class": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector", "state": None,
         "tasksRunning": 0, "tasks": 0},
        {"namespace": "kafka", "name": "kmm2/mirror", "kind": "KafkaMirrorMaker2",
         "connector": "east->west.MirrorSourceConnector", "type": "source",
         "class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "state": "PAUSED",
         "tasksRunning": 0, "tasks": 1},
    ]


@pytest.fixture
def kube(monkeypatch):
    fake = FakeKube({strimzi.KIND_CONNECTOR: [RUNNING_SINK], strimzi.KIND_MM2: [MIRROR]})
    monkeypatch.setattr(operations, "connect", lambda cluster: fake)
    return fake


def test_list_without_target_prints_the_connectors_table(kube):
    result = CliRunner().invoke(root, ["list"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "CONNECTOR", "TYPE", "CLASS", "STATE", "TASKS"]
    assert lines[1].split() == ["orders-sink", "KafkaConnector", "orders-sink", "sink", "FileStreamSinkConnector",
                                "RUNNING", "1/2"]
    assert lines[3].split() == ["kmm2/mirror", "KafkaMirrorMaker2", "east->west.MirrorSourceConnector", "source",
                                "MirrorSourceConnector", "PAUSED", "0/1"]


def test_list_without_target_in_an_empty_namespace_says_so_and_exits_zero(monkeypatch):
    monkeypatch.setattr(operations, "connect", lambda cluster: FakeKube({}))
    result = CliRunner().invoke(root, ["list", "-n", "quiet"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "" and result.stderr.strip() == "No resources found in quiet namespace."


def test_list_lag_needs_a_bootstrap_server(kube):
    result = CliRunner().invoke(root, ["list", "--lag"])
    assert result.exit_code == 2 and "--bootstrap-server" in result.stderr


def test_lag_rows_per_partition_for_connectors_that_read_topics():
    sink = fleet.Member("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")
    source = fleet.Member("kafka", strimzi.KIND_CONNECTOR, "files", "files")
    document = fleet.FleetDocument([
        fleet.FleetEntry(sink, OffsetsDocument.from_json({"offsets": [
            {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 30}}]}),
            ConnectorKind.SINK),
        fleet.FleetEntry(source, OffsetsDocument.from_json({"offsets": [
            {"partition": {"filename": "/x"}, "offset": {"position": 3}}]}), ConnectorKind.SOURCE)])
    rows = connectors_lag.lag_rows(document, "b:9092", (), broker=FakeBroker)
    # FakeBroker: every topic has partitions 0 and 1, log [10, 50); partition 1 has no stored offset
    assert [(r.member.name, r.topic, r.partition, r.current, r.end, r.lag) for r in rows] == [
        ("orders-sink", "orders", 0, 30, 50, 20), ("orders-sink", "orders", 1, None, 50, 40)]
