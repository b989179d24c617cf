"""Run the black-box scenarios against every Strimzi profile: ``python -m tests.run_eras [--eras 0.45 0.51 1.2]``.

One pytest run per profile, each with its own environment (KO_STRIMZI=<profile>: that era's CRDs and operator
rules), one after the other; tests marked ``exclusive`` (global emulator knobs) are left to the full suite on the
default profile.  Prints the wall time per profile and exits non-zero if any profile failed.  Extra arguments after
``--`` go to pytest (e.g. ``-- -x -n 2``).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from tests.env.emulator import profiles

# The black-box online, MirrorMaker 2 and GitOps-trigger scenarios.
ERA_TESTS = ("tests/integration/online", "tests/integration/mirrormaker2",
             "tests/integration/gitops/test_end_to_end.py", "tests/integration/gitops/test_trigger_job.py",
             "tests/integration/gitops/test_mm2_end_to_end.py")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="python -m tests.run_eras", description=__doc__.splitlines()[0])
    parser.add_argument("--eras", nargs="+", default=list(profiles.PROFILES), choices=list(profiles.PROFILES))
    args = parser.parse_args(argv)
    if os.environ.get("KO_ENV_JSON"):
        parser.error("KO_ENV_JSON is set: each profile needs its own environment; unset it")
    results = {}
    for era in args.eras:
        started = time.monotonic()
        command = [sys.executable, "-m", "pytest", *ERA_TESTS, "-m", "not exclusive", "-p", "no:cacheprovider",
                   "-q", "-ra", *extra]
        print(f"=== Strimzi {era}: {' '.join(command[1:])}", flush=True)
        code = subprocess.call(command, env={**os.environ, profiles.ENV_VAR: era})
        results[era] = (code, time.monotonic() - started)
    print("=== era matrix")
    for era, (code, seconds) in results.items():
        print(f"  Strimzi {era:5} {'passed' if code == 0 else f'FAILED (exit {code})':18} {seconds:7.1f}s")
    return 0 if all(code == 0 for code, _ in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
