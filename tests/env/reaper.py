"""Stop an environment when the process that owns it dies without cleaning up (pytest killed with SIGKILL, a
crashed CI step). The components run in their own sessions, so nothing else would stop them, and leaked JVMs on
a shared 2-core machine slow everyone down.

    python -m tests.env.reaper --owner-pid PID --env-json FILE
    python -m tests.env.reaper --owner-pid PID --procs-json FILE   # a few processes of a test's own (its Flux)

Polls once a second. Exits quietly once the environment has no processes left (the owner stopped it normally).
PR_SET_PDEATHSIG is no alternative: it fires when the *thread* that forked exits, and start-up forks from
short-lived worker threads.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from .environment import Env
from .processes import Proc, alive, stop


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(owner_pid: int, env_json: Path, interval: float = 1.0) -> None:
    while True:
        try:
            env = Env.load(env_json)
        except (OSError, ValueError):
            return  # run dir purged: nothing left to guard
        running = {n: p for n, p in env.processes.items() if alive(p)}
        if not running:
            return
        if not _pid_alive(owner_pid):
            env.stop()  # also drops the data dirs (etcd preallocates ~120 MB); logs stay
            return
        time.sleep(interval)


def watch_procs(owner_pid: int, procs_json: Path, interval: float = 1.0) -> None:
    """The same watch over processes a test started outside any environment (a list of Proc records)."""
    try:
        procs = [Proc.from_json(entry) for entry in json.loads(procs_json.read_text())]
    except (OSError, ValueError):
        return
    while any(alive(proc) for proc in procs):
        if not _pid_alive(owner_pid):
            for proc in reversed(procs):
                stop(proc)
            return
        time.sleep(interval)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.env.reaper")
    parser.add_argument("--owner-pid", type=int, required=True)
    guarded = parser.add_mutually_exclusive_group(required=True)
    guarded.add_argument("--env-json", type=Path)
    guarded.add_argument("--procs-json", type=Path)
    args = parser.parse_args()
    if args.env_json:
        watch(args.owner_pid, args.env_json)
    else:
        watch_procs(args.owner_pid, args.procs_json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
