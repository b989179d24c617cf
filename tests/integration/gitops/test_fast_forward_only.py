"""A branch is only ever moved forward (issue 22, item 1), with real git and a bare remote: whatever the branch holds
locally, on the remote as last fetched, and on the remote as the push lease sees it must still be in its history
afterwards. The Offsets-Operation trailer says who made a commit, not that replacing it loses nothing: a tip made by
kubectl-offsets is no licence to drop it, or the commits below it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.core.gitops.helpers import cli

from .conftest import branches, clone, commit_all, git, pushes_while_we_build

ALTER = ["gitops", "alter", "orders-sink", "--set", "orders:0=42"]
RESET_FILES = ["gitops", "reset", "files-source"]


def short(repo: Path, sha: str) -> str:
    return git(repo, "rev-parse", "--short", sha)


def subject(repo: Path, sha: str) -> str:
    return git(repo, "show", "-s", "--format=%s", sha)


def squash_merge(colleague: Path, branch: str) -> str:
    """What a forge's squash merge does with a one-commit pull request: one new commit on main with that commit's
    message (trailers included), and the branch left behind."""
    git(colleague, "fetch", "--quiet", "origin")
    git(colleague, "merge", "--quiet", "--squash", f"origin/{branch}")
    message = git(colleague, "show", "-s", "--format=%B", f"origin/{branch}")
    git(colleague, "commit", "--quiet", "-m", message)
    git(colleague, "push", "--quiet", "origin", "main")
    return git(colleague, "rev-parse", "HEAD")


def colleagues_commit(colleague: Path, made_by_kubectl_offsets: bool, command: list[str] = RESET_FILES) -> str:
    """One more commit on the remote's main: by hand, or a kubectl-offsets change pushed directly (its message
    carries the trailer like any commit the tool makes)."""
    if made_by_kubectl_offsets:
        result = cli(*command, "--repo", str(colleague), "--branch", "main", "--push", "--allow-default-branch")
        assert result.exit_code == 0, result.stderr
        git(colleague, "pull", "--quiet", "--ff-only")
    else:
        (colleague / "MONITORING.md").write_text("dashboards\n")
        commit_all(colleague, "add the monitoring notes")
        git(colleague, "push", "--quiet", "origin", "main")
    return git(colleague, "rev-parse", "origin/main")


def error_line(result) -> str:
    return next((line for line in result.stderr.splitlines() if line.startswith("error: ")), "")


def assert_refused_naming(result, repo: Path, *dropped: str) -> None:
    """Refused (exit 5, a precondition) in one line naming each commit it would drop, and a hint."""
    assert result.exit_code == 5, (result.exit_code, result.stderr)
    line = error_line(result)
    for sha in dropped:
        assert short(repo, sha) in line and subject(repo, sha) in line, line
    assert "  hint: " in result.stderr


# --- the default branch, with --allow-default-branch ----------------------------------------------------------------

@pytest.mark.parametrize("made_by_kubectl_offsets", [True, False], ids=["tool-commit", "hand-commit"])
def test_a_squash_merged_main_with_a_colleagues_commit_is_never_replaced(repos, tmp_path, made_by_kubectl_offsets):
    """A kubectl-offsets pull request was squash-merged, a colleague pushed one more commit on main, and the user has
    fetched but not pulled: pushing our commit onto their old main would drop both."""
    work, remote = repos
    colleague = clone(tmp_path, remote, "colleague")
    opened = cli(*RESET_FILES, "--repo", str(colleague), "--push")
    assert opened.exit_code == 0, opened.stderr
    pr_branch = next(b for b in branches(remote) if b.startswith("kubectl-offsets/files-source-"))
    squashed = squash_merge(colleague, pr_branch)
    theirs = colleagues_commit(colleague, made_by_kubectl_offsets, ["gitops", "alter", "orders-sink", "--set",
                                                                    "orders:1=7"])
    git(work, "fetch", "--quiet", "origin")
    local_main = git(work, "rev-parse", "main")

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch")

    assert branches(remote)["main"] == theirs
    assert_refused_naming(result, work, theirs, squashed)
    assert "pull" in result.stderr and "another --branch" in result.stderr
    assert git(remote, "merge-base", "--is-ancestor", squashed, "main") == ""  # still there (check=True)
    assert git(work, "rev-parse", "main") == local_main and git(work, "status", "--porcelain") == ""


def test_after_pulling_the_same_push_goes_on_top(repos, tmp_path):
    work, remote = repos
    colleague = clone(tmp_path, remote, "colleague")
    theirs = colleagues_commit(colleague, made_by_kubectl_offsets=True)
    git(work, "pull", "--quiet", "--ff-only", "origin", "main")
    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch")
    assert result.exit_code == 0, result.stderr
    assert git(remote, "rev-parse", "main^") == theirs


def test_the_remote_as_last_fetched_counts_too(repos, tmp_path):
    """The remote's main was wound back after our last fetch (someone force-pushed): what we fetched is not in the
    new commit's history, so pushing would make it gone for good; we say so instead of guessing."""
    work, remote = repos
    colleague = clone(tmp_path, remote, "colleague")
    base = git(colleague, "rev-parse", "main")
    theirs = colleagues_commit(colleague, made_by_kubectl_offsets=True)
    git(work, "fetch", "--quiet", "origin")
    git(colleague, "push", "--quiet", "--force", "origin", f"{base}:refs/heads/main")  # the lease sees main again

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch")

    assert_refused_naming(result, work, theirs)
    assert "origin/main" in error_line(result)
    assert branches(remote)["main"] == base


