"""An alter killed after EVERY step (``engine.hooks.crash_after``: the process dies, no clean-up at all) is finished or rolled
back by ``recover --force`` (the dead process's lease has not run out yet), and ``undo`` then puts the old offsets
back. Before recover, other operations refuse and name the recover command.

The connector is a FileStreamSource whose file does not exist: its task idles, so its offsets only move when we
move them, and "the requested offsets" / "the old offsets" can be checked exactly after it runs again.
"""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.core.online import operations
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online.journal import POINT_OF_NO_RETURN, STEPS
from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import ExitStatus
from kubectl_offsets.model import Options, WaitSettings

from .conftest import (JOURNAL, OFFSETS_ANNOTATION, annotations, eventually, live_state, source_document,
                       source_position, spec_state)


@pytest.fixture(scope="module")
def idle(lab, cli):
    conn = lab.source("crash", lines=None)
    result = cli("alter", conn.name, "-n", conn.ns, "--yes", "-q", "-f", "-", input=source_document(conn, 5))
    assert result.exit_code == 0, str(result)
    return conn


def _set_state(lab, conn, state: str | None) -> None:
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": state}})
    lab.wait_state(conn, (state or "running").upper())


def _crash_alter(kube, conn, tmp_path, position: int, step: str) -> None:
    path = tmp_path / "offsets.json"
    path.write_text(source_document(conn, position))
    with pytest.raises(SimulatedCrash), hooks.crash_after(step):
        operations.alter_offsets(kube, TargetSpec(conn.name), AlterRequest(file=str(path)), namespace=conn.ns,
                                 options=Options(yes=True, wait=WaitSettings(timeout=60)))


def _assert_settled(lab, conn, state: str | None) -> None:
    obj = eventually(f"{conn.name} back to {state or 'running'}", lambda: (lambda o: o if live_state(o) == (
        state or "running").upper() else None)(lab.cr(conn)))
    assert spec_state(obj) == state
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert "alterOffsets" not in obj["spec"]


@pytest.mark.parametrize("step", STEPS)
def test_recover_then_undo_after_a_crash_at_every_step(lab, cli, kube, idle, tmp_path, step):
    conn = idle
    previous = "paused" if STEPS.index(step) % 2 else None  # half the steps start paused, half running
    _set_state(lab, conn, previous)
    old = source_position(lab, conn)
    new = old + 10 + STEPS.index(step)

    _crash_alter(kube, conn, tmp_path, new, step)

    if step != "cleanup":
        journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
        # No journal write while the operator works: a crash while waiting leaves "annotate" (handed over).
        assert journal["step"] == ("annotate" if step == "await-operator" else step)
        assert journal["previous_state"] == previous
        # Anything else refuses while the journal is there, and says how to go on.
        refused = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=source_document(conn, 1))
        assert refused.exit_code == ExitStatus.PRECONDITION, str(refused)
        assert f"next: kubectl offsets recover kafkaconnector/{conn.name} -n {conn.ns}" in refused.stderr
        assert f"last step '{journal['step']}'" in refused.stderr

    result = cli("recover", conn.name, "-n", conn.ns, "--force")

    if step == "cleanup":  # the journal went with the last patch: nothing left to do
        assert result.exit_code == ExitStatus.NOT_FOUND, str(result)
        assert "no interrupted kubectl-offsets operation" in result.stderr
    else:
        assert result.exit_code == 0, str(result)
        finishing = STEPS.index(step) >= STEPS.index(POINT_OF_NO_RETURN)
        assert ("finished: offsets verified" if finishing else "offsets unchanged") in result.stdout
    _assert_settled(lab, conn, previous)
    expected = new if STEPS.index(step) >= STEPS.index(POINT_OF_NO_RETURN) else old
    assert source_position(lab, conn) == expected
    if step == "stop":
        return  # killed before its backup was taken: undo would restore an older operation's backup

    result = cli("undo", conn.name, "-n", conn.ns, "--yes")

    assert result.exit_code == 0, str(result)
    _assert_settled(lab, conn, previous)
    assert source_position(lab, conn) == old


