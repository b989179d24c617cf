"""Every operation x every step x every fault x every starting state, on the in-memory cluster (tests/inmemory):
after the fault the user recovers as the plugin said, then the invariants hold (tests/inmemory/scenarios.py).

A fault is armed when the step starts (``engine.hooks``) and hits the step's first request of its kind: a kill
before the write lands, a kill after it landed (the answer never arrives), Ctrl-C once it landed, an API error, a concurrent writer, a
watch that ends, an operator that stops answering. A step that sends no such request runs unharmed: the case then
checks the plain run.
"""

from __future__ import annotations

import pytest

from kubectl_offsets.core.online import lifecycle, steps
from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
from kubectl_offsets.errors import OffsetsError
from tests.inmemory import Cluster, Fault
from tests.inmemory.cluster import Killed
from tests.inmemory.scenarios import OPERATIONS, STATES, check, prepare, recover_as_told

FAULTS = ("kill", "kill-after", "interrupt", "api-error", "concurrent-writer", "watch-ends", "operator-silent")
DECLARATIONS = {"alter": steps.ALTER, "reset": steps.ALTER, "undo": steps.ALTER,
                "delete": lifecycle.DELETE_AFTER_RESET, "trigger": steps.PREPARED}


def _cases():
    for operation in OPERATIONS:
        states = ("stopped",) if operation == "trigger" else tuple(STATES)  # phase 1 stopped it
        for step in DECLARATIONS[operation].steps:
            for fault in FAULTS:
                for state in states:
                    yield pytest.param(operation, str(step.id), fault, state, id=f"{operation}-{step.id}-{fault}-{state}")


CASES = list(_cases())


def run_with_fault(cluster: Cluster, scenario, step: str, fault: str) -> tuple[BaseException | None, bool]:
    """Run the scenario with ``fault`` armed for ``step`` (its first run only, not recover's); returns the failure
    and whether the fault fired."""
    armed: list[Fault] = []

    def arm(event: str, reached: str) -> None:
        if reached != step or armed and event == "start":
            return
        if event == "start":
            armed.append(cluster.arm(Fault(fault)))
        else:
            cluster.disarm()

    failure: BaseException | None = None
    with hooks.on_step(arm):
        try:
            scenario.run()
        except (Killed, SimulatedCrash, OffsetsError) as error:
            failure = error
    return failure, bool(armed and armed[0].fired)


@pytest.mark.parametrize("operation, step, fault, state", CASES)
def test_every_step_every_fault(operation, step, fault, state, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    cluster = Cluster()
    scenario = prepare(cluster, operation, state)
    failure, fired = run_with_fault(cluster, scenario, step, fault)
    recover_as_told(cluster, scenario, failure)
    outcome = check(cluster, scenario)
    if not fired:
        assert failure is None and outcome in ("new", "deleted"), f"no fault, yet {failure}"


def test_the_matrix_covers_every_declared_step():
    """Each operation's declaration, each of its steps: a new step gets cases without anyone adding them."""
    covered = {(case.values[0], case.values[1]) for case in CASES}
    for operation, declaration in DECLARATIONS.items():
        assert {(operation, str(s.id)) for s in declaration.steps} <= covered
