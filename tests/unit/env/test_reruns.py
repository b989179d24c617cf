"""The suite names every rerun (tests/reruns.py logs them, tests/suite.py lists them) and a rerun of any test fails
the run: CI's (.ci/run) is strict; only a local run may pass --forgive-reruns. A real pytest with
pytest-rerunfailures (and xdist) runs a test that fails once."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import reruns, suite

ROOT = Path(__file__).resolve().parents[3]

FLAKY = '''
from pathlib import Path

def test_fails_once(tmp_path_factory):
    marker = Path(__file__).with_suffix(".ran")
    if not marker.exists():
        marker.write_text("1")
        assert 1 + 1 == 3, "the operator never answered\\nstep: annotate\\ncell: pod gone"

def test_steady():
    pass
'''


@pytest.fixture
def flaky(tmp_path) -> Path:
    path = tmp_path / "test_flaky.py"
    path.write_text(FLAKY)
    return path


def _pytest(flaky: Path, log: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", str(flaky), "-p", "tests.reruns", f"--reruns-log={log}",
                           "--reruns", "1", "-q", "-p", "no:cacheprovider", "--rootdir", str(flaky.parent), *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("extra", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_rerun_is_logged_with_its_first_failure(flaky, tmp_path, extra):
    log = tmp_path / "reruns.jsonl"
    result = _pytest(flaky, log, *extra)

    assert result.returncode == 0, result.stdout + result.stderr  # passed on its rerun
    [entry] = reruns.read(log)
    assert entry["nodeid"].endswith("test_flaky.py::test_fails_once")
    assert entry["when"] == "call"
    assert entry["reason"].startswith("AssertionError: the operator never answered")
    # the message's next lines too: the rerun passed, so no traceback shows them anywhere else
    assert entry["detail"][:2] == ["step: annotate", "cell: pod gone"]


def test_no_rerun_no_log(flaky, tmp_path):
    flaky.with_suffix(".ran").write_text("1")  # it passes at once
    log = tmp_path / "reruns.jsonl"
    assert _pytest(flaky, log).returncode == 0
    assert reruns.read(log) == []


def _tally_with(tmp_path, *nodeids: str) -> suite.Tally:
    report = tmp_path / "phase-0.xml"
    suite.reruns_log(report).write_text("".join(
        f'{{"nodeid": "{n}", "when": "call", "reason": "Failed: timed out after 60s"}}\n' for n in nodeids))
    tally = suite.Tally()
    tally.add_junit(report, where="Strimzi 1.2, not exclusive")
    return tally


def test_the_summary_names_every_rerun(tmp_path, capsys):
    tally = _tally_with(tmp_path, "tests/integration/online/test_lifecycle.py::test_x",
                        "tests/integration/env/test_emulator.py::test_y")

    fails = suite.print_reruns(tally.reruns, strict=False)

    out = capsys.readouterr().out
    assert not fails
    assert "RERUNS (each is a defect to fix): 2 test(s)" in out
    assert ("  tests/integration/online/test_lifecycle.py::test_x [Strimzi 1.2, not exclusive]: "
            "Failed: timed out after 60s") in out
    assert out.index("tests of the plugin:") < out.index("test_x") < out.index("tests of the harness:") \
        < out.index("test_y")
    assert "--forgive-reruns: not failing the run (CI would)" in out


def test_a_rerun_of_any_test_fails_a_strict_run_the_harness_s_too(tmp_path, capsys):
    assert suite.print_reruns(_tally_with(tmp_path, "tests/integration/online/test_a.py::t").reruns, strict=True)
    assert "1 rerun(s) fail the run" in capsys.readouterr().out
    harness_only = _tally_with(tmp_path, "tests/integration/env/test_emulator.py::t").reruns
    assert suite.print_reruns(harness_only, strict=True)
    assert not suite.print_reruns([], strict=True)


def test_the_suite_is_strict_unless_told_otherwise_and_ci_never_tells_it():
    assert suite.parse_args([]).strict_reruns is True
    assert suite.parse_args(["--forgive-reruns"]).strict_reruns is False
    ci = (ROOT / ".ci" / "run").read_text()
    [make] = [line.strip() for line in ci.splitlines() if line.strip().startswith("make test")]
    assert make == "make test SUITE_ARGS=", "CI must clear SUITE_ARGS (no --forgive-reruns from the environment)"
    assert "forgive" not in ci.replace("--forgive-reruns)", "")
    recipe = (ROOT / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n", 1)[0]
    assert "$(PY) -m tests.suite $(SUITE_ARGS)" in recipe and "forgive" not in recipe
    assert "--reruns-delay" in suite.PYTEST_COMMON  # one rerun still runs: it tells flaky from broken


def test_the_era_matrix_alone_is_strict_too(tmp_path, monkeypatch, capsys):
    from tests import run_eras

    def one_era(era, workers, extra, reports, log=None):
        report = reports / f"era-{era}.xml"
        report.write_text('<testsuites><testsuite><testcase classname="tests.integration.online.test_a" name="t"/>'
                          "</testsuite></testsuites>")
        suite.reruns_log(report).write_text('{"nodeid": "tests/integration/online/test_a.py::t", "when": "call", '
                                            '"reason": "Failed"}\n')
        return 0, 1.0

    monkeypatch.setattr(run_eras, "run_era", one_era)
    monkeypatch.delenv("KO_ENV_JSON", raising=False)
    assert run_eras.main(["--eras", "0.45"]) == 1
    assert "1 rerun(s) fail the run" in capsys.readouterr().out
    assert run_eras.main(["--eras", "0.45", "--forgive-reruns"]) == 0


FAILING = '''
class TestGroup:
    def test_in_a_class(self):
        assert False, "the operator never removed the annotation\\nsecond line"

def test_passes():
    pass

def test_fails_too():
    raise RuntimeError("boom")
'''


def test_the_closing_summary_names_every_failed_test_by_node_id(tmp_path):
    module = tmp_path / "test_failing_here.py"
    module.write_text(FAILING)
    report = tmp_path / "phase-1.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                    "--rootdir", str(tmp_path), str(module)], cwd=tmp_path, capture_output=True, check=False)
    tally = suite.Tally()
    tally.add_junit(report, where="parallel")

    summary, status = suite.closing_summary(tally, {}, strict_reruns=True, status=1)

    assert status == 1
    assert "FAILED: 2 test(s)" in summary
    assert ("  test_failing_here.py::TestGroup::test_in_a_class [parallel]: failure: AssertionError: the operator "
            "never removed the annotation") in summary
    assert "test_failing_here.py::test_fails_too [parallel]: failure: RuntimeError: boom" in summary
    assert "test_passes" not in summary
    assert summary.rstrip().endswith("1 passed, 2 failed, 0 skipped")


def test_a_failed_phase_without_a_failed_test_is_named_too():
    summary, status = suite.closing_summary(suite.Tally(), {"1.2": 30.0}, strict_reruns=True, status=3)
    assert status == 3
    assert "exit status 3 with no failed test" in summary


def test_the_closing_summary_comes_after_the_memory_table(monkeypatch, capsys):
    def a_failed_run(argv=None, closing=None):
        print("a phase's output")
        closing.append("[tests.suite] FAILED: 1 test(s)\n")
        return 1

    monkeypatch.setattr(suite, "main", a_failed_run)
    assert suite.run_measured([]) == 1
    out = capsys.readouterr().out
    assert out.index("a phase's output") < out.index("[tests.memory] per minute:") < out.index("FAILED: 1 test(s)")
    assert out.rstrip().endswith("FAILED: 1 test(s)")


def test_the_last_lines_name_every_rerun_and_failure_however_long_their_details(tmp_path):
    """CI showed a red run's last 16 lines; five reruns of eight detail lines each had pushed their names out."""
    names = [f"tests/integration/online/test_m.py::test_{i}" for i in range(5)]
    tally = _tally_with(tmp_path, *names)
    for rerun in tally.reruns:
        rerun.detail = [f"HTTP response body line {n} " + "x" * 300 for n in range(8)]
    tally.failures.append(suite.Failure("Strimzi 0.45", names[0], "AssertionError: " + "y" * 2000))

    summary, status = suite.closing_summary(tally, {}, strict_reruns=True, status=1)

    last = summary.rstrip().splitlines()[-14:]
    for name in names:
        assert any(line.startswith(f"  {name} [") for line in last), name
    assert f"  {names[0]} [Strimzi 0.45]: AssertionError: " in "\n".join(last)
    assert all(len(line) < 260 for line in last)
    assert status == 1


def test_ci_reads_the_versions_from_the_cache_that_provisioning_filled(tmp_path):
    # .ci/run sources env.sh from the cache tests/provision.sh wrote; with XDG_CACHE_HOME set (a new machine's
    # cache elsewhere, or a cold run measured beside a warm cache) both must name the same directory, or CI stops
    # at "versions" after a whole provisioning.
    sourced = next(line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith(". "))
    provisioned = next(line for line in (ROOT / "tests" / "provision.sh").read_text().splitlines()
                       if line.startswith("KO_CACHE="))
    # Each in a shell of its own, as make runs tests/provision.sh: its KO_CACHE does not reach .ci/run.
    provision_writes = f'{provisioned}\necho "$KO_CACHE/env.sh"'
    ci_reads = sourced.replace(". ", "echo ", 1)
    for extra in ({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, {}, {"KO_CACHE": str(tmp_path / "ko")}):
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path / "home"), **extra}
        written, read = (subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                                        check=True).stdout.strip() for script in (provision_writes, ci_reads))
        assert read == written, extra
