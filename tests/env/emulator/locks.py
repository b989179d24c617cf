"""``AbstractOperator#withLock``: one lock per custom resource, taken with a timeout; a caller that does not get it
in time gives up (``UnableToAcquireLockException``) and its work is simply not done: never queued, never retried.

Strimzi names the lock after the *reconciliation*'s kind/namespace/name (``getLockName``), and a KafkaConnector watch
event builds its Reconciliation with the owning KafkaConnect's kind and name (``KafkaConnectAssemblyOperator
#connectorEventHandler``), so every connector of one KafkaConnect and the KafkaConnect's own reconcile (builds,
rolling updates, ``reconcileConnectors``) share one lock.  ``LOCK_TIMEOUT_MS`` is 10 s.
"""
import contextlib
import logging
import threading

LOG = logging.getLogger("emulator")
LOCK_TIMEOUT_SECONDS = 10.0  # AbstractOperator.LOCK_TIMEOUT_MS


class KeyedLocks:
    def __init__(self, timeout=LOCK_TIMEOUT_SECONDS):
        self.timeout = timeout
        self._locks = {}
        self._guard = threading.Lock()
        self.dropped = 0  # events given up for want of the lock (for the log and the emulator's own tests)

    def _lock(self, key):
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    @contextlib.contextmanager
    def hold(self, key, what):
        """``with locks.hold(key, "event ...") as acquired:``; ``acquired`` False = the work must be dropped."""
        lock = self._lock(key)
        if not lock.acquire(timeout=self.timeout):
            with self._guard:
                self.dropped += 1
            LOG.info("%s %s/%s: lock not acquired within %gs: %s dropped (UnableToAcquireLockException)",
                     key[0], key[1], key[2], self.timeout, what)
            yield False
            return
        try:
            yield True
        finally:
            lock.release()
