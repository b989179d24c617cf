"""Flux in the test environment: its source-controller and kustomize-controller, built from their Go modules by
``tests/provision.sh flux``, run out of cluster against the environment's API server (as both projects'
DEVELOPMENT.md run them with ``make run``), with their own CRDs; a git server over HTTP (tests/env/git_server.py)
that a GitRepository clones from.

source-controller serves the artifacts it builds (a tarball per fetched revision) over HTTP on
``--storage-addr``, and writes ``--storage-adv-addr`` into each artifact's URL, which is where kustomize-controller
downloads it from: both are one loopback port here.

Two ways to run it:
- ``python -m tests.env up --gitops flux`` (``start_gitops``): controllers that watch every namespace, as an
  installed Flux does, plus a repository ``fleet`` with a clone to commit in and a GitRepository and a Kustomization
  in namespace ``gitops`` that apply its ``./deploy`` (env.json: ``gitops``).
- a pytest worker on an environment without it (``start_controllers(..., shard=...)``): controllers that watch only
  objects labelled ``SHARD_LABEL=<shard>`` (Flux's sharding flag ``--watch-label-selector``), so that the workers
  of one test run, each with its own Flux, never reconcile each other's objects.
"""
from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import crds, git_server
from .assets import AssetError, cache_dir
from .kuberest import KubeRest
from .ports import HOST, free_ports
from .processes import Proc, spawn, wait_until

PROVISION = "bash tests/provision.sh flux"
CONTROLLERS = ("source-controller", "kustomize-controller")
HOME_VARIABLES = {"source-controller": "FLUX_SOURCE_CONTROLLER", "kustomize-controller": "FLUX_KUSTOMIZE_CONTROLLER"}
READY_TIMEOUT = 60.0
SOURCE_API = "source.toolkit.fluxcd.io/v1"
KUSTOMIZE_API = "kustomize.toolkit.fluxcd.io/v1"
# `flux reconcile` sets this annotation to a new value; each controller handles it and echoes the value in
# status.lastHandledReconcileAt (fluxcd/pkg/apis/meta ReconcileRequestAnnotation).
RECONCILE_REQUESTED = "reconcile.fluxcd.io/requestedAt"
SHARD_LABEL = "sharding.fluxcd.io/key"  # the label Flux's sharding guide selects on
# `up --gitops flux`: what env.json's gitops object describes.
NAMESPACE = "gitops"
REPOSITORY = "fleet"
BRANCH = "main"
PATH = "./deploy"
# `flux bootstrap`'s intervals: the source polls git every minute, the Kustomization re-applies (and so corrects
# drift) every ten. Tests do not wait for either: they request a reconcile, as `flux reconcile` does.
SOURCE_INTERVAL = "1m0s"
KUSTOMIZATION_INTERVAL = "10m0s"
GIT_IDENTITY = ("-c", "user.name=GitOps test", "-c", "user.email=gitops-test@example.invalid")


@dataclass(frozen=True)
class Build:
    name: str
    home: Path  # the binary, crds/, VERSION

    @property
    def binary(self) -> Path:
        return self.home / self.name

    @property
    def version(self) -> str:
        return (self.home / "VERSION").read_text().strip()


def build(name: str) -> Build:
    """The provisioned controller, or an AssetError naming the command that builds it."""
    from .assets import _env_sh_values

    variable = HOME_VARIABLES[name]
    value = os.environ.get(variable) or _env_sh_values().get(variable)
    home = Path(value) if value else None
    if home is None or not (home / ".complete").exists():
        where = home or cache_dir() / f"flux-{name}-v<version>"
        raise AssetError(f"Flux's {name} is not built ({where} has no .complete); run: {PROVISION}")
    return Build(name, home)


def version() -> str:
    return build("source-controller").version


def install_crds(admin: KubeRest, apiserver: Proc) -> list[str]:
    """Flux's CRDs from the controllers' own modules (config/crd/bases), served before a controller starts."""
    names: list[str] = []
    for name in CONTROLLERS:
        names += crds.apply_crds(admin, apiserver, build(name).home / "crds")
    return names


@dataclass
class Controllers:
    source: Proc
    kustomize: Proc
    version: str
    shard: str | None

    @property
    def processes(self) -> dict[str, Proc]:
        return {"flux-source-controller": self.source, "flux-kustomize-controller": self.kustomize}


