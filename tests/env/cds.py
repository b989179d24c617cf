"""Class-data sharing archives for the environment's Kafka JVMs: the broker and every Connect worker.

A suite run starts a Connect worker about two hundred times (the environment's own, every KafkaConnect and
MirrorMaker 2 pod, every restart) and a broker for every environment. Most of a start's CPU goes to loading and
verifying the same few thousand classes from the same jars. A dynamic AppCDS archive (JDK 13 and later,
``-XX:ArchiveClassesAtExit``) records them once, when the components are provisioned (``python -m tests.env cds``,
run by tests/provision.sh); every later start maps it (``-XX:SharedArchiveFile``). Measured on the project's 2-core
machine: a Connect worker's start to a REST answer costs 0.63x the CPU (3.14 to 1.97 s, benchmarks/env_costs.py).

An archive's name carries what it was built from (the java binary, the jars' names, sizes and times), so a new JDK or
Kafka gets a new archive. A JVM that finds the archive does not match its classpath leaves it aside (the default
-Xshare:auto, with a warning in the component's log) and starts as before: the archive changes the cost of a start,
never what the component does.

    python -m tests.env cds          # build the archives that are missing (seconds; a broker and a worker start)
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import urllib.request
from functools import lru_cache
from pathlib import Path

from .assets import cache_dir, find_assets

# The JVMs that get an archive (each role names its archive): the broker, and Connect's workers.
ROLES = ("broker", "connect")
# Time for a worker to stop on SIGTERM and write its archive (tens of MB) as its JVM exits.
TRAINING_STOP_TIMEOUT = 90.0


@lru_cache(maxsize=None)
def archive(lib: Path, role: str) -> Path:
    """Where the archive of ``role`` for the jars in ``lib`` and the ``java`` on PATH lives (it may not exist)."""
    digest = hashlib.sha256()
    java = Path(shutil.which("java") or "java").resolve()
    for path in [java, *sorted(lib.glob("*.jar"))]:
        stat = path.stat() if path.exists() else None
        digest.update(f"{path}:{stat.st_size if stat else 0}:{stat.st_mtime_ns if stat else 0}\n".encode())
    return cache_dir() / "cds" / f"{role}-{digest.hexdigest()[:16]}.jsa"


def flags(lib: Path, role: str) -> list[str]:
    """The JVM options that map the archive of ``role``, none while it has not been built."""
    path = archive(lib, role)
    return [f"-XX:SharedArchiveFile={path}"] if path.is_file() else []


def build(lib: Path, log=sys.stderr) -> list[Path]:
    """Build the missing archives: a broker and a Connect worker start with -XX:ArchiveClassesAtExit, the worker
    lists its connector plugins (loading their classes too), both stop and write what they loaded."""
    from . import kafka
    from .processes import stop

    missing = [role for role in ROLES if not archive(lib, role).is_file()]
    if not missing:
        return []
    made = []
    with tempfile.TemporaryDirectory(prefix="ko-cds-") as tmp:
        run_dir = Path(tmp)
        training = {role: run_dir / f"{role}.jsa" for role in ROLES}
        jvm = {role: [f"-XX:ArchiveClassesAtExit={training[role]}"] for role in ROLES}
        broker = kafka.start_broker(run_dir, lib, jvm=jvm["broker"])
        try:
            connect = kafka.start_connect(run_dir, lib, broker.bootstrap_servers, jvm=jvm["connect"])
            _get(f"{connect.url}/connectors?expand=status")
            stop(connect.proc, timeout=TRAINING_STOP_TIMEOUT)
        finally:
            stop(broker.proc, timeout=TRAINING_STOP_TIMEOUT)
        for role in missing:
            target = archive(lib, role)
            if not training[role].is_file():
                print(f"[cds] the {role} JVM wrote no archive (see {run_dir}/logs); its starts stay uncached",
                      file=log)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(training[role], target)  # atomic: a JVM starting meanwhile maps all of it or nothing
            made.append(target)
            print(f"[cds] {role}: {target} ({target.stat().st_size // 2**20} MB)", file=log)
    return made


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def main() -> int:
    made = build(find_assets().kafka_lib)
    print(f"[cds] {len(made)} archive(s) built" if made else "[cds] archives up to date", file=sys.stderr)
    return 0
