"""A pytest plugin (``-p tests.reruns --reruns-log FILE``) that writes one JSON line per rerun to FILE: the test id,
the phase that failed (setup, call, teardown) and the first line of that failure.

pytest-rerunfailures reports a rerun as the outcome "rerun" and keeps it out of the junit XML, so the suite
(tests/suite.py) could only find reruns by reading pytest's terminal output. With this file it names every rerun in
its closing summary, and fails the run on one (unless ``--forgive-reruns``). Under xdist only the controller writes:
the workers' reports reach it through ``pytest_runtest_logreport``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--reruns-log", default=None, metavar="FILE",
                     help="append one JSON line per rerun (test id, phase, the failure's first line) to FILE")


def _message(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    return crash.message if crash is not None else str(report.longrepr or "")


def detail_lines(report, limit: int = 8) -> list[str]:
    """The lines of the failure's message after its first (an assertion's explanation, a table's failed rows), so
    that a rerun's cause can be found from the suite's output alone: the rerun that passed shows no traceback."""
    lines = [line.strip() for line in _message(report).splitlines() if line.strip()]
    return [line[:300] for line in lines[1:1 + limit]]


def first_line(report) -> str:
    """The failure's one-line reason, as pytest's short summary shows it (the exception and its message)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr or "")
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    if report.outcome != "rerun":
        return
    path = controller_log(_CONFIG.get("config"), "reruns_log")
    if path is None:
        return
    line = {"nodeid": report.nodeid, "when": report.when, "reason": first_line(report),
            "detail": detail_lines(report)}
    with path.open("a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")


def controller_log(config, option: str) -> Path | None:
    """The file ``option`` names, in the process that writes it: pytest itself, or under xdist its controller (the
    workers' reports reach it through ``pytest_runtest_logreport``); None in a worker or without the option."""
    path = config.getoption(option) if config is not None else None
    if not path or hasattr(config, "workerinput"):
        return None
    return Path(path)


_CONFIG: dict = {}


def pytest_configure(config):
    _CONFIG["config"] = config


def read(path: Path) -> list[dict]:
    """The reruns a log holds, the first failure of each test only (in the order they happened)."""
    if not path.exists():
        return []
    seen: dict[str, dict] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            entry = json.loads(text)
            seen.setdefault(entry["nodeid"], entry)
    return list(seen.values())