def test_a_local_default_branch_not_checked_out_is_not_moved_back(repos):
    """Local main holds one more commit made by kubectl-offsets (not pushed yet) and is not checked out; building
    on the remote's main (--base origin/main) must not drop it from local main."""
    work, remote = repos
    made = cli(*RESET_FILES, "--repo", str(work), "--commit")
    assert made.exit_code == 0, made.stderr
    ours = git(work, "for-each-ref", "--format=%(objectname)", "refs/heads/kubectl-offsets/")
    git(work, "merge", "--quiet", "--ff-only", ours)  # local main now ends in a commit with the trailer
    git(work, "checkout", "--quiet", "-b", "elsewhere", "origin/main")

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch",
                 "--base", "origin/main")

    assert_refused_naming(result, work, ours)
    assert git(work, "rev-parse", "main") == ours
    assert branches(remote)["main"] == git(work, "rev-parse", "origin/main")


def test_unpushed_commits_of_the_base_do_not_ride_along_to_main(repos):
    """--allow-default-branch adds one commit on top of the remote's main, not the user's unpushed work below it."""
    work, remote = repos
    (work / "DRAFT.md").write_text("not reviewed\n")
    draft = commit_all(work, "draft notes")
    on_remote = branches(remote)["main"]

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch")

    assert_refused_naming(result, work, draft)
    assert branches(remote)["main"] == on_remote and git(work, "rev-parse", "main") == draft


def test_someone_pushing_to_main_while_we_build_makes_our_push_fail(repos, tmp_path):
    """The force-with-lease path on the default branch: the lease is the commit seen before building, so a push
    landing meanwhile (a pre-commit hook plays the colleague) is kept and ours fails."""
    work, remote = repos
    theirs = pushes_while_we_build(work, clone(tmp_path, remote, "colleague"), "main")
    local_main = git(work, "rev-parse", "main")

    result = cli(*ALTER, "--repo", str(work), "--branch", "main", "--push", "--allow-default-branch")

    assert result.exit_code == 5, result.stderr
    assert "main" in error_line(result) and "fetch" in result.stderr, result.stderr
    assert branches(remote)["main"] == theirs
    assert git(work, "rev-parse", "main") == local_main


# --- our own branches ---------------------------------------------------------------------------------------------

def test_another_targets_commit_on_a_local_branch_is_not_dropped(repos):
    """A local branch (not checked out) holds a kubectl-offsets commit for another connector: a second operation
    with the same --branch would replace it; its trailer does not make it ours to drop."""
    work, _ = repos
    assert cli(*RESET_FILES, "--repo", str(work), "--branch", "offsets", "--commit").exit_code == 0
    first = git(work, "rev-parse", "offsets")

    result = cli(*ALTER, "--repo", str(work), "--branch", "offsets", "--commit")

    assert_refused_naming(result, work, first)
    assert git(work, "rev-parse", "offsets") == first


