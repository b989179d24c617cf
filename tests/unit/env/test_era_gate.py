"""The era matrix starts as the parallel phase's demos end, one era per demo over, the longest era first (tests/suite.py,
start_eras_after_the_demos): the demos' environments make the run's memory peak, and an era's takes the place of one.
tests/finished.py tells the suite, while the phase runs, which tests are over: a real pytest (and xdist, whose
controller alone writes) runs tests that pass, fail and sleep."""
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
    def __init__(self, eras=("0.51", "0.45")):
        self.eras = list(eras)
        self.started: list[tuple[str, str]] = []

    def start(self, era: str, why: str) -> None:
        self.started.append((era, why))


def _demo(n: int) -> str:
    return f"{suite.DEMO_TESTS}test_make_demo.py::test_make_demo[{n}]"


def _finish(log: Path, *lines: str) -> None:
    with log.open("a") as out:
        out.writelines(f"{line}\n" for line in lines)


def test_each_era_starts_once_one_more_demo_is_over_and_not_before(tmp_path):
    log, eras = tmp_path / "phase-1.finished", _Eras()
    gate = suite.start_eras_after_the_demos(eras, log, [threading.Event()], threading.Event(), poll=0.01)
    _finish(log, "tests/unit/test_x.py::test_a")  # other tests over, no demo: nothing starts
    time.sleep(0.2)
    assert eras.started == [] and gate.is_alive()

    _finish(log, _demo(0))
    time.sleep(0.2)
    assert eras.started == [("0.51", f"1 of the {len(RELEASES)} demos over")] and gate.is_alive()

    _finish(log, *(_demo(n) for n in range(1, len(RELEASES))))
    gate.join(5)

    assert not gate.is_alive()
    assert [era for era, _ in eras.started] == ["0.51", "0.45"]


def test_eras_beyond_the_demos_start_once_every_demo_is_over(tmp_path):
    log, eras = tmp_path / "phase-1.finished", _Eras(eras=[f"era{n}" for n in range(len(RELEASES) + 2)])
    gate = suite.start_eras_after_the_demos(eras, log, [threading.Event()], threading.Event(), poll=0.01)
    _finish(log, *(_demo(n) for n in range(len(RELEASES) - 1)))
    time.sleep(0.2)
    assert len(eras.started) == len(RELEASES) - 1 and gate.is_alive()

    _finish(log, _demo(len(RELEASES) - 1))
    gate.join(5)

    assert [era for era, _ in eras.started] == eras.eras
    assert eras.started[-1][1] == "the demos are over"


def test_the_era_serving_two_api_versions_comes_first():
    """It runs its MirrorMaker 2 and GitOps scenarios once per served version: the longest chain of the era matrix."""
    eras = suite.EraMatrix(2, [], Path("/nonexistent"))

    assert eras.eras == ["0.51", "0.45"]


def test_a_run_without_the_demos_starts_the_eras_when_the_fault_matrices_are_over(tmp_path):
    faults_over, eras = threading.Event(), _Eras()
    gate = suite.start_eras_after_the_demos(eras, tmp_path / "phase-1.finished", [faults_over, threading.Event()],
                                            threading.Event(), poll=0.01)
    time.sleep(0.1)
    assert eras.started == []

    faults_over.set()
    gate.join(5)

    why = "the fault matrices or the parallel phase are over before the demos"
    assert eras.started == [("0.51", why), ("0.45", why)]


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
