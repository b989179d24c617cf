"""The tests' one way to wait: poll a probe until it answers, bounded, with an optional nudge for the operator.

Used by the integration tests, the fault matrix and the benchmarks, so it raises ``AssertionError`` (pytest shows it
as a failure) and imports nothing heavy. A sleep in a test is a question with no answer: wait for the event that
proves the thing instead (a stored offset, Connect forgetting a connector, a file reaching its end).

Strimzi's operator reconciles a KafkaConnector once per watch event, and writes its status only when it changes, so
a pass that failed twice the same way (Connect answering 500 while its group rebalances) is retried only by the
periodic pass, 120 s later (KafkaConnectAssemblyOperator#connectorEventHandler; StatusDiff ignores
lastTransitionTime). A user waiting on ``kubectl get`` eventually touches the resource; ``nudge`` is that touch: a
new value of an annotation nothing reads, which is one more event.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

# The tests' own annotation whose new value is a watch event for the operator (the plugin's is kubectl-offsets.io/nudge).
NUDGE_ANNOTATION = "kubectl-offsets-test/nudge"
NUDGE_EVERY = 10.0  # Strimzi's lock timeout (AbstractOperator.LOCK_TIMEOUT_MS): an event queued longer is dropped
# A probe is a request to an API server or a Connect worker, and a suite run has a dozen waits going at once on a
# machine its components already keep busy: polling every 0.25 s through a minute-long wait is load that slows the
# very operator being waited for. Most answers come within a second, so the first polls are quick; a wait that
# lasts polls less and less often (each pause 1.5 times the last), at most every POLL_CEILING seconds.
POLL_GROWTH = 1.5
POLL_CEILING = 1.0


def eventually(what: str, probe: Callable[[], Any], timeout: float = 60.0, interval: float = 0.25, *,
               nudge: Callable[[], None] | None = None, nudge_every: float = NUDGE_EVERY,
               tolerate: tuple[type[BaseException], ...] = ()) -> Any:
    """``probe()``'s first truthy value, polled after ``interval`` seconds, then less and less often (at most every
    POLL_CEILING seconds, or ``interval`` if longer); after ``timeout`` an AssertionError that names ``what`` and the
    last value. ``nudge()`` runs every ``nudge_every`` seconds without an answer;
    exceptions of a ``tolerate`` type count as no answer (a resource not created yet), and the last one is named."""
    started = time.monotonic()
    deadline, next_nudge, nudges = started + timeout, started + nudge_every, 0
    pause, ceiling = interval, max(interval, POLL_CEILING)
    last: Any = None
    error: BaseException | None = None
    while True:
        try:
            last = probe()
        except tolerate as raised:
            last, error = None, raised
        if last:
            return last
        now = time.monotonic()
        if now >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}"
                                 + (f" ({nudges} nudges)" if nudge else "") + f"; last value: {str(last)[:1500]}"
                                 + (f"; last error: {error!r}"[:600] if error is not None else ""))
        if nudge is not None and now >= next_nudge:
            nudge()
            nudges, next_nudge = nudges + 1, now + nudge_every
        time.sleep(min(pause, max(deadline - now, 0.0)))  # the last probe at the deadline, not a pause past it
        pause = min(pause * POLL_GROWTH, ceiling)


def unchanged_for(what: str, read: Callable[[], Any], quiet: float, timeout: float = 60.0,
                  interval: float = 0.5) -> Any:
    """``read()``'s value once it stayed the same for ``quiet`` seconds (a resourceVersion the operator's trailing
    status writes have stopped moving), so a later comparison is not overtaken by a late write."""
    deadline = time.monotonic() + timeout
    last, since = read(), time.monotonic()
    while True:
        time.sleep(interval)
        value = read()
        if value != last:
            last, since = value, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} never stayed the same for {quiet:.0f}s in {timeout:.0f}s; last: "
                                 f"{str(last)[:500]}")


def nudge(custom_api, version: str, namespace: str, plural: str, name: str, value: str | None = None) -> None:
    """Give the operator a watch event on one Strimzi resource (``value`` None removes the annotation again)."""
    custom_api.patch_namespaced_custom_object(
        "kafka.strimzi.io", version, namespace, plural, name,
        {"metadata": {"annotations": {NUDGE_ANNOTATION: value}}},
        _content_type="application/merge-patch+json")


def nudger(custom_api, version: str, namespace: str, plural: str, name: str) -> Callable[[], None]:
    """``nudge`` bound to one resource, each call with a new value: the ``nudge=`` of ``eventually``."""
    return lambda: nudge(custom_api, version, namespace, plural, name, str(time.time_ns()))


@contextmanager
def nudging(custom_api, version: str, namespace: str, plural: str, name: str) -> Iterator[Callable[[], None]]:
    """``nudger`` for the ``nudge=`` of waits inside the block; on leaving it, the annotation is taken off again if
    any nudge was sent, so a later "nothing changed" comparison of the resource's annotations is not fooled."""
    sent: list[bool] = []

    def touch() -> None:
        nudge(custom_api, version, namespace, plural, name, str(time.time_ns()))
        sent.append(True)

    try:
        yield touch
    finally:
        if sent:
            nudge(custom_api, version, namespace, plural, name, None)
