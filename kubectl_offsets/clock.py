"""Time as the online operations see it: one injectable clock, so that waits, timeouts, leases and heartbeats run in
real time against a cluster and in virtual time against the in-memory cluster of the unit tests (no real sleeps).
Standard library only.

The cluster client carries the clock (``Kube.clock``): whoever builds the client decides what time is, and every
wait on that cluster measures with it.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds on a clock that never goes back: deadlines and waits."""

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass."""

    def now(self) -> dt.datetime:
        """The wall-clock time, UTC, to the second: what journals and backups record."""

    def time_ns(self) -> int:
        """Nanoseconds since the epoch: a value that changes at every call worth telling apart (nudges)."""


class SystemClock:
    """The real clock."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    def time_ns(self) -> int:
        return time.time_ns()


SYSTEM = SystemClock()


def of(kube: object) -> Clock:
    """The clock of a cluster client (``SYSTEM`` for one that carries none, e.g. a test double)."""
    clock = getattr(kube, "clock", None)
    return clock if clock is not None else SYSTEM
