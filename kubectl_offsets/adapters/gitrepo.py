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
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from ..errors import OffsetsError, PreconditionError


class GitError(OffsetsError):
    """A git command failed."""


def _run(args: list[str], cwd: Path, *, check: bool = True, env: dict[str, str] | None = None) -> str:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                env={**os.environ, **(env or {})})
    except FileNotFoundError:
        raise GitError("git is not installed", advice="install git, or drop --commit/--branch/--push/--pr") from None
    if check and result.returncode != 0:
        raise GitError(f"git {' '.join(args[:2])} failed: {result.stderr.strip() or result.stdout.strip()}",
                       advice=f"run it yourself in {cwd} to see why")
    return result.stdout.strip()


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

    def rev(self, ref: str) -> str:
        return _run(["rev-parse", "--verify", f"{ref}^{{commit}}"], self.root)

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
        url = _run(["remote", "get-url", remote], self.root, check=False)
        if not url:
            raise PreconditionError(f"the repository has no remote '{remote}'", advice="add it or pass --remote")
        return url

    @contextlib.contextmanager
    def worktree(self, base: str) -> Iterator[Path]:
        """A detached temporary worktree at ``base``; removed afterwards whatever happens."""
        parent = Path(tempfile.mkdtemp(prefix="kubectl-offsets-"))
        path = parent / "work"
        _run(["worktree", "add", "--detach", "--quiet", str(path), base], self.root)
        try:
            yield path
        finally:
            _run(["worktree", "remove", "--force", str(path)], self.root, check=False)
            shutil.rmtree(parent, ignore_errors=True)

    def commit_in(self, worktree: Path, paths: list[str], message: str) -> str:
        """Stage exactly ``paths`` (added, changed or deleted) and commit; returns the new commit."""
        _run(["add", "--all", "--", *paths], worktree)
        _run(["commit", "--quiet", "-m", message], worktree)  # the user's hooks run, as for their own commits
        return _run(["rev-parse", "HEAD"], worktree)

    def point_branch(self, branch: str, commit: str) -> None:
        _run(["branch", "--force", branch, commit], self.root)

    def push(self, remote: str, branch: str) -> str:
        """Push the branch (replacing our own earlier version of it, never someone else's newer work)."""
        remote_sha = self.remote_branch_commit(remote, branch)
        lease = f"--force-with-lease=refs/heads/{branch}:{remote_sha or ''}"
        _run(["push", "--quiet", lease, remote, f"refs/heads/{branch}:refs/heads/{branch}"], self.root)
        return remote_sha or ""

    def remote_branch_commit(self, remote: str, branch: str) -> str | None:
        out = _run(["ls-remote", "--heads", remote, f"refs/heads/{branch}"], self.root)
        return out.split()[0] if out else None
