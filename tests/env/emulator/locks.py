"""``AbstractOperator#withLock``: one lock per custom resource, taken with a timeout; a caller that does not get it
in time gives up (``UnableToAcquireLockException``) and its work is simply not done: never queued, never retried.

Strimzi names the lock after the *reconciliation*'s kind/namespace/name (``getLockName``), and a KafkaConnector watch
event builds its Reconciliation with the owning KafkaConnect's kind and name (``KafkaConnectAssemblyOperator
#connectorEventHandler``), so every connector of one KafkaConnect and the KafkaConnect's own reconcile (builds,
rolling updates, ``reconcileConnectors``) share one lock.  ``LOCK_TIMEOUT_MS`` is 10 s.

Vert.x local locks (``SharedData#getLockWithTimeout``) hand the lock to waiters in the order they asked, and the
timeout runs from the moment of asking.  So a waiter takes a ``Ticket`` (its place in the queue) when the event is
received, on the watcher's thread, and then waits on its own thread: events of one KafkaConnect are reconciled in the
order they arrived, as in Strimzi, and none can overtake an older one.
"""
import collections
import contextlib
import logging
import threading
import time

LOG = logging.getLogger("emulator")
LOCK_TIMEOUT_SECONDS = 10.0  # AbstractOperator.LOCK_TIMEOUT_MS


class Ticket:
    def __init__(self, key, deadline):
        self.key, self.deadline = key, deadline
        self.granted = threading.Event()


class _FairLock:
    """A FIFO lock: ``release`` hands the lock to the oldest waiter that has not given up."""

    def __init__(self):
        self._mutex = threading.Lock()
        self._held = False
        self._waiters = collections.deque()

    def enqueue(self, ticket):
        with self._mutex:
            if not self._held and not self._waiters:
                self._held = True
                ticket.granted.set()
            else:
                self._waiters.append(ticket)

    def wait(self, ticket):
        if ticket.granted.wait(max(0.0, ticket.deadline - time.monotonic())):
            return True
        with self._mutex:
            if ticket.granted.is_set():  # handed over just as the time ran out
                return True
            self._waiters.remove(ticket)
            return False

    def release(self):
        with self._mutex:
            if self._waiters:
                self._waiters.popleft().granted.set()  # still held: ownership passes on
            else:
                self._held = False


class KeyedLocks:
    def __init__(self, timeout=LOCK_TIMEOUT_SECONDS):
        self.timeout = timeout
        self._locks = {}
        self._guard = threading.Lock()
        self.dropped = 0  # work given up for want of the lock

    def _lock(self, key):
        with self._guard:
            return self._locks.setdefault(key, _FairLock())

    def reserve(self, key):
        """Ask for the lock now (``getLockWithTimeout``): the place in the queue and the timeout start here."""
        ticket = Ticket(key, time.monotonic() + self.timeout)
        self._lock(key).enqueue(ticket)
        return ticket

    @contextlib.contextmanager
    def hold(self, ticket, what):
        """``with locks.hold(ticket, "event ...") as acquired:``; ``acquired`` False = the work must be dropped."""
        lock = self._lock(ticket.key)
        kind, namespace, name = ticket.key
        if not lock.wait(ticket):
            with self._guard:
                self.dropped += 1
            LOG.info("%s %s/%s: lock not acquired within %gs: %s dropped (UnableToAcquireLockException)",
                     kind, namespace, name, self.timeout, what)
            yield False
            return
        LOG.info("%s %s/%s: lock acquired: %s", kind, namespace, name, what)  # which event a pass is for
        try:
            yield True
        finally:
            lock.release()
