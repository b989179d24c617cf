"""Resident memory of a process tree, sampled while it runs: what the whole suite (the environments it starts, their
Connect workers, the pytest workers, the plugin's own processes) holds at its peak.

Every process the suite runs descends from it: the environment's components are spawned with ``start_new_session``
(a new session, the same parent), the kubelet stand-in's Connect workers are its children, the era environments and
pytest workers are the suite's children. So the sum over the suite process's descendants is the suite's footprint;
nothing of another user's environment on the same machine is counted.

    from tests import memory
    sys.exit(memory.sampled(main))     # runs main() with a sampler beside it, prints the peak at the end, and
                                       # fails (exit 1 if main's was 0) when the peak is over the bound

The figure is the sum of each process's RSS (``/proc/PID/statm``), which counts the pages processes share (the JVMs'
shared libraries, the Python interpreter) once per process: an upper bound of what they need. ``/proc/meminfo``'s
``MemTotal - MemAvailable`` at the same moment is reported beside it, machine-wide (other users included). Reads
only ``/proc``: no dependency.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
MB = 1024 * 1024
# The bound of issue 24: the whole suite under 16 GB of resident memory on the 24 GB machine.
LIMIT_BYTES = 16 * 1024 ** 3


def rss_bytes(pid: int) -> int:
    """Resident set size of one process; 0 when it is gone (it may exit between listing and reading)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process now."""
    parents = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        # The command name (field 2) is in parentheses and may contain spaces; the parent is the 2nd field after it.
        parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    return parents


def descendants(root: int) -> list[int]:
    """Every living descendant of ``root`` (not ``root`` itself)."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def kind_of(pid: int) -> str:
    """What a process of the suite is, for the breakdown: a Connect worker, Kafka, the operator, pytest, ..."""
    argv = cmdline(pid)
    text = " ".join(argv)
    for needle, kind in (("ConnectDistributed", "connect worker"), ("kafka.Kafka", "kafka"),
                         ("io.strimzi.operator", "strimzi operator"), ("tests.env.emulator", "operator emulator"),
                         ("tests.env.kubelet", "kubelet stand-in"), ("kube-apiserver", "kube-apiserver"),
                         ("etcd", "etcd"), ("deploy.master.Master", "spark"), ("deploy.worker.Worker", "spark"),
                         ("SparkSubmit", "spark"), ("pytest", "pytest"),
                         ("sys.stdin.readline", "pytest"),  # a pytest-xdist worker (execnet's bootstrap)
                         ("tests.suite", "suite"), ("tests.run_eras", "suite"), ("kubectl-offsets", "kubectl-offsets"),
                         ("kubectl_offsets", "kubectl-offsets")):
        if needle in text:
            return kind
    return Path(argv[0]).name if argv else "?"


def used_machine_bytes() -> int:
    """MemTotal - MemAvailable: what the whole machine uses now (every user)."""
    info = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, _, value = line.partition(":")
        info[key] = int(value.split()[0]) * 1024
    return info["MemTotal"] - info["MemAvailable"]


@dataclass
class Peak:
    """The sample with the largest RSS sum, and the most Connect workers seen at once."""
    rss: int = 0
    processes: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    count_by_kind: dict[str, int] = field(default_factory=dict)
    machine_used: int = 0
    at: float = 0.0
    connect_workers: int = 0  # the most at once, whenever (not necessarily at the RSS peak)
    samples: int = 0

    def summary(self, seconds: float | None = None) -> str:
        within = "within" if self.rss < LIMIT_BYTES else "OVER"
        parts = ", ".join(f"{kind} {size / MB:.0f} MB" + (f" ({self.count_by_kind[kind]})"
                                                          if self.count_by_kind.get(kind, 0) > 1 else "")
                          for kind, size in sorted(self.by_kind.items(), key=lambda kv: -kv[1]))
        when = f" at {time.strftime('%H:%M:%S', time.localtime(self.at))}" if self.at else ""
        span = f" over {seconds:.0f} s" if seconds is not None else ""
        return (f"peak resident memory {self.rss / 1024 ** 3:.2f} GB (sum of the RSS of {self.processes} processes"
                f"{when}; {within} the {LIMIT_BYTES / 1024 ** 3:.0f} GB bound): {parts}. Machine-wide in use then "
                f"{self.machine_used / 1024 ** 3:.2f} GB. At most {self.connect_workers} Connect workers at once "
                f"({self.samples} samples{span}).")


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) one process has used so far; 0 when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # Fields 14 and 15 (utime, stime) are the 12th and 13th after the parenthesised command name.
    after = stat[stat.rindex(")") + 2:].split()
    return (int(after[11]) + int(after[12])) / TICK


