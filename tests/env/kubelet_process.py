"""The kubelet stand-in (tests/env/kubelet.py) as a separate process, like the emulator: it outlives `up`."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from .assets import REPO_ROOT
from .ports import HOST, accepts_connections, free_ports
from .processes import Proc, spawn, wait_until

READY_TIMEOUT = 60.0


@dataclass
class Kubelet:
    proc: Proc
    router_url: str
    log: str


def start(run_dir: Path, kubeconfig: str, kafka_lib: Path, hosts: Path, plain_connect_url: str,
          api_version: str, bootstrap_servers: str) -> Kubelet:
    (port,) = free_ports(1)
    log = run_dir / "logs" / "kubelet.log"
    command = [sys.executable, "-m", "tests.env.kubelet", "--kubeconfig", kubeconfig, "--run-dir", str(run_dir),
               "--kafka-lib", str(kafka_lib), "--hosts", str(hosts), "--api-version", api_version,
               "--plain-connect-url", plain_connect_url, "--bootstrap-servers", bootstrap_servers,
               "--proxy-port", str(port), "--log", str(log)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
               PYTHONUNBUFFERED="1")
    proc = spawn("kubelet", command, run_dir / "logs" / "kubelet.stdout.log", cwd=REPO_ROOT, env=env)
    wait_until(proc, f"serving the Connect router on port {port}", lambda: accepts_connections(port), READY_TIMEOUT,
               extra_logs=[log])
    return Kubelet(proc, f"http://{HOST}:{port}", str(log))
