"""Issue 28, the git half: the promises about branches hold where every update of a branch meets (the push and the
local move), on every path, with real git and bare remotes, including one made by plain ``git init --bare``, whose
HEAD names an unborn ``master`` while the team pushes ``main``:

- a push never removes a commit from a branch unless every commit it removes is one kubectl-offsets wrote,
  unchanged, for this connector, on a branch that is not protected;
- a commit someone amended is no longer ours: its content (tree) is compared, not only its trailers;
- main, master, the remote's HEAD target and the branches checked out in the repository are protected, whatever the
  remote's HEAD says;
- a checked-out branch is never moved under its work tree;
- the words say what happened: a direct push needs no merge, our own commit is named as ours.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.core.gitops.helpers import FIXTURES, cli

from .conftest import branches, clone, commit_all, git, init_repo
from .test_fast_forward_only import assert_refused_naming, error_line, short, squash_merge

ALTER = ["gitops", "alter", "orders-sink", "--set", "orders:0=42"]
ALTER_AGAIN = ["gitops", "alter", "orders-sink", "--set", "orders:0=43"]


@pytest.fixture
def plain_remote(tmp_path):
    """A remote made by plain ``git init --bare`` (its HEAD names the unborn ``master``, git's built-in default),
    and a team that pushes ``main`` to it."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "-c", "init.defaultBranch=master", "init", "--quiet", "--bare", str(remote))
    work = init_repo(tmp_path / "work")
    shutil.copytree(FIXTURES / "plain", work / "deploy")
    commit_all(work, "manifests")
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "--quiet", "origin", "main")
    assert git(remote, "symbolic-ref", "HEAD") == "refs/heads/master" and "master" not in branches(remote)
    return work, remote


def teammate(tmp_path: Path, remote: Path) -> Path:
    colleague = clone(tmp_path, remote, "colleague")
    git(colleague, "checkout", "--quiet", "main")  # the clone of an unborn HEAD checks out nothing
    return colleague


# --- the critical case: a colleague's commit dropped from the remote's main ----------------------------------------

@pytest.mark.parametrize("allow", [True, False], ids=["allow-default-branch", "without-allow"])
@pytest.mark.parametrize("made_by_kubectl_offsets", [True, False], ids=["tool-commit", "hand-commit"])
def test_a_colleagues_commit_on_main_survives_a_remote_whose_head_is_unborn(plain_remote, tmp_path,
                                                                            made_by_kubectl_offsets, allow):
    """Issue 28's scenario: main ends in a squash-merged kubectl-offsets pull request, a colleague pushes one more
    commit, the user has fetched but not pulled. Before: `pushed to origin`, exit 0, both commits' changes gone
    from main (the new commit 'superseded' them), with or without --allow-default-branch."""
    work, remote = plain_remote
    colleague = teammate(tmp_path, remote)
    assert cli(*ALTER_AGAIN, "--repo", str(colleague), "--push").exit_code == 0
    pr_branch = next(b for b in branches(remote) if b.startswith("kubectl-offsets/"))
    squashed = squash_merge(colleague, pr_branch)
    if made_by_kubectl_offsets:
        finished = cli("gitops", "next", "orders-sink", "--repo", str(colleague), "--branch", "main", "--push",
                       "--allow-default-branch")
        assert finished.exit_code == 0, finished.stderr
    else:
        (colleague / "MONITORING.md").write_text("dashboards\n")
        commit_all(colleague, "add the monitoring notes")
        git(colleague, "push", "--quiet", "origin", "main")
    theirs = branches(remote)["main"]
    git(work, "fetch", "--quiet", "origin")
    local_main = git(work, "rev-parse", "main")

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push",
                 *(["--allow-default-branch"] if allow else []))

    assert branches(remote)["main"] == theirs
    assert git(work, "rev-parse", "main") == local_main and git(work, "status", "--porcelain") == ""
    if allow:
        assert_refused_naming(result, work, theirs, squashed)
        assert "pull" in result.stderr
    else:
        assert result.exit_code == 5 and "--allow-default-branch" in result.stderr, result.stderr


@pytest.mark.parametrize("name", ["main", "master", "trunk", "checked-out"])
def test_protected_names_need_allow_default_branch_whatever_the_remotes_head_says(plain_remote, name):
    """main and master always; the remote's HEAD target (trunk here); the branch checked out in --repo. Before,
    only the remote's HEAD target was: `--branch main --push` went straight to a plain remote's main."""
    work, remote = plain_remote
    if name == "master":
        git(work, "push", "--quiet", "origin", "main:master")
    if name == "trunk":
        git(work, "push", "--quiet", "origin", "main:trunk")
        git(remote, "symbolic-ref", "HEAD", "refs/heads/trunk")
    if name == "checked-out":
        git(work, "checkout", "--quiet", "-b", name)
        git(work, "push", "--quiet", "origin", name)
    else:
        git(work, "checkout", "--quiet", "-b", "elsewhere")
    heads = branches(remote)

    result = cli(*ALTER, "--repo", str(work), "--branch", name, "--push", "--base", "main")

    assert result.exit_code == 5, result.stderr
    assert f"--branch {name} is protected" in error_line(result) and "--allow-default-branch" in result.stderr
    assert branches(remote) == heads


# --- an amended commit is no longer ours ---------------------------------------------------------------------------

def amended_by_a_colleague(work: Path, remote: Path, tmp_path: Path) -> str:
    """Issue 28's steps 1-2: gitops alter --branch fix --push; a colleague amends that commit, changing another
    file, and force-pushes it."""
    assert cli(*ALTER, "--repo", str(work), "--branch", "fix", "--push").exit_code == 0
    colleague = teammate(tmp_path, remote)
    git(colleague, "checkout", "--quiet", "fix")
    (colleague / "deploy" / "README.md").write_text("reviewed: replay from 42 is right\n")
    git(colleague, "add", "--all")
    git(colleague, "commit", "--quiet", "--amend", "--no-edit")  # its trailers stay
    git(colleague, "push", "--quiet", "--force", "origin", "fix")
    return git(colleague, "rev-parse", "HEAD")


