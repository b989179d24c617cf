"""A GitOps plan as a branch, one commit, a push and a pull/merge request.

The change is built in a temporary worktree at the base commit (the user's checkout is never touched). The branch
name is deterministic (target, operation id, phase), and the operation id already covers the target, the offsets
and the base commit: so re-running with the same input finds the branch holding the same tree on the same base and
changes nothing, pushes nothing new, and finds the open pull request instead of opening a second one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, cast

from ...adapters import forge
from ...adapters.gitrepo import GitRepo
from ...adapters.gitrepo import terminations_raise as cleanup_on_termination  # noqa: F401 (for the CLI)
from ...connect import ConnectorKind, position_of, topic_partition_of
from ...conventions import Operation
from ...errors import PreconditionError
from . import output
from .plan import FileChange, Plan

Planner = Callable[[Path, str], Plan]  # (worktree root, base commit) -> plan
# The trailers on every commit we make. A branch's commits without them are someone else's and are never dropped;
# the target's lets a re-run tell this connector's earlier change (superseded) from another connector's (kept).
TRAILER_OPERATION = "Offsets-Operation"
TRAILER_TARGET = "Offsets-Target"


def repository_at(root: Path) -> GitRepo | None:
    """The git repository holding ``root``, or None for a plain directory."""
    return GitRepo.find(root)


@dataclass
class PublishRequest:
    branch: str | None = None
    base_ref: str = "HEAD"
    push: bool = False
    remote: str = "origin"
    pull_request: bool = False
    target_branch: str | None = None  # the PR's base branch; default: the current branch
    forge: str | None = None
    forge_url: str | None = None
    forge_project: str | None = None
    reason: str = ""
    repo_in_git: str = "."  # --repo relative to the checkout's top: the pull request names no local path
    path_arg: str | None = None
    allow_default_branch: bool = False  # may update the remote's default branch or the request's base


@dataclass
class Published:
    branch: str
    commit: str
    created_commit: bool
    pushed: bool = False
    pr_url: str | None = None
    pr_created: bool = False
    compare_url: str | None = None
    notes: list[str] = field(default_factory=list)


def branch_name(plan: Plan) -> str:
    target = plan.target
    connector = "" if target.mm2_type is None else "-" + (target.source_alias or "") + "-" + \
        target.mm2_type.replace("Mirror", "").replace("Connector", "").lower()
    return f"kubectl-offsets/{target.resource_name}{connector}-{plan.operation}-{plan.operation_id[:8]}" \
           f"-phase{plan.phase}"


def target_key(plan: Plan) -> str:
    """The connector a commit changes, as its Offsets-Target trailer names it."""
    target = plan.target
    return f"{target.kind}/{target.namespace}/{target.resource_name}/{target.connector_name}"


def publish(repo: GitRepo, scope_rel: str | None, planner: Planner, request: PublishRequest
            ) -> tuple[Plan, Published]:
    """Validate every name first, build and commit in a temporary worktree, check that the branch only moves
    forward (locally, on the remote as last fetched and as it is now), push with the lease seen before, move the
    local branch, and open the request. Nothing on a branch or remote changes before every check has passed."""
    pushing = request.push or request.pull_request
    _check_request(repo, request, pushing)
    base = repo.rev(request.base_ref)
    pr_base = _pr_base(repo, request) if request.pull_request else None
    # The push lease: the remote's commit as seen now, before anything is built. Whatever lands there later (someone
    # else's push while we work) makes our push fail instead of being overwritten.
    early_lease = repo.remote_branch_commit(request.remote, request.branch) if pushing and request.branch else None
    with repo.worktree(base) as work:
        plan = planner(work, base)
        if not plan.files:
            raise PreconditionError("nothing to commit: the repository already holds this phase",
                                    advice="merge the existing branch, or run the next phase")
        output.write(plan, work)
        message = commit_message(plan, request.reason)
        commit = repo.commit_in(work, [c.rel for c in plan.files], message)
    branch = request.branch or branch_name(plan)
    repo.check_branch_name(branch, "--branch")
    protected = _protected_branches(repo, request, pr_base) if pushing else set()
    _check_protected(branch, protected, request)
    existing = repo.branch_commit(branch)
    lease = early_lease if request.branch else repo.remote_branch_commit(request.remote, branch) if pushing else None
    fetched = repo.fetched_branch_commit(request.remote, branch) if pushing else None
    tips = _tips(branch, request.remote, existing, fetched, lease)
    ahead = _check_forward(repo, branch, tips, base, protected)
    if branch in protected and lease is not None:
        _check_one_commit_on_top(repo, branch, request.remote, lease, base)
    commit, created = _successor(repo, plan, commit, base, ahead)
    result = Published(branch, commit, created)
    if ahead is not None and created:
        result.notes.append(f"{branch} held an earlier change of {plan.target.display} made by kubectl-offsets: the "
                            f"new commit goes on top of {ahead[1][:12]} and supersedes it")
    if branch in protected:
        result.notes.append(f"{branch} is a protected branch; --allow-default-branch adds one commit on top of it")
    if pushing:  # before the local branch moves: a refused push leaves the repository as it was
        repo.push(request.remote, branch, lease, source=commit)
        result.pushed = lease != commit
    if commit != existing and branch != repo.current_branch():
        repo.point_branch(branch, commit, existing)
    # else: the branch checked out in --repo (a fast-forward of it, allowed above) stays where it is locally, or
    # the user's working tree would silently fall behind it; the commit is pushed directly.
    if request.pull_request:
        assert pr_base is not None  # found above whenever a pull request is asked for
        _pull_request(repo, plan, request, result, pr_base)
    return plan, result


def _check_request(repo: GitRepo, request: PublishRequest, pushing: bool) -> None:
    """Every name that reaches git's command line, and the forge URL, before anything is built."""
    if request.branch is not None:
        repo.check_branch_name(request.branch, "--branch")
    if request.target_branch is not None:
        repo.check_branch_name(request.target_branch, "--pr-base")
    if pushing:
        repo.check_remote(request.remote)
    if request.forge_url:
        forge.check_api_url(request.forge_url)


