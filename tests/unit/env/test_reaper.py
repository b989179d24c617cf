"""The reaper's watch over a test's own processes (tests/env/reaper.watch_procs): stopped once their owner is gone,
left alone while it lives."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from tests.env.processes import alive, spawn, stop
from tests.env.reaper import watch_procs


def _listed(tmp_path, procs):
    path = tmp_path / "reaped.json"
    path.write_text(json.dumps([proc.to_json() for proc in procs]))
    return path


def test_a_gone_owners_processes_are_stopped(tmp_path):
    sleeper = spawn("sleeper", ["sleep", "300"], tmp_path / "sleeper.log")
    owner = subprocess.Popen([sys.executable, "-c", "pass"])
    owner.wait()  # the owner died without stopping its processes

    watch_procs(owner.pid, _listed(tmp_path, [sleeper]), interval=0.05)

    assert not alive(sleeper)


def test_a_living_owners_processes_are_left_alone_until_they_end(tmp_path):
    sleeper = spawn("sleeper", ["sleep", "300"], tmp_path / "sleeper.log")
    watcher = threading.Thread(target=watch_procs, args=(os.getpid(), _listed(tmp_path, [sleeper]), 0.05))
    watcher.start()
    watcher.join(0.5)
    assert watcher.is_alive() and alive(sleeper)  # still watching, the process untouched

    stop(sleeper)  # the owner stops them itself: the watch ends
    watcher.join(5)
    assert not watcher.is_alive()
