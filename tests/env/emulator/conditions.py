"""Status conditions and the status diff, as Strimzi builds them (§2.10, §2.11, §2.9).

* ``Ready``/``NotReady`` first, then Warnings in the order they arose (appended, never de-duplicated:
  ``Status#addConditions``).
* ``NotReady`` carries ``reason`` = simple class name of the error and ``message`` = its message.
* ``lastTransitionTime`` = UTC ISO-8601 instant; the status is written only when it differs ignoring that field
  (``StatusDiff``), so the status-event -> reconcile loop converges.
"""
import copy
import datetime


class ReconcileError(Exception):
    """A failure that makes the whole resource reconcile fail -> NotReady with ``reason``/``message``."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason
        self.message = message


def now():
    # ISO_INSTANT with nanosecond precision where Java has it; microseconds are what Python has.
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _condition(ctype, reason=None, message=None):
    cond = {"type": ctype, "status": "True", "lastTransitionTime": now()}
    if reason is not None:
        cond["reason"] = reason
    if message is not None:
        cond["message"] = message
    return cond


def ready():
    return _condition("Ready")


def not_ready(reason, message):
    return _condition("NotReady", reason, message)


def warning(reason, message):
    """``StatusUtils#buildWarningCondition``: type Warning, status "True"."""
    return _condition("Warning", reason, message)


def reconciliation_paused():
    """``StatusUtils#getPausedCondition``: no reason, no message."""
    return _condition("ReconciliationPaused")


def error_condition(error):
    """``StatusUtils#buildConditionFromException``: reason = the Java exception's simple class name, message = its
    getMessage() (absent when null).  ReconcileError and the Connect client errors carry Strimzi's names; anything
    else is named after its Python class, the closest analogue."""
    reason = getattr(error, "reason", None) or type(error).__name__
    message = error.message if hasattr(error, "message") else str(error)
    return not_ready(reason, message)


def without_transition_times(status):
    status = copy.deepcopy(status or {})
    for cond in status.get("conditions") or []:
        cond.pop("lastTransitionTime", None)
    return status


def status_differs(current, desired):
    """``StatusDiff``: compare ignoring ``/conditions/<i>/lastTransitionTime``."""
    return without_transition_times(current) != without_transition_times(desired)


def keep_transition_times(current, desired):
    """Carry over lastTransitionTime of conditions that did not change, so repeated writes look stable."""
    old = {(c.get("type"), c.get("reason"), c.get("message")): c.get("lastTransitionTime")
           for c in (current or {}).get("conditions") or []}
    for cond in desired.get("conditions") or []:
        previous = old.get((cond.get("type"), cond.get("reason"), cond.get("message")))
        if previous:
            cond["lastTransitionTime"] = previous
    return desired