def test_a_rerun_from_a_fresh_clone_does_not_supersede_an_amended_commit(plain_remote, tmp_path):
    """Step 3 from a fresh clone: before, the amended commit 'was' ours by its trailers, the new commit went on top
    of it with --base's tree plus the new offsets, and the colleague's README was reverted without a word."""
    work, remote = plain_remote
    amended = amended_by_a_colleague(work, remote, tmp_path)
    fresh = clone(tmp_path, remote, "fresh")
    git(fresh, "checkout", "--quiet", "main")

    result = cli(*ALTER_AGAIN, "--repo", str(fresh), "--branch", "fix", "--push")

    assert_refused_naming(result, fresh, amended)
    assert "changed after kubectl-offsets made it" in error_line(result)
    assert branches(remote)["fix"] == amended


def test_the_same_rerun_from_the_first_clone_is_refused_as_diverged(plain_remote, tmp_path):
    work, remote = plain_remote
    amended = amended_by_a_colleague(work, remote, tmp_path)
    git(work, "fetch", "--quiet", "origin")

    result = cli(*ALTER_AGAIN, "--repo", str(work), "--branch", "fix", "--push")

    assert result.exit_code == 5 and "diverged" in error_line(result), result.stderr
    assert branches(remote)["fix"] == amended


def test_our_unchanged_commit_is_still_superseded_from_a_fresh_clone(plain_remote, tmp_path):
    """The other side of the content check: our own commit, unchanged, is ours from any clone."""
    work, remote = plain_remote
    assert cli(*ALTER, "--repo", str(work), "--branch", "fix", "--push").exit_code == 0
    first = branches(remote)["fix"]
    fresh = clone(tmp_path, remote, "fresh")
    git(fresh, "checkout", "--quiet", "main")

    result = cli(*ALTER_AGAIN, "--repo", str(fresh), "--branch", "fix", "--push")

    assert result.exit_code == 0, result.stderr
    assert git(remote, "rev-parse", "fix^") == first


def test_a_commit_a_hook_changed_is_still_ours(plain_remote, tmp_path):
    """A pre-commit hook that adds a file changes the commit's tree after we staged ours: the commit is still the
    one kubectl-offsets made, so a re-run supersedes it instead of refusing."""
    work, remote = plain_remote
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho stamped > STAMP && git add STAMP\n")
    hook.chmod(0o755)
    assert cli(*ALTER, "--repo", str(work), "--branch", "fix", "--push").exit_code == 0
    hook.unlink()

    result = cli(*ALTER_AGAIN, "--repo", str(work), "--branch", "fix", "--push")

    assert result.exit_code == 0, result.stderr


# --- a checked-out branch is never moved under its work tree --------------------------------------------------------

def test_the_checked_out_branch_without_push_is_refused(plain_remote):
    """Before: `branch main at <sha>`, exit 0, main not moved and the commit left dangling."""
    work, _ = plain_remote
    main = git(work, "rev-parse", "main")

    result = cli(*ALTER, "--repo", str(work), "--branch", "main")

    assert result.exit_code == 5, result.stdout + result.stderr
    assert "checked out" in error_line(result) and "  hint: " in result.stderr
    assert "branch main at" not in result.stdout
    assert git(work, "rev-parse", "main") == main and git(work, "status", "--porcelain") == ""


def test_a_branch_checked_out_in_another_worktree_is_refused(plain_remote, tmp_path):
    """Before: the branch moved under the other worktree, whose files then showed our change reverted."""
    work, _ = plain_remote
    other = tmp_path / "other-worktree"
    git(work, "worktree", "add", "--quiet", "-b", "review", str(other), "main")
    before = git(work, "rev-parse", "review")

    result = cli(*ALTER, "--repo", str(work), "--branch", "review", "--commit")

    assert result.exit_code == 5, result.stdout + result.stderr
    assert "checked out" in error_line(result) and str(other) in error_line(result)
    assert git(work, "rev-parse", "review") == before and git(other, "status", "--porcelain") == ""


# --- words ----------------------------------------------------------------------------------------------------------

def test_a_direct_push_to_main_is_not_told_to_merge(plain_remote):
    work, remote = plain_remote
    git(work, "checkout", "--quiet", "-b", "elsewhere")
    before = branches(remote)["main"]

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--base", "main", "--push", "--allow-default-branch")

    assert result.exit_code == 0, result.stderr
    assert git(remote, "rev-parse", "main^") == before
    steps = result.stderr.split("next steps:")[1]
    assert "Merge this change" not in steps
    assert "main on origin" in steps and "no review" in steps


def test_our_own_commit_under_another_namespace_is_named_as_ours(plain_remote):
    """The first run named -n team-a, the re-run none: before, 'not made by kubectl-offsets' for our own commit."""
    work, _ = plain_remote
    assert cli(*ALTER, "-n", "team-a", "--repo", str(work), "--branch", "offsets").exit_code == 0
    first = git(work, "rev-parse", "offsets")

    result = cli(*ALTER_AGAIN, "--repo", str(work), "--branch", "offsets")

    assert result.exit_code == 5, result.stderr
    line = error_line(result)
    assert short(work, first) in line and "not made by kubectl-offsets" not in line
    assert "made by kubectl-offsets for kafkaconnector/orders-sink in namespace team-a" in line
    assert "-n team-a" in result.stderr.split("  hint: ")[1]
    assert git(work, "rev-parse", "offsets") == first