def start_controllers(run_dir: Path, kubeconfig: str, shard: str | None = None, prefix: str = "flux") -> Controllers:
    """Both controllers against ``kubeconfig``, every namespace, leader election off; ready when /readyz says so."""
    storage_port, *ports = free_ports(5)
    selector = [f"--watch-label-selector={SHARD_LABEL}={shard}"] if shard else []
    common = ["--watch-all-namespaces=true", "--enable-leader-election=false", "--log-encoding=console",
              "--concurrent=4", *selector]
    storage = run_dir / "data" / f"{prefix}-storage"
    storage.mkdir(parents=True, exist_ok=True)
    source_args = [f"--storage-path={storage}", f"--storage-addr={HOST}:{storage_port}",
                   f"--storage-adv-addr={HOST}:{storage_port}"]
    procs = {}
    for name, (metrics, health), extra in zip(CONTROLLERS, (ports[0:2], ports[2:4]), (source_args, [])):
        argv = [str(build(name).binary), f"--metrics-addr={HOST}:{metrics}", f"--health-addr={HOST}:{health}",
                *common, *extra]
        # RUNTIME_NAMESPACE names where events and leader election would live; neither is used here.
        env = {"PATH": "/usr/bin:/bin", "HOME": str(run_dir), "KUBECONFIG": kubeconfig,
               "RUNTIME_NAMESPACE": "flux-system"}
        procs[name] = spawn(f"{prefix}-{name}", argv, run_dir / "logs" / f"{prefix}-{name}.log", cwd=run_dir,
                            env=env)
        url = f"http://{HOST}:{health}/readyz"
        wait_until(procs[name], f"answering {url}", lambda u=url: _ok(u), READY_TIMEOUT)
    return Controllers(procs["source-controller"], procs["kustomize-controller"], version(), shard)


def _ok(url: str) -> bool:
    with urllib.request.urlopen(url, timeout=2) as response:
        return response.status == 200


# ---- the objects Flux reconciles -------------------------------------------------------------------------------

def git_repository(name: str, namespace: str, url: str, branch: str = BRANCH, shard: str | None = None) -> dict:
    return {"apiVersion": SOURCE_API, "kind": "GitRepository",
            "metadata": {"name": name, "namespace": namespace, "labels": _shard_labels(shard)},
            "spec": {"interval": SOURCE_INTERVAL, "url": url, "ref": {"branch": branch}, "timeout": "60s"}}


def kustomization(name: str, namespace: str, source: str, path: str = PATH, target_namespace: str | None = None,
                  shard: str | None = None) -> dict:
    """Flux's defaults otherwise: server-side apply, no force, no wait (no health checks), and drift correction on
    every reconcile; prune on, as `flux bootstrap` writes it."""
    spec = {"interval": KUSTOMIZATION_INTERVAL, "sourceRef": {"kind": "GitRepository", "name": source},
            "path": path, "prune": True, "timeout": "2m"}
    if target_namespace:
        spec["targetNamespace"] = target_namespace
    return {"apiVersion": KUSTOMIZE_API, "kind": "Kustomization",
            "metadata": {"name": name, "namespace": namespace, "labels": _shard_labels(shard)}, "spec": spec}


def _shard_labels(shard: str | None) -> dict:
    return {SHARD_LABEL: shard} if shard else {}


def object_path(obj: dict) -> str:
    group_version = obj["apiVersion"]
    plural = {"GitRepository": "gitrepositories", "Kustomization": "kustomizations"}[obj["kind"]]
    return f"/apis/{group_version}/namespaces/{obj['metadata']['namespace']}/{plural}/{obj['metadata']['name']}"


def apply(admin: KubeRest, obj: dict) -> None:
    status, body = admin.apply(object_path(obj), obj)
    if status not in (200, 201):
        raise RuntimeError(f"applying {obj['kind']} {obj['metadata']['name']} failed: HTTP {status} {body}")


