"""How long a failure against an operator that went silent keeps the user waiting (in-memory cluster, virtual time).

The operator stops answering once our alter request lands: the wait for it times out after --timeout, then making
the connector safe restores spec.state and waits for that (bounded by --timeout too). A list of the offsets would be
one more request to the same silent operator: asked only when the operator has reconciled the restored spec.
"""

from __future__ import annotations

from kubectl_offsets.errors import OperationTimeoutError
from tests.inmemory import Cluster
from tests.inmemory.scenarios import TIMEOUT, check, prepare, recover_as_told
from tests.unit.core.online.test_engine_faults import run_with_fault


def test_a_silent_operator_costs_two_waits_and_the_undo_command_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    scenario = prepare(cluster, "alter", "running")
    started = cluster.clock.seconds

    failure, fired = run_with_fault(cluster, scenario, "annotate", "operator-silent")

    took = cluster.clock.seconds - started
    assert fired and isinstance(failure, OperationTimeoutError), failure
    # The alter's wait and the restore's wait; not a third for a list nobody would answer.
    assert 2 * TIMEOUT <= took < 2 * TIMEOUT + 15, took
    assert "spec.state set back to running, but the operator has not applied it yet" in failure.message
    assert "the offsets could not be listed to check whether they changed; if they did: kubectl offsets undo " \
           "kafkaconnector/sink" in failure.message
    recover_as_told(cluster, scenario, failure)
    check(cluster, scenario)


def test_an_operator_that_reconciled_the_restore_is_asked_for_the_list(tmp_path, monkeypatch):
    """The other side: the operator back before the restore's wait ends reconciles it, so the list is asked and
    answers whether the offsets changed."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    scenario = prepare(cluster, "alter", "running")
    back_at = cluster.clock.seconds + TIMEOUT + 20  # after the alter's wait, during the restore's
    original_run_until = cluster.run_until

    def run_until(deadline, stop=None):
        if not cluster.operator.running and deadline > back_at > cluster.clock.seconds:
            if original_run_until(back_at, stop):
                return True
        if not cluster.operator.running and cluster.clock.seconds >= back_at:
            cluster.operator_back()
        return original_run_until(deadline, stop)

    cluster.run_until = run_until  # type: ignore[method-assign]
    failure, fired = run_with_fault(cluster, scenario, "annotate", "operator-silent")

    assert fired and isinstance(failure, OperationTimeoutError), failure
    assert "(listed and compared with the backup)" in failure.message or "DID change" in failure.message, \
        failure.message
