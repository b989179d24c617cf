"""`make lint` and `python -m tests.suite` (the first step of `make test`) run ruff over the same paths, and those
paths cover every Python file the repository tracks: code outside them would collect findings nobody sees."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests import suite

ROOT = Path(__file__).resolve().parents[3]


def _makefile_ruff_paths() -> list[str]:
    recipe = re.search(r"^lint:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe, "no lint target in the Makefile"
    command = next(line for line in recipe.group(1).splitlines() if "-m ruff check" in line)
    return command.split("ruff check", 1)[1].split()


def _suite_ruff_paths() -> list[str]:
    command = next(c for c in suite.LINTERS if "ruff" in c)
    return command[command.index("check") + 1:]


def test_make_lint_and_the_suite_run_ruff_over_the_same_paths():
    assert _makefile_ruff_paths() == _suite_ruff_paths()


def test_ruff_covers_every_tracked_python_file():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    assert tracked, "git ls-files found no Python file"
    top_level = {path.split("/", 1)[0] for path in tracked}
    assert top_level - set(_suite_ruff_paths()) == set()


def test_the_suite_compiles_the_plugin_once_and_lets_its_processes_keep_bytecode(tmp_path, monkeypatch):
    """tests.suite.compile_once: with PYTHONDONTWRITEBYTECODE set (as on CI's machines), every CLI process the tests
    start would compile the plugin from source again; after it, each module has a current .pyc and the variable is
    gone from what the suite's processes inherit."""
    import importlib.util
    import sys

    package = tmp_path / "kubectl_offsets"
    package.mkdir()
    (package / "thing.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(suite, "ROOT", tmp_path)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)

    suite.compile_once()

    assert "PYTHONDONTWRITEBYTECODE" not in os.environ and sys.dont_write_bytecode is False
    assert Path(importlib.util.cache_from_source(str(package / "thing.py"))).is_file()
