"""`list --lag` when some connectors could not be listed (issue 28): the table shows the others, the warnings name
the missing ones, and the exit status says the listing was incomplete, as `list --all` does."""

from __future__ import annotations

from click.testing import CliRunner

from kubectl_offsets.cli.root import root
from kubectl_offsets.core.compute import connectors_lag
from kubectl_offsets.core.online import connectors, fleet, operations
from kubectl_offsets.errors import ExitStatus, OperatorError

LISTED = fleet.Member("kafka", "KafkaConnector", "orders-sink", "orders-sink")
FAILED = fleet.Member("kafka", "KafkaConnector", "payments-sink", "payments-sink")


def test_list_lag_exits_non_zero_when_a_connector_could_not_be_listed(monkeypatch):
    kube = type("Kube", (), {"namespace": "kafka"})()
    monkeypatch.setattr(operations, "connect", lambda cluster: kube)
    monkeypatch.setattr(connectors, "overview", lambda kube, selection: [
        connectors.ConnectorRow(m, "org.apache.kafka.connect.file.FileStreamSinkConnector", "sink", "RUNNING", 1, 1)
        for m in (LISTED, FAILED)])
    monkeypatch.setattr(fleet, "list_fleet", lambda cluster, members, options, progress=None: (
        fleet.FleetDocument([]), [(FAILED, OperatorError("the operator did not answer"))]))
    monkeypatch.setattr(connectors_lag, "lag_rows", lambda document, bootstrap, options, progress=None: [])
    result = CliRunner().invoke(root, ["list", "--lag", "--bootstrap-server", "kafka:9092", "-n", "kafka"])
    assert "payments-sink" in result.stderr and "the operator did not answer" in result.stderr
    assert result.exit_code == ExitStatus.OPERATOR, result.output
