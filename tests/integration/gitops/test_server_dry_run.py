"""The edited fixture repositories, built as a GitOps controller builds them, are accepted by the real API server
(server-side apply with dryRun=All: CRD schema validation, defaulting, admission), and --server-dry-run says so
before anything is written."""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml

from tests.unit.core.gitops.helpers import cli, copy_fixture, snapshot
from tests.unit.core.gitops.test_phases import CASES

from .conftest import KUBECTL


def _strimzi_versions(repo) -> set[str]:
    """The kafka.strimzi.io versions the fixture's manifests are written in."""
    return {m for path in repo.rglob("*.y*ml") if path.is_file()
            for m in re.findall(r"apiVersion:\s*kafka\.strimzi\.io/(v\w+)", path.read_text(errors="replace"))}


def _point_overlays_at(repo, namespace):
    """The kustomize fixture pins namespaces dev/prod; the test API server has a fresh one per test."""
    for kustomization in repo.rglob("kustomization.yaml"):
        text = kustomization.read_text()
        kustomization.write_text(text.replace("namespace: dev", f"namespace: {namespace}")
                                 .replace("namespace: prod", f"namespace: {namespace}"))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("trigger", ["command", "job", "argocd"])
def test_phase1_passes_server_dry_run_and_writes_nothing_in_diff_mode(case, trigger, env, namespace, tmp_path):
    fixture, args = CASES[case]
    repo = copy_fixture(fixture, tmp_path)
    _point_overlays_at(repo, namespace)
    before = snapshot(repo)
    args = [namespace if a == "prod" else a for a in args]
    extra = [] if "-n" in args else ["-n", namespace]
    result = cli("gitops", *args, "--repo", str(repo), *extra, "--trigger", trigger, "--server-dry-run",
                 "--kubeconfig", env.kubeconfig, "-o", "diff")
    refused = re.search(r"does not serve \w+ in kafka\.strimzi\.io/(v\w+)", result.stderr)
    if refused:
        # The edited manifest is in a version this Strimzi era does not serve (v1beta2 on 1.x): said plainly, and
        # only for a version the fixture really uses and the era really lacks.
        assert result.exit_code != 0, result.stderr
        assert refused.group(1) in _strimzi_versions(repo) - set(env.profile.served), result.stderr
    else:
        assert result.exit_code == 0, result.stderr
        assert "server-side dry run accepted" in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize("overlay", ["dev", "prod"])
def test_built_overlays_are_accepted_by_the_api_server(overlay, env, namespace, tmp_path):
    """The proof the issue asks for, without our code in the loop: kubectl kustomize | kubectl apply --dry-run=server."""
    repo = copy_fixture("kustomize", tmp_path)
    _point_overlays_at(repo, namespace)
    target = "dev-orders-sink" if overlay == "dev" else "orders-sink"
    assert cli("gitops", "alter", target, "--repo", str(repo), "--set", "orders:0=42", "--trigger", "job",
               "-n", namespace).exit_code == 0
    built = subprocess.run([KUBECTL, "kustomize", str(repo / "overlays" / overlay)], capture_output=True, text=True,
                           check=True).stdout
    kinds = sorted(d["kind"] for d in yaml.safe_load_all(built))
    assert kinds == ["ConfigMap", "Job", "KafkaConnector", "Role", "RoleBinding", "ServiceAccount"]
    applied = subprocess.run([KUBECTL, "--kubeconfig", env.kubeconfig, "apply", "--server-side", "--dry-run=server",
                              "-f", "-"], input=built, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.count("(server dry run)") == 6


def test_server_rejection_is_reported_and_nothing_written(env, namespace, tmp_path):
    """A label value the API server refuses (our schemas do not check metadata): --server-dry-run fails, and no
    file is written."""
    repo = copy_fixture("plain", tmp_path)
    source = repo / "connect" / "source.yml"
    source.write_text(source.read_text().replace("strimzi.io/cluster: connect", "strimzi.io/cluster: not valid!"))
    before = snapshot(repo)
    result = cli("gitops", "reset", "files-source", "--repo", str(repo), "-n", namespace, "--server-dry-run",
                 "--kubeconfig", env.kubeconfig)
    assert result.exit_code != 0
    assert "error: " in result.stderr and "not valid" in result.stderr
    assert snapshot(repo) == before


def test_commit_mode_validates_in_the_worktree_before_committing(env, namespace, tmp_path):
    """With --commit the change is built in a temporary worktree; --server-dry-run checks it there, and a
    rejection leaves no branch behind."""
    import shutil

    from .conftest import commit_all, git, init_repo

    repo = init_repo(tmp_path / "work")
    shutil.copytree(copy_fixture("plain", tmp_path), repo / "deploy")
    commit_all(repo, "manifests")
    ok = cli("gitops", "reset", "files-source", "--repo", str(repo), "-n", namespace, "--commit",
             "--server-dry-run", "--kubeconfig", env.kubeconfig)
    assert ok.exit_code == 0, ok.stderr
    assert "server-side dry run accepted" in ok.stderr
    assert git(repo, "branch", "--list", "kubectl-offsets/*").strip().startswith("kubectl-offsets/files-source-reset-")

    refused = cli("gitops", "reset", "orders-sink", "--repo", str(repo), "-n", "no-such-namespace-x", "--commit",
                  "--server-dry-run", "--kubeconfig", env.kubeconfig)
    assert refused.exit_code != 0
    assert "orders-sink" not in git(repo, "branch", "--list", "kubectl-offsets/*")
    assert git(repo, "status", "--porcelain") == ""
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # the temporary worktree is gone
