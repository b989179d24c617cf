"""A keyed work queue (the client-go ``workqueue`` idea) that serialises reconciles per resource.

A key is never processed by two workers at once; events arriving while a key is being reconciled mark it dirty and it
is reconciled once more afterwards (Strimzi serialises per resource with a lock, §2.9).  Duplicate pending events
collapse into one reconcile.
"""
import collections
import threading


class WorkQueue:
    def __init__(self):
        self._cond = threading.Condition()
        self._queue = collections.deque()
        self._queued = set()
        self._processing = set()
        self._dirty = set()
        self._shutdown = False

    def add(self, key):
        with self._cond:
            if key in self._processing:
                self._dirty.add(key)
            elif key not in self._queued:
                self._queued.add(key)
                self._queue.append(key)
                self._cond.notify()

    def get(self, timeout=None):
        """Next key to process, or None on shutdown/timeout.  Call ``done(key)`` afterwards."""
        with self._cond:
            while not self._queue and not self._shutdown:
                if not self._cond.wait(timeout):
                    return None
            if self._shutdown:
                return None
            key = self._queue.popleft()
            self._queued.discard(key)
            self._processing.add(key)
            return key

    def done(self, key):
        with self._cond:
            self._processing.discard(key)
            if key in self._dirty:
                self._dirty.discard(key)
                if key not in self._queued:
                    self._queued.add(key)
                    self._queue.append(key)
                    self._cond.notify()

    def shutdown(self):
        with self._cond:
            self._shutdown = True
            self._cond.notify_all()

    def pending(self):
        with self._cond:
            return len(self._queue) + len(self._processing)