def ensure_namespace(admin: KubeRest, namespace: str) -> None:
    status, body = admin.apply(f"/api/v1/namespaces/{namespace}",
                               {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    if status not in (200, 201):
        raise RuntimeError(f"creating namespace {namespace} failed: HTTP {status} {body}")


def request_reconcile(admin: KubeRest, obj: dict) -> str:
    """What `flux reconcile` does: a new value of the request annotation, an event the controller handles now."""
    token = f"{time.time():.6f}"
    status, body = admin.request("PATCH", object_path(obj), {"metadata": {"annotations": {RECONCILE_REQUESTED: token}}},
                                 content_type="application/merge-patch+json")
    if status != 200:
        raise RuntimeError(f"requesting a reconcile of {obj['kind']} {obj['metadata']['name']}: HTTP {status} {body}")
    return token


def status_of(admin: KubeRest, obj: dict) -> dict:
    status, body = admin.get(object_path(obj))
    return (body.get("status") or {}) if status == 200 and isinstance(body, dict) else {}


def ready(status: dict) -> dict | None:
    return next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)


def reconcile(admin: KubeRest, source: dict, kustomization_obj: dict, revision: str, timeout: float = 120.0
              ) -> dict[str, float]:
    """`flux reconcile kustomization --with-source`, waited for: the source fetches ``revision`` (a commit id) and the
    Kustomization applies it, Ready. Returns how long each took, in seconds."""
    started = time.monotonic()
    timings = {}
    for obj, field in ((source, "artifact"), (kustomization_obj, "lastAppliedRevision")):
        token = request_reconcile(admin, obj)
        deadline = time.monotonic() + timeout
        while True:
            status = status_of(admin, obj)
            condition = ready(status) or {}
            applied = (status.get("artifact") or {}).get("revision") if field == "artifact" \
                else status.get("lastAppliedRevision")
            if status.get("lastHandledReconcileAt") == token and str(applied or "").endswith(revision) \
                    and condition.get("status") == "True":
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"{obj['kind']} {obj['metadata']['name']} did not reach {revision} in "
                                     f"{timeout:.0f}s: {condition.get('reason')}: {condition.get('message')}")
            time.sleep(0.2)
        timings[obj["kind"]] = round(time.monotonic() - started, 2)
    return timings


# ---- a repository to commit in ---------------------------------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *GIT_IDENTITY, *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def new_repository(server: git_server.GitServer, name: str, clone_to: Path, path: str = PATH,
                   branch: str = BRANCH) -> str:
    """A bare repository on the server whose first commit holds an empty kustomization at ``path``, cloned to
    ``clone_to`` (origin: the server's URL, the one the GitRepository uses). Returns that URL."""
    git_server.create_repository(server.root, name, branch)
    url = server.repository_url(name)
    subprocess.run(["git", "clone", "--quiet", url, str(clone_to)], check=True, capture_output=True)
    git(clone_to, "config", "user.name", "GitOps test")
    git(clone_to, "config", "user.email", "gitops-test@example.invalid")
    deploy = clone_to / path
    deploy.mkdir(parents=True, exist_ok=True)
    (deploy / "kustomization.yaml").write_text("# What Flux applies: add your manifests to resources.\n"
                                               "resources: []\n")
    git(clone_to, "checkout", "--quiet", "-B", branch)
    git(clone_to, "add", "--all")
    git(clone_to, "commit", "--quiet", "-m", "an empty kustomization for Flux")
    git(clone_to, "push", "--quiet", "origin", f"HEAD:{branch}")
    return url


# ---- `up --gitops flux` ------------------------------------------------------------------------------------------

@dataclass
class GitopsSetup:
    processes: dict[str, Proc]
    description: dict  # env.json's gitops object


def start_gitops(run_dir: Path, kubeconfig: str, admin: KubeRest, apiserver: Proc) -> GitopsSetup:
    """The git server, Flux's CRDs and controllers, the repository and the Kustomization that applies it."""
    server = git_server.start(run_dir)
    processes = {"git-server": server.proc}
    try:
        install_crds(admin, apiserver)
        controllers = start_controllers(run_dir, kubeconfig)
        processes.update(controllers.processes)
        repo_dir = run_dir / "gitops" / REPOSITORY
        repo_dir.parent.mkdir(parents=True, exist_ok=True)
        url = new_repository(server, REPOSITORY, repo_dir)
        ensure_namespace(admin, NAMESPACE)
        source = git_repository(REPOSITORY, NAMESPACE, url)
        kustomize = kustomization(REPOSITORY, NAMESPACE, REPOSITORY, target_namespace=NAMESPACE)
        apply(admin, source)
        apply(admin, kustomize)
        reconcile(admin, source, kustomize, git(repo_dir, "rev-parse", "HEAD"))
    except BaseException:
        from .processes import stop

        for proc in processes.values():
            stop(proc)
        raise
    return GitopsSetup(processes, {"controller": "flux", "version": controllers.version, "git_url": url,
                                   "repo_dir": str(repo_dir), "branch": BRANCH, "path": PATH,
                                   "namespace": NAMESPACE})
