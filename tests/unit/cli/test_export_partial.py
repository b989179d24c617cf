"""`export --out FILE` when some connectors cannot be listed (issue 28): the complete export already at FILE is kept,
and the partial document goes beside it, marked incomplete, instead of replacing it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kubectl_offsets.cli import fleet as cli_fleet
from kubectl_offsets.cli.root import root
from kubectl_offsets.core.online import fleet, operations
from kubectl_offsets.errors import OperatorError
from kubectl_offsets.model import ClusterConfig, OffsetsDocument

LISTED = fleet.Member("kafka", "KafkaConnector", "orders-sink", "orders-sink")
FAILED = fleet.Member("kafka", "KafkaConnector", "payments-sink", "payments-sink")
OFFSETS = OffsetsDocument.from_json({"offsets": [
    {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 5}}]})


def fake_cluster(monkeypatch, failing: bool) -> None:
    kube = type("Kube", (), {"namespace": "kafka", "context": "c", "server": "https://k"})()
    monkeypatch.setattr(operations, "connect", lambda cluster: kube)
    monkeypatch.setattr(cli_fleet, "cluster_and_members",
                        lambda *a, **k: (ClusterConfig(namespace="kafka"), kube, [LISTED, FAILED]))
    monkeypatch.setattr(fleet, "export_source", lambda kube, cluster, sel: {"context": "c"})

    def list_fleet(cluster, members, options, progress=None, stop=None):
        entries = [fleet.FleetEntry(LISTED, OFFSETS, "sink")]
        errors = [(FAILED, OperatorError("the operator did not answer"))] if failing else []
        if not failing:
            entries.append(fleet.FleetEntry(FAILED, OFFSETS, "sink"))
        return fleet.FleetDocument(entries), errors
    monkeypatch.setattr(fleet, "list_fleet", list_fleet)


def test_a_partial_export_keeps_the_complete_one_and_is_marked(monkeypatch, tmp_path):
    out = tmp_path / "offsets-kafka.json"
    fake_cluster(monkeypatch, failing=False)
    assert CliRunner().invoke(root, ["export", "-n", "kafka", "--out", str(out)]).exit_code == 0
    complete = out.read_text()
    assert len(json.loads(complete)["connectors"]) == 2

    fake_cluster(monkeypatch, failing=True)
    result = CliRunner().invoke(root, ["export", "-n", "kafka", "--out", str(out)])
    assert result.exit_code != 0, result.output
    assert out.read_text() == complete
    partial = json.loads((tmp_path / "offsets-kafka.json.partial").read_text())
    assert [c["name"] for c in partial["connectors"]] == ["orders-sink"]
    assert partial["source"]["incomplete"] == ["kafka/kafkaconnector/payments-sink"]
    assert "offsets-kafka.json.partial" in result.stderr and "left as it was" in result.stderr
