"""How the library reports progress: the :class:`Progress` protocol (``step``, ``waiting``, ``done``, ``warn``) and
:class:`SilentProgress`. A bottom module, so that ``core`` reports without importing ``output``; the CLI passes
``output.progress.StderrProgress``, Python users may pass their own or :class:`SilentProgress`.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """What an operation reports: each step as it starts, a wait (until ``done``), and warnings."""

    def step(self, message: str) -> None: ...
    def waiting(self, message: str) -> None: ...
    def done(self) -> None: ...
    def warn(self, message: str) -> None: ...


class SilentProgress:
    """Reports nothing: the default of every library call."""

    def step(self, message: str) -> None: pass
    def waiting(self, message: str) -> None: pass
    def done(self) -> None: pass
    def warn(self, message: str) -> None: pass
