"""The fault matrix as a report: faults injected and survived by the online flow.

    .venv/bin/python benchmarks/fault_matrix.py                           # starts (and stops) its own environment
    .venv/bin/python benchmarks/fault_matrix.py --env-json /tmp/kubectl-offsets-env/run-*/env.json [--json]

Kills a real kubectl-offsets process (SIGKILL) at every step of alter, reset and undo and cuts its API connection
during every wait, for a KafkaConnector and a MirrorMaker 2 source connector, every step on a running and on a
paused connector; then recovers as a user does (the recover command the plugin printed, else `kubectl offsets
recover TARGET`, then any recover command that one prints) and checks with Connect's REST API and the kubernetes
client that no request or journal is left, the previous state is back, and the stored offsets are the old or the
requested ones. The engine is tests/faultmatrix.py (also run as tests/integration/online/test_fault_matrix.py).
Not a test: it prints the matrix; exit status 1 if any cell broke.

    .venv/bin/python benchmarks/fault_matrix.py --operator-faults [--env-json ENV_JSON_OF_YOUR_OWN]

The real faults instead (an environment running Strimzi's real operator; one is started if none is given): the
operator hung (SIGSTOP for 10 s), the operator crashed (SIGKILL, restarted as the environment started it), the
Connect pod deleted, each at every step of the operations, one operation at a time (a fault of the operator hits
every operation it serves: never give an environment others use). Also run as
tests/integration/online/test_operator_fault_matrix.py.
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
    parser.add_argument("--subjects", default="connector,mirror", help="connector, mirror or both (default)")
    parser.add_argument("--operations", default="alter,reset,undo", help="which operations (default: all three)")
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
    from tests.env import Env, start_environment
    from tests.faultmatrix import render, run_matrix, run_operator_fault_lane

    env = Env.load(args.env_json) if args.env_json else start_environment(
        operator="strimzi" if args.operator_faults else None)
    if args.operator_faults and env.operator != "strimzi":
        parser.error(f"--operator-faults needs an environment running Strimzi's real operator, not the {env.operator}")
    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr))
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="fault-matrix-") as workdir:
            if args.operator_faults:
                cells = [cell for subject in args.subjects.split(",") for operation in args.operations.split(",")
                         for state in args.states.split(",")
                         for cell in run_operator_fault_lane(env, Path(workdir) / f"{subject}-{operation}-{state}",
                                                             subject, operation, state,
                                                             tuple(args.faults.split(",")), log=log)]
            else:
                cells = run_matrix(env, Path(workdir), subjects=tuple(args.subjects.split(",")),
                                   operations=tuple(args.operations.split(",")), log=log)
    finally:
        if not args.env_json:
            env.stop()
    seconds = time.monotonic() - started
    if args.json:
        print(json.dumps({"seconds": round(seconds, 1), "cells": [dataclasses.asdict(c) for c in cells]}, indent=2))
    else:
        print(render(cells, seconds))
    return 0 if all(c.survived for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
