"""Progress on stderr: one line per step, a spinner while waiting when stderr is a terminal. Quiet prints nothing.

The library reports through the :class:`~kubectl_offsets.progress.Progress` protocol (``progress.py``); the CLI
passes a :class:`StderrProgress`.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from typing import TextIO

from .terminal import printable


class StderrProgress:
    """``==> message`` per step; while waiting on a TTY a spinner with elapsed seconds redraws one line."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False):
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self._spinner: threading.Thread | None = None
        self._stop = threading.Event()

    def step(self, message: str) -> None:
        self.done()
        if not self.quiet:
            print(f"==> {printable(message)}", file=self.stream, flush=True)

    def warn(self, message: str) -> None:
        self.done()
        print(f"warning: {printable(message)}", file=self.stream, flush=True)  # warnings show even with --quiet

    def waiting(self, message: str) -> None:
        self.done()
        if self.quiet:
            return
        message = printable(message, multiline=False)
        if not self.tty:
            print(f"    {message}", file=self.stream, flush=True)
            return
        self._stop.clear()
        self._spinner = threading.Thread(target=self._spin, args=(message,), daemon=True)
        self._spinner.start()

    def done(self) -> None:
        if self._spinner is not None:
            self._stop.set()
            self._spinner.join()
            self._spinner = None
            print("\r\033[K", end="", file=self.stream, flush=True)

    def _spin(self, message: str) -> None:
        start = time.monotonic()
        for frame in itertools.cycle("|/-\\"):
            print(f"\r    {frame} {message} ({time.monotonic() - start:.0f}s)", end="", file=self.stream, flush=True)
            if self._stop.wait(0.2):
                return
