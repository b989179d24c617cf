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
from ...adapters.gitrepo import GitRepo, Stamp
from ...adapters.gitrepo import terminations_raise as cleanup_on_termination  # noqa: F401 (for the CLI)
from ...connect import ConnectorKind, position_of, topic_partition_of
from ...conventions import Operation
from ...errors import OffsetsError, PreconditionError
from . import output
from .plan import FileChange, Plan

Planner = Callable[[Path, str], Plan]  # (worktree root, base commit) -> plan
# The trailers on every commit we make. A commit without them is someone else's and is never removed from a branch;
# the target's lets a re-run tell this connector's earlier change (superseded) from another connector's (kept); the
# tree's tells our commit from one someone changed afterwards (amended, rebased), which keeps its trailers.
TRAILER_OPERATION = "Offsets-Operation"
TRAILER_TARGET = "Offsets-Target"
TRAILER_TREE = "Offsets-Tree"
# Branch names protected whatever the remote's HEAD says: a remote made by plain `git init --bare` names an unborn
# `master` there while the team pushes `main`, and an unreadable HEAD names nothing.
DEFAULT_BRANCH_NAMES = ("main", "master")


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
    allow_default_branch: bool = False  # may update a protected branch (see _protected_branches)


@dataclass
class Published:
    branch: str
    commit: str
    created_commit: bool
    pushed: bool = False
    direct: bool = False  # the commit went onto a protected branch (--allow-default-branch): no review follows
    pr_url: str | None = None
    pr_created: bool = False
    compare_url: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BranchUpdate:
    """One branch moving to ``new``, whose tree is ``base`` plus the plan's change, from every commit it is known
    to be at (``tips``: where each was seen, and the commit)."""

    branch: str
    tips: list[tuple[str, str]]
    base: str
    new: str
    target: str  # the Offsets-Target of this plan
    protected: dict[str, str]  # protected branch -> why


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
    """Validate every name (and, for --pr, the forge and project) first, build and commit in a temporary
    worktree, then move the branch through ``_update``, the one place a branch changes: it refuses any update that
    would remove a commit that is not this connector's unchanged kubectl-offsets change, pushes with the lease seen
    before the build, and moves the local branch. Nothing on a branch or remote changes before every check has
    passed."""
    pushing = request.push or request.pull_request
    _check_request(repo, request, pushing)
    base = repo.rev(request.base_ref)
    pr_base = _pr_base(repo, request) if request.pull_request else None
    forge_remote = _forge_remote(repo, request) if request.pull_request else None
    if request.branch:
        _check_not_checked_out(repo, request.branch, pushing)
    # The push lease: the remote's commit as seen now, before anything is built. Whatever lands there later (someone
    # else's push while we work) makes our push fail instead of being overwritten.
    early_lease = repo.remote_branch_commit(request.remote, request.branch) if pushing and request.branch else None
    with repo.worktree(base) as work:
        plan = planner(work, base)
        if not plan.files:
            raise PreconditionError("nothing to commit: the repository already holds this phase",
                                    advice="merge the existing branch, or run the next phase")
        output.write(plan, work)
        commit = repo.commit_in(work, [c.rel for c in plan.files],
                                lambda tree: commit_message(plan, request.reason, tree))
    branch = request.branch or branch_name(plan)
    if not request.branch:  # our own name: checked now that it is known (a reviewer may have checked it out)
        repo.check_branch_name(branch, "--branch")
        _check_not_checked_out(repo, branch, pushing)
    protected = _protected_branches(repo, request, pr_base, pushing)
    _check_protected(branch, protected, request, pushing)
    existing = repo.branch_commit(branch)
    lease = early_lease if request.branch else repo.remote_branch_commit(request.remote, branch) if pushing else None
    fetched = repo.fetched_branch_commit(request.remote, branch) if pushing else None
    tips = _tips(branch, request.remote, existing, fetched, lease)
    _check_fetched(repo, tips)
    newest = _newest(repo, branch, tips)
    new, created = _successor(repo, plan, commit, base, newest)
    update = BranchUpdate(branch, tips, base, new, target_key(plan), protected)
    if branch in protected and pushing and lease is not None:
        _check_one_commit_on_top(repo, branch, request.remote, lease, base)
    result = Published(branch, new, created, direct=branch in protected)
    result.notes += _notes(repo, plan, update, newest)
    _update(repo, update, request.remote if pushing else None, lease, existing, result)
    if request.pull_request:
        assert pr_base is not None and forge_remote is not None  # found above whenever a pull request is asked for
        _pull_request(plan, request, result, pr_base, forge_remote)
    return plan, result


