"""How the suite's parallel phase hands tests to its xdist workers (tests/conftest.py installs it).

It is ``--dist loadfile`` (a test file's tests stay on one worker, so its module fixtures are built once), with one
exception: the tests of SPREAD_FILES are each their own unit, and those units go out first, one per worker, with the
whole files of FIRST_FILES; the files of LAST_FILES go out last. Plain
loadfile orders files by their number of tests, so the fault matrix (one test per column, each ~5-15 min) used to
start last and alone, making the parallel phase as long as its own tail.
"""
from __future__ import annotations

from xdist.scheduler import LoadFileScheduling

# Files whose every test is long and independent of the others (own namespace; the operator-fault columns build an
# environment of their own on each worker that runs one, which is what lets them run at once).
SPREAD_FILES = frozenset({"tests/integration/online/test_fault_matrix.py",
                          "tests/integration/online/test_operator_fault_matrix.py",
                          "tests/integration/online/test_pod_gone_fault_matrix.py",
                          "tests/integration/demo/test_make_demo.py"})  # a demo per Strimzi release
# Long files that stay whole on one worker (a module fixture they share), sent out first all the same, in this order.
# None now: the Spark cluster's file (12 min, handed out at minute 45 of a 54-minute phase) would shorten the tail,
# but sent out first it ran beside the demos' environments: the suite's peak memory rose from 12.75 to 14.99 GB of
# the 16 GB bound (fresh-clone runs of 2026-11-28), too close for a machine that may be slower.
FIRST_FILES: tuple[str, ...] = ()
# Files sent out last: the krew tests install the release archive, which the suite builds in the background from its
# start (tests/suite.py, prebuild_release_archive; PyInstaller, about 24 min under the suite's load). Sent out
# first, as they were, they held one of the four workers idle while it was built.
LAST_FILES: tuple[str, ...] = ("tests/integration/krew/test_krew_install.py",)


class SpreadLongTestsFirst(LoadFileScheduling):
    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        self._spread_units_moved = False

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        return nodeid if file in SPREAD_FILES else file

    def _assign_work_unit(self, node) -> None:
        # The work queue is complete at the first assignment (xdist builds it in schedule(), then assigns).
        if not self._spread_units_moved:
            spread = [scope for scope in self.workqueue if scope.split("::", 1)[0] in SPREAD_FILES]
            first = sorted((scope for scope in self.workqueue if scope in FIRST_FILES), key=FIRST_FILES.index)
            for scope in reversed(spread + first):
                self.workqueue.move_to_end(scope, last=False)
            for scope in [scope for scope in self.workqueue if scope in LAST_FILES]:
                self.workqueue.move_to_end(scope, last=True)
            self._spread_units_moved = True
        super()._assign_work_unit(node)
