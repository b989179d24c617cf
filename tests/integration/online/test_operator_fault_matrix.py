"""The fault matrix's columns on real faults of Strimzi's real operator (issues 24 and 32): the moment the plugin
starts a step of an operation,

- operator hung: its JVM is stopped (SIGSTOP) for 10 s, then continued;
- operator crash: it is killed (SIGKILL) and started again as the environment started it.

(The third real fault, a Connect pod gone, is test_pod_gone_fault_matrix.py: it disturbs only its own KafkaConnect.)

The plugin runs on through the fault (a real ``python -m kubectl_offsets`` process). Either it completes (exit 0,
the requested offsets stored, the previous state back) or it fails and the user recovers with the exact command it
printed, after which the connector is safe: no request or journal left, the previous state back, the old or the
requested offsets stored; after ``delete --reset-offsets``, gone with its offsets reset, or there as it was. Judged
through Connect's REST API and the kubernetes client (tests/faultmatrix.py).

A column is one fault on connectors running, then paused: every operation (alter, reset, undo, delete
--reset-offsets) of a KafkaConnector and of a MirrorMaker 2 source connector at one step, the step rotating over the
faults and states (tests/faultmatrix.suite_slice). `make fault-matrix` runs every step of every one of them
(docs/fault-matrix.md). Each older release runs a slice of its own after its scenarios (tests/run_eras.py, the
``era_slice`` tests).

Pausing or killing the operator disturbs every operation it serves, so this module runs against an environment of
its own (the ``private_strimzi_env`` fixture), one operation at a time.
"""
from __future__ import annotations

import time

import pytest

from tests.faultmatrix import (ERA_SLICE, OPERATOR_FAULTS, STATES, Lane, kill_points, publish, render,
                               run_operator_fault_lanes, suite_slice)

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the columns beside the parallel phase

# A column per fault, each starting an environment of its own, both states in turn: seven cells a state.
COLUMNS = [(fault, STATES) for fault in ("operator hung", "operator crash")]


@pytest.mark.parametrize(("fault", "states"), COLUMNS,
                         ids=[f"{f.replace(' ', '-')}-{'-'.join(s) if len(s) == 1 else 'both'}" for f, s in COLUMNS])
def test_a_real_fault_in_every_operation_leaves_the_connector_safe(private_strimzi_env, tmp_path, fault, states):
    check_lanes(private_strimzi_env, tmp_path, fault, tuple(lane for state in states for lane in suite_slice(fault, state)))


@pytest.mark.era_slice
@pytest.mark.parametrize("fault", OPERATOR_FAULTS, ids=[f.replace(" ", "-") for f in OPERATOR_FAULTS])
def test_each_real_fault_on_this_release_leaves_the_connector_safe(private_strimzi_env, tmp_path, fault):
    """The older releases' slice (tests/run_eras.py runs it in the era's environment once its scenarios are done)."""
    check_lanes(private_strimzi_env, tmp_path, fault, ERA_SLICE)


def check_lanes(env, tmp_path, fault: str, lanes: tuple[Lane, ...]) -> None:
    started = time.monotonic()
    cells = run_operator_fault_lanes(env, tmp_path, fault, lanes)
    report = render(cells, time.monotonic() - started)
    print("\n" + report)
    publish(f"{fault}, {', '.join(sorted({lane.state for lane in lanes}))}, Strimzi {env.operator_info.get('version')}",
            report)

    planned = [(operation, f"{fault} at {step}") for lane in lanes for operation, steps in lane.operations
               for step, _ in kill_points(operation) if steps is None or step in steps]
    assert [(c.operation, c.fault) for c in cells] == planned
    missed = [c for c in cells if not c.injected]
    assert not missed, "steps the operation never reached:\n" + "\n".join(
        f"{c.subject} {c.operation} {c.fault}: {c.detail}" for c in missed)
    broken = [c for c in cells if not c.survived]
    assert not broken, report
    if fault == "operator hung":  # 10 s of silence is well inside --timeout: the operation must ride it out
        failed = [c for c in cells if not c.completed]
        assert not failed, "failed instead of waiting for the operator:\n" + "\n".join(
            f"{c.subject} {c.operation} {c.fault}: {c.detail}" for c in failed)
