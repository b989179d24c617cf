"""Which real-fault cells `make test` runs (tests/faultmatrix.suite_slice) and that the matrix's kill points are the
plugin's own progress lines: a renamed line would leave a step never reached, found only after an hour's run."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from tests.faultmatrix import (DELETE, ERA_SLICE, OPERATIONS, OPERATOR_FAULTS, STATES, every_step, kill_points,
                               operations_of, suite_slice)

ROOT = Path(__file__).resolve().parents[3]


def test_every_kill_point_is_a_progress_line_the_plugin_prints():
    source = "\n".join(p.read_text() for p in (ROOT / "kubectl_offsets").rglob("*.py"))
    for operation in (*OPERATIONS, DELETE):
        for step, prefix in kill_points(operation):
            literal = prefix.split("{request}")[0]  # the request is a placeholder in the plugin's f-string too
            assert f'"{literal}' in source or f"'{literal}" in source, (operation, step, literal)


def test_delete_has_no_configmap_and_no_resume_and_ends_with_the_delete():
    steps = [step for step, _ in kill_points(DELETE)]
    assert "write-configmap" not in steps and "resume" not in steps and steps[-1] == "cleanup"
    assert dict(kill_points(DELETE))["cleanup"] == "deleting kafkaconnector/"
    assert operations_of("mirror") == OPERATIONS and DELETE in operations_of("connector")


def test_make_test_meets_every_fault_with_every_operation_subject_and_state():
    seen = defaultdict(set)  # (subject, operation) -> steps met, over every fault and state
    for fault in OPERATOR_FAULTS:
        for state in STATES:
            lanes = suite_slice(fault, state)
            ran = {(lane.subject, op) for lane in lanes for op, _ in lane.operations}
            assert ran == {(s, op) for s in ("connector", "mirror") for op in operations_of(s)}, (fault, state)
            for lane in lanes:
                assert lane.state == state
                for op, steps in lane.operations:
                    assert steps is not None and len(steps) == 1, (fault, state, lane.subject, op, steps)
                    assert steps[0] in {s for s, _ in kill_points(op)} and steps[0] != "list (preview)"
                    seen[(lane.subject, op)].update(steps)
    for (subject, op), steps in seen.items():
        # six columns (three faults, two states): six different steps, never the same one twice
        assert len(steps) == len(OPERATOR_FAULTS) * len(STATES), (subject, op, steps)


def test_the_era_slice_and_the_whole_product():
    assert {lane.subject for lane in ERA_SLICE} == {"connector", "mirror"}
    assert {lane.state for lane in ERA_SLICE} == set(STATES)
    whole = sum(every_step(s, st).cells for s in ("connector", "mirror") for st in STATES)
    make_test = sum(lane.cells for f in OPERATOR_FAULTS for st in STATES for lane in suite_slice(f, st))
    assert whole == 2 * (10 + 9 + 10 + 8) + 2 * (10 + 9 + 10)  # per fault
    assert make_test == len(OPERATOR_FAULTS) * len(STATES) * (len(operations_of("connector")) + len(OPERATIONS))


def test_a_column_s_table_reaches_the_suite_s_closing_output(tmp_path, monkeypatch, capsys):
    from tests import suite
    from tests.faultmatrix import publish

    monkeypatch.delenv("KO_FAULT_REPORTS", raising=False)
    publish("nowhere", "| a |")  # no folder: nothing written, nothing fails
    monkeypatch.setenv("KO_FAULT_REPORTS", str(tmp_path / "tables"))
    publish("operator crash, running, Strimzi 1.2.0", "| subject | ... |")
    suite.print_fault_tables(tmp_path / "tables")
    out = capsys.readouterr().out
    assert "### operator crash, running, Strimzi 1.2.0\n\n| subject | ... |" in out


def test_make_tests_sigkill_slice_kills_each_step_once_per_lane_and_each_operation_at_new_steps_when_paused():
    """The SIGKILL lanes of `make test` (tests.faultmatrix.kill_slice): each lane kills its subject once at every
    step, dealt to the operations in turn; each operation meets a step in each state, and other steps when paused
    than when running."""
    from tests.faultmatrix import KILL_POINTS, kill_slice

    for subject in ("connector", "mirror"):
        slices = {state: kill_slice(subject, state) for state in STATES}
        for state, dealt in slices.items():
            killed = [step for steps in dealt.values() for step in steps]
            assert sorted(killed) == sorted(step for step, _ in KILL_POINTS), (subject, state, dealt)
            for operation, steps in dealt.items():
                assert steps and set(steps) <= {step for step, _ in kill_points(operation)}, (subject, operation)
        for operation in operations_of(subject):
            running, paused = (set(slices[state][operation]) for state in STATES)
            assert not running & paused, (subject, operation, running, paused)