@dataclass
class CpuUse:
    """CPU seconds by kind of process over the run: the last reading of each process seen (a process that exits
    loses at most one interval), and the machine's busy seconds over the same span. Where the suite's two cores
    go: a run that keeps the machine at 100% is as fast as the CPU its components burn lets it be."""
    last: dict[int, tuple[str, float]] = field(default_factory=dict)
    machine_busy: float = 0.0

    def record(self, pid: int, kind: str) -> None:
        seconds = cpu_seconds(pid)
        if seconds:
            self.last[pid] = (kind, seconds)

    def by_kind(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for kind, seconds in self.last.values():
            totals[kind] = totals.get(kind, 0.0) + seconds
        return totals

    def summary(self) -> str:
        totals = self.by_kind()
        seen = sum(totals.values())
        parts = ", ".join(f"{kind} {seconds:.0f} s ({100 * seconds / seen:.0f}%)"
                          for kind, seconds in sorted(totals.items(), key=lambda kv: -kv[1]))
        rest = max(self.machine_busy - seen, 0.0)
        return (f"CPU used by the suite's processes {seen:.0f} s: {parts}. The machine was busy {self.machine_busy:.0f} s "
                f"in all; {rest:.0f} s of it went to processes too short-lived to be sampled (git, kubectl, "
                f"interpreters the tests start) or to other users.")


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine since boot (/proc/stat), every CPU together."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


@dataclass
class Minute:
    """One minute of the run: the machine's CPU use, the suite's largest RSS sum and Connect workers."""
    busy: int = 0
    total: int = 0
    rss: int = 0
    workers: int = 0

    def line(self, index: int) -> str:
        cpu = f"{100 * self.busy / self.total:3.0f}%" if self.total else "  ?"
        return f"  min {index:3d}: CPU {cpu} (machine)  RSS {self.rss / 1024 ** 3:5.2f} GB  Connect workers {self.workers}"


class Sampler:
    """Samples the RSS of ``root``'s process tree (``root`` included) every ``interval`` seconds in a daemon
    thread, and the machine's CPU use per minute (where a run has idle cores to fill, and where it has none);
    ``stop()`` returns the peak."""

    def __init__(self, root: int | None = None, interval: float = 2.0):
        self.root, self.interval = root or os.getpid(), interval
        self.peak = Peak()
        self.cpu = CpuUse()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)
        self.started = 0.0
        self.minutes: list[Minute] = []
        self._ticks: tuple[int, int] | None = None

    def start(self) -> Sampler:
        self.started = time.monotonic()
        self._thread.start()
        return self

    def sample(self) -> None:
        by_kind: dict[str, int] = {}
        counts: dict[str, int] = {}
        total = 0
        pids = [self.root, *descendants(self.root)]
        for pid in pids:
            size = rss_bytes(pid)
            if not size:
                continue
            kind = kind_of(pid)
            self.cpu.record(pid, kind)
            by_kind[kind] = by_kind.get(kind, 0) + size
            counts[kind] = counts.get(kind, 0) + 1
            total += size
        self._timeline(total, counts.get("connect worker", 0))
        peak = self.peak
        peak.samples += 1
        peak.connect_workers = max(peak.connect_workers, counts.get("connect worker", 0))
        if total > peak.rss:
            peak.rss, peak.processes, peak.by_kind, peak.count_by_kind = total, sum(counts.values()), by_kind, counts
            peak.machine_used, peak.at = used_machine_bytes(), time.time()

    def _timeline(self, rss: int, workers: int) -> None:
        ticks = cpu_ticks()
        index = int((time.monotonic() - self.started) // 60)
        while len(self.minutes) <= index:
            self.minutes.append(Minute())
        minute = self.minutes[index]
        if self._ticks is not None:
            minute.busy += ticks[0] - self._ticks[0]
            minute.total += ticks[1] - self._ticks[1]
            self.cpu.machine_busy += (ticks[0] - self._ticks[0]) / TICK
        self._ticks = ticks
        minute.rss, minute.workers = max(minute.rss, rss), max(minute.workers, workers)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sample()
            except Exception:  # noqa: BLE001 - a failed sample must never disturb the run it measures
                pass
            self._stop.wait(self.interval)

    def stop(self) -> Peak:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        return self.peak

    def __enter__(self) -> Sampler:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def sampled(function: Callable[[], int], interval: float = 2.0, limit: int = LIMIT_BYTES) -> int:
    """Run ``function()`` (it returns an exit status) with a sampler of this process's tree beside it; print the peak
    when it ends (also on an exception or Ctrl-C) and return the status, or 1 in place of a 0 when the peak passed
    ``limit``: a bound that is only reported is not a bound."""
    sampler = Sampler(interval=interval).start()
    status = 1
    try:
        status = function()
    finally:
        peak = sampler.stop()
        print(f"[tests.memory] {peak.summary(time.monotonic() - sampler.started)}", flush=True)
        print(f"[tests.memory] {sampler.cpu.summary()}", flush=True)
        print("[tests.memory] per minute:", *(m.line(i) for i, m in enumerate(sampler.minutes)), sep="\n",
              flush=True)
    if peak.rss >= limit:
        print(f"[tests.memory] the peak is over the {limit / 1024 ** 3:.0f} GB bound: the run fails", flush=True)
        return status or 1
    return status