def _notes(repo: GitRepo, plan: Plan, update: BranchUpdate, newest: tuple[str, str] | None) -> list[str]:
    notes = []
    if newest is not None and update.new != newest[1] and not repo.is_ancestor(newest[1], update.base):
        notes.append(f"{update.branch} held an earlier change of {plan.target.display} made by kubectl-offsets: the "
                     f"new commit goes on top of {newest[1][:12]} and supersedes it")
    if update.branch in update.protected:
        notes.append(f"{update.branch} is a protected branch ({update.protected[update.branch]}): the commit goes on "
                     "top of it directly, without review")
    return notes


def _update(repo: GitRepo, update: BranchUpdate, remote: str | None, lease: str | None, existing: str | None,
            result: Published) -> None:
    """The one place a branch changes, here or on the remote: first the check that nothing is lost, then the push
    (before the local branch moves: a refused push leaves the repository as it was), then the local branch. A
    branch checked out in a worktree is never moved under it (refused earlier without a push)."""
    _check_nothing_lost(repo, update)
    if remote is not None:
        repo.push(remote, update.branch, lease, source=update.new)
        result.pushed = lease != update.new
    worktree = repo.checked_out().get(update.branch)
    if worktree is not None:
        if update.new != existing:
            result.notes.append(f"{update.branch} is checked out in {_where(repo, worktree)}, so it was not moved "
                                f"there: run git pull --ff-only in it to bring it up to date")
        return
    if update.new != existing:
        repo.point_branch(update.branch, update.new, existing)


def _check_nothing_lost(repo: GitRepo, update: BranchUpdate) -> None:
    """A branch update never removes a commit unless it is one kubectl-offsets wrote for this connector, unchanged,
    on a branch that is not protected. The new commit's tree is --base plus the change, so moving the branch from
    a tip removes (drops from history, or reverts on top of it) every commit the tip has and --base does not."""
    for where, tip in update.tips:
        if tip == update.new or repo.is_ancestor(tip, update.base):
            continue
        removed = repo.stamps(tip, update.base, (TRAILER_OPERATION, TRAILER_TARGET, TRAILER_TREE))
        if update.branch in update.protected:
            raise PreconditionError(
                f"updating {update.branch} would drop {_listed(repo, [s.sha for s in removed])} from {where}: only a "
                "fast-forward of it is allowed",
                advice=f"bring your {update.branch} up to date (git pull --ff-only, or git rebase) and run again, or "
                       "choose another --branch")
        foreign = [(stamp, why) for stamp in removed if (why := _not_ours(stamp, update.target))]
        if foreign:
            raise PreconditionError(f"{where} has {_listed(repo, [s.sha for s, _ in foreign], [w for _, w in foreign])}"
                                    f" that this update would remove: refusing to overwrite or drop them",
                                    advice=_foreign_advice(update.target, [s for s, _ in foreign]))


def _not_ours(stamp: Stamp, target: str) -> str | None:
    """Why a commit is not this connector's unchanged kubectl-offsets change, or None when it is."""
    if stamp.trailer(TRAILER_OPERATION) is None:
        return "not made by kubectl-offsets"
    if stamp.trailer(TRAILER_TREE) is None:
        return "made before kubectl-offsets recorded each commit's tree, so an amended one cannot be told from it"
    if stamp.trailer(TRAILER_TREE) != stamp.tree:
        return "changed after kubectl-offsets made it"
    other = stamp.trailer(TRAILER_TARGET)
    if other != target:
        return f"made by kubectl-offsets for {_target_words(other)}"
    return None


