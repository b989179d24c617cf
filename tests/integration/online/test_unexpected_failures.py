"""Failures outside kubectl-offsets' own error family (issue 10, defect 3): a dropped API connection during every
wait, an unwritable home for the local backup copy, SIGTERM, any other exception. Each is either survived (a watch
reconnects from the last resourceVersion it saw) or makes the connector safe and says so; never a traceback with
the connector left STOPPED and no recover command.

The connector is a FileStreamSource whose file does not exist (its offsets only move when we move them).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kubectl_offsets.core.online import operations
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import ExitStatus
from kubectl_offsets.model import ClusterConfig, Options, WaitSettings
from kubectl_offsets.progress import SilentProgress
from tests.env.tcpproxy import TcpProxy

from .conftest import (JOURNAL, OFFSETS_ANNOTATION, annotations, eventually, live_state, source_document,
                       source_position, spec_state)


@pytest.fixture(scope="module")
def idle(lab, cli):
    conn = lab.source("unexpected", lines=None)
    result = cli("alter", conn.name, "-n", conn.ns, "--yes", "-q", "-f", "-", input=source_document(conn, 5))
    assert result.exit_code == 0, str(result)
    return conn


def _assert_safe(lab, conn, state: str = "RUNNING") -> None:
    obj = eventually(f"{conn.name} {state} again", lambda: (lambda o: o if live_state(o) == state else None)(
        lab.cr(conn)))
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj), annotations(obj)
    assert spec_state(obj) is None and "alterOffsets" not in obj["spec"]


class CutAtEveryWait(SilentProgress):
    """Drops every API connection (and refuses new ones for a moment) as each wait starts."""

    def __init__(self, proxy: TcpProxy, outage: float):
        self.proxy, self.outage, self.waits = proxy, outage, []

    def waiting(self, message: str) -> None:
        self.waits.append(message)
        self.proxy.cut(outage=self.outage)


def test_a_dropped_api_connection_during_every_wait_is_survived(lab, cli, env, idle, tmp_path):
    conn = idle
    old = source_position(lab, conn)
    api = env.api_server.rsplit(":", 1)
    with TcpProxy("127.0.0.1", int(api[1].strip("/"))) as proxy:
        kube = operations.connect(ClusterConfig(kubeconfig=proxy.kubeconfig_for(env.kubeconfig, tmp_path)))
        progress = CutAtEveryWait(proxy, outage=1.5)
        path = tmp_path / "offsets.json"
        path.write_text(source_document(conn, old + 7))

        outcome = operations.alter_offsets(kube, TargetSpec(conn.name), AlterRequest(file=str(path)),
                                           namespace=conn.ns, progress=progress,
                                           options=Options(yes=True, wait=WaitSettings(timeout=90)))

    # list (preview), stopped, list (backup), alter, list (verify), running: every wait lost its connection
    assert len(progress.waits) >= 6 and proxy.cuts >= 6, progress.waits
    assert outcome.final_state == "running"
    _assert_safe(lab, conn)
    assert source_position(lab, conn) == old + 7


def test_an_unwritable_local_backup_folder_rolls_back(lab, cli, idle, tmp_path, monkeypatch):
    conn = idle
    old = source_position(lab, conn)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the state folder should be\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker / "state"))  # mkdir fails (even for root)

    result = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=source_document(conn, old + 1))

    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert result.exception is None, str(result)  # no traceback
    assert "cannot write the local copy of the backup" in result.stderr and "XDG_STATE_HOME" in result.stderr
    assert "restored to running; offsets unchanged" in result.stderr
    _assert_safe(lab, conn)
    assert source_position(lab, conn) == old


def test_an_unexpected_exception_makes_the_connector_safe(lab, cli, idle, monkeypatch):
    """Whatever a library raises midway (here: while writing the alter ConfigMap) goes through make-safe."""
    from kubectl_offsets.core.online import configmaps

    conn = idle
    old = source_position(lab, conn)

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(configmaps, "put_document", broken)
    result = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=source_document(conn, old + 2))

    assert result.exit_code == ExitStatus.ERROR, str(result)
    assert result.exception is None, str(result)
    assert "unexpected failure: RuntimeError: disk on fire" in result.stderr
    assert "restored to running; offsets unchanged" in result.stderr
    _assert_safe(lab, conn)
    assert source_position(lab, conn) == old


def test_sigterm_while_waiting_makes_the_connector_safe(lab, cli, env, idle, tmp_path):
    """kill (SIGTERM) while the alter waits for the operator: the plugin unwinds like Ctrl-C (exit 130)."""
    conn = idle
    old = source_position(lab, conn)
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_offsets", "alter", conn.name, "-n", conn.ns, "--yes", "-f", "-",
         "--kubeconfig", env.kubeconfig], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "XDG_STATE_HOME": str(tmp_path)})
    process.stdin.write(source_document(conn, old + 3))
    process.stdin.close()
    seen = []
    deadline = time.monotonic() + 60
    for line in process.stderr:
        seen.append(line)
        if "waiting for connector" in line and "STOPPED" in line or time.monotonic() > deadline:
            process.send_signal(signal.SIGTERM)
            break
    rest = process.stderr.read()
    code = process.wait(60)
    stderr = "".join(seen) + rest

    assert code == ExitStatus.INTERRUPTED, stderr
    assert "interrupted; making the connector safe" in stderr and "Traceback" not in stderr, stderr
    _assert_safe(lab, conn)
    assert source_position(lab, conn) == old
