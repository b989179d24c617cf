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
            anchor = "alter" if state == "running" else "reset"
            [connector] = [lane for lane in lanes if lane.subject == "connector"]
            assert connector.operations[0] == (anchor, None)  # every step, first, on a fresh subject
            for lane in lanes:
                assert lane.state == state
                for op, steps in lane.operations:
                    seen[(lane.subject, op)].update(steps or [s for s, _ in kill_points(op)])
    for (subject, op), steps in seen.items():
        assert len(steps) >= 5, (subject, op, steps)  # each met at five steps or more, not always the same one


def test_the_era_slice_and_the_whole_product():
    assert {lane.subject for lane in ERA_SLICE} == {"connector", "mirror"}
    assert {lane.state for lane in ERA_SLICE} == set(STATES)
    whole = sum(every_step(s, st).cells for s in ("connector", "mirror") for st in STATES)
    make_test = sum(lane.cells for f in OPERATOR_FAULTS for st in STATES for lane in suite_slice(f, st))
    assert whole == 2 * (10 + 9 + 10 + 8) + 2 * (10 + 9 + 10)  # per fault
    assert make_test == 93 and make_test < len(OPERATOR_FAULTS) * whole


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


def test_make_tests_sigkill_slice_kills_every_operation_at_every_step_in_one_state():
    """The SIGKILL lanes of `make test` (tests.faultmatrix.kill_slice): each operation of both subjects at every
    step in one of the two states, and at a step past the hand-over in the other."""
    from tests.faultmatrix import kill_slice

    for subject in ("connector", "mirror"):
        for operation in operations_of(subject):
            slices = [kill_slice(subject, state)[operation] for state in STATES]
            assert slices.count(None) == 1, (subject, operation, slices)
            [one] = [steps for steps in slices if steps is not None]
            assert len(one) == 1 and one[0] in {step for step, _ in kill_points(operation)}, (subject, operation, one)