def _target_words(key: str | None) -> str:
    """An Offsets-Target value as a user names the connector: ``kafkaconnector/NAME in namespace NS``."""
    kind, namespace, resource, connector = (key or "").split("/", 3) if (key or "").count("/") >= 3 else \
        ("", "", key or "another connector", "")
    words = f"{kind.lower()}/{resource}" if kind else resource
    if connector and connector != resource:
        words += f" --connector '{connector}'"
    return words + (f" in namespace {namespace}" if namespace else "")


def _foreign_advice(target: str, foreign: list[Stamp]) -> str:
    """Our own change for the same resource under another -n: say which -n the earlier run named."""
    ours = target.split("/")
    others = {stamp.trailer(TRAILER_TARGET) for stamp in foreign}
    if len(others) == 1 and all(stamp.trailer(TRAILER_TREE) == stamp.tree for stamp in foreign):
        other = (others.pop() or "").split("/")
        if len(other) == len(ours) == 4 and other[0::2] + other[3:] == ours[0::2] + ours[3:]:
            again = f"with -n {other[1]}" if other[1] else "without -n"
            return f"the earlier run named the same connector {again}: run again {again}, or choose another --branch"
    return ("choose another --branch, or drop --branch for a kubectl-offsets/... branch (review those commits first; "
            "delete the branch only if they are not wanted)")


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


def _forge_remote(repo: GitRepo, request: PublishRequest) -> forge.Remote:
    """The forge and project the request goes to: worked out before the first commit, so a remote URL that names
    neither is refused with nothing pushed."""
    if request.forge_project:
        kind = request.forge or "github"
        return forge.Remote(kind, "github.com" if kind == "github" else "gitlab.com", request.forge_project)
    return forge.parse_remote(repo.remote_url(request.remote), request.forge)


def _check_not_checked_out(repo: GitRepo, branch: str, pushing: bool) -> None:
    """A branch checked out in a worktree is never moved under it: its files would no longer match it (and the new
    commit would be reachable from nowhere). With a push the commit goes to the remote and the branch stays."""
    worktree = repo.checked_out().get(branch)
    if worktree is not None and not pushing:
        raise PreconditionError(f"--branch {branch} is checked out in {_where(repo, worktree)}: kubectl-offsets never "
                                "moves a checked-out branch under its files",
                                advice="drop --branch (a kubectl-offsets/... branch is made), check out another branch "
                                       "there first, or push the commit instead (--push; --allow-default-branch for a "
                                       "protected branch)")


def _where(repo: GitRepo, worktree: Path) -> str:
    return "--repo" if worktree.resolve() == repo.root.resolve() else str(worktree)


def _protected_branches(repo: GitRepo, request: PublishRequest, pr_base: str | None, pushing: bool
                        ) -> dict[str, str]:
    """Branches no update may remove anything from, and that a push may only update with --allow-default-branch
    (they are what review protects), each with why: main and master, the remote's default branch (asked of the
    remote when pushing, and as the last clone or fetch recorded it), every branch checked out in a worktree, and
    the request's base."""
    names: dict[str, str] = {name: "a default branch name" for name in DEFAULT_BRANCH_NAMES}
    for name in (repo.fetched_default_branch(request.remote),
                 repo.remote_default_branch(request.remote) if pushing else None):
        if name:
            names[name] = f"the default branch of {request.remote}"
    for name, worktree in repo.checked_out().items():
        names[name] = f"checked out in {_where(repo, worktree)}"
    for name in (pr_base, request.target_branch):
        if name:
            names[name] = "the pull request's base"
    return names