def test_recover_rollback_after_the_request_was_handed_over(lab, cli, kube, idle, tmp_path):
    """--rollback after 'annotate': the request is withdrawn if still pending, the state restored; the offsets may
    have changed (the summary says which), and undo restores the backup either way."""
    conn = idle
    _set_state(lab, conn, None)
    old = source_position(lab, conn)
    _crash_alter(kube, conn, tmp_path, old + 50, "annotate")

    result = cli("recover", conn.name, "-n", conn.ns, "--rollback", "--force")

    assert result.exit_code == 0, str(result)
    assert "restored to running" in result.stdout
    _assert_settled(lab, conn, None)
    changed = source_position(lab, conn)
    if changed == old:
        assert "offsets unchanged (listed and compared with the backup)" in result.stdout
    else:
        assert changed == old + 50
        assert (f"the offsets DID change before the failure; to put them back: kubectl offsets undo "
                f"kafkaconnector/{conn.name} -n {conn.ns} --backup ") in result.stdout
    result = cli("undo", conn.name, "-n", conn.ns, "--yes")
    assert result.exit_code == 0, str(result)
    assert source_position(lab, conn) == old


def test_two_operations_started_at_once_only_one_goes_on(lab, cli, kube, idle, tmp_path):
    """Both pass preflight and list together; the first journal write is a compare-and-swap, so exactly one
    operation goes on and the other stops, naming the winner's recover command, before changing anything."""
    import threading

    from kubectl_offsets.errors import PreconditionError
    from kubectl_offsets.progress import SilentProgress

    conn = idle
    _set_state(lab, conn, None)
    barrier = threading.Barrier(2, timeout=60)

    class Together(SilentProgress):
        def step(self, message):
            if message.startswith("listing the current offsets"):
                barrier.wait()  # both have passed preflight: neither saw a journal

    outcomes: dict[int, object] = {}

    def alter(position):
        path = tmp_path / f"{position}.json"
        path.write_text(source_document(conn, position))
        try:
            outcomes[position] = operations.alter_offsets(
                kube, TargetSpec(conn.name), AlterRequest(file=str(path)), namespace=conn.ns,
                options=Options(yes=True, wait=WaitSettings(timeout=60)), progress=Together())
        except Exception as error:  # noqa: BLE001 - collected for the assertions
            outcomes[position] = error

    threads = [threading.Thread(target=alter, args=(p,)) for p in (31, 32)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    errors = {p: o for p, o in outcomes.items() if isinstance(o, Exception)}
    # each outcome whole, one per line: a repr of the dict is cut in the middle, which hid that both had failed
    assert len(outcomes) == 2 and len(errors) == 1, "\n".join(f"{p}: {o!r}" for p, o in sorted(outcomes.items()))
    [(loser, error)] = errors.items()
    assert isinstance(error, PreconditionError), repr(error)
    # Refused at its list request (the winner's request was pending: requests never overwrite each other; or the
    # winner had claimed the resource since: a request never lands inside another operation, which a fresh-clone run
    # of 2026-12-04 showed failing both), at its first journal write (the winner's journal was there), or at its
    # claim, if the winner's list of the stopped connector was pending then (requests are refused too).
    assert ("another offsets request is pending" in error.message
            or "another kubectl-offsets operation is in progress" in error.message
            or "already carries an offsets request" in error.message), error.message
    winner = 63 - loser
    _assert_settled(lab, conn, None)
    assert source_position(lab, conn) == winner


def test_recover_dry_run_says_what_it_would_do_and_changes_nothing(lab, cli, kube, idle, tmp_path):
    from .conftest import assert_unchanged, snapshot

    conn = idle
    _set_state(lab, conn, None)
    _crash_alter(kube, conn, tmp_path, source_position(lab, conn) + 7, "annotate")
    # The operator still works on the handed-over request: wait until it is done, so that only recover could change
    # the resource from here on.
    eventually("the operator done with the alter", lambda: OFFSETS_ANNOTATION not in annotations(lab.cr(conn)))
    before = snapshot(lab.cluster, conn)

    for flags, action in ((["--dry-run"], "finish"), (["--rollback", "--dry-run=client"], "roll back")):
        result = cli("recover", conn.name, "-n", conn.ns, "--force", "--yes", *flags)
        assert result.exit_code == 0, str(result)
        assert f"dry run: recover would {action} the alter" in result.stdout
        assert "dry run: nothing was changed" in result.stderr
        assert_unchanged(lab.cluster, conn, before)
    assert cli("recover", conn.name, "-n", conn.ns, "--force").exit_code == 0
