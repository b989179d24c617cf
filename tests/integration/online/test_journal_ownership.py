"""The journal belongs to one process at a time (issue 10, defect 4) and records what recover needs (defect 6).

- Every journal write is conditional on the writer's id; the owner renews a heartbeat (a lease covering each wait
  on the operator); ``recover`` refuses a live owner unless ``--force``, and ``list`` says who is at work.
- The race from the issue: B runs ``recover --rollback`` while A waits for the operator. Without ownership, A then
  re-added its journal and reported a stopped connector that was in fact running again.
- recover honours ``--no-resume`` and never takes an old ``<name>-offsets-alter`` ConfigMap for the request.
"""
from __future__ import annotations

import json
import os

import pytest

from kubectl_offsets.core.online import operations
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import ExitStatus, OwnershipLostError
from kubectl_offsets.model import Options, WaitSettings
from kubectl_offsets.progress import SilentProgress

from .conftest import (JOURNAL, OFFSETS_ANNOTATION, annotations, eventually, live_state, source_document,
                       source_position, spec_state)


@pytest.fixture(scope="module")
def idle(lab, cli):
    """An idle FileStreamSource (offsets at position 5) and the backup of a reset taken while it had no offsets:
    undoing that backup is a reset."""
    conn = lab.source("owner", lines=None)
    result = cli("reset", conn.name, "-n", conn.ns, "--yes")
    assert result.exit_code == 0, str(result)
    conn.empty_backup = result.stderr.split("backup: configmap/")[1].split(";")[0]
    result = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=source_document(conn, 5))
    assert result.exit_code == 0, str(result)
    return conn


def _alter(kube, conn, tmp_path, position: int, **kwargs):
    path = tmp_path / f"{position}.json"
    path.write_text(source_document(conn, position))
    options = Options(yes=True, wait=WaitSettings(timeout=60), resume=kwargs.pop("resume", True))
    return operations.alter_offsets(kube, TargetSpec(conn.name), AlterRequest(file=str(path)), namespace=conn.ns,
                                    options=options, **kwargs)


def _settled(lab, conn, state: str = "RUNNING") -> dict:
    obj = eventually(f"{conn.name} {state}", lambda: (lambda o: o if live_state(o) == state else None)(lab.cr(conn)))
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj), annotations(obj)
    return obj


def test_recover_while_the_owner_waits_is_refused_and_a_forced_one_wins(lab, cli, kube, idle, tmp_path):
    conn = idle
    old = source_position(lab, conn)
    seen: dict[str, object] = {}

    class Interleave(SilentProgress):
        def waiting(self, message):
            if "to be STOPPED" in message and "list" not in seen:
                journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
                seen["id"] = journal["id"]
                seen["list"] = cli("list", conn.name, "-n", conn.ns, "-o", "json")
            if message.startswith("waiting for the operator to alter") and "refused" not in seen:
                # B, while A waits for the operator: refused without --force, wins with it.
                seen["refused"] = cli("recover", conn.name, "-n", conn.ns, "--rollback")
                seen["forced"] = cli("recover", conn.name, "-n", conn.ns, "--rollback", "--force")

    with pytest.raises(OwnershipLostError) as lost:
        _alter(kube, conn, tmp_path, old + 20, progress=Interleave())

    # A list waits for the owner at work too: its request would have the owner's next one refused as pending.
    listed = seen["list"]
    assert listed.exit_code == ExitStatus.PRECONDITION, str(listed)
    assert f"in progress by {seen['id']}, last seen" in listed.stderr and "--force" in listed.stderr
    assert f"(pid {os.getpid()} on " in listed.stderr  # the owner: this test process
    refused = seen["refused"]
    assert refused.exit_code == ExitStatus.PRECONDITION, str(refused)
    assert f"in progress by {seen['id']}, last seen" in refused.stderr and "--force" in refused.stderr
    forced = seen["forced"]
    assert forced.exit_code == 0, str(forced)
    assert "restored to running" in forced.stdout
    # A noticed at its next write and left the resource alone: no journal re-added, the connector runs.
    assert seen["id"] in lost.value.message and "stopped without touching the connector again" in lost.value.message
    obj = _settled(lab, conn)
    assert spec_state(obj) is None and "alterOffsets" not in obj["spec"]
    assert source_position(lab, conn) in (old, old + 20)  # B's summary said which; undo restores either way
    assert cli("undo", conn.name, "-n", conn.ns, "--yes", "-q").exit_code == 0
    assert source_position(lab, conn) == old


