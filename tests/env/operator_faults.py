"""Real faults of Strimzi's real cluster operator and of the Connect pods it runs (issue 24), for an environment
started with ``--operator strimzi``; usable from any process that loaded its env.json (the operator's pid is in the
environment's process records, and a restart is saved back there, so ``check_alive`` and ``down`` follow it).

- hung: ``pause_operator`` sends the operator's JVM SIGSTOP (a node freeze, a stop-the-world pause); nothing it has
  open is closed, watch events queue up; ``resume_operator`` sends SIGCONT.
- crash: ``kill_operator`` sends SIGKILL; ``restart_operator`` starts it again exactly as the environment did (the
  same command line, a clean environment with the same variables, the same hosts file and health port behind the
  bind shim, Strimzi's own 120 s periodic pass) and waits until it has opened its watches, as a Deployment restarts
  its pod.
- pod gone: ``delete_connect_pod`` deletes a KafkaConnect's (or KafkaMirrorMaker2's) pod, as ``kubectl delete pod``,
  a node drain or an eviction does: the kubelet stand-in stops that worker (SIGTERM, as a kubelet ends a container)
  and the operator's StrimziPodSet controller creates the pod again, for which the kubelet stand-in starts a new
  worker on a new address.

Pausing or killing the operator of a shared environment disturbs every test running against it: tests that do it
run against an environment of their own (the ``private_strimzi_env`` fixture of tests/integration/online/conftest.py).
"""
from __future__ import annotations

import os
import signal
import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING

from . import strimzi_operator
from .processes import Proc, alive, spawn, wait_until

if TYPE_CHECKING:
    from .environment import Env

OPERATOR = "strimzi-operator"
POD_READY_TIMEOUT = 120.0


def _operator(env: "Env") -> Proc:
    if env.operator != "strimzi":
        raise RuntimeError(f"{env.run_dir} runs the operator emulator: operator faults need --operator strimzi "
                           "(the emulator's are its faults file)")
    recorded = env.current_processes().get(OPERATOR)  # another process may have restarted it since we loaded
    if recorded is None:
        raise RuntimeError(f"{env.run_dir} records no {OPERATOR} process")
    env.processes[OPERATOR] = recorded
    return recorded


def _signal(proc: Proc, sig: signal.Signals) -> None:
    if not alive(proc):
        raise RuntimeError(f"{proc.name} (pid {proc.pid}) is not running")
    os.kill(proc.pid, sig)


def pause_operator(env: "Env") -> None:
    """SIGSTOP: the operator hangs (its sockets stay open, it answers nothing, reconciles nothing)."""
    _signal(_operator(env), signal.SIGSTOP)


def resume_operator(env: "Env") -> None:
    _signal(_operator(env), signal.SIGCONT)


def operator_paused(env: "Env") -> bool:
    fields = Path(f"/proc/{_operator(env).pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0] == "T"


def kill_operator(env: "Env") -> None:
    """SIGKILL, then wait until the process is gone (its health port is free again for the restart)."""
    proc = _operator(env)
    _signal(proc, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while alive(proc) and time.monotonic() < deadline:
        time.sleep(0.05)


def restart_operator(env: "Env") -> Proc:
    """Start the operator again as the environment started it (tests/env/strimzi_operator.start), record the new
    process in env.json, and wait until its watches are open. Refuses while the old one still runs."""
    old = _operator(env)
    if alive(old):
        raise RuntimeError(f"{OPERATOR} (pid {old.pid}) still runs: kill_operator first")
    info = env.operator_info
    release = strimzi_operator.release(info["version"])
    run_dir = Path(env.run_dir)
    health_port = int(info["health_url"].rsplit(":", 1)[1])
    kubeconfig = run_dir / "strimzi-operator.kubeconfig"
    log = Path(old.log)
    started_at = log.stat().st_size if log.exists() else 0
    proc = spawn(OPERATOR, old.argv or strimzi_operator.command(release, run_dir, Path(info["hosts"])), log,
                 cwd=run_dir, env=strimzi_operator.environment(release, kubeconfig, health_port,
                                                               info.get("namespace", "*")))
    env.processes[OPERATOR] = proc
    env.save()
    url = info["health_url"]
    wait_until(proc, f"answering GET {url}/ready with 204", lambda: strimzi_operator._status(f"{url}/ready") == 204,
               strimzi_operator.READY_TIMEOUT, interval=0.5)
    wait_until(proc, f"logging '{strimzi_operator.STARTED}'", lambda: strimzi_operator.STARTED in _since(log, started_at),
               strimzi_operator.READY_TIMEOUT, interval=0.5)
    return proc


def _since(log: Path, offset: int) -> str:
    with open(log, "rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace")


# ---- pods ---------------------------------------------------------------------------------------------------------

def connect_pods(env: "Env", namespace: str, cluster: str, kind: str = "KafkaConnect") -> list[dict]:
    selector = urllib.parse.quote(f"strimzi.io/kind={kind},strimzi.io/cluster={cluster}")
    status, body = env.admin_rest().get(f"/api/v1/namespaces/{namespace}/pods?labelSelector={selector}")
    if status != 200:
        raise RuntimeError(f"listing the pods of {kind} {namespace}/{cluster}: HTTP {status}: {str(body)[:200]}")
    return body.get("items") or []


def delete_connect_pod(env: "Env", namespace: str, cluster: str, kind: str = "KafkaConnect") -> list[str]:
    """Delete every pod of the Connect cluster (one per replica); returns their uids (gone ones)."""
    rest = env.admin_rest()
    gone = []
    for pod in connect_pods(env, namespace, cluster, kind):
        name = pod["metadata"]["name"]
        status, body = rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}")
        if status not in (200, 202, 404):
            raise RuntimeError(f"deleting pod {namespace}/{name}: HTTP {status}: {str(body)[:200]}")
        gone.append(pod["metadata"]["uid"])
    return gone


def wait_connect_pods_ready(env: "Env", namespace: str, cluster: str, kind: str = "KafkaConnect",
                            not_uids: tuple[str, ...] = (), timeout: float = POD_READY_TIMEOUT) -> None:
    """Until the cluster has pods again (none of ``not_uids``), every one Ready."""
    deadline = time.monotonic() + timeout
    while True:
        pods = connect_pods(env, namespace, cluster, kind)
        if pods and all(p["metadata"]["uid"] not in not_uids and pod_ready(p) for p in pods):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the pods of {kind} {namespace}/{cluster} not back and Ready after {timeout:.0f}s: "
                                 f"{[(p['metadata']['name'], pod_ready(p)) for p in pods]}")
        time.sleep(0.5)


def pod_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])
