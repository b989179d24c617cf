"""The fault matrix's columns on real faults of Strimzi's real operator (issue 24): at every step of an online alter
(on a running connector) and of a reset (on a paused one), the moment the plugin starts the step,

- operator hung: its JVM is stopped (SIGSTOP) for 10 s, then continued;
- operator crash: it is killed (SIGKILL) and started again as the environment started it.

(The third real fault, a Connect pod gone, is test_pod_gone_fault_matrix.py: it disturbs only its own KafkaConnect.)

The plugin runs on through the fault (a real ``python -m kubectl_offsets`` process). Either it completes (exit 0,
the requested offsets stored, the previous state back) or it fails and the user recovers with the exact command it
printed, after which the connector is safe: no request or journal left, the previous state back, the old or the
requested offsets stored. Judged through Connect's REST API and the kubernetes client (tests/faultmatrix.py).

Pausing or killing the operator disturbs every operation it serves, so this module runs against an environment of
its own (the ``private_strimzi_env`` fixture), and one operation at a time.
"""
from __future__ import annotations

import time

import pytest

from tests.faultmatrix import KILL_POINTS, render, run_operator_fault_lane

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the columns beside the parallel phase

# Alter on a running connector, reset on a paused one: both previous states are restored through the faults.
LANES = (("alter", "running"), ("reset", "paused"))
COLUMNS = [(fault, operation, state) for fault in ("operator hung", "operator crash") for operation, state in LANES]


@pytest.mark.parametrize(("fault", "operation", "state"), COLUMNS,
                         ids=[f"{f.replace(' ', '-')}-{o}-{s}" for f, o, s in COLUMNS])
def test_a_real_fault_at_every_step_leaves_the_connector_safe(private_strimzi_env, tmp_path, fault, operation,
                                                              state):
    check_every_step(private_strimzi_env, tmp_path, fault, operation, state)


def check_every_step(env, tmp_path, fault: str, operation: str, state: str) -> None:
    started = time.monotonic()
    cells = run_operator_fault_lane(env, tmp_path, "connector", operation, state, (fault,))
    report = render(cells, time.monotonic() - started)
    print("\n" + report)

    steps = [point[0] for point in KILL_POINTS if not (operation == "reset" and point[0] == "write-configmap")]
    assert [c.fault for c in cells] == [f"{fault} at {step}" for step in steps]
    missed = [c for c in cells if not c.injected]
    assert not missed, "steps the operation never reached:\n" + "\n".join(f"{c.fault}: {c.detail}" for c in missed)
    broken = [c for c in cells if not c.survived]
    assert not broken, report
    if fault == "operator hung":  # 10 s of silence is well inside --timeout: the operation must ride it out
        failed = [c for c in cells if not c.detail.startswith("completed")]
        assert not failed, "failed instead of waiting for the operator:\n" + "\n".join(
            f"{c.fault}: {c.detail}" for c in failed)
