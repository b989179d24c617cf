"""Shared helpers for the GitOps tests: fixture repositories copied to a temp dir, tree snapshots, the CLI."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "gitops"


def copy_fixture(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(FIXTURES / name, dest, symlinks=True)  # a fixture's symlinks are part of its shape
    return dest


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
            and not p.is_symlink() and ".git" not in p.relative_to(root).parts}


def cli(*args: str):
    """Run ``kubectl offsets ARGS`` in-process; returns click's Result (exit_code, stdout, stderr)."""
    from kubectl_offsets.cli.root import root

    return CliRunner().invoke(root, list(args), catch_exceptions=False)


# Lines a phase-1 edit may add or replace in an existing file; anything else changing is a failure.
ALLOWED_LINE = re.compile(
    r"^\s*(state: .*|alterOffsets:|fromConfigMap:|name: [a-z0-9.-]+-offsets-[0-9a-f]{8}|annotations:|"
    r"kubectl-offsets\.io/gitops: '\{.*\}'|- [a-z0-9.-]+\.yaml|- path: [a-z0-9.-]+\.yaml|resources:|patches:|"
    r"heartbeatConnector:(\s*\{\})?|metadata: \{.*\})\s*(#.*)?$")


def unexpected_changes(before: str, after: str) -> list[str]:
    """Original lines removed/replaced and new lines added that are not the intended kind of line."""
    a, b = before.splitlines(), after.splitlines()
    bad = []
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        bad += [f"-{line}" for line in a[a1:a2] if not ALLOWED_LINE.match(line)]
        bad += [f"+{line}" for line in b[b1:b2] if not ALLOWED_LINE.match(line)]
    return bad
