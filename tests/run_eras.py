"""The black-box scenarios against every Strimzi profile: ``python -m tests.run_eras [--eras 0.45 0.51 1.2]``.

Per profile: one environment with that era's CRDs and Strimzi's real cluster operator of that era's release
(``tests/env/strimzi_operator.RELEASE_OF_PROFILE``: 0.45 runs 0.45.2, 0.51 runs 0.51.0, 1.2 runs 1.2.0), the online,
MirrorMaker 2 and GitOps-trigger scenarios run against it in parallel (pytest-xdist, as tests/suite.py does),
then the real faults' slice (``era_slice``) and the tests that hold or kill the operator (``local_operator``) in the
same environment, then the environment is stopped.  Tests marked
``exclusive`` (the emulator's fault knobs, which the real operator does not have) are left to the full suite on the
default profile.  Prints the wall time per profile (start-up included) and exits non-zero if any profile failed.

    python -m tests.run_eras --eras 0.45 0.51   # `make test-eras`: the matrix alone (`make test` runs it too)
    python -m tests.run_eras -- -x -k sink      # extra arguments after -- go to pytest
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The black-box online, MirrorMaker 2 and GitOps-trigger scenarios.
ERA_TESTS = ["tests/integration/online", "tests/integration/mirrormaker2",
             "tests/integration/gitops/test_end_to_end.py", "tests/integration/gitops/test_trigger_job.py",
             "tests/integration/gitops/test_mm2_end_to_end.py"]
# The fault matrices (marker fault_matrix: a fault injected at every step, each column minutes long) run on the
# default release in every suite run. An era runs a slice of the real faults (marker era_slice) once its scenarios
# are done, in the same environment, then nobody else's: the operator hung, crashed, a Connect pod gone. The whole
# matrix on an era: `make fault-matrix FAULT_ARGS="--strimzi ERA"`. Tests that need the emulator (exclusive,
# emulator_only) run on the default profile's emulator environment.
#
# The tests that hold or kill the operator (local_operator) run there too, after the slice: run beside the
# scenarios they would start one more environment of their own (its start and idle cost about 160 CPU-s, measured
# per process in the fresh-clone run of 2026-11-28), for what the era's own environment gives them alone.
#
# The slice goes last, when the machine is quiet: its waits are for operators restarting (JVM starts), and under the
# parallel phase's load they stretch. Run first (fresh-clone runs of 2026-11-28: a81c6aa against 6132bb3), the
# slices took 783 s and 822 s instead of 563 s and 439 s, the scenarios 730 s and 920 s instead of 938 s and 1248 s:
# the eras ended no sooner (1570 s and 1815 s against 1546 s and 1748 s), with the operator faults under more load.
# Run beside the scenarios in an environment of their own (737338f, run 21 of 2026-11-29 against run 20), the
# slices took 1064 s instead of 601 s and the default profile's parallel phase 2369 s instead of 2043 s: the machine
# is CPU-bound until the last minutes, and the slices' operator restarts moved work into the busy ones.
ERA_MARKERS = "not exclusive and not emulator_only and not fault_matrix and not local_operator"
ERA_SLICE = (["tests/integration/online/test_operator_fault_matrix.py",
              "tests/integration/online/test_operator_failures.py"], "era_slice or local_operator")


def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def run_era(era: str, workers: int, extra: list[str], reports: Path, log=None) -> tuple[int, float]:
    """One era: its own environment, the scenarios in parallel, the environment stopped. ``log`` (an open file)
    takes pytest's output instead of stdout, when the era runs beside another phase."""
    from tests.env import start_environment, strimzi_operator
    from tests.suite import Phase, era_reports, run_phase

    started = time.monotonic()
    # The era's own release of the real operator: the emulator's per-era rules are our reading of Strimzi, the
    # release is Strimzi's code.
    environment = start_environment(strimzi=era, operator="strimzi",
                                    strimzi_version=strimzi_operator.RELEASE_OF_PROFILE[era])
    environment.start_reaper()
    try:
        scenarios = Phase(f"Strimzi {era}: the black-box scenarios", ERA_MARKERS, workers, list(ERA_TESTS))
        faults = Phase(f"Strimzi {era}: the fault matrix's slice on real faults, and the operator held or killed",
                       ERA_SLICE[1], 0,
                       list(ERA_SLICE[0]), private=True)
        status = 0
        for phase, report in zip((scenarios, faults), era_reports(reports, era)):
            status = run_phase(phase, str(environment.env_json), extra, report, log=log) or status
    finally:
        environment.stop()
    return status, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from tests.env.emulator import profiles
    from tests.suite import DEFAULT_WORKERS, Tally, era_reports, print_reruns

    parser = argparse.ArgumentParser(prog="python -m tests.run_eras", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--eras", nargs="+", default=list(profiles.PROFILES), choices=list(profiles.PROFILES))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("KO_TEST_WORKERS", DEFAULT_WORKERS)))
    parser.add_argument("--forgive-reruns", dest="strict_reruns", action="store_false",
                        help="local runs only: a test that passed on its rerun does not fail the run")
    parser.add_argument("pytest_args", nargs="*", help="passed to every pytest run (after --)")
    args = parser.parse_args(argv)
    if os.environ.get("KO_ENV_JSON"):
        parser.error("KO_ENV_JSON is set: every profile needs its own environment; unset it")
    signal.signal(signal.SIGTERM, _interrupt)
    results: dict[str, tuple[int, float]] = {}
    tally = Tally()
    try:
        with tempfile.TemporaryDirectory(prefix="ko-eras-") as reports:
            for era in args.eras:
                results[era] = run_era(era, args.workers, args.pytest_args, Path(reports))
                for report in era_reports(Path(reports), era):
                    tally.add_junit(report, where=f"Strimzi {era}")
    except KeyboardInterrupt as e:
        print(f"[tests.run_eras] interrupted ({e or 'Ctrl-C'})", flush=True)
        return 130
    print("\n[tests.run_eras] era matrix (wall time includes the environment's start-up)")
    for era, (code, seconds) in results.items():
        print(f"  Strimzi {era:5} {'passed' if code == 0 else f'FAILED (exit {code})':18} {seconds:7.1f}s")
    failed = not all(code == 0 for code, _ in results.values())
    return 1 if print_reruns(tally.reruns, args.strict_reruns) or failed else 0


if __name__ == "__main__":
    sys.exit(main())