def test_a_rerun_with_new_offsets_goes_on_top_of_our_local_branch(repos):
    work, _ = repos
    assert cli(*ALTER, "--repo", str(work), "--branch", "offsets", "--commit").exit_code == 0
    first = git(work, "rev-parse", "offsets")
    again = cli("gitops", "alter", "orders-sink", "--set", "orders:0=43", "--repo", str(work), "--branch", "offsets",
                "--commit")
    assert again.exit_code == 0, again.stderr
    second = git(work, "rev-parse", "offsets")
    assert git(work, "merge-base", "--is-ancestor", first, second) == ""
    # the tree is main plus the new change alone: the first run's ConfigMap file is gone, not left behind
    changed = git(work, "diff", "--name-only", "main", second).splitlines()
    assert len([f for f in changed if "orders-sink-offsets-" in f]) == 1, changed
    repeat = cli("gitops", "alter", "orders-sink", "--set", "orders:0=43", "--repo", str(work), "--branch",
                 "offsets", "--commit")
    assert repeat.exit_code == 0 and "unchanged: same input as before" in repeat.stdout, repeat.stdout
    assert git(work, "rev-parse", "offsets") == second


def test_a_rerun_after_main_moved_merges_the_new_base_into_our_branch(repos):
    """--branch NAME re-run from a newer main: the branch keeps our earlier commit and gains main's new one, so the
    update is a fast-forward of the branch and the pull request shows only the change."""
    work, _ = repos
    assert cli(*ALTER, "--repo", str(work), "--branch", "offsets", "--commit").exit_code == 0
    first = git(work, "rev-parse", "offsets")
    (work / "README.md").write_text("deploy repo\n")
    newer_main = commit_all(work, "readme")

    again = cli("gitops", "alter", "orders-sink", "--set", "orders:0=43", "--repo", str(work), "--branch", "offsets",
                "--commit")

    assert again.exit_code == 0, again.stderr
    assert f"goes on top of {first[:12]}" in again.stderr
    second = git(work, "rev-parse", "offsets")
    assert git(work, "rev-list", "--parents", "-n", "1", second).split()[1:] == [first, newer_main]
    changed = git(work, "diff", "--name-only", newer_main, second).splitlines()
    assert changed[0] == "deploy/connect/connectors.yaml" and len(changed) == 2, changed


def reviewing_our_pull_request(work: Path, remote: Path, tmp_path: Path) -> tuple[Path, str]:
    """ALTER pushed for a pull request, and a colleague's clone on its branch with a review note written, not yet
    committed."""
    assert cli(*ALTER, "--repo", str(work), "--push").exit_code == 0
    branch = next(b for b in branches(remote) if b.startswith("kubectl-offsets/"))
    colleague = clone(tmp_path, remote, "colleague")
    git(colleague, "checkout", "--quiet", branch)
    (colleague / "REVIEWED.md").write_text("looked at it\n")
    return colleague, branch


def test_a_colleagues_amended_commit_on_our_pr_branch_is_not_dropped_by_a_rerun(repos, tmp_path):
    """The deterministic branch: a colleague amended our commit on the pull request's branch (the trailer stays) and
    force-pushed it. Re-running the same command must not push our old commit back over theirs."""
    work, remote = repos
    colleague, branch = reviewing_our_pull_request(work, remote, tmp_path)
    git(colleague, "add", "REVIEWED.md")
    git(colleague, "commit", "--quiet", "--amend", "--no-edit")
    git(colleague, "push", "--quiet", "--force", "origin", branch)
    amended = git(colleague, "rev-parse", "HEAD")
    git(work, "fetch", "--quiet", "origin")

    result = cli(*ALTER, "--repo", str(work), "--push")

    assert_refused_naming(result, work, amended)
    assert branches(remote)[branch] == amended


def test_a_colleagues_commit_on_top_of_our_pr_branch_is_named(repos, tmp_path):
    work, remote = repos
    colleague, branch = reviewing_our_pull_request(work, remote, tmp_path)
    theirs = commit_all(colleague, "note from review")
    git(colleague, "push", "--quiet", "origin", branch)
    git(work, "fetch", "--quiet", "origin")

    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=43", "--repo", str(work), "--branch", branch,
                 "--push")

    assert_refused_naming(result, work, theirs)
    assert branches(remote)[branch] == theirs
