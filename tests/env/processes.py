"""Start, watch and stop the component processes.

Every component runs detached (its own session, stdin from /dev/null, stdout+stderr to a log file under the
run dir), so `python -m tests.env up` can exit and leave it running, and a later `down` from another process
can stop it by the pid recorded in env.json. A pid alone could be recycled by the time `down` runs, so we also
record the process start time from /proc and refuse to signal a process whose start time differs.
"""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")
LOG_TAIL_LINES = 30
# Readiness time-outs are sized for an idle 2-core machine with headroom; a slower or shared machine can stretch
# them all with KO_ENV_TIMEOUT_SCALE=2 (etc.) instead of failing a healthy but slow start.
TIMEOUT_SCALE = float(os.environ.get("KO_ENV_TIMEOUT_SCALE", "1"))

# Popen objects of children of *this* process: poll() reaps them, otherwise an exited child stays a zombie
# and would look alive in /proc.
_children: dict[int, subprocess.Popen] = {}
# Every Proc spawned by this Python process, in order, so a failed start-up can stop what it already started.
_spawned: list["Proc"] = []
# Set when one start-up chain failed: the other chain stops at its next spawn or readiness poll instead of
# starting components nobody will use.
abort_startup = threading.Event()


class StartupAborted(RuntimeError):
    pass


class ComponentError(RuntimeError):
    """A component failed to start or to become ready. The message carries the tail of its log(s)."""

    def __init__(self, component: str, problem: str, logs: list[str | Path] = ()):
        self.component = component
        parts = [f"{component}: {problem}"]
        for log in logs:
            parts.append(f"--- last {LOG_TAIL_LINES} lines of {log} ---\n{tail(log)}")
        super().__init__("\n".join(parts))


@dataclass
class Proc:
    """A started component process, serialisable into env.json."""

    name: str
    pid: int
    start_ticks: int
    log: str
    argv: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Proc":
        return cls(**data)


def tail(path: str | Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
    except OSError as e:
        return f"(log unreadable: {e})"
    return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces; split after it.
    return raw[raw.rindex(")") + 2:].split()


def cpu_seconds(proc: Proc) -> float | None:
    """User + system CPU the component's process has used so far (all its threads); None when it is gone."""
    fields = _stat_fields(proc.pid) if alive(proc) else None
    if not fields:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start_ticks(pid: int) -> int:
    fields = _stat_fields(pid)
    return int(fields[19]) if fields else -1  # field 22 of stat = starttime


def spawn(name: str, argv: list[str], log: Path, cwd: str | Path | None = None,
          env: dict | None = None) -> Proc:
    """Start argv detached with output appended to `log`."""
    if abort_startup.is_set():
        raise StartupAborted(f"not starting {name}: another component failed")
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                 cwd=cwd, env=env, start_new_session=True)
    _children[popen.pid] = popen
    proc = Proc(name=name, pid=popen.pid, start_ticks=_start_ticks(popen.pid), log=str(log), argv=list(argv))
    _spawned.append(proc)
    return proc


def spawn_mark() -> int:
    """A marker for spawned_since(): how many processes this Python process has spawned so far."""
    return len(_spawned)


def spawned_since(mark: int) -> list[Proc]:
    return list(_spawned[mark:])


def alive(proc: Proc) -> bool:
    popen = _children.get(proc.pid)
    if popen is not None:
        return popen.poll() is None
    fields = _stat_fields(proc.pid)
    return bool(fields) and fields[0] != "Z" and int(fields[19]) == proc.start_ticks


def stop(proc: Proc, timeout: float = 15.0) -> None:
    """SIGTERM the component's process group, SIGKILL it if still there after `timeout` seconds."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        if not alive(proc):
            break
        try:
            # start_new_session made the component its own process-group leader: pgid == pid.
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while alive(proc) and time.monotonic() < deadline:
            time.sleep(0.1)
    _children.pop(proc.pid, None)


def wait_until(proc: Proc, what: str, check: Callable[[], T | None], timeout: float,
               interval: float = 0.25, extra_logs: list[str | Path] = ()) -> T:
    """Poll check() until it returns a truthy value; fail loudly if the process dies or time runs out."""
    timeout *= TIMEOUT_SCALE
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while True:
        if abort_startup.is_set():
            raise StartupAborted(f"stopped waiting for {proc.name}: another component failed")
        if not alive(proc):
            raise ComponentError(proc.name, f"process {proc.pid} exited before {what}",
                                 [proc.log, *extra_logs])
        try:
            result = check()
            if result:
                return result
        except Exception as e:  # noqa: BLE001 - any probe failure just means "not ready yet"
            last_error = e
        if time.monotonic() > deadline:
            detail = f" (last probe error: {last_error})" if last_error else ""
            raise ComponentError(proc.name, f"not {what} after {timeout:.0f}s{detail}", [proc.log, *extra_logs])
        time.sleep(interval)


def run_checked(component: str, argv: list[str], log: Path, timeout: float = 120.0, cwd=None) -> None:
    """Run a short-lived helper command (openssl, storage format) to completion, output into `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        out.write(f"$ {' '.join(argv)}\n".encode())
        out.flush()
        try:
            rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                timeout=timeout, cwd=cwd).returncode
        except subprocess.TimeoutExpired:
            raise ComponentError(component, f"{argv[0]} timed out after {timeout:.0f}s", [log]) from None
    if rc != 0:
        raise ComponentError(component, f"{' '.join(argv[:3])} ... exited with {rc}", [log])
