"""The fault matrix as a report: faults injected and survived by the online flow.

    .venv/bin/python benchmarks/fault_matrix.py                           # starts (and stops) its own environment
    .venv/bin/python benchmarks/fault_matrix.py --env-json /tmp/kubectl-offsets-env/run-*/env.json [--json]

Kills a real kubectl-offsets process (SIGKILL) at every step of alter, reset, undo and delete --reset-offsets and
cuts its API connection during every wait, for a KafkaConnector and a MirrorMaker 2 source connector, every step on
a running and on a paused connector; then recovers as a user does (the recover command the plugin printed, else `kubectl offsets
recover TARGET`, then any recover command that one prints) and checks with Connect's REST API and the kubernetes
client that no request or journal is left, the previous state is back, and the stored offsets are the old or the
requested ones. The engine is tests/faultmatrix.py (also run as tests/integration/online/test_fault_matrix.py).
Not a test: it prints the matrix; exit status 1 if any cell broke.

    .venv/bin/python benchmarks/fault_matrix.py --operator-faults [--env-json ENV_JSON_OF_YOUR_OWN]

The real faults instead (an environment running Strimzi's real operator; one per fault is started if none is given,
the faults side by side): the operator hung (SIGSTOP for 10 s), the operator crashed (SIGKILL, restarted as the
environment started it), the Connect pod deleted, each at every step of alter, reset, undo and delete
--reset-offsets, on a KafkaConnector and a MirrorMaker 2 source connector, running and paused, one operation at a
time (a fault of the operator hits every operation it serves: never give an environment others use). `make
fault-matrix` runs both, the whole product (docs/fault-matrix.md); `make test` runs a slice of it
(tests/integration/online/test_operator_fault_matrix.py, test_pod_gone_fault_matrix.py). --strimzi 0.45 or 0.51
runs it against that release's operator.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-json", help="use a running environment (its run dir's env.json) instead")
    parser.add_argument("--strimzi", help="the Strimzi profile of the environments started here (0.45, 0.51, 1.2: "
                                          "its own release of the real operator); default the default profile")
    parser.add_argument("--subjects", default="connector,mirror", help="connector, mirror or both (default)")
    parser.add_argument("--operations", default="alter,reset,undo,delete",
                        help="which operations (default: all four; delete --reset-offsets on KafkaConnectors only)")
    parser.add_argument("--json", action="store_true", help="every cell as JSON instead of the table")
    parser.add_argument("--quiet", action="store_true", help="no line per cell while running")
    parser.add_argument("--operator-faults", action="store_true",
                        help="the real operator's faults (hung, crash, pod gone) instead of killing the plugin")
    parser.add_argument("--faults", default="operator hung,operator crash,pod gone",
                        help="with --operator-faults: which faults (default: all three)")
    parser.add_argument("--states", default="running,paused", help="with --operator-faults: which connector states")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.env_json:  # tests.faultmatrix picks the served API version and MM2 layout from that era's profile
        os.environ["KO_ENV_JSON"] = args.env_json
    elif args.strimzi:
        os.environ["KO_STRIMZI"] = args.strimzi
    from tests.env import Env, start_environment, strimzi_operator
    from tests.env.emulator import profiles
    from tests.faultmatrix import Lane, operations_of, render, run_matrix, run_operator_fault_lanes

    def environment() -> Env:
        if args.env_json:
            return Env.load(args.env_json)
        era = profiles.selected_name()
        return start_environment(strimzi=era, operator="strimzi",
                                 strimzi_version=strimzi_operator.RELEASE_OF_PROFILE[era])

    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr))
    subjects, operations = args.subjects.split(","), args.operations.split(",")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as workdir:
        if args.operator_faults:
            lanes = tuple(Lane(subject, state, tuple((op, None) for op in operations if op in operations_of(subject)))
                          for subject in subjects for state in args.states.split(","))
            cells = _each_fault_on_its_own(args.faults.split(","), environment, bool(args.env_json), lanes,
                                           Path(workdir), log, run_operator_fault_lanes)
        else:
            env = environment()
            try:
                cells = run_matrix(env, Path(workdir), subjects=tuple(subjects), operations=tuple(operations),
                                   log=log)
            finally:
                if not args.env_json:
                    env.stop()
    seconds = time.monotonic() - started
    if args.json:
        print(json.dumps({"seconds": round(seconds, 1), "cells": [dataclasses.asdict(c) for c in cells]}, indent=2))
    else:
        print(render(cells, seconds))
    return 0 if all(c.survived for c in cells) else 1


def _each_fault_on_its_own(faults, environment, given: bool, lanes, workdir: Path, log, run_lanes) -> list:
    """Each fault's lanes, one cell at a time (a fault of the operator hits every operation it serves). Started
    here, each fault gets an environment of its own and the faults run side by side; in a given environment (yours
    alone) they run one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    def one(fault: str) -> list:
        env = environment()
        try:
            if env.operator != "strimzi":
                raise SystemExit(f"--operator-faults needs an environment running Strimzi's real operator, not the "
                                 f"{env.operator}")
            return run_lanes(env, workdir / fault.replace(" ", "-"), fault, lanes, log=log)
        finally:
            if not given:
                env.stop()

    if given:
        return [cell for fault in faults for cell in one(fault)]
    with ThreadPoolExecutor(max_workers=len(faults)) as pool:
        return [cell for cells in pool.map(one, faults) for cell in cells]


if __name__ == "__main__":
    sys.exit(main())
