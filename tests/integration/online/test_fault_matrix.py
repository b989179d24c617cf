"""The fault matrix (issues 10 and 32): SIGKILL of a real kubectl-offsets process at the steps of alter, reset, undo
and (a KafkaConnector's) delete --reset-offsets, and the API connection cut during every wait, for a KafkaConnector
and a MirrorMaker 2 source connector, running and paused. `make test` runs the slice ``tests.faultmatrix.kill_slice``
(each lane killed once at every step, the steps dealt to its operations in turn); `make fault-matrix` every step
of every operation in both states. After
the recover command the plugin printed (or a user's plain ``kubectl offsets recover TARGET``, then whatever recover
command it prints), the invariant must hold in every cell, as Connect's REST API and the kubernetes client see it. The
engine is tests/faultmatrix.py; benchmarks/fault_matrix.py prints the same matrix as a report.

One test per lane (a subject in a state: running or paused), every operation in turn on it, in a namespace of its
own: the suite's scheduler (tests/conftest.py, ``pytest_xdist_make_scheduler``) hands the lanes to different
workers first, so the longest tests of the suite start at once instead of one long test starting last. One connector
per lane (not one per operation and state) keeps the Connect workers the matrix runs at once to four.
"""
from __future__ import annotations

import time

import pytest

from tests.faultmatrix import STATES, kill_points, kill_slice, operations_of, publish, render, run_lane

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the lanes beside the parallel phase

# The MirrorMaker 2 lanes first: they are the longest (two connectors to stop and resume per cell).
LANES = [(subject, state) for subject in ("mirror", "connector") for state in STATES]


@pytest.mark.parametrize(("subject", "state"), LANES, ids=[f"{s}-{st}" for s, st in LANES])
def test_every_injected_fault_leaves_the_connector_safe(env, tmp_path, subject, state):
    started = time.monotonic()
    steps = kill_slice(subject, state)  # make test's slice; the whole product: make fault-matrix
    cells = run_lane(env, tmp_path, subject, operations_of(subject), state, steps=steps)
    report = render(cells, time.monotonic() - started)
    print("\n" + report)
    publish(f"SIGKILL and connection cut, {subject}, {state}, Strimzi {env.operator_info.get('version')}", report)

    for operation in operations_of(subject):
        ran = [c for c in cells if c.operation == operation]
        kills = [c.fault for c in ran if c.fault.startswith("SIGKILL")]
        # every step of the operation (a reset writes no ConfigMap; a delete does not resume), then the cut
        assert kills == [f"SIGKILL at {step}" for step, _ in kill_points(operation)
                         if steps[operation] is None or step in steps[operation]], (operation, kills)
        assert [c.fault for c in ran if not c.fault.startswith("SIGKILL")] == ["API connection cut at every wait"]
    assert {c.state for c in cells} == {state}
    missed = [c for c in cells if not c.injected]
    assert not missed, "steps the operation never reached:\n" + "\n".join(
        f"{c.subject} {c.operation} {c.state} {c.fault}: {c.detail}" for c in missed)
    broken = [c for c in cells if not c.survived]
    assert not broken, report
