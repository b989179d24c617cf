"""git through its command line (subprocess): worktrees, commits, branches, push. The user's own git config,
credentials and hooks apply, exactly as if they typed the commands.

We never touch the user's checkout: a change is built in a temporary worktree at the base commit, committed there
and pointed to by the branch. Re-running with the same input produces the same tree on the same base, which we
detect and keep (no second commit, nothing to push).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from ..errors import InputError, OffsetsError, PreconditionError


class GitError(OffsetsError):
    """A git command failed."""


@dataclass(frozen=True)
class Stamp:
    """What a commit says about itself: its tree and the values of some of its trailers (each key: every value)."""

    sha: str
    tree: str
    trailers: dict[str, list[str]]

    def trailer(self, key: str) -> str | None:
        """The trailer's value when the commit has it exactly once."""
        values = self.trailers.get(key) or []
        return values[0] if len(values) == 1 else None


def _completed(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    except FileNotFoundError:
        raise GitError("git is not installed", advice="install git, or drop --commit/--branch/--push/--pr") from None


def _run(args: list[str], cwd: Path, *, check: bool = True, env: dict[str, str] | None = None) -> str:
    result = _completed(args, cwd, env)
    if check and result.returncode != 0:
        raise GitError(f"git {args[0]} failed: {result.stderr.strip() or result.stdout.strip()}",
                       advice="run the git command yourself in the repository to see why")
    return result.stdout.strip()


def check_name(value: str, flag: str) -> None:
    """A name given on the command line that will be passed to git: never something git could read as an option
    (``--remote '--upload-pack=...'``)."""
    if not value or value.startswith("-"):
        raise InputError(f"{flag} {_quoted(value)} is not a valid name (it would be read as a git option)",
                         advice=f"give {flag} a name that does not start with '-'")


def _quoted(value: str) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:56] + "...'"