def _check_protected(branch: str, protected: dict[str, str], request: PublishRequest, pushing: bool) -> None:
    if pushing and branch in protected and not request.allow_default_branch:
        raise PreconditionError(f"--branch {branch} is protected ({protected[branch]}): pushing there would bypass "
                                "review",
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


def _check_fetched(repo: GitRepo, tips: list[tuple[str, str]]) -> None:
    """A tip this repository does not have cannot be checked for what an update would remove."""
    for where, tip in tips:
        if not repo.has_commit(tip):
            raise PreconditionError(f"{where} is at {tip[:12]}, a commit this repository has not fetched: refusing "
                                    "to update it without knowing what it holds",
                                    advice="git fetch, then run again")


def _check_one_commit_on_top(repo: GitRepo, branch: str, remote: str, lease: str, base: str) -> None:
    """--allow-default-branch adds our one commit to the remote's default branch, nothing else: unpushed commits
    of --base would otherwise reach it unreviewed along with ours."""
    if lease != base and repo.is_ancestor(lease, base):  # not an ancestor: _check_nothing_lost names what is lost
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


def _successor(repo: GitRepo, plan: Plan, commit: str, base: str, newest: tuple[str, str] | None
               ) -> tuple[str, bool]:
    """The commit the branch moves to, and whether it is new. A tip holding the same change (same operation, same
    tree) is kept: re-running with the same input commits and pushes nothing new. A tip ahead of --base gets the
    new commit on top of it (--base becomes a second parent when the tip does not have it yet), so the branch and
    its pull request move forward; whether what that supersedes may go is _check_nothing_lost's question."""
    if newest is None or repo.is_ancestor(newest[1], base):
        return commit, True
    tip = newest[1]
    if repo.tree_of(tip) == repo.tree_of(commit) and repo.trailer(tip, TRAILER_OPERATION) == plan.operation_id:
        return tip, False  # same input: keep the commit we made before
    parents = [tip] if repo.is_ancestor(base, tip) else [tip, base]
    return repo.commit_on_top(commit, parents), True


def _commits(repo: GitRepo, tip: str, base: str) -> str:
    return _listed(repo, repo.commits_only_in(tip, base))


def _listed(repo: GitRepo, commits: list[str], why: list[str] | None = None, limit: int = 5) -> str:
    """``1a2b3c4 "subject"``, newest first, each with why it counts when given; a long list is cut with its count."""
    shown = ", ".join(repo.describe_commit(c) + (f" ({why[i]})" if why else "") for i, c in enumerate(commits[:limit]))
    more = f" and {len(commits) - limit} more" if len(commits) > limit else ""
    return f"{len(commits)} commit{'s' if len(commits) != 1 else ''} ({shown}{more})"


def _pull_request(plan: Plan, request: PublishRequest, result: Published, pr_base: str, remote: forge.Remote
                  ) -> None:
    if not request.target_branch:
        result.notes.append(f"the pull request's base is {pr_base}, the branch checked out in --repo "
                            "(choose another with --pr-base)")
    result.compare_url = forge.compare_url(remote, pr_base, result.branch)
    token = forge.token_for(remote)
    if token is None:
        result.notes.append(f"no {forge.TOKEN_ENV[remote.forge]} in the environment: open the request at "
                            f"{result.compare_url}")
        return
    try:
        result.pr_url, result.pr_created = forge.open_request(
            remote, token, base=pr_base, branch=result.branch, title=pr_title(plan),
            body=pr_body(plan, request.reason, request.repo_in_git, request.path_arg), api=request.forge_url)
    except OffsetsError as error:
        # The branch is on the remote already: say exactly what is there, and where a person opens the request.
        pushed = f"pushed {result.branch} ({result.commit[:12]}) to {request.remote}" if result.pushed else \
            f"{result.branch} ({result.commit[:12]}) is on {request.remote}"
        raise type(error)(f"{pushed}, but the {remote.request_words} was not opened: {error.message}",
                          advice=f"open it by hand at {result.compare_url}"
                                 + (f" ({error.advice})" if error.advice else "")) from None


# --- texts ----------------------------------------------------------------------------------------------------


def pr_title(plan: Plan) -> str:
    target = plan.target
    if plan.phase == 1:
        verb = Operation.ALTER if plan.operation == Operation.ALTER else Operation.RESET
        return f"offsets: stop {target.connector_name} and {verb} its offsets (phase 1 of 2)"
    return f"offsets: resume {target.connector_name} after the {plan.operation} (phase 2 of 2)"


def commit_message(plan: Plan, reason: str, tree: str) -> str:
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
               f"Offsets-Phase: {plan.phase}\n{TRAILER_TREE}: {tree}"
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
