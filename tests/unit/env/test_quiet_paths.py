"""Nothing in the suite passes quietly (issue 32): a missing emulator, a phase that selects no test and a peak
memory over the bound each fail the run, and the closing tally counts the harness's tests apart from the plugin's."""
from __future__ import annotations

import pytest

from tests import memory, suite
from tests.env import emulator_process, environment
from tests.env.processes import ComponentError


def test_an_environment_that_wants_the_emulator_fails_to_start_without_it(monkeypatch):
    stopped = []

    class Started:
        def stop(self):
            stopped.append(True)

    monkeypatch.setattr(emulator_process, "available", lambda: False)
    with pytest.raises(ComponentError, match="strimzi-emulator: tests.env.emulator is missing"):
        environment._start_emulator(Started(), True, environment._Timer())
    assert stopped == [True]  # what had started is stopped, as for any component that fails to start


@pytest.fixture
def one_test(tmp_path):
    path = tmp_path / "test_one.py"
    path.write_text("def test_one():\n    pass\n")
    return path


def test_a_phase_that_selects_no_test_fails_the_run(tmp_path, one_test, capsys):
    phase = suite.Phase("empty", "no_such_marker", 0, paths=[str(one_test)], operator="emulator")
    assert suite.run_phase(phase, "/nonexistent/env.json", [], tmp_path / "phase.xml") == 1
    assert "empty: no test selected: an empty phase fails the run" in capsys.readouterr().out


def test_a_phase_the_user_s_own_filter_emptied_passes_and_says_so(tmp_path, one_test, capsys):
    phase = suite.Phase("filtered", "not no_such_marker", 0, paths=[str(one_test)])
    assert suite.run_phase(phase, "/nonexistent/env.json", ["-k", "nothing_matches"], tmp_path / "phase.xml") == 0
    assert "filtered: no test selected by -k nothing_matches" in capsys.readouterr().out


def test_a_peak_over_the_memory_bound_fails_the_run(capsys):
    assert memory.sampled(lambda: 0, interval=0.05, limit=1) == 1
    assert "over the 0 GB bound: the run fails" in capsys.readouterr().out
    assert memory.sampled(lambda: 3, interval=0.05, limit=1) == 3  # a failed run keeps its own status
    assert memory.sampled(lambda: 0, interval=0.05) == 0


def test_the_tally_counts_the_harness_apart_from_the_plugin(tmp_path):
    report = tmp_path / "phase-0.xml"
    report.write_text("""<testsuites><testsuite>
      <testcase classname="tests.integration.online.test_lifecycle" name="a"/>
      <testcase classname="tests.integration.online.test_lifecycle" name="b"><failure message="x"/></testcase>
      <testcase classname="tests.unit.core.test_inputs.TestFiles" name="c"><skipped/></testcase>
      <testcase classname="tests.integration.env.test_emulator" name="d"/>
      <testcase classname="tests.unit.env.test_memory" name="e"><error message="y"/></testcase>
      <testcase classname="tests.integration.environment_like" name="f"/>
    </testsuite></testsuites>""")
    tally = suite.Tally()
    tally.add_junit(report)
    assert tally.lines() == ["tests of the plugin: 2 passed, 1 failed, 1 skipped",
                             "tests of the harness: 1 passed, 1 failed, 0 skipped",
                             "3 passed, 2 failed, 1 skipped"]
    assert tally.failed == 2