@contextlib.contextmanager
def terminations_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP end the process through Python's exit path, so every ``finally`` (the worktree removal)
    runs; by default they kill the interpreter where it stands. Only the main thread may install handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def exit_now(signum, _frame):
        raise SystemExit(128 + signum)

    previous = {s: signal.signal(s, exit_now) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


class GitRepo:
    def __init__(self, root: Path):
        self.root = root

    @classmethod
    def find(cls, path: Path) -> "GitRepo | None":
        """The repository containing ``path``, or None if it is not in one (or git is missing)."""
        if shutil.which("git") is None:
            return None
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=path, capture_output=True, text=True)
        return cls(Path(out.stdout.strip())) if out.returncode == 0 else None

    def listed_files(self, directory: Path) -> list[str]:
        """Files below ``directory`` that git tracks, or could (untracked and not ignored), relative to it. Git
        lists a symlink as itself and never enters it."""
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
                             cwd=directory, capture_output=True, check=True).stdout
        return sorted({name for name in out.decode("utf-8", "surrogateescape").split("\0") if name})

    def rev(self, ref: str) -> str:
        check_name(ref, "--base")
        out = _run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], self.root,
                   check=False)
        if not out:
            raise InputError(f"--base {_quoted(ref)} is not a commit of this repository",
                             advice="name a branch, tag or commit (default: HEAD)")
        return out

    def check_branch_name(self, branch: str, flag: str) -> None:
        check_name(branch, flag)
        result = subprocess.run(["git", "check-ref-format", f"refs/heads/{branch}"], cwd=self.root,
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise InputError(f"{flag} {_quoted(branch)} is not a valid branch name",
                             advice="see 'git check-ref-format --help' for the rules")

    def check_remote(self, remote: str) -> None:
        check_name(remote, "--remote")
        if remote not in _run(["remote"], self.root).split():
            raise InputError(f"--remote {_quoted(remote)} is not a remote of this repository",
                             advice="list them with 'git remote -v', or add one with 'git remote add'")

    def trailer(self, commit: str, key: str) -> str | None:
        """The value of trailer ``key`` in ``commit``'s message (how we recognise commits we made)."""
        out = _run(["show", "-s", f"--format=%(trailers:key={key},valueonly)", "--end-of-options", commit],
                   self.root, check=False)
        return out.strip() or None

    def has_commit(self, sha: str) -> bool:
        return bool(_run(["cat-file", "-t", sha], self.root, check=False) == "commit")

    def remote_default_branch(self, remote: str) -> str | None:
        """The branch the remote's HEAD names (``git ls-remote --symref``), or None if it names none (an unborn
        HEAD, as a plain ``git init --bare`` leaves it) or cannot be read."""
        out = _run(["ls-remote", "--symref", "--", remote, "HEAD"], self.root, check=False)
        for line in out.splitlines():
            if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
                return line[len("ref: refs/heads/"):-len("\tHEAD")]
        return None

    def fetched_default_branch(self, remote: str) -> str | None:
        """The branch ``refs/remotes/REMOTE/HEAD`` names (set by ``git clone``), read without asking the remote."""
        out = _run(["symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD"], self.root, check=False)
        prefix = f"refs/remotes/{remote}/"
        return out[len(prefix):] if out.startswith(prefix) else None

    def checked_out(self) -> dict[str, Path]:
        """Every branch checked out in a worktree of this repository (this one included), with its worktree."""
        out = _run(["worktree", "list", "--porcelain"], self.root)
        found: dict[str, Path] = {}
        path = None
        for line in out.splitlines():
            if line.startswith("worktree "):
                path = Path(line[len("worktree "):])
            elif line.startswith("branch refs/heads/") and path is not None:
                found[line[len("branch refs/heads/"):]] = path
        return found

    def branch_commit(self, branch: str) -> str | None:
        out = _run(["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], self.root, check=False)
        return out or None

    def current_branch(self) -> str | None:
        return _run(["symbolic-ref", "--quiet", "--short", "HEAD"], self.root, check=False) or None

    def tree_of(self, commit: str) -> str:
        return _run(["rev-parse", f"{commit}^{{tree}}"], self.root)

    def parent_of(self, commit: str) -> str | None:
        return _run(["rev-parse", "--verify", "--quiet", f"{commit}^"], self.root, check=False) or None

    def remote_url(self, remote: str) -> str:
        check_name(remote, "--remote")
        url = _run(["remote", "get-url", "--", remote], self.root, check=False)
        if not url:
            raise PreconditionError(f"the repository has no remote '{remote}'", advice="add it or pass --remote")
        return url

    @contextlib.contextmanager
    def worktree(self, base: str) -> Iterator[Path]:
        """A detached temporary worktree at ``base``; removed afterwards whatever happens."""
        with terminations_raise():
            parent = Path(tempfile.mkdtemp(prefix="kubectl-offsets-"))
            path = parent / "work"
            try:
                _run(["worktree", "add", "--detach", "--quiet", "--", str(path), base], self.root)
                yield path
            finally:
                _run(["worktree", "remove", "--force", "--", str(path)], self.root, check=False)
                shutil.rmtree(parent, ignore_errors=True)
                _run(["worktree", "prune"], self.root, check=False)  # if the removal itself was cut short

    def commit_in(self, worktree: Path, paths: list[str], message_for: Callable[[str], str]) -> str:
        """Stage exactly ``paths`` (added, changed or deleted) and commit with the message ``message_for(tree)``
        gives for the commit's own tree; returns the new commit. The user's hooks run, as for their own commits;
        when a pre-commit hook changed what is staged, the commit is made again (``commit-tree``, no hook runs
        twice) with the message naming the tree it really has."""
        _run(["add", "--all", "--", *paths], worktree)
        staged = _run(["write-tree"], worktree)
        _run(["commit", "--quiet", "-m", message_for(staged)], worktree)
        commit = _run(["rev-parse", "HEAD"], worktree)
        tree = self.tree_of(commit)
        if tree == staged:
            return commit
        parents = _run(["rev-list", "--parents", "-n", "1", commit], self.root).split()[1:]
        return _run(["commit-tree", tree, *[a for p in parents for a in ("-p", p)], "-m", message_for(tree)],
                    self.root)

    def point_branch(self, branch: str, commit: str, expected: str | None) -> None:
        """Point ``branch`` at ``commit`` only if it still is where the caller checked it (``expected``, None = it
        must not exist yet): ``git update-ref`` compares and swaps atomically."""
        _run(["update-ref", "-m", "kubectl-offsets gitops", "--", f"refs/heads/{branch}", commit,
              expected or "0" * 40], self.root)

    def push(self, remote: str, branch: str, lease: str | None, source: str) -> None:
        """Push ``source`` (a commit) to the remote's ``branch``, replacing the remote's version only if it still
        is ``lease`` (the commit seen when the branch was made; None = the remote must not have the branch)."""
        args = ["push", "--quiet", f"--force-with-lease=refs/heads/{branch}:{lease or ''}", "--", remote,
                f"{source}:refs/heads/{branch}"]
        result = _completed(args, self.root)
        if result.returncode != 0 and "(stale info)" in result.stderr:
            raise PreconditionError(f"{branch} on {remote} changed while the commit was being made (someone pushed "
                                    "to it): nothing was pushed", advice=f"git fetch {remote}, look at what "
                                    "arrived, bring your branch up to date (git pull --ff-only) and run again")
        if result.returncode != 0:
            raise GitError(f"git push failed: {result.stderr.strip() or result.stdout.strip()}",
                           advice="run the git command yourself in the repository to see why")

    def remote_branch_commit(self, remote: str, branch: str) -> str | None:
        """The remote's ``branch`` as it is now (``git ls-remote``)."""
        out = _run(["ls-remote", "--heads", "--", remote, f"refs/heads/{branch}"], self.root)
        return out.split()[0] if out else None

    def fetched_branch_commit(self, remote: str, branch: str) -> str | None:
        """The remote's ``branch`` as last fetched (``refs/remotes/REMOTE/BRANCH``), or None if never fetched."""
        out = _run(["rev-parse", "--verify", "--quiet", f"refs/remotes/{remote}/{branch}"], self.root, check=False)
        return out or None

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """True if ``descendant`` has ``ancestor`` in its history (or is it): moving a branch from ``ancestor`` to
        ``descendant`` loses nothing."""
        result = _completed(["merge-base", "--is-ancestor", ancestor, descendant], self.root)
        if result.returncode not in (0, 1):
            raise GitError(f"git merge-base failed: {result.stderr.strip()}",
                           advice="run the git command yourself in the repository to see why")
        return result.returncode == 0

    def commits_only_in(self, tip: str, base: str) -> list[str]:
        """The commits ``tip`` has and ``base`` does not, newest first (what moving a branch from ``tip`` to a
        descendant of ``base`` alone would drop)."""
        return _run(["rev-list", tip, "--not", base, "--"], self.root).split()

    def stamps(self, tip: str, base: str, keys: tuple[str, ...]) -> list[Stamp]:
        """The commits ``tip`` has and ``base`` does not, newest first, each with its tree and the values of the
        trailers ``keys`` (one git call however long the branch is)."""
        # Control characters that str.strip() keeps (it strips \x1c-\x1f as whitespace): record, field, value.
        fields = "%x01".join(f"%(trailers:key={key},valueonly,separator=%x02)" for key in keys)
        out = _run(["log", f"--format=%x00%H%x01%T%x01{fields}", tip, "--not", base, "--"], self.root)
        stamps = []
        for record in out.split("\x00")[1:]:
            sha, tree, *values = record.strip().split("\x01")
            trailers = {key: [v.strip() for v in value.split("\x02") if v.strip()] for key, value in zip(keys, values)}
            stamps.append(Stamp(sha, tree, trailers))
        return stamps

    def describe_commit(self, commit: str) -> str:
        """Short hash and subject, the way a user recognises a commit: ``1a2b3c4 "add monitoring"``."""
        short, _, subject = _run(["show", "-s", "--format=%h %s", commit], self.root).partition(" ")
        return f'{short} "{subject}"'

    def commit_on_top(self, commit: str, parents: list[str]) -> str:
        """A commit with ``commit``'s tree and message but ``parents`` as its parents: the same change, recorded
        as a successor of what a branch already holds so that moving the branch to it is a fast-forward."""
        message = _run(["show", "-s", "--format=%B", commit], self.root)
        args = ["commit-tree", self.tree_of(commit)]
        for parent in parents:
            args += ["-p", parent]
        return _run([*args, "-m", message], self.root)
