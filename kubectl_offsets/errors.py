"""The error family of kubectl-offsets and the exit status each maps to.

Every failure the library raises on purpose is an :class:`OffsetsError`. It carries a message that says what is
wrong, optional advice that says how to fix it, and optionally the exact command to run next (recover, undo).
The CLI turns it into stderr text and an exit code in exactly one place (``cli/exits.py``); library users get
the same information as attributes.
"""

from __future__ import annotations

import enum
import re
from typing import overload


class ExitStatus(enum.IntEnum):
    OK = 0
    ERROR = 1  # an unexpected failure; a bug or an environment problem we did not foresee
    USAGE = 2  # bad flags or bad input; nothing was changed
    NOT_FOUND = 3  # the target (connector, resource, manifest) does not exist
    FORBIDDEN = 4  # RBAC says no; nothing was changed
    PRECONDITION = 5  # the cluster is not in a state we can work in (paused reconcile, failed connector, busy)
    OPERATOR = 6  # the operator reported a Warning/NotReady for our request
    TIMEOUT = 7  # the operator or Connect did not react in time
    VERIFY = 8  # the operation ran but the offsets are not what was asked
    CHECK_FAILED = 9  # a check or gate found what it looks for: check (gap/ahead/missing), lag --max-lag/--max-age
    KAFKA_UNREACHABLE = 10  # a Kafka cluster gave no answers (down, wrong address, TLS/SASL refused): not bad flags
    CLUSTER_UNREACHABLE = 11  # the Kubernetes API server gave no answers (down, wrong address, TLS): not a bug
    KUBECONFIG = 12  # the kubeconfig cannot be used: no such file or context, its credential plugin fails
    INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


class OffsetsError(Exception):
    """Base of every error we raise on purpose."""

    exit_status = ExitStatus.ERROR

    def __init__(self, message: str, *, advice: str | None = None, next_command: str | None = None):
        message, advice, next_command = redact(message), redact(advice), redact(next_command)
        super().__init__(message)
        self.message = message
        self.advice = advice
        self.next_command = next_command

    def __str__(self) -> str:
        return self.message


_URL_CREDENTIALS = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"]+@")


@overload
def redact(text: str) -> str: ...


@overload
def redact(text: None) -> None: ...


@overload
def redact(text: str | None) -> str | None: ...


def redact(text: str | None) -> str | None:
    """Credentials inside URLs (``https://user:token@host``) become ``***``. Every error passes through here, so a
    secret in --forge-url, a remote URL or git's own error output is never printed, whoever built the message."""
    return None if text is None else _URL_CREDENTIALS.sub(r"\1***@", text)


class InputError(OffsetsError):
    """The user's input (flags, offsets file, CSV) is invalid. Raised before anything is changed."""

    exit_status = ExitStatus.USAGE


class NotFoundError(OffsetsError):
    exit_status = ExitStatus.NOT_FOUND


class ApiNotServedError(NotFoundError):
    """The API server does not serve Strimzi's API group (or the kind asked for): its CRDs are not installed there.
    Kept apart from a missing resource so that no "check -n" hint hides it."""


class ForbiddenError(OffsetsError):
    exit_status = ExitStatus.FORBIDDEN


class PreconditionError(OffsetsError):
    exit_status = ExitStatus.PRECONDITION


class OperatorError(OffsetsError):
    """The operator answered our request with a Warning or NotReady condition."""

    exit_status = ExitStatus.OPERATOR


class OperationTimeoutError(OffsetsError):
    exit_status = ExitStatus.TIMEOUT


class VerificationError(OffsetsError):
    exit_status = ExitStatus.VERIFY


class CheckFailedError(OffsetsError):
    """A read-only check ran and found problems (its report is already printed); for scripts and CI gates."""

    exit_status = ExitStatus.CHECK_FAILED


class InterruptedOperationError(OffsetsError):
    exit_status = ExitStatus.INTERRUPTED


class ClusterError(OffsetsError):
    """The API server could not be reached or answered with an unexpected error."""

    exit_status = ExitStatus.ERROR


# The API server's answers that callers act on (raised by adapters/kube.py, caught by the guarded write in
# core/online/writes.py): here at the bottom, so core names them without importing the kubernetes client.
class ConflictError(ClusterError):
    """The object changed since we read it (409); the caller re-reads and decides again."""


class InvalidError(ClusterError):
    """The API server refused the request as invalid (422), e.g. a JSON Patch ``test`` operation failed."""


class UnreachableError(ClusterError):
    """The connection to the API server failed (refused, reset, dropped mid-response)."""

    exit_status = ExitStatus.CLUSTER_UNREACHABLE


class KubeconfigError(OffsetsError):
    """The kubeconfig (or the context or credentials it names) cannot be used: nothing was asked of any cluster."""

    exit_status = ExitStatus.KUBECONFIG


class KafkaUnreachableError(InputError):
    """No answers from a Kafka cluster. An InputError still (a wrong --bootstrap-server is the usual cause, and code
    that skips an optional check on bad input skips it here too), but with its own exit status, so that a gate
    (lag --max-lag in cron or CI) tells an outage from bad flags."""

    exit_status = ExitStatus.KAFKA_UNREACHABLE


class MissingExtraError(OffsetsError):
    """An optional dependency (the ``spark`` or ``kafka`` extra) is not installed."""

    exit_status = ExitStatus.USAGE

    def __init__(self, extra: str, module: str):
        super().__init__(
            f"this command needs the optional '{extra}' extra ({module} is not installed)",
            advice=f"install it with: pip install 'kubectl-offsets[{extra}]'",
        )


class OwnershipLostError(PreconditionError):
    """The journal of our operation is gone or carries another owner's id (someone ran ``recover --force``): the
    process stops touching the resource rather than overwrite what the new owner did."""