def _pr_base(repo: GitRepo, request: PublishRequest) -> str:
    """The branch the request merges into: --pr-base, else the branch checked out in --repo. A detached HEAD has
    none, and guessing 'main' could send the change for review against the wrong branch."""
    if request.target_branch:
        return request.target_branch
    current = repo.current_branch()
    if current is None:
        raise PreconditionError("HEAD is detached in the repository, so there is no current branch to open the "
                                "pull request against", advice="name the base branch with --pr-base BRANCH")
    return current


def _protected_branches(repo: GitRepo, request: PublishRequest, pr_base: str | None) -> set[str]:
    """Branches a push must not update without --allow-default-branch: the remote's default branch and the
    request's base (they are what review protects)."""
    names = {request.target_branch, pr_base, repo.remote_default_branch(request.remote)}
    return {n for n in names if n}


def _check_protected(branch: str, protected: set[str], request: PublishRequest) -> None:
    if branch in protected and not request.allow_default_branch:
        raise PreconditionError(f"--branch {branch} is the remote's default branch or the pull request's base: "
                                "pushing there would bypass review",
                                advice="drop --branch (a kubectl-offsets/... branch is made), or add "
                                       "--allow-default-branch if this repository takes direct pushes")


def _tips(branch: str, remote: str, local: str | None, fetched: str | None, lease: str | None
          ) -> list[tuple[str, str]]:
    """Every commit the branch is known to be at, each with where it was seen: the local branch, the remote's as
    last fetched, the remote's now (the push lease). The new commit must have each of them in its history."""
    seen = [(f"the local branch {branch}", local), (f"{remote}/{branch} (as last fetched)", fetched),
            (f"{branch} on {remote}", lease)]
    tips: list[tuple[str, str]] = []
    for where, tip in seen:
        if tip is not None and tip not in (known for _, known in tips):
            tips.append((where, tip))
    return tips


def _check_forward(repo: GitRepo, branch: str, tips: list[tuple[str, str]], base: str, protected: set[str]
                   ) -> tuple[str, str] | None:
    """Refuse any branch update that would drop a commit, wherever the branch is known to be: the trailer says who
    made a commit, not that replacing it loses nothing. Returns the newest tip (where it was seen, commit) when
    --base does not already hold it; the default branch (with --allow-default-branch) has no such tip, it may only
    gain our commit on top of --base."""
    for where, tip in tips:
        if not repo.has_commit(tip):
            raise PreconditionError(f"{where} is at {tip[:12]}, a commit this repository has not fetched: refusing "
                                    "to update it without knowing what it holds",
                                    advice="git fetch, then run again")
    newest = _newest(repo, branch, tips)
    if newest is None or repo.is_ancestor(newest[1], base):
        return None
    where, tip = newest
    if branch in protected:
        raise PreconditionError(f"updating {branch} would drop {_commits(repo, tip, base)} from {where}: only a "
                                "fast-forward of it is allowed",
                                advice=f"bring your {branch} up to date (git pull --ff-only, or git rebase) and run "
                                       "again, or choose another --branch")
    return newest


