"""Git and forge safety (issue 11, cases 1-5), with real git and a bare remote: never overwrite a branch we did not
make, here or on the remote; the push lease is what we saw before building; the default branch needs
--allow-default-branch; names never reach git as options; no secret or local path in output or the request;
a detached HEAD needs --pr-base; SIGTERM leaves no worktree behind; hints name the user's --repo."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.core.gitops.helpers import cli
from tests.waits import eventually

from .conftest import branches, clone, commit_all, git, pushes_while_we_build
from .test_git_and_forge import FakeForge

ALTER = ["gitops", "alter", "orders-sink", "--set", "orders:0=42"]


def someone_elses_branch(work: Path, name: str) -> str:
    git(work, "branch", name, "main")
    git(work, "worktree", "add", "--quiet", str(work.parent / f"wt-{name}"), name)
    other = work.parent / f"wt-{name}"
    (other / "NOTES.md").write_text("someone's work\n")
    sha = commit_all(other, "someone's work")
    git(work, "worktree", "remove", "--force", str(other))
    return sha


# --- 1: branches --------------------------------------------------------------------------------------------------

def test_an_existing_local_branch_without_our_trailer_is_refused(repos):
    work, remote = repos
    theirs = someone_elses_branch(work, "feature")
    result = cli(*ALTER, "--repo", str(work), "--branch", "feature", "--commit")
    assert result.exit_code != 0
    assert "not made by kubectl-offsets" in result.stderr
    assert git(work, "rev-parse", "refs/heads/feature") == theirs


def test_an_existing_remote_branch_without_our_trailer_is_refused(repos):
    work, remote = repos
    theirs = someone_elses_branch(work, "feature")
    git(work, "push", "--quiet", "origin", "feature")
    git(work, "branch", "-D", "feature")  # only the remote has it now
    result = cli(*ALTER, "--repo", str(work), "--branch", "feature", "--push")
    assert result.exit_code != 0 and "not made by kubectl-offsets" in result.stderr
    assert branches(remote)["feature"] == theirs
    assert git(work, "branch", "--list", "feature") == ""  # no local branch was made either


def test_rerunning_on_our_own_branch_updates_it(repos):
    work, remote = repos
    assert cli(*ALTER, "--repo", str(work), "--branch", "feature", "--push").exit_code == 0
    first = branches(remote)["feature"]
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=43", "--repo", str(work), "--branch", "feature",
                 "--push")
    assert result.exit_code == 0, result.stderr
    second = branches(remote)["feature"]
    assert second != first
    # a fast-forward: the first run's commit is still in the branch's history (the pull request keeps it)
    assert subprocess.run(["git", "merge-base", "--is-ancestor", first, second], cwd=remote).returncode == 0


def test_the_push_lease_is_the_remote_commit_seen_before_building(repos, tmp_path):
    """Someone pushes to the branch while we build (a pre-commit hook plays them): our push must fail, and their
    commit stays. A lease read just before the push would have seen their commit and overwritten it."""
    work, remote = repos
    theirs = pushes_while_we_build(work, clone(tmp_path, remote, "other"), "feature")
    result = cli(*ALTER, "--repo", str(work), "--branch", "feature", "--push")
    assert result.exit_code == 5 and "nothing was pushed" in result.stderr, result.stderr
    assert branches(remote)["feature"] == theirs
    assert git(work, "branch", "--list", "feature") == ""  # the local branch is only made after the push


def test_pushing_to_the_default_branch_needs_allow_default_branch(repos):
    work, remote = repos
    git(work, "checkout", "--quiet", "-b", "elsewhere")
    main_before = branches(remote)["main"]
    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--base", "main")
    assert result.exit_code != 0 and "--allow-default-branch" in result.stderr
    assert branches(remote)["main"] == main_before and git(work, "rev-parse", "main") == main_before

    allowed = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--base", "main",
                  "--allow-default-branch")
    assert allowed.exit_code == 0, allowed.stderr
    assert git(remote, "rev-parse", "main^") == main_before  # one commit on top, nothing lost


def test_the_pull_request_base_is_protected_too(repos):
    work, remote = repos
    git(work, "push", "--quiet", "origin", "main:release")
    result = cli(*ALTER, "--repo", str(work), "--branch", "release", "--pr", "--pr-base", "release",
                 "--forge-project", "team/deploy")
    assert result.exit_code != 0 and "--allow-default-branch" in result.stderr
    assert branches(remote)["release"] == branches(remote)["main"]


# --- 2: names that git would read as options ---------------------------------------------------------------------

@pytest.mark.parametrize("flags", [
    ["--push", "--remote", "--upload-pack=touch {marker}; false"],
    ["--push", "--remote", "--receive-pack=touch {marker}; false"],
    ["--commit", "--branch", "--output={marker}"],
    ["--commit", "--branch", "bad..name"],
    ["--commit", "--branch", "has space"],
    ["--commit", "--base", "--output={marker}"],
    ["--pr", "--pr-base", "--upload-pack=touch {marker}", "--forge-project", "team/deploy"],
])
def test_names_are_validated_before_git_sees_them(repos, tmp_path, flags):
    work, remote = repos
    marker = tmp_path / "pwned"
    heads = branches(remote)
    result = cli(*ALTER, "--repo", str(work), *[f.format(marker=marker) for f in flags])
    assert result.exit_code == 2, result.stderr
    assert not marker.exists()
    assert branches(remote) == heads and git(work, "branch", "--list", "kubectl-offsets/*") == ""


def test_an_unknown_remote_is_refused_before_anything_is_built(repos):
    work, remote = repos
    result = cli(*ALTER, "--repo", str(work), "--push", "--remote", "nowhere")
    assert result.exit_code == 2 and "not a remote of this repository" in result.stderr
    assert git(work, "branch", "--list", "kubectl-offsets/*") == ""


# --- 3: secrets and privacy ---------------------------------------------------------------------------------------

def test_credentials_in_forge_url_are_refused_and_never_printed(repos, monkeypatch):
    work, remote = repos
    monkeypatch.setenv("GITHUB_TOKEN", "tok")
    result = cli(*ALTER, "--repo", str(work), "--pr", "--pr-base", "main", "--forge-project", "team/deploy",
                 "--forge-url", "http://admin:S3CRET-PASS@127.0.0.1:9/api")
    assert result.exit_code == 2
    assert "S3CRET" not in result.output + result.stderr and "contains credentials" in result.stderr
    assert branches(remote).keys() == {"main"}


def test_a_git_error_naming_a_url_with_credentials_is_redacted(repos):
    work, _ = repos
    git(work, "remote", "set-url", "origin", "http://admin:S3CRET-PASS@127.0.0.1:9/deploy.git")
    result = cli(*ALTER, "--repo", str(work), "--push")
    assert result.exit_code != 0
    assert "S3CRET" not in result.output + result.stderr


def test_the_pull_request_body_names_no_local_path(repos, monkeypatch):
    work, _ = repos
    fake = FakeForge("github")
    try:
        monkeypatch.setenv("GITHUB_TOKEN", "tok")
        result = cli("gitops", "reset", "files-source", "--repo", str(work / "deploy"), "--pr", "--pr-base", "main",
                     "--forge", "github", "--forge-url", fake.url, "--forge-project", "team/deploy")
        assert result.exit_code == 0, result.stderr
        body = next(r[3] for r in fake.requests if r[0] == "POST")["body"]
        assert str(work) not in body and "/tmp" not in body
        assert "--repo deploy" in body  # the path inside the repository, which every reader has
    finally:
        fake.close()


# --- 4: detached HEAD ---------------------------------------------------------------------------------------------

def test_detached_head_needs_pr_base(repos, monkeypatch):
    work, remote = repos
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    git(work, "checkout", "--quiet", "--detach", "HEAD")
    result = cli(*ALTER, "--repo", str(work), "--pr", "--forge-project", "team/deploy")
    assert result.exit_code != 0 and "detached" in result.stderr and "--pr-base" in result.stderr
    assert branches(remote).keys() == {"main"}
    named = cli(*ALTER, "--repo", str(work), "--pr", "--forge-project", "team/deploy", "--pr-base", "main")
    assert named.exit_code == 0, named.stderr
    assert "compare/main..." in named.stderr


def test_the_current_branch_as_pr_base_is_said(repos, monkeypatch):
    work, _ = repos
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    result = cli(*ALTER, "--repo", str(work), "--pr", "--forge-project", "team/deploy")
    assert result.exit_code == 0, result.stderr
    assert "the pull request's base is main" in result.stderr


# --- 5: interruption and hints ------------------------------------------------------------------------------------

def test_sigterm_removes_the_temporary_worktree(repos):
    work, _ = repos
    hook = work / ".git" / "hooks" / "pre-commit"
    committing = work.parent / "committing"
    hook.write_text(f"#!/bin/sh\ntouch {committing}\nsleep 60\n")
    hook.chmod(0o755)
    process = subprocess.Popen([sys.executable, "-m", "kubectl_offsets", *ALTER, "--repo", str(work), "--commit"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        eventually("the command inside its commit (the hook runs)", committing.exists, 60, 0.1)
        worktrees = [line.split(" ", 1)[1] for line in git(work, "worktree", "list", "--porcelain").splitlines()
                     if line.startswith("worktree ")][1:]
        assert worktrees and (Path(worktrees[0]) / "deploy").exists(), "the command commits outside a worktree"
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0
    assert git(work, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert not Path(worktrees[0]).parent.exists()
    assert git(work, "branch", "--list", "kubectl-offsets/*") == ""


def test_the_already_in_phase_hint_names_the_users_repo(repos):
    work, _ = repos
    assert cli("gitops", "reset", "files-source", "--repo", str(work)).exit_code == 0
    commit_all(work, "phase 1 merged")
    result = cli("gitops", "alter", "files-source", "--repo", str(work), "--commit",
                 "-f", str(_file_source_offsets(work)))
    assert result.exit_code != 0 and "already in GitOps phase 1" in result.stderr
    assert f"--repo {work}" in result.stderr and "kubectl-offsets-" not in result.stderr.split("--repo")[-1]


def _file_source_offsets(work: Path) -> Path:
    path = work.parent / "file-offsets.json"
    path.write_text(json.dumps({"offsets": [{"partition": {"filename": "/data/in.txt"}, "offset": {"position": 5}}]}))
    return path
