"""What the user docs show is what the plugin does (issue 30): the README's examples that need no cluster run as
written, the GitOps example's diff is what the command prints, and every link between the docs leads somewhere.
The examples that need a cluster run in the demo (examples/demo.py, tests/integration/demo/)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").glob("*/README.md"))]
NO_CLUSTER = "<!-- runs without a cluster -->"

# A fixed author, committer and time: the operation id, and so the names in the diff, derive from the base commit.
GIT_ENV = {"GIT_AUTHOR_NAME": "example", "GIT_AUTHOR_EMAIL": "example@example.com",
           "GIT_AUTHOR_DATE": "2026-11-21T09:00:00Z", "GIT_COMMITTER_NAME": "example",
           "GIT_COMMITTER_EMAIL": "example@example.com", "GIT_COMMITTER_DATE": "2026-11-21T09:00:00Z"}
PHASE1_PROD = ["gitops", "alter", "orders-sink", "-n", "prod", "--repo", ".", "--set", "orders:0=1200", "--set",
               "orders:1=900", "-o", "diff"]


def kubectl_offsets(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`kubectl offsets ARGS` as the plugin executable runs it (kubectl only adds the dispatch)."""
    return subprocess.run([sys.executable, "-m", "kubectl_offsets", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={**os.environ, **GIT_ENV, "PYTHONPATH": str(ROOT), "COLUMNS": "80"},
                          stdin=subprocess.DEVNULL)


def example_repository(tmp_path: Path) -> Path:
    """examples/gitops/repo as its README sets it up: a copy, one commit (made reproducible by GIT_ENV)."""
    repo = tmp_path / "deploy"
    shutil.copytree(ROOT / "examples" / "gitops" / "repo", repo)
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        subprocess.run(command, cwd=repo, check=True, env={**os.environ, **GIT_ENV})
    return repo


def test_the_gitops_examples_diff_is_what_phase_1_prints(tmp_path):
    """It had drifted by a line (the ConfigMap's namespace); regenerate it with this command if the format changes
    on purpose."""
    done = kubectl_offsets(PHASE1_PROD, example_repository(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (ROOT / "examples" / "gitops" / "phase1-prod.diff").read_text()


def readme_examples() -> list[str]:
    """Every `kubectl offsets ...` line of the README's code blocks marked as needing no cluster."""
    text = (ROOT / "README.md").read_text()
    lines = []
    for block in re.findall(re.escape(NO_CLUSTER) + r"\n```\w*\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip().removeprefix("$ ")
            inner = re.fullmatch(r"source <\((kubectl offsets .*)\)", line)  # a script the shell loads
            line = inner.group(1) if inner else line
            if line.startswith("kubectl offsets "):
                lines.append(line)
    return lines


def test_the_readme_marks_its_examples_that_need_no_cluster():
    assert len(readme_examples()) >= 5, readme_examples()


@pytest.mark.parametrize("line", readme_examples())
def test_each_readme_example_that_needs_no_cluster_works_as_shown(tmp_path, line):
    repo = example_repository(tmp_path)
    args = shlex.split(line)[2:]
    args = [str(repo) if a == "./deploy" else a for a in args]
    done = kubectl_offsets(args, tmp_path)
    assert done.returncode == 0, f"{line}\n{done.stderr}"
    assert done.stdout.strip() and "Traceback" not in done.stderr


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file."""
    found, in_code = set(), False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_between_the_docs_leads_somewhere(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # an outside address
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"
