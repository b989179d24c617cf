"""etcd and kube-apiserver, started as controller-runtime's envtest starts them (sigs.k8s.io/controller-runtime
pkg/internal/testing/controlplane/{etcd.go,apiserver.go}), with the flags our tests need.

kube-apiserver runs with TLS, static-token and client-certificate authentication and RBAC authorization, so
tests can exercise real permission denials. No kube-controller-manager runs: namespaces never finish deleting,
ownerReferences never cascade, and no ServiceAccounts are created (hence the ServiceAccount admission plugin is
off).
"""
from __future__ import annotations

import json
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .kuberest import KubeRest
from .pki import Pki
from .ports import HOST, free_ports
from .processes import Proc, spawn, wait_until

ETCD_READY_TIMEOUT = 60.0
APISERVER_READY_TIMEOUT = 120.0  # 5-15 s usually; 2 busy cores can stretch that a lot


@dataclass
class Etcd:
    proc: Proc
    url: str


@dataclass
class ApiServer:
    proc: Proc
    url: str


def start_etcd(run_dir: Path, binary: Path) -> Etcd:
    client_port, peer_port = free_ports(2)
    url, peer = f"http://{HOST}:{client_port}", f"http://{HOST}:{peer_port}"
    argv = [str(binary), "--name=test", f"--data-dir={run_dir / 'data' / 'etcd'}",
            f"--listen-client-urls={url}", f"--advertise-client-urls={url}",
            f"--listen-peer-urls={peer}", f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=test={peer}",
            "--unsafe-no-fsync=true",  # throwaway data: skipping fsync makes every API write much faster
            "--listen-metrics-urls=", "--log-level=warn"]
    proc = spawn("etcd", argv, run_dir / "logs" / "etcd.log")
    wait_until(proc, "healthy (GET /health)", lambda: _etcd_healthy(url), ETCD_READY_TIMEOUT)
    return Etcd(proc, url)


def _etcd_healthy(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/health", timeout=2) as resp:
        return json.loads(resp.read()).get("health") == "true"


def start_apiserver(run_dir: Path, binary: Path, etcd_url: str, pki: Pki) -> ApiServer:
    (port,) = free_ports(1)
    url = f"https://{HOST}:{port}"
    argv = [str(binary),
            f"--etcd-servers={etcd_url}",
            f"--bind-address={HOST}", f"--secure-port={port}",
            # Without an advertise address the server derives one from the default-route interface, which
            # fails in a sandbox; the loopback address would then be rejected by the Endpoints reconciler,
            # so that reconciler is off.
            f"--advertise-address={HOST}", "--endpoint-reconciler-type=none",
            f"--tls-cert-file={pki.server_crt}", f"--tls-private-key-file={pki.server_key}",
            f"--client-ca-file={pki.ca_crt}", f"--token-auth-file={pki.tokens_csv}",
            "--authorization-mode=RBAC",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki.sa_pub}", f"--service-account-signing-key-file={pki.sa_key}",
            # No ServiceAccount controller runs, so this plugin would reject pods for the missing default SA.
            "--disable-admission-plugins=ServiceAccount",
            "--enable-priority-and-fairness=false", "--profiling=false",
            f"--cert-dir={run_dir / 'pki'}",
            "--v=1"]
    proc = spawn("kube-apiserver", argv, run_dir / "logs" / "kube-apiserver.log")
    return ApiServer(proc, url)


def wait_apiserver_ready(api: ApiServer, admin: KubeRest) -> None:
    """/readyz (anonymous access is allowed there), then namespace `default`, which a post-start hook creates."""
    wait_until(api.proc, "ready (GET /readyz)", lambda: admin.get("/readyz")[0] == 200, APISERVER_READY_TIMEOUT)
    wait_until(api.proc, "serving namespace default", lambda: admin.get("/api/v1/namespaces/default")[0] == 200,
               30.0)