def _check_one_commit_on_top(repo: GitRepo, branch: str, remote: str, lease: str, base: str) -> None:
    """--allow-default-branch adds our one commit to the remote's default branch, nothing else: unpushed commits
    of --base would otherwise reach it unreviewed along with ours."""
    if lease != base:  # an ancestor of base here: _check_forward refused anything that would be dropped
        raise PreconditionError(f"--base has {_commits(repo, base, lease)} that {branch} on {remote} does not: "
                                "--allow-default-branch only adds the one kubectl-offsets commit on top of it",
                                advice=f"push those first, or build on what {remote} has: git fetch {remote}, "
                                       f"then --base {remote}/{branch}")


def _newest(repo: GitRepo, branch: str, tips: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The tip that has every other in its history; the tips disagreeing (a diverged local branch, an amended
    commit on the remote) is refused, naming what the other side would lose."""
    if not tips:
        return None
    newest = tips[0]
    for where, tip in tips[1:]:
        if repo.is_ancestor(newest[1], tip):
            newest = (where, tip)
        elif not repo.is_ancestor(tip, newest[1]):
            raise PreconditionError(f"{where} and {newest[0]} have diverged: updating {branch} would drop "
                                    f"{_commits(repo, tip, newest[1])} from {where}",
                                    advice=f"reconcile them first (git fetch, then git pull or git rebase on "
                                           f"{branch}), or choose another --branch")
    return newest


def _successor(repo: GitRepo, plan: Plan, commit: str, base: str, ahead: tuple[str, str] | None
               ) -> tuple[str, bool]:
    """The commit the branch moves to, and whether it is new. A tip holding the same change (same operation, same
    tree) is kept: re-running with the same input commits and pushes nothing new. Otherwise a branch ahead of
    --base may only hold this connector's earlier kubectl-offsets change, which the new commit supersedes: it goes
    on top of it (--base becomes a second parent when the branch does not have it yet), so the branch and its pull
    request move forward. Anything else there (someone's commit, another connector's change, an amended commit) is
    named and refused."""
    if ahead is None:
        return commit, True
    where, tip = ahead
    if repo.tree_of(tip) == repo.tree_of(commit) and repo.trailer(tip, TRAILER_OPERATION) == plan.operation_id:
        return tip, False  # same input: keep the commit we made before
    foreign = repo.commits_only_in_without(tip, base, TRAILER_TARGET, target_key(plan))
    if foreign:
        raise PreconditionError(f"{where} has {_listed(repo, foreign)} not made by kubectl-offsets for "
                                f"{plan.target.display}: refusing to overwrite or drop them",
                                advice="choose another --branch, or drop --branch for a kubectl-offsets/... branch "
                                       "(review those commits first; delete the branch only if they are not wanted)")
    parents = [tip] if repo.is_ancestor(base, tip) else [tip, base]
    return repo.commit_on_top(commit, parents), True


def _commits(repo: GitRepo, tip: str, base: str) -> str:
    return _listed(repo, repo.commits_only_in(tip, base))


def _listed(repo: GitRepo, commits: list[str], limit: int = 5) -> str:
    """``1a2b3c4 "subject"``, newest first; a long list is cut with its count."""
    shown = ", ".join(repo.describe_commit(c) for c in commits[:limit])
    more = f" and {len(commits) - limit} more" if len(commits) > limit else ""
    return f"{len(commits)} commit{'s' if len(commits) != 1 else ''} ({shown}{more})"


def _pull_request(repo: GitRepo, plan: Plan, request: PublishRequest, result: Published, pr_base: str) -> None:
    remote = _remote(repo, request)
    if not request.target_branch:
        result.notes.append(f"the pull request's base is {pr_base}, the branch checked out in --repo "
                            "(choose another with --pr-base)")
    result.compare_url = forge.compare_url(remote, pr_base, result.branch)
    token = forge.token_for(remote)
    if token is None:
        result.notes.append(f"no {forge.TOKEN_ENV[remote.forge]} in the environment: open the request at "
                            f"{result.compare_url}")
        return
    result.pr_url, result.pr_created = forge.open_request(
        remote, token, base=pr_base, branch=result.branch, title=pr_title(plan),
        body=pr_body(plan, request.reason, request.repo_in_git, request.path_arg), api=request.forge_url)


def _remote(repo: GitRepo, request: PublishRequest) -> forge.Remote:
    if request.forge_project:
        return forge.Remote(request.forge or "github", "github.com" if (request.forge or "github") == "github"
                            else "gitlab.com", request.forge_project)
    return forge.parse_remote(repo.remote_url(request.remote), request.forge)


# --- texts ----------------------------------------------------------------------------------------------------


def pr_title(plan: Plan) -> str:
    target = plan.target
    if plan.phase == 1:
        verb = Operation.ALTER if plan.operation == Operation.ALTER else Operation.RESET
        return f"offsets: stop {target.connector_name} and {verb} its offsets (phase 1 of 2)"
    return f"offsets: resume {target.connector_name} after the {plan.operation} (phase 2 of 2)"


def commit_message(plan: Plan, reason: str) -> str:
    why = reason.strip() or "requested with kubectl offsets gitops"
    if plan.phase == 1:
        body = (f"Why: {why}.\n\nPhase 1 sets spec.state: stopped"
                + (f" and alterOffsets.fromConfigMap ({plan.configmap}), and adds that ConfigMap"
                   if plan.configmap else "")
                + ". Strimzi's one-shot strimzi.io/connector-offsets annotation is deliberately NOT committed:\n"
                  "a GitOps sync would re-apply it after the operator removes it and fire the operation again.\n"
                  "The trigger fires it once on the cluster; phase 2 restores the previous state.")
        if plan.time_travel:
            body += "\n\nOffsets resolved from the broker's timestamp index:\n" + "\n".join(
                f"  {line}" for line in plan.time_travel)
    else:
        body = (f"Why: {why}.\n\nPhase 2 restores the previous spec.state and removes alterOffsets"
                + (", the ConfigMap" if plan.configmap else "") + " and the kubectl-offsets record.")
    trailers = f"{TRAILER_TARGET}: {target_key(plan)}\n{TRAILER_OPERATION}: {plan.operation_id}\n" \
               f"Offsets-Phase: {plan.phase}"
    return f"{pr_title(plan)}\n\n{body}\n\n{trailers}\n"


def pr_body(plan: Plan, reason: str, repo_arg: str = ".", path_arg: str | None = None) -> str:
    lines = [f"**{output.describe(plan)}**", ""]
    if reason:
        lines += [f"Why: {reason}", ""]
    lines += [f"Phase: **{plan.phase} of 2**", ""]
    if plan.time_travel and plan.phase == 1:
        lines += ["### Time travel", ""] + [f"- {line}" for line in plan.time_travel] + [""]
    lines += _offsets_section(plan)
    lines += ["### Files", ""] + [f"- `{c.rel}` ({_verb(c)})" for c in plan.files] + [""]
    lines += ["### Next steps", ""] + [f"{i}. {step}" for i, step in
                                       enumerate(output.follow_up(plan, repo_arg, path_arg), 1)]
    lines += ["", "The one-shot `strimzi.io/connector-offsets` annotation is never committed: a GitOps sync would "
                  "re-apply it after the operator removes it and fire the operation again.",
              "", f"<sub>kubectl-offsets operation `{plan.operation_id}`</sub>"]
    return "\n".join(lines) + "\n"


def _offsets_section(plan: Plan) -> list[str]:
    if plan.phase == 2:
        return []
    if plan.before is None:
        shown = "every offset is reset" if plan.change is None else f"```json\n{plan.change.dumps()}\n```"
        return ["### Offsets", "", "Current offsets unknown (give --from-cluster or --before FILE to show them).",
                "", shown, ""]
    return ["### Offsets (before → after)", "", _markdown_table(plan), ""]


def _markdown_table(plan: Plan) -> str:
    """The before/after rows as a Markdown table (forges render it; a terminal table would not survive)."""
    topic_partitioned = plan.kind.topic_partitioned
    headers = ["TOPIC", "PARTITION"] if topic_partitioned else ["PARTITION"]
    if plan.kind is ConnectorKind.MIRROR_SOURCE:
        headers = ["CLUSTER", *headers]
    out = ["| " + " | ".join([*headers, "BEFORE", "AFTER", ""]) + " |", "|" + "---|" * (len(headers) + 3)]
    for row in plan.rows():
        cells = [*_partition_cells(plan.kind, row.partition), _offset(plan.kind, row.before),
                 _offset(plan.kind, row.after), "changed" if row.changed else ""]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _partition_cells(kind: ConnectorKind, partition) -> list[str]:
    if not kind.topic_partitioned:
        return [f"`{json.dumps(dict(partition), sort_keys=True)}`"]
    topic, number = cast("tuple[str, int]", topic_partition_of(kind, partition))  # a topic-partitioned kind
    cluster = [str(partition.get("cluster"))] if kind is ConnectorKind.MIRROR_SOURCE else []
    return [*cluster, topic, str(number)]


def _offset(kind: ConnectorKind, offset) -> str:
    if offset is None:
        return "-"
    if kind.topic_partitioned:
        return str(position_of(kind, offset))
    return f"`{json.dumps(dict(offset), sort_keys=True)}`"


def _verb(change: FileChange) -> str:
    return "new" if change.before is None else "deleted" if change.after is None else "edited"


__all__ = ["publish", "PublishRequest", "Published", "branch_name", "pr_body", "commit_message"]
