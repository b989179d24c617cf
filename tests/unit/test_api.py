"""The public Python API (kubectl_offsets/api.py) on the in-memory cluster: what its docstring promises, for one
connector and for a fleet; and the CLI's fleet flags as one typed object."""

from __future__ import annotations

import pytest

from kubectl_offsets import api
from kubectl_offsets.core.online import operations
from tests.inmemory import Cluster


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    memory = Cluster()
    memory.add_sink("my-sink", offsets={("orders", 0): 10, ("orders", 1): 20})
    memory.add_sink("other-sink", offsets={("orders", 0): 7}, state="paused")
    monkeypatch.setattr(operations, "connect", lambda config: memory.kube)  # what api.connect and the fleet use
    return memory


def test_every_public_name_exists_and_is_documented():
    for name in api.__all__:
        assert getattr(api, name).__doc__, name


def test_one_connector_list_alter_undo_reset(cluster):
    kube = api.connect(namespace="kafka")
    assert {e.offset["kafka_offset"] for e in api.list_offsets(kube, "my-sink").offsets} == {10, 20}
    outcome = api.alter(kube, "my-sink", api.AlterRequest(sets=("orders:0=1200",)), options=api.Options(yes=True))
    assert isinstance(outcome, api.Outcome) and outcome.final_state == "running"
    assert cluster.offsets("my-sink") == {("orders", 0): 1200, ("orders", 1): 20}
    api.undo(kube, "my-sink", backup=outcome.backup, options=api.Options(yes=True))
    assert cluster.offsets("my-sink") == {("orders", 0): 10, ("orders", 1): 20}
    preview = api.reset(kube, "my-sink", options=api.Options(dry_run=True))
    assert isinstance(preview, api.Preview) and preview.patches and cluster.offsets("my-sink")
    api.reset(kube, "my-sink", options=api.Options(yes=True))
    assert cluster.offsets("my-sink") == {}


def test_a_declined_confirmation_changes_nothing(cluster):
    kube = api.connect()
    with pytest.raises(api.OffsetsError, match="cancelled"):
        api.alter(kube, "my-sink", api.AlterRequest(sets=("orders:0=1",)), confirm=lambda preview: False)
    assert cluster.offsets("my-sink") == {("orders", 0): 10, ("orders", 1): 20}


def test_recover_finishes_what_a_killed_run_left(cluster):
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks

    kube = api.connect()
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        api.alter(kube, "my-sink", api.AlterRequest(sets=("orders:0=3",)), options=api.Options(yes=True))
    summary = api.recover(kube, "my-sink", force=True)
    assert summary.startswith("finished") and cluster.offsets("my-sink")[("orders", 0)] == 3


def test_a_fleet_alter_and_its_undo(cluster):
    config, everything = api.ClusterConfig(namespace="kafka"), api.Selection(namespace="kafka")
    report = api.alter_fleet(config, everything, api.AlterRequest(to_offset=1, topics=("orders:0",)),
                             options=api.Options(yes=True), parallel=2)
    assert report.counts() == {"done": 2}, report.counts()
    assert cluster.offsets("my-sink")[("orders", 0)] == 1 and cluster.offsets("other-sink")[("orders", 0)] == 1
    assert cluster.connect_state("other-sink") == "PAUSED"
    document = api.list_fleet(config, everything)
    assert len(document.entries) == 2


def test_the_fleet_flags_are_every_flag_of_the_fleet_commands():
    """FleetFlags.of_command reads each field from the command's parsed flags: each must be a flag of alter,
    reset and undo, so none is dropped on the way (and a renamed one fails here, not in a run)."""
    import dataclasses

    from kubectl_offsets.cli import cmd_alter, cmd_reset, cmd_undo
    from kubectl_offsets.cli.fleet import FleetFlags

    for command in (cmd_alter.alter_command, cmd_reset.reset_command, cmd_undo.undo_command):
        names = {param.name for param in command.params}
        assert {f.name for f in dataclasses.fields(FleetFlags)} <= names, command.name


def test_create_at_offsets_on_the_in_memory_cluster(cluster, tmp_path):
    """create runs the ALTER declaration on the new connector (created stopped: Strimzi 1.2's initial_state), then
    gives it the manifest's state."""
    from kubectl_offsets.core.online import lifecycle

    manifest = tmp_path / "new.yaml"
    manifest.write_text("apiVersion: kafka.strimzi.io/v1\nkind: KafkaConnector\nmetadata:\n  name: new-sink\n"
                        "  labels: {strimzi.io/cluster: my-connect}\nspec:\n"
                        "  class: org.apache.kafka.connect.file.FileStreamSinkConnector\n  tasksMax: 1\n"
                        "  config: {topics: orders, file: /tmp/new}\n")
    outcome = lifecycle.create_connector(cluster.kube, lifecycle.read_manifest(str(manifest)),
                                         api.AlterRequest(sets=("orders:0=42",)), options=api.Options(yes=True))
    assert outcome.final_state == "running" and cluster.offsets("new-sink") == {("orders", 0): 42}
    assert cluster.connect_state("new-sink") == "RUNNING"
