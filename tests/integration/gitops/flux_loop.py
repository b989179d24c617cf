"""Flux in the loop for the GitOps tests: a repository on the environment's git server, a GitRepository and a
Kustomization in the test's namespace that apply it, forced reconciles, and who owns which field.

Flux is the environment's own when it was started with ``up --gitops flux`` (``env.gitops``); otherwise this pytest
process starts a Flux of its own (tests/env/flux.py) that watches only objects labelled with its shard, so the
workers of one run never reconcile each other's objects."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.env import flux, git_server
from tests.env.kuberest import KubeRest
from tests.env.processes import Proc, stop


@dataclass
class FluxRun:
    admin: KubeRest
    server: git_server.GitServer
    version: str
    shard: str | None
    started: list[Proc] = field(default_factory=list)  # what this process started (and stops)

    def close(self) -> None:
        for proc in reversed(self.started):
            stop(proc)


def flux_run(env, run_dir: Path) -> FluxRun:
    """The environment's Flux, or one for this process in ``run_dir``."""
    admin = env.admin_rest()
    if env.gitops:
        url = env.gitops["git_url"].rsplit("/", 1)[0]
        server = git_server.GitServer(env.processes["git-server"], url, Path(env.run_dir) / "data" / "git")
        return FluxRun(admin, server, env.gitops["version"], None)
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    flux.install_crds(admin, env.processes["kube-apiserver"])
    server = git_server.start(run_dir)
    shard = f"pytest-{os.getpid()}"
    try:
        controllers = flux.start_controllers(run_dir, env.kubeconfig, shard=shard)
    except BaseException:
        stop(server.proc)
        raise
    started = [server.proc, controllers.source, controllers.kustomize]
    # They run in sessions of their own: if this pytest process is killed before its teardown (a suite stopped,
    # CI's time-out), only a reaper stops them.
    started.append(reap_when_gone(run_dir, started))
    return FluxRun(admin, server, controllers.version, shard, started)


def reap_when_gone(run_dir: Path, procs: list[Proc]) -> Proc:
    """A reaper (tests/env/reaper.py) that stops ``procs`` if this process dies without stopping them."""
    import json

    from tests.env.environment import start_reaper

    listed = run_dir / "reaped.json"
    listed.write_text(json.dumps([proc.to_json() for proc in procs]))
    return start_reaper(["--procs-json", str(listed)], run_dir / "logs" / "reaper.log")


@dataclass
class FluxRepo:
    """A repository Flux applies to ``namespace`` (its ``./deploy``), and the clone a test commits in."""
    run: FluxRun
    namespace: str
    dir: Path
    url: str
    source: dict
    kustomization: dict
    timings: list[tuple[str, dict[str, float]]] = field(default_factory=list)

    @property
    def deploy(self) -> Path:
        return self.dir / "deploy"

    def git(self, *args: str) -> str:
        return flux.git(self.dir, *args)

    def push(self, message: str) -> str:
        """Commit everything and push it to the branch Flux watches; returns the commit."""
        self.git("add", "--all")
        self.git("commit", "--quiet", "-m", message)
        self.git("push", "--quiet", "origin", f"HEAD:{flux.BRANCH}")
        return self.git("rev-parse", "HEAD")

    def merge(self, branch: str) -> str:
        """Merge a pushed branch into the watched one, as a reviewer merging a pull request does."""
        self.git("fetch", "--quiet", "origin")
        self.git("merge", "--quiet", "--no-ff", "-m", f"Merge {branch}", f"origin/{branch}")
        self.git("push", "--quiet", "origin", f"HEAD:{flux.BRANCH}")
        return self.git("rev-parse", "HEAD")

    def sync(self, what: str) -> dict[str, float]:
        """`flux reconcile kustomization --with-source` at the watched branch's head, waited for; the seconds each
        object took are kept under ``what``."""
        self.git("fetch", "--quiet", "origin")
        revision = self.git("rev-parse", f"origin/{flux.BRANCH}")
        took = flux.reconcile(self.run.admin, self.source, self.kustomization, revision)
        self.timings.append((what, took))
        return took

    def close(self) -> None:
        """Delete the Kustomization first: with prune, Flux removes what it applied, and it stops re-creating the
        resources the namespace's teardown deletes."""
        for obj in (self.kustomization, self.source):
            self.run.admin.request("DELETE", flux.object_path(obj))


def flux_repo(run: FluxRun, namespace: str, clone_to: Path, name: str | None = None) -> FluxRepo:
    name = name or namespace
    url = flux.new_repository(run.server, name, clone_to)
    source = flux.git_repository(name, namespace, url, shard=run.shard)
    kustomization = flux.kustomization(name, namespace, name, target_namespace=namespace, shard=run.shard)
    flux.apply(run.admin, source)
    flux.apply(run.admin, kustomization)
    return FluxRepo(run, namespace, clone_to, url, source, kustomization)


# ---- who owns what ---------------------------------------------------------------------------------------------

def owners(resource: dict[str, Any]) -> dict[str, set[str]]:
    """``{"<manager> (<operation>[ /<subresource>])": {field paths}}`` from ``metadata.managedFields``: annotations and
    labels by key, ``spec`` by its first two levels; the rest of metadata and status by their first level."""
    result: dict[str, set[str]] = {}
    for entry in resource["metadata"].get("managedFields") or []:
        who = f"{entry.get('manager')} ({entry.get('operation')}" + (
            f" /{entry['subresource']})" if entry.get("subresource") else ")")
        result.setdefault(who, set()).update(_paths(entry.get("fieldsV1") or {}))
    return result


def _paths(fields: dict, prefix: str = "", depth: int = 0) -> list[str]:
    out = []
    for key, sub in fields.items():
        if not key.startswith("f:"):
            continue
        path = f"{prefix}.{key[2:]}" if prefix else key[2:]
        deep = path in ("metadata", "spec", "metadata.annotations", "metadata.labels") \
            or (path.startswith("spec.") and depth < 2)
        out += (_paths(sub, path, depth + 1) if deep and sub else []) or [path]  # a list (k:/v: keys) stays whole
    return out


def owner_of(resource: dict[str, Any], path: str) -> list[str]:
    return sorted(who for who, paths in owners(resource).items() if path in paths)


def describe_owners(resource: dict[str, Any]) -> str:
    return "\n".join(f"  {who}: {', '.join(sorted(paths))}" for who, paths in sorted(owners(resource).items()))


def kubectl(env, namespace: str, *args: str) -> str:
    result = subprocess.run(["/usr/bin/kubectl", "--kubeconfig", env.kubeconfig, "-n", namespace, *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout
