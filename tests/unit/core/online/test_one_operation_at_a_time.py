"""A request never lands inside another kubectl-offsets operation (in-memory cluster, virtual time).

Preflight refuses a resource that carries a journal, but another operation can claim the resource between our
preflight and our first request: two alters started at once both passed preflight, the loser's list for its preview
landed after the winner's claim, the winner's backup list was then refused as "another request is pending", and the
winner's make-safe removed the listOffsets stanza the loser's list needed (a fresh-clone run of 2026-12-04: both
failed). The request itself checks, on the object its guarded patch is based on.
"""

from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.conventions import ANNOTATION_JOURNAL
from kubectl_offsets.core.online import operations
from kubectl_offsets.core.online.engine import HEARTBEAT_LEASE, SimulatedCrash, hooks
from kubectl_offsets.core.online.operator import OperatorClient
from kubectl_offsets.errors import PreconditionError
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.model import Options, WaitSettings
from kubectl_offsets.progress import SilentProgress
from tests.inmemory import Cluster


@pytest.fixture
def claimed(tmp_path, monkeypatch) -> Cluster:
    """A sink on which an alter has claimed the resource (journal written, spec.state stopped) and is at work."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    cluster.add_sink("sink", offsets={("orders", 0): 10})
    with pytest.raises(SimulatedCrash), hooks.crash_after("stop"):
        operations.alter_offsets(cluster.kube, TargetSpec("sink"), AlterRequest(sets=("orders:0=3",)),
                                 namespace=cluster.namespace, options=Options(yes=True))
    assert ANNOTATION_JOURNAL in cluster.resource("sink")["metadata"]["annotations"]
    return cluster


def a_colleague(cluster: Cluster) -> OperatorClient:
    """Another kubectl-offsets, past its preflight (it read the resource before the claim)."""
    target = strimzi.connector_target(cluster.resource("sink"))
    return OperatorClient(cluster.kube, target, WaitSettings(timeout=60), SilentProgress())


def test_a_list_placed_after_another_operation_claimed_the_resource_is_refused_and_writes_nothing(claimed):
    before, writes = claimed.resource("sink"), len(claimed.writes)
    with pytest.raises(PreconditionError) as refused:
        a_colleague(claimed).list_offsets()
    assert "another kubectl-offsets operation is in progress on kafkaconnector/sink" in refused.value.message
    assert refused.value.next_command and "recover" in refused.value.next_command
    assert len(claimed.writes) == writes and claimed.resource("sink") == before


def test_a_list_beside_an_interrupted_operation_whose_owner_stopped_working_is_answered(claimed):
    claimed.run_until(claimed.clock.seconds + HEARTBEAT_LEASE + 5)  # the owner's lease has run out
    listed = a_colleague(claimed).list_offsets()
    assert {e.offset["kafka_offset"] for e in listed} == {10}


def test_kubectl_offsets_list_beside_an_operation_at_work_is_refused_before_anything_is_written(claimed):
    writes = len(claimed.writes)
    with pytest.raises(PreconditionError, match="another kubectl-offsets operation is in progress"):
        operations.list_offsets(claimed.kube, TargetSpec("sink"), namespace=claimed.namespace)
    assert len(claimed.writes) == writes


def test_a_delete_confirmed_while_another_operation_claimed_the_resource_is_refused(tmp_path, monkeypatch):
    """The path beside the requests: a plain delete waits at its prompt; an alter claims the resource meanwhile.
    The delete must not take the resource (and the alter's journal) away under it."""
    from kubectl_offsets.core.online.lifecycle import delete_connector

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    cluster.add_sink("sink", offsets={("orders", 0): 10})

    def confirm(preview) -> bool:
        with pytest.raises(SimulatedCrash), hooks.crash_after("stop"):  # a colleague's alter, at work
            operations.alter_offsets(cluster.kube, TargetSpec("sink"), AlterRequest(sets=("orders:0=3",)),
                                     namespace=cluster.namespace, options=Options(yes=True))
        return True

    with pytest.raises(PreconditionError) as refused:
        delete_connector(cluster.kube, TargetSpec("sink"), namespace=cluster.namespace, confirm=confirm)
    assert "another kubectl-offsets operation is in progress on kafkaconnector/sink" in refused.value.message
    assert cluster.resource("sink") is not None
    assert ANNOTATION_JOURNAL in cluster.resource("sink")["metadata"]["annotations"]
