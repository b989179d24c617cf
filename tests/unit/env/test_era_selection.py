"""What an era of the era matrix runs (tests/run_eras.py): in its own environment, its scenarios in parallel, then the
fault slice and the tests that hold or kill the operator, alone. A test of the scenarios that asked
for an environment of its own (private_strimzi_env) would start one more environment beside the era's, and hold or
kill an operator while the other scenarios use it if it were given the era's; this collects both selections."""
from __future__ import annotations

import threading

from tests.run_eras import ERA_MARKERS, ERA_SLICE, ERA_TESTS

from tests.unit.env.test_kind_workflow import collect


def test_no_scenario_of_an_era_starts_an_environment_of_its_own(tmp_path):
    scenarios = collect([*ERA_TESTS, "-m", ERA_MARKERS], tmp_path)
    assert len(scenarios) > 100, f"the era's scenarios collect only {len(scenarios)} tests"
    own = [item["nodeid"] for item in scenarios if "private_strimzi_env" in item["fixtures"]]
    assert not own, "scenarios that would start an environment beside the era's:\n" + "\n".join(own)


def test_the_tests_that_hold_or_kill_the_operator_run_in_the_eras_own_environment_alone(tmp_path):
    paths, marker = ERA_SLICE
    (tmp_path / "alone").mkdir()
    alone = {item["nodeid"] for item in collect([*paths, "-m", marker], tmp_path / "alone")}
    held = {item["nodeid"] for item in collect([*ERA_TESTS, "-m", "local_operator"], tmp_path)}
    assert held, "no test holds or kills the operator any more: ERA_SLICE names a file for nothing"
    assert held <= alone, f"not run in the era's slice: {sorted(held - alone)}"
    assert any("test_operator_fault_matrix" in nodeid for nodeid in alone), sorted(alone)


class _Environment:
    stopped = False

    def __init__(self, number: int):
        self.env_json = f"env-{number}.json"

    def start_reaper(self):
        pass

    def stop(self):
        self.stopped = True


def test_the_scenarios_and_the_slice_run_at_once_each_in_an_environment_of_the_era_and_each_has_its_report(
        tmp_path, monkeypatch):
    """The slice holds and kills the operator: never in the scenarios' environment, and beside them, not after them
    (the run's idle last minutes)."""
    from tests import env, run_eras, suite

    environments, ran, both_running = [], [], threading.Barrier(2, timeout=10)

    def start_environment(**kwargs):
        environments.append((kwargs, _Environment(len(environments))))
        return environments[-1][1]

    def run_phase(phase, env_json, extra, report, log=None):
        both_running.wait()  # each waits for the other: they run at once, or this times out
        print(f"output of {report.name}", file=log)
        ran.append((phase.marker, phase.workers, report.name, env_json, phase.private))
        return 0

    monkeypatch.setattr(env, "start_environment", start_environment)
    monkeypatch.setattr(suite, "run_phase", run_phase)
    with open(tmp_path / "era.log", "w") as log:
        assert run_eras.run_era("0.45", 3, [], tmp_path, log=log)[0] == 0

    scenarios, slice_ = sorted(ran, key=lambda run: run[4])  # the slice's is private
    assert scenarios[:3] == (ERA_MARKERS, 3, "era-0.45.xml")
    assert slice_[:3] == (ERA_SLICE[1], 0, "era-0.45-faults.xml") and slice_[4], "the slice's environment is its own"
    assert scenarios[3] != slice_[3]
    assert [kwargs for kwargs, _ in environments] == [{"strimzi": "0.45", "operator": "strimzi",
                                                       "strimzi_version": "0.45.2"}] * 2
    assert all(environment.stopped for _, environment in environments)
    # the slice's output follows the scenarios' in the era's log
    assert (tmp_path / "era.log").read_text().splitlines() == ["output of era-0.45.xml", "output of era-0.45-faults.xml"]


def test_an_era_whose_slice_fails_fails(tmp_path, monkeypatch):
    from tests import env, run_eras, suite

    monkeypatch.setattr(env, "start_environment", lambda **_: _Environment(0))
    monkeypatch.setattr(suite, "run_phase", lambda phase, env_json, extra, report, log=None: 1 if phase.private else 0)

    with open(tmp_path / "log", "w") as log:
        assert run_eras.run_era("0.51", 2, [], tmp_path, log=log)[0] == 1
