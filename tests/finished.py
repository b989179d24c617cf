"""A pytest plugin (``-p tests.finished --finished-log FILE``) that appends each test's id to FILE once the test is
over (its teardown reported), whatever its outcome.

The suite (tests/suite.py) reads it while the phase still runs: the era matrix starts once the parallel phase's demos
are over, since their environments (one per Strimzi release) make the run's memory peak, and the eras' two
environments fit beside what is left. A junit report is written only when its phase ends: too late for that. Under
xdist only the controller writes: the workers' reports reach it through ``pytest_runtest_logreport``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.reruns import controller_log

_CONFIG: dict = {}


def pytest_addoption(parser):
    parser.addoption("--finished-log", default=None, metavar="FILE",
                     help="append the id of each test to FILE once its teardown is over")


def pytest_configure(config):
    _CONFIG["config"] = config


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    if report.when != "teardown":
        return
    path = controller_log(_CONFIG.get("config"), "finished_log")
    if path is not None:
        with path.open("a", encoding="utf-8") as log:
            log.write(report.nodeid + "\n")


def read(path: Path) -> set[str]:
    """The ids of the tests the log says are over (none when it does not exist yet)."""
    if not path.exists():
        return set()
    return {line for line in path.read_text(encoding="utf-8").splitlines() if line}
