"""Ctrl-C on a real ``kubectl-offsets`` process working on a fleet (issue 22): a real SIGINT to
``python -m kubectl_offsets``, and the cluster read afterwards with the kubernetes client and Connect's REST API,
never with the plugin.

- during planning: nothing changes (no connector stopped, no journal, no backup, every offset as it was), exit 130;
- during the run: the connector under way finishes its flow, none starts after it, the summary names what was done
  and what was not started (with the undo command of the one done), exit 130.

The sinks read static topics (no live partition): these tests compare every offset of every connector before and
after, which live traffic would move.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.integration.fleet.conftest import _label, _namespace_with_connect
from tests.integration.online.conftest import JOURNAL, Cluster, eventually, live_state
from tests.signals import interruptible

ROOT = Path(__file__).resolve().parents[3]
SINKS = 5


@pytest.fixture
def sinks(env, kafka_admin, kube_api, connect, tmp_path):
    cluster = Cluster(kube_api)
    lab = _namespace_with_connect(env, cluster, kafka_admin, "fleet-int", tmp_path)
    tag = uuid.uuid4().hex[:6]
    made = []
    for i in range(SINKS):
        conn = lab.sink("sink", records=2 + i, live=False)
        _label(cluster, conn, {"kubectl-offsets-fleet": tag})
        made.append(conn)
    for records, conn in enumerate(made, start=2):  # committed (offset.flush.interval.ms), not only written
        eventually(f"{conn.name} committed {records} in Connect", lambda c=conn, n=records: any(
            o["offset"].get("kafka_offset") == n for o in _connect_offsets(connect, c.name)))
    yield lab, made, f"kubectl-offsets-fleet={tag}"
    lab.producer.flush(10)
    lab.producer = None
    cluster.custom.delete_collection_namespaced_custom_object("kafka.strimzi.io", "v1", lab.ns, "kafkaconnectors")
    cluster.core.delete_namespace(lab.ns)


class Plugin:
    """``python -m kubectl_offsets ARGS`` as a process of its own; its stderr is read line by line as it comes."""

    def __init__(self, env, tmp_path, *args: str):
        environment = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_STATE_HOME": str(tmp_path / "state")}
        self.process = subprocess.Popen([sys.executable, "-m", "kubectl_offsets", *args, "--kubeconfig",
                                         env.kubeconfig], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=environment, cwd=ROOT, **interruptible())
        self.lines: list[str] = []
        self.stdout = ""
        self._seen = threading.Condition()
        self._readers = [threading.Thread(target=self._read_stderr, daemon=True),
                         threading.Thread(target=self._read_stdout, daemon=True)]
        for reader in self._readers:
            reader.start()

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            with self._seen:
                self.lines.append(line.rstrip("\n"))
                self._seen.notify_all()

    def _read_stdout(self) -> None:
        self.stdout = self.process.stdout.read()

    def wait_for_line(self, pattern: str, timeout: float = 120.0) -> str:
        """The first stderr line matching ``pattern``, as soon as it is printed."""
        regex = re.compile(pattern)

        def matching() -> str | None:
            return next((line for line in self.lines if regex.search(line)), None)

        with self._seen:
            self._seen.wait_for(lambda: matching() or self.process.poll() is not None, timeout)
            line = matching()
        assert line, f"no line matching {pattern!r} within {timeout}s (exit {self.process.poll()}):\n{self.stderr}"
        return line

    def interrupt(self) -> None:
        self.process.send_signal(signal.SIGINT)

    def finish(self, timeout: float = 180.0) -> int:
        code = self.process.wait(timeout)
        for reader in self._readers:
            reader.join(10)
        return code

    @property
    def stderr(self) -> str:
        return "\n".join(self.lines)


def _connect_offsets(connect, name: str) -> list[dict]:
    status, body = connect.get(f"/connectors/{quote(name, safe='')}/offsets")
    assert status == 200, (status, body)
    return body.get("offsets") or []


def _state_of(cluster: Cluster, connect, conns) -> dict[str, dict]:
    """Each connector as the cluster has it: its spec, journal, Connect state, and its offsets from Connect's REST
    API (``GET /connectors/NAME/offsets``)."""
    found = {}
    for conn in conns:
        obj = cluster.get(conn.ns, conn.name)
        found[conn.name] = {
            "state": (obj.get("spec") or {}).get("state"), "connect": live_state(obj),
            "journal": (obj["metadata"].get("annotations") or {}).get(JOURNAL),
            "offsets": sorted(json.dumps(o, sort_keys=True) for o in _connect_offsets(connect, conn.name)),
        }
    return found


def _backups(cluster: Cluster, ns: str) -> set[str]:
    return {cm.metadata.name for cm in cluster.core.list_namespaced_config_map(
        ns, label_selector="kubectl-offsets.io/role=backup").items}


def test_ctrl_c_while_the_plan_is_built_changes_nothing_and_exits_130(env, kube_api, connect, sinks, tmp_path):
    lab, conns, selector = sinks
    cluster = Cluster(kube_api)
    before = _state_of(cluster, connect, conns)
    assert all(s["connect"] == "RUNNING" and s["offsets"] for s in before.values()), before
    # One connector planned at a time (each plan lists through the operator): Ctrl-C lands while the first is listed.
    plugin = Plugin(env, tmp_path, "reset", "-l", selector, "-n", lab.ns, "--yes", "--parallel", "1")
    plugin.wait_for_line(r"listing the current offsets")
    plugin.interrupt()
    code = plugin.finish()

    assert code == 130, plugin.stderr
    assert "interrupted while planning" in plugin.stderr and "nothing was changed" in plugin.stderr
    assert not re.search(r"stopping connector", plugin.stderr), plugin.stderr  # no flow started
    assert plugin.stdout == ""  # no summary: nothing ran
    assert _state_of(cluster, connect, conns) == before
    assert _backups(cluster, lab.ns) == set()


def test_ctrl_c_while_the_fleet_runs_finishes_the_connector_under_way_and_starts_no_other(
        env, kube_api, connect, sinks, tmp_path):
    lab, conns, selector = sinks
    cluster = Cluster(kube_api)
    before = _state_of(cluster, connect, conns)
    plugin = Plugin(env, tmp_path, "reset", "-l", selector, "-n", lab.ns, "--yes", "--parallel", "1",
                    "--no-resume")
    first = plugin.wait_for_line(r"stopping connector '")
    for _ in range(3):  # a second and a third Ctrl-C (apart, or Python would take them for one) change nothing
        plugin.interrupt()
        time.sleep(0.5)
    code = plugin.finish()

    assert code == 130, plugin.stderr
    running = re.search(r"\[[^/]+/kafkaconnector/([^\]]+)\]", first).group(1)
    after = _state_of(cluster, connect, conns)
    for conn in conns:
        if conn.name == running:  # finished its whole flow: reset, left stopped (--no-resume), no journal
            assert after[conn.name]["offsets"] == [] and after[conn.name]["state"] == "stopped", after[conn.name]
            assert after[conn.name]["journal"] is None
        else:  # never started: exactly as before
            assert after[conn.name] == before[conn.name], conn.name
    assert len(_backups(cluster, lab.ns)) == 1
    summary = {line.split()[1]: line for line in plugin.stdout.splitlines()[1:]}
    assert "done" in summary.get(f"kafkaconnector/{running}", ""), f"{plugin.stdout}\n---\n{plugin.stderr}"
    assert f"kubectl offsets undo kafkaconnector/{running} -n {lab.ns} --backup" in summary[
        f"kafkaconnector/{running}"]
    assert sum("not started" in line for line in summary.values()) == SINKS - 1, plugin.stdout
    assert "1 done" in plugin.stderr and f"{SINKS - 1} not started" in plugin.stderr
    assert "interrupted: connectors not started are unchanged" in plugin.stderr
