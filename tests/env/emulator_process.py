"""The Strimzi operator emulator as a separate process, and its fault-injection file.

The command line is the whole contract with tests/env/emulator:
    python -m tests.env.emulator --kubeconfig K --connect-url URL --faults FILE --interval SECONDS --log FILE
                                 --strimzi PROFILE --cadence realistic|fast
Tests inject faults by rewriting FILE (write_faults, atomically, so the emulator never reads half a file) and
simulate "operator not running" by stopping the process. What the JSON in FILE means is the emulator's business.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from .assets import REPO_ROOT
from .processes import ComponentError, Proc, alive, spawn

MODULE = "tests.env.emulator"
STARTUP_GRACE = 1.5  # seconds the process must survive to count as started (it has no readiness endpoint)
# The periodic reconcile (STRIMZI_FULL_RECONCILIATION_INTERVAL_MS). Long enough that no test passes by waiting for it
# (a test that needs it restarts the emulator with a short one); Strimzi's own default is 120 s.
DEFAULT_INTERVAL = float(os.environ.get("KO_EMULATOR_INTERVAL", "120"))
# The reconcile semantics: "realistic" (per-event, locks that drop events, retries only through status writes and
# the periodic pass) or "fast" (the old work queue that re-reads and re-queues; a few tests choose it explicitly).
DEFAULT_CADENCE = os.environ.get("KO_EMULATOR_CADENCE", "realistic")
CADENCES = ("realistic", "fast")


MAIN = REPO_ROOT / "tests" / "env" / "emulator" / "__main__.py"


def available() -> bool:
    return MAIN.exists()


def write_faults(path: str | Path, faults: dict) -> None:
    """Replace the faults file atomically (write a temp file, then rename over the old one)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(faults, indent=2, sort_keys=True) + "\n")
    # The emulator starts the faults' counts afresh at each write, which it tells by the file's inode and mtime
    # (tests/env/emulator/faults.py): a fine-grained mtime, since a file system's own clock may be as coarse as 4 ms.
    now = time.time_ns()
    os.utime(tmp, ns=(now, now))
    os.replace(tmp, path)


def argv(kubeconfig: str, connect_url: str, faults_file: str, log: str, strimzi: str,
         interval: float = DEFAULT_INTERVAL, cadence: str = DEFAULT_CADENCE) -> list[str]:
    return [sys.executable, "-m", MODULE, "--kubeconfig", kubeconfig, "--connect-url", connect_url,
            "--faults", faults_file, "--interval", f"{interval:g}", "--log", log, "--strimzi", strimzi,
            "--cadence", cadence]


def with_option(command: list[str], option: str, value: str | None) -> list[str]:
    """``command`` with ``option``'s value replaced (or appended); None keeps it."""
    command = list(command)
    if value is None:
        return command
    if option in command:
        command[command.index(option) + 1] = value
    else:
        command += [option, value]
    return command


def start(run_dir: Path, command: list[str]) -> Proc:
    """Start the emulator with `command` (from argv()); fail loudly if it exits during its first moments."""
    if not available():
        raise ComponentError("strimzi-emulator", f"{MODULE} is not there (no tests/env/emulator/__main__.py)")
    stdout_log = run_dir / "logs" / "strimzi-emulator.stdout.log"
    # Run from the repo root with it first on sys.path: `-m tests.env.emulator` must resolve to this checkout.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
               PYTHONUNBUFFERED="1")
    proc = spawn("strimzi-emulator", command, stdout_log, cwd=REPO_ROOT, env=env)
    deadline = time.monotonic() + STARTUP_GRACE
    while time.monotonic() < deadline:
        if not alive(proc):
            raise ComponentError("strimzi-emulator", f"process {proc.pid} exited right after start",
                                 [stdout_log, command[command.index("--log") + 1]])
        time.sleep(0.1)
    return proc
