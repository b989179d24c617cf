"""The single place where an OffsetsError becomes stderr text and an exit code."""

from __future__ import annotations

import sys
from typing import Callable, TypeVar

import click

from ..errors import ExitStatus, OffsetsError

T = TypeVar("T")


def report(error: OffsetsError) -> int:
    """Print an error the way kubectl does (``error: ...``), with advice and the next command, and return the
    exit status."""
    lines = [f"error: {error.message}"]
    if error.advice:
        lines.append(f"  hint: {error.advice}")
    if error.next_command:
        lines.append(f"  next: {error.next_command}")
    click.echo("\n".join(lines), err=True)
    return int(error.exit_status)


def guarded(work: Callable[[], T]) -> T:
    """Run a command body; turn our errors into exits. Anything else is a bug and keeps its traceback."""
    try:
        return work()
    except OffsetsError as error:
        sys.exit(report(error))
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(int(ExitStatus.INTERRUPTED))
