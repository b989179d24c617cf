"""What an era of the era matrix runs (tests/run_eras.py): in its own environment, its scenarios in parallel, then the
fault slice and the tests that hold or kill the operator, alone. A test of the scenarios that asked
for an environment of its own (private_strimzi_env) would start one more environment beside the era's, and hold or
kill an operator while the other scenarios use it if it were given the era's; this collects both selections."""
from __future__ import annotations

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
    env_json = "env.json"
    stopped = False

    def start_reaper(self):
        pass

    def stop(self):
        self.stopped = True


def test_the_scenarios_run_in_parallel_then_the_slice_alone_and_each_has_its_report(tmp_path, monkeypatch):
    """The slice holds and kills the operator: alone, once the scenarios are done, when the machine is quietest."""
    from tests import env, run_eras, suite

    environment, ran = _Environment(), []
    monkeypatch.setattr(env, "start_environment", lambda **_: environment)
    monkeypatch.setattr(suite, "run_phase", lambda phase, env_json, extra, report, log=None: ran.append(
        (phase.marker, phase.workers, report.name)) or 0)

    assert run_eras.run_era("0.45", 3, [], tmp_path)[0] == 0

    assert ran == [(ERA_MARKERS, 3, "era-0.45.xml"), (ERA_SLICE[1], 0, "era-0.45-faults.xml")]
    assert environment.stopped
