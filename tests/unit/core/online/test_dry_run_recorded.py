"""A dry run is the engine run against a recording client: on the same connector, its writes are the real run's
writes (tests/dryrun_compare.py says what is normalised), and it changes nothing. The integration twin,
tests/integration/online/test_dry_run_fidelity.py, compares with the real operator."""

from __future__ import annotations

import pytest

from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online import lifecycle, operations
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.model import Options, WaitSettings
from tests.dryrun_compare import from_the_claim, normalised
from tests.inmemory import Cluster

CALLS = {
    "alter": lambda kube, options: operations.alter_offsets(kube, TargetSpec("sink"), AlterRequest(sets=("orders:0=5",)),
                                                            options=options),
    "reset": lambda kube, options: operations.reset_offsets(kube, TargetSpec("sink"), options=options),
    "delete": lambda kube, options: lifecycle.delete_connector(kube, TargetSpec("sink"), reset_offsets=True,
                                                               options=options),
}


@pytest.mark.parametrize("operation", CALLS)
@pytest.mark.parametrize("state", [None, "paused", "stopped"])
def test_the_dry_runs_writes_are_the_real_runs(operation, state, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    cluster.add_sink("sink", offsets={("orders", 0): 10, ("orders", 1): 20}, state=state)
    operations.list_offsets(cluster.kube, TargetSpec("sink"))  # a last list for the dry run to start from
    before = len(cluster.writes)
    preview = CALLS[operation](cluster.kube, Options(yes=True, dry_run=True, wait=WaitSettings(timeout=60)))
    assert len(cluster.writes) == before, "the dry run wrote to the cluster"
    assert not list(tmp_path.rglob("*.yaml")), "the dry run wrote a local backup"
    recorded = [(d.split(" ")[0], *_object(d), body) for d, body in preview.patches]
    CALLS[operation](cluster.kube, Options(yes=True, wait=WaitSettings(timeout=60)))
    real = from_the_claim(cluster.writes[before:])
    assert normalised(recorded) == normalised(real)
    assert [d for d, _ in preview.patches if d.startswith("write local file")], "the local backup is not shown"


def _object(description: str) -> tuple[str, str]:
    """'patch kafkaconnector/sink (step stop)' -> (kind, name) as the cluster's write log has them."""
    what = description.split(" ")[1] if not description.startswith("write local file") else "file/-"
    kind, name = what.split("/", 1)
    return {"kafkaconnector": "KafkaConnector", "configmap": "ConfigMap"}.get(kind, kind), name


def test_the_trigger_dry_runs_writes_are_the_real_triggers(tmp_path, monkeypatch):
    """trigger --dry-run runs the engine's PREPARED declaration against the recorder too: what it shows is what the
    real trigger then sends, and nothing is written."""
    from kubectl_offsets.core.gitops import trigger_command
    from tests.inmemory.scenarios import prepare

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    prepare(cluster, "trigger")
    operations.list_offsets(cluster.kube, TargetSpec("sink"))
    before = len(cluster.writes)
    dry = trigger_command.trigger(cluster.kube, TargetSpec("sink"),
                                  options=Options(yes=True, dry_run=True, wait=WaitSettings(timeout=60)))
    assert len(cluster.writes) == before, "the dry run wrote to the cluster"
    assert dry.before is not None and dry.change is not None and dry.writes
    recorded = [(d.split(" ")[0], *_object(d), body) for d, body in dry.writes]
    trigger_command.trigger(cluster.kube, TargetSpec("sink"), options=Options(yes=True, wait=WaitSettings(timeout=60)))
    assert normalised(recorded) == normalised(from_the_claim(cluster.writes[before:]))
    assert any("kubectl-offsets.io~1triggered" in str(body) for _, body in dry.writes), "the marker is not shown"


def test_a_dry_run_write_whose_version_moved_reads_again_as_the_real_run_does():
    """The operator writes a status between the dry run's read and its patch (seen in a GitOps end-to-end run on
    0.51.0, 2026-11-28): the patch's resourceVersion test fails as the API server's would (422), and the guarded
    write reads again and lands, where the dry run used to stop on jsonpatch's own exception."""
    from kubectl_offsets.core.online import writes
    from kubectl_offsets.core.online.recording import Recorder
    from kubectl_offsets.errors import InvalidError

    cluster = Cluster()
    cluster.add_sink("sink", offsets={("orders", 0): 10})
    recorder = Recorder(cluster.kube)
    stale = recorder.get("KafkaConnector", "sink", cluster.namespace)
    cluster.concurrent_write("KafkaConnector", "sink")

    change = [{"op": "add", "path": "/spec/state", "value": "stopped"}]
    with pytest.raises(InvalidError, match="kafkaconnector/sink"):
        recorder.patch("KafkaConnector", "sink", cluster.namespace, writes.precondition(stale) + change)

    reads = []

    def read():
        reads.append(recorder.get("KafkaConnector", "sink", cluster.namespace))
        return reads[-1] if len(reads) > 1 else stale  # the first write is built on the version read before

    landed = writes.guarded(read, lambda resource: recorder.patch(
        "KafkaConnector", "sink", cluster.namespace, writes.precondition(resource) + change),
        exhausted=lambda: AssertionError("never landed"))
    assert landed["spec"]["state"] == "stopped"
    assert len(reads) == 3  # the stale version, the check that it moved, the retry's
    assert cluster.resource("sink")["spec"].get("state") is None  # a dry run: nothing written
