"""The one guarded write (core/online/writes.py), on the in-memory cluster: conflicts are read again and decided
again; a refusal that is not a conflict is said as it is."""

from __future__ import annotations

import pytest

from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online import operations
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import InvalidError, PreconditionError
from kubectl_offsets.model import Options, WaitSettings
from tests.inmemory import Cluster, Fault


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    memory = Cluster()
    memory.add_sink("sink", offsets={("orders", 0): 10})
    return memory


def _alter(cluster):
    return operations.alter_offsets(cluster.kube, TargetSpec("sink"), AlterRequest(sets=("orders:0=5",)),
                                    options=Options(yes=True, wait=WaitSettings(timeout=60)))


def test_a_refusal_is_said_as_it_is_not_as_a_resource_that_keeps_changing(cluster):
    """Defect (before the guarded write): a patch the API server refuses (an admission webhook, a CRD schema) was
    taken for a conflict, retried 8 times and reported as "kept changing while we tried to start"."""
    cluster.api.reject = lambda kind, obj: "spec.state may not be stopped in this namespace" \
        if kind == "KafkaConnector" and (obj.get("spec") or {}).get("state") == "stopped" else None
    with pytest.raises(InvalidError) as refused:
        _alter(cluster)
    assert "may not be stopped in this namespace" in refused.value.message
    assert cluster.offsets("sink") == {("orders", 0): 10}
    assert "kubectl-offsets.io/journal" not in (cluster.resource("sink")["metadata"].get("annotations") or {})


def test_writers_in_between_are_read_again(cluster):
    """Someone writes the resource before each of our next three writes: every one is read again and lands."""
    cluster.arm(Fault("concurrent-writer", times=3))
    outcome = _alter(cluster)
    assert outcome.final_state == "running" and cluster.offsets("sink") == {("orders", 0): 5}


def test_a_writer_that_never_stops_ends_it_before_any_change(cluster):
    cluster.arm(Fault("concurrent-writer", times=100))
    with pytest.raises(PreconditionError, match="keeps changing under us"):  # the preview's list request
        _alter(cluster)
    assert (cluster.resource("sink")["spec"].get("state")) is None


def test_recover_after_the_resume_landed_does_not_verify_a_running_connector(tmp_path, monkeypatch):
    """Defect (before the engine): recover re-ran every step after the hand-over, so a run killed once its resume
    had landed listed the offsets of a connector running again (live partitions: moved on) and failed the
    verification, keeping it stopped; and a full reset killed there reset a checkpoint connector running again
    ("not in STOPPED state"), forever (tests/unit/core/online/test_full_reset_faults.py, cleanup-kill-*)."""
    from kubectl_offsets.core.online import recovery
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    cluster.add_sink("live", offsets={("orders", 0): 10, ("orders", 1): 20}, traffic=True)
    armed = []

    def kill_after_the_resume_lands(event, step):
        if step == "resume" and event == "start" and not armed:
            armed.append(cluster.arm(Fault("kill-after")))

    with hooks.on_step(kill_after_the_resume_lands), pytest.raises(SimulatedCrash):
        operations.alter_offsets(cluster.kube, TargetSpec("live"), AlterRequest(sets=("orders:0=5",)),
                                 options=Options(yes=True, wait=WaitSettings(timeout=60)))
    cluster.run_until(cluster.clock.seconds + 120)  # the dead owner's lease runs out; the sink runs on
    summary = recovery.recover(cluster.kube, TargetSpec("live"), options=Options(wait=WaitSettings(timeout=60)))
    assert summary.startswith("finished") and cluster.connect_state("live") == "RUNNING"
    assert "kubectl-offsets.io/journal" not in (cluster.resource("live")["metadata"].get("annotations") or {})
