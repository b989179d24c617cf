"""The fault matrix (issues 10 and 32): SIGKILL of a real kubectl-offsets process at every step of alter, reset,
undo and (a KafkaConnector's) delete --reset-offsets, and the API connection cut during every wait, for a
KafkaConnector and a MirrorMaker 2 source connector, every step on a running and on a paused connector. After the
recover command the plugin printed (or a user's plain ``kubectl offsets recover TARGET``, then whatever recover
command it prints), the invariant must hold in every cell, as Connect's REST API and the kubernetes client see it.
The engine is tests/faultmatrix.py; benchmarks/fault_matrix.py prints the same matrix as a report.

One test per column (subject and operation), each with its own namespaces: the suite's scheduler
(tests/conftest.py, ``pytest_xdist_make_scheduler``) hands the columns to different workers first, so the longest
tests of the suite start at once instead of one long test starting last.
"""
from __future__ import annotations

import time

import pytest

from tests.faultmatrix import STATES, kill_points, operations_of, render, run_column

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the columns beside the parallel phase

# The MirrorMaker 2 columns first: they are the longest (two connectors to stop and resume per cell).
COLUMNS = [(subject, operation) for subject in ("mirror", "connector") for operation in operations_of(subject)]


@pytest.mark.parametrize(("subject", "operation"), COLUMNS, ids=[f"{s}-{o}" for s, o in COLUMNS])
def test_every_injected_fault_leaves_the_connector_safe(env, tmp_path, subject, operation):
    started = time.monotonic()
    cells = run_column(env, tmp_path, subject, operation)
    report = render(cells, time.monotonic() - started)
    print("\n" + report)

    kills = [c for c in cells if c.fault.startswith("SIGKILL")]
    steps = len(kill_points(operation))  # a reset writes no ConfigMap; a delete does not resume
    # every step of the operation, on a running and on a paused connector
    assert sorted((c.fault, c.state) for c in kills) == sorted({(c.fault, s) for c in kills for s in STATES})
    assert len(kills) == steps * len(STATES)
    missed = [c for c in kills if not c.injected]
    assert not missed, "steps the operation never reached:\n" + "\n".join(f"{c.subject} {c.operation} {c.state} "
                                                                         f"{c.fault}: {c.detail}" for c in missed)
    drops = [c for c in cells if not c.fault.startswith("SIGKILL")]
    assert sorted(c.state for c in drops) == sorted(STATES) and all(c.injected for c in drops)
    broken = [c for c in cells if not c.survived]
    assert not broken, report
