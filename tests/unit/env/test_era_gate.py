"""The era matrix starts once the parallel phase's demos are over (tests/suite.py, start_eras_after_the_demos): their
environments make the run's memory peak. tests/finished.py tells the suite, while the phase runs, which tests are
over: a real pytest (and xdist, whose controller alone writes) runs tests that pass, fail and sleep."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests import finished, suite
from tests.integration.demo.test_make_demo import RELEASES

ROOT = Path(__file__).resolve().parents[3]

TESTS = '''
import time

def test_quick():
    pass

def test_fails():
    assert False

def test_slow():
    time.sleep(0.5)
'''


@pytest.mark.parametrize("extra", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_each_test_is_logged_once_it_is_over_whatever_its_outcome(tmp_path, extra):
    (tmp_path / "test_three.py").write_text(TESTS)
    log = tmp_path / "finished"
    result = subprocess.run([sys.executable, "-m", "pytest", str(tmp_path / "test_three.py"), "-p", "tests.finished",
                             f"--finished-log={log}", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                             *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)

    assert result.returncode == 1, result.stdout + result.stderr  # test_fails
    lines = log.read_text().splitlines()
    assert sorted(lines) == ["test_three.py::test_fails", "test_three.py::test_quick", "test_three.py::test_slow"]


def test_no_log_is_no_test_over(tmp_path):
    assert finished.read(tmp_path / "missing") == set()


class _Eras:
    def __init__(self):
        self.started: list[str] = []

    def start(self, why: str) -> None:
        self.started.append(why)


def _demo(n: int) -> str:
    return f"{suite.DEMO_TESTS}test_make_demo.py::test_make_demo[{n}]"


def test_the_eras_start_once_every_demo_is_over_and_not_before(tmp_path):
    log, eras = tmp_path / "phase-1.finished", _Eras()
    gate = suite.start_eras_after_the_demos(eras, log, [threading.Event()], threading.Event(), poll=0.01)
    # other tests over, and every demo but one: still waiting
    log.write_text("".join(f"{line}\n" for line in ["tests/unit/test_x.py::test_a",
                                                     *(_demo(n) for n in range(len(RELEASES) - 1))]))
    time.sleep(0.2)
    assert eras.started == [] and gate.is_alive()

    with log.open("a") as out:
        out.write(_demo(len(RELEASES) - 1) + "\n")
    gate.join(5)

    assert not gate.is_alive()
    assert eras.started == ["the demos are over"]


def test_a_run_without_the_demos_starts_the_eras_when_the_fault_matrices_are_over(tmp_path):
    faults_over, eras = threading.Event(), _Eras()
    gate = suite.start_eras_after_the_demos(eras, tmp_path / "phase-1.finished", [faults_over, threading.Event()],
                                            threading.Event(), poll=0.01)
    time.sleep(0.1)
    assert eras.started == []

    faults_over.set()
    gate.join(5)

    assert eras.started == ["the fault matrices or the parallel phase are over before the demos"]


def test_an_interrupted_run_starts_no_era(tmp_path):
    parallel_over, interrupted, eras = threading.Event(), threading.Event(), _Eras()
    gate = suite.start_eras_after_the_demos(eras, tmp_path / "phase-1.finished", [parallel_over], interrupted,
                                            poll=0.01)
    interrupted.set()
    parallel_over.set()
    gate.join(5)

    assert not gate.is_alive() and eras.started == []


def test_every_phase_logs_its_finished_tests_where_the_gate_reads_them(tmp_path, monkeypatch):
    """run_phase tells pytest to load the plugin and write the log that start_eras_after_the_demos reads."""
    commands = []
    monkeypatch.setattr(suite.subprocess, "call", lambda cmd, **_: commands.append(cmd) or 0)
    report = tmp_path / "phase-1.xml"

    with open(tmp_path / "log", "w") as log:
        suite.run_phase(suite.Phase("parallel", "not slow", 4), "env.json", [], report, log=log)

    [cmd] = commands
    assert cmd[cmd.index("tests.finished") - 1] == "-p"
    assert f"--finished-log={suite.finished_log(report)}" in cmd
