"""The fault matrix (issue 10): SIGKILL at every step of alter, reset and undo, and the API connection cut during
every wait, for a KafkaConnector and a MirrorMaker 2 source connector, running and paused. After ``recover`` (or
without it, for the connection cuts, which the watches survive) the invariant must hold in every cell. The engine
is tests/faultmatrix.py; benchmarks/fault_matrix.py prints the same matrix as a report.
"""
from __future__ import annotations

import time

from tests.faultmatrix import KILL_POINTS, OPERATIONS, render, run_matrix


def test_every_injected_fault_leaves_the_connector_safe(env, tmp_path):
    started = time.monotonic()
    cells = run_matrix(env, tmp_path)
    report = render(cells, time.monotonic() - started)
    print("\n" + report)

    kills = [c for c in cells if c.fault.startswith("SIGKILL")]
    # every step of every operation, for both subjects (a reset has no write-configmap step)
    assert len(kills) == 2 * (len(OPERATIONS) * len(KILL_POINTS) - 1)
    assert {c.state for c in kills} == {"running", "paused"}
    missed = [c for c in kills if not c.injected]
    assert not missed, "steps the operations never reached:\n" + "\n".join(f"{c.subject} {c.operation} {c.fault}: "
                                                                          f"{c.detail}" for c in missed)
    drops = [c for c in cells if not c.fault.startswith("SIGKILL")]
    assert len(drops) == 2 * len(OPERATIONS) * 2 and all(c.injected for c in drops)
    broken = [c for c in cells if not c.survived]
    assert not broken, report