def test_recover_keeps_a_no_resume_connector_stopped(lab, cli, kube, idle, tmp_path):
    conn = idle
    old = source_position(lab, conn)
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        _alter(kube, conn, tmp_path, old + 30, resume=False)
    assert json.loads(annotations(lab.cr(conn))[JOURNAL])["resume"] is False

    result = cli("recover", conn.name, "-n", conn.ns, "--force")

    assert result.exit_code == 0, str(result)
    assert "finished: offsets verified, connector stopped" in result.stdout
    obj = _settled(lab, conn, "STOPPED")
    assert spec_state(obj) == "stopped" and "alterOffsets" not in obj["spec"]
    assert source_position(lab, conn) == old + 30
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": None}})
    lab.wait_state(conn, "RUNNING")


def test_recover_of_an_undo_to_an_empty_backup_ignores_the_old_alter_configmap(lab, cli, kube, idle):
    """The undo of a backup without offsets is a reset; the <name>-offsets-alter ConfigMap still holds an earlier
    alter's document. recover must verify "no offsets", not that stale document."""
    conn = idle
    assert lab.cluster.configmap(conn.ns, f"{conn.name}-offsets-alter") is not None  # left by the earlier alters
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        operations.undo(kube, TargetSpec(conn.name), backup=conn.empty_backup, namespace=conn.ns,
                        options=Options(yes=True, wait=WaitSettings(timeout=60)))
    assert json.loads(annotations(lab.cr(conn))[JOURNAL])["request"] == "reset"

    result = cli("recover", conn.name, "-n", conn.ns, "--force")

    assert result.exit_code == 0, str(result)
    assert "finished: offsets verified, connector running" in result.stdout
    _settled(lab, conn)
    assert source_position(lab, conn) is None


def test_recover_refuses_an_alter_configmap_changed_since(lab, cli, kube, idle, tmp_path):
    conn = idle
    assert cli("alter", conn.name, "-n", conn.ns, "--yes", "-q", "-f", "-", input=source_document(conn, 5)).exit_code == 0
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        _alter(kube, conn, tmp_path, 40)
    lab.cluster.put_configmap(conn.ns, f"{conn.name}-offsets-alter", {"offsets.json": source_document(conn, 41)})

    result = cli("recover", conn.name, "-n", conn.ns, "--force")

    assert result.exit_code == ExitStatus.VERIFY, str(result)
    assert "no longer holds the offsets this alter asked for" in result.stderr
    assert "next: kubectl offsets recover" in result.stderr
    obj = lab.cr(conn)
    assert JOURNAL in annotations(obj) and spec_state(obj) == "stopped"
    # Its owner (that recover) released the lease when it gave up: no --force needed now.
    result = cli("recover", conn.name, "-n", conn.ns, "--rollback")
    assert result.exit_code == 0, str(result)
    _settled(lab, conn)


def test_recover_right_after_the_owner_was_killed_on_this_host_needs_no_force(lab, cli, env, tmp_path):
    """A real `kubectl-offsets alter` process, SIGKILLed while it waits for the operator: its lease (the whole
    --timeout plus a margin) still runs, but the journal names its host and pid, and that pid is gone."""
    import datetime as dt
    import signal
    import subprocess
    import sys

    from kubectl_offsets.times import parse_instant

    conn = lab.source("killed", lines=None)  # its own: the module's other connector has an unlabelled alter ConfigMap
    assert cli("alter", conn.name, "-n", conn.ns, "--yes", "-q", "-f", "-", input=source_document(conn, 5)).exit_code == 0
    _settled(lab, conn)
    old = source_position(lab, conn)
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_offsets", "alter", conn.name, "-n", conn.ns, "--yes", "-f", "-",
         "--timeout", "120s", "--kubeconfig", env.kubeconfig], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    process.stdin.write(source_document(conn, old + 11))
    process.stdin.close()
    seen = []
    for line in process.stderr:
        seen.append(line)
        if "waiting for the operator to alter" in line:
            process.send_signal(signal.SIGKILL)
            break
    assert process.wait(60) == -signal.SIGKILL, "".join(seen)
    journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
    assert journal["owner"]["pid"] == process.pid and journal["step"] == "annotate"
    left = journal["lease"] - (dt.datetime.now(dt.timezone.utc) - parse_instant(journal["heartbeat"])).total_seconds()
    assert left > 60, "the killed process's lease still runs"
    refused = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=source_document(conn, 1))
    assert refused.exit_code == ExitStatus.PRECONDITION, str(refused)
    assert f"pid {process.pid} on {journal['owner']['host']}) no longer runs" in refused.stderr, str(refused)
    assert f"next: kubectl offsets recover kafkaconnector/{conn.name} -n {conn.ns}\n" in refused.stderr

    result = cli("recover", conn.name, "-n", conn.ns)

    assert result.exit_code == 0, str(result)
    assert "finished: offsets verified, connector running" in result.stdout
    _settled(lab, conn)
    assert source_position(lab, conn) == old + 11
