"""The single place where an OffsetsError becomes stderr text and an exit code. ``cli/root.py`` runs every command
inside :func:`exit_on_error`, so command bodies just raise."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from typing import Iterator

import click

from ..errors import ExitStatus, OffsetsError


# What each exit status means, in a word or two: the root help's epilog (written once: docs/online.md has the table).
MEANINGS = {
    ExitStatus.OK: "success",
    ExitStatus.ERROR: "unexpected failure (a bug, or an API server error not foreseen)",
    ExitStatus.USAGE: "bad flags or input; nothing was changed",
    ExitStatus.NOT_FOUND: "the connector, resource, backup or Strimzi API does not exist",
    ExitStatus.FORBIDDEN: "RBAC says no; nothing was changed",
    ExitStatus.PRECONDITION: "the cluster is not in a state to work in (paused, failed, busy)",
    ExitStatus.OPERATOR: "the operator answered with a Warning/NotReady",
    ExitStatus.TIMEOUT: "the operator or Connect did not react within --timeout",
    ExitStatus.VERIFY: "the operation ran but the offsets are not what was asked",
    ExitStatus.CHECK_FAILED: "a check or gate found what it looks for (check, lag --max-lag/--max-age)",
    ExitStatus.KAFKA_UNREACHABLE: "a Kafka cluster gave no answers (down, wrong --bootstrap-server, TLS/SASL)",
    ExitStatus.CLUSTER_UNREACHABLE: "the Kubernetes API server gave no answers (down, wrong address, TLS)",
    ExitStatus.KUBECONFIG: "the kubeconfig cannot be used (no such file or context, credential plugin failed)",
    ExitStatus.INTERRUPTED: "interrupted (Ctrl-C, SIGTERM); the connector is made safe first",
}


def exit_codes_epilog() -> str:
    """The table, built from ExitStatus (\b: click keeps the lines as they are)."""
    return "\b\nExit codes:\n" + "\n".join(f"  {int(status):<3} {MEANINGS[status]}" for status in ExitStatus)


def report_usage(error: click.UsageError) -> int:
    """A usage error (unknown flag, bad value, missing argument) in the style of every other error: ``error:``
    and a hint instead of click's usage block; exit 2, as kubectl."""
    from ..output.terminal import echo  # here, not at the top: the root --help imports this module for the table

    where = error.ctx.command_path if error.ctx is not None else "kubectl offsets"
    echo(f"error: {error.format_message()}\n  hint: see '{where} --help'", err=True)
    return int(ExitStatus.USAGE)


def report(error: OffsetsError) -> int:
    """Print an error the way kubectl does (``error: ...``), with advice and the next command, and return the
    exit status."""
    from ..output.terminal import echo

    lines = [f"error: {error.message}"]
    if error.advice:
        lines.append(f"  hint: {error.advice}")
    if error.next_command:
        lines.append(f"  next: {error.next_command}")
    echo("\n".join(lines), err=True)
    return int(error.exit_status)


def _terminated(signum, _frame):
    """SIGTERM (kill, a CI timeout, a pod shutting down) and SIGHUP (the terminal closed) unwind like Ctrl-C, so the
    step machine makes the connector safe or prints the recover command instead of dying mid-operation."""
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def _signals_interrupt():
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (the library is also driven from threads in tests)
        return
    names = [name for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    saved = {name: signal.signal(getattr(signal, name), _terminated) for name in names}
    try:
        yield
    finally:
        for name, handler in saved.items():
            signal.signal(getattr(signal, name), handler)


@contextlib.contextmanager
def signals_set(stop: threading.Event) -> Iterator[None]:
    """While many connectors are worked on in threads: Ctrl-C, SIGTERM and SIGHUP set ``stop`` instead of raising
    in the main thread, however often they come, so that no new connector starts, the ones under way finish, and
    the summary with the next commands is always printed (the caller exits 130 after it).

    Once interrupted, the process is on its way out (exit 130): the handlers are not put back, so one more Ctrl-C
    pressed while it prints and exits cannot turn that into a death by SIGINT halfway through."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    saved = {name: signal.signal(getattr(signal, name), lambda signum, frame: stop.set()) for name in names}
    try:
        yield
    finally:
        if not stop.is_set():
            for name, handler in saved.items():
                signal.signal(getattr(signal, name), handler)


@contextlib.contextmanager
def exit_on_error() -> Iterator[None]:
    """Around a command: our errors become exits (with their status), SIGTERM/SIGHUP and Ctrl-C exit as
    interrupted. Anything else is a bug and keeps its traceback."""
    try:
        with _signals_interrupt():
            yield
    except OffsetsError as error:
        sys.exit(report(error))
    except click.exceptions.NoArgsIsHelpError:
        raise  # a group called bare shows its help (click's own handling)
    except click.UsageError as error:
        sys.exit(report_usage(error))
    except KeyboardInterrupt:
        click.echo("error: interrupted", err=True)
        sys.exit(int(ExitStatus.INTERRUPTED))
