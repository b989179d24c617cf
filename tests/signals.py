"""Ctrl-C in tests, whatever the runner's own SIGINT disposition.

A shell starts a background job of a non-interactive shell (``bash -c 'make test &'``, ``nohup ... &``, many CI
runners) with SIGINT ignored, and an ignored disposition is inherited by every child and kept across ``exec``; a
Python started that way does not install its KeyboardInterrupt handler either. A test that sends SIGINT must then
set the receiving process's disposition itself, as a terminal would have left it, or it only passes when its
runner was started from a terminal:

- a plugin process the test interrupts: ``subprocess.Popen(..., **interruptible())``;
- the test's own process (a thread sends SIGINT to it): ``with ctrl_c_raises(): ...``.
"""
from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


def _default_sigint() -> None:
    # Runs in the child between fork and exec: the default disposition, which the exec keeps and from which the
    # new Python installs its KeyboardInterrupt handler, as from a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interruptible() -> dict:
    """Popen keyword arguments for a process the test will send SIGINT to."""
    return {"preexec_fn": _default_sigint}


@contextmanager
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this (the main) thread for the block, as in a Python started from a
    terminal; the disposition before is put back after."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
