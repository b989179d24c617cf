"""The emulated cluster operator: watches -> reconciles, plus the periodic full reconcile, in one of two cadences.

realistic (the default; Strimzi's own cadence, as its classes named below behave):
* ``ReconnectingWatcher#eventReceived`` -> ``KafkaConnectAssemblyOperator#connectorEventHandler``: every KafkaConnector
  event is reconciled on its own, with the object the event carried (no fresh GET, no merging of queued events),
  under the owning KafkaConnect's lock; not acquired within 10 s = dropped, never re-queued (locks.py).
* KafkaConnect and KafkaMirrorMaker2 events -> ``AbstractOperator#reconcile``: the resource's own lock, a fresh GET.
* Periodic: ``ClusterOperator`` runs ``reconcileAll`` for KafkaConnect and KafkaMirrorMaker2 every ``--interval``
  (``STRIMZI_FULL_RECONCILIATION_INTERVAL_MS``); KafkaConnectors are reached only through their KafkaConnect
  (``#reconcileConnectors``).  Nothing else re-queues anything: a failed list/alter/reset retries once because its
  Warning status write is an event, and then only periodically (the second identical Warning changes nothing).
* MirrorMaker 2 connectors only after a simulated pod-readiness wait (``--mm2-readiness``).

fast (``--cadence fast``, for the few tests that want the old behaviour): a keyed work queue that coalesces events,
re-reads each resource, queues every resource of every kind every ``--interval`` and retries crashed reconciles.

Limitation (README.md of this package): every KafkaConnect and KafkaMirrorMaker2 maps to the single Connect worker at
``--connect-url``; tests must use unique connector names and MM2 aliases.
"""
import logging
import threading
import traceback

from . import kafka_connect, kafka_connector, kafka_mirror_maker2
from .connect_client import ConnectClient
from .faults import Faults
from .kube import Kube
from .locks import KeyedLocks
from .watcher import KindWatcher
from .workqueue import WorkQueue

LOG = logging.getLogger("emulator")
KINDS = ("KafkaConnect", "KafkaConnector", "KafkaMirrorMaker2")
RETRY_AFTER_ERROR_SECONDS = 5.0
CADENCES = ("realistic", "fast")


class Context:
    """What a reconcile needs: API clients, the Strimzi profile, fault knobs, locks, the decision log, last-seen
    objects (for deletes)."""

    def __init__(self, kube, connect, faults, profile, locks, mm2_readiness_seconds=0.0):
        self.kube, self.connect, self.faults, self.profile = kube, connect, faults, profile
        self.locks, self.mm2_readiness_seconds = locks, mm2_readiness_seconds
        self._seen = {}
        self._seen_lock = threading.Lock()

    def decide(self, cr, message):
        """One log line per reconcile decision."""
        meta = (cr or {}).get("metadata") or {}
        LOG.info("%s %s/%s: %s", (cr or {}).get("kind", "?"), meta.get("namespace"), meta.get("name"), message)

    def operator_version(self, namespace):
        """The Strimzi version this namespace's operator emulates: the image tag of a pod labelled
        ``strimzi.io/kind=cluster-operator`` in the namespace (how a real installation shows its version), else
        the profile's release. Lets tests run one namespace as an older operator would."""
        return self.kube.operator_version(namespace) or tuple(int(p) for p in self.profile.release.split(".")[:3])

    def remember(self, kind, obj):
        meta = obj["metadata"]
        with self._seen_lock:
            self._seen[(kind, meta["namespace"], meta["name"])] = obj

    def forget(self, kind, namespace, name):
        with self._seen_lock:
            return self._seen.pop((kind, namespace, name), None)


class Operator:
    """Shared lifecycle: watchers, the periodic thread, fault reloading.  Subclasses decide what an event does."""

    cadence = None

    def __init__(self, kubeconfig, connect_url, faults_path, interval, profile, lock_timeout=10.0,
                 mm2_readiness_seconds=0.0):
        self.faults = Faults(faults_path)
        self.ctx = Context(Kube(kubeconfig, profile.read_version), ConnectClient(connect_url, self.faults, profile),
                           self.faults, profile, KeyedLocks(lock_timeout), mm2_readiness_seconds)
        self.interval = interval
        self.stop_event = threading.Event()

    def start(self):
        for kind in KINDS:
            KindWatcher(self.ctx.kube, kind, self.on_event, self.stop_event).start()
        threading.Thread(target=self._periodic, name="periodic", daemon=True).start()
        LOG.info("emulator started: strimzi=%s cadence=%s interval=%ss lock-timeout=%ss mm2-readiness=%ss",
                 self.ctx.profile.name, self.cadence, self.interval, self.ctx.locks.timeout,
                 self.ctx.mm2_readiness_seconds)

    def stop(self):
        self.stop_event.set()

    def reload_faults(self):
        try:
            self.faults.reload()  # knobs are re-read on every reconcile
        except ValueError as err:
            LOG.error("faults file unreadable, keeping previous knobs: %s", err)

    def _periodic(self):
        while not self.stop_event.wait(self.interval):
            self.periodic_pass()

    def _list(self, kind):
        try:
            return self.ctx.kube.list(kind)[0]
        except Exception as err:  # noqa: BLE001 - try again next interval
            LOG.warning("periodic list of %s failed: %s", kind, err)
            return []


class RealisticOperator(Operator):
    cadence = "realistic"

    def on_event(self, kind, event_type, obj):
        """Called on the watcher's thread, in event order: whatever Strimzi does before asking for a lock happens
        here, and the lock is asked for here (its FIFO queue keeps the event order); the reconcile itself then runs
        on a thread of its own, like Vert.x runs each event's futures independently, so an event waiting for a lock
        never holds up other resources' events."""
        self.ctx.remember(kind, obj)
        meta = obj["metadata"]
        event = f"{event_type} event (resourceVersion {meta.get('resourceVersion')})"
        # Every event taken is logged, so a test can tell which event a pass came from (a dropped one is never it).
        self.ctx.decide(obj, f"{event} received")
        self.reload_faults()
        try:
            if kind == "KafkaConnector":
                key, work = kafka_connector.plan_event(self.ctx, event_type, obj)
                if key is None:
                    self._spawn(f"event-{meta['name']}", self._safely, work)
                else:
                    what = f"KafkaConnector {meta['name']} {event}"
                    self._spawn(f"event-{meta['name']}", self._under_lock, self.ctx.locks.reserve(key), what, work)
            else:
                module = kafka_connect if kind == "KafkaConnect" else kafka_mirror_maker2
                ticket = self.ctx.locks.reserve(module.lock_key(meta["namespace"], meta["name"]))
                self._spawn(f"event-{meta['name']}", self._safely, lambda: module.reconcile_under_lock(
                    self.ctx, ticket, event))
        except Exception as err:  # noqa: BLE001 - the watcher must survive a failed look-up
            LOG.error("%s %s/%s: %s event not handled: %s: %s", kind, meta.get("namespace"), meta.get("name"),
                      event_type, type(err).__name__, err)

    def periodic_pass(self):
        """``reconcileAll`` of KafkaConnect and KafkaMirrorMaker2 (not KafkaConnector: it has no periodic pass of
        its own, its KafkaConnect's reconcile covers it)."""
        LOG.info("periodic reconciliation (every %ss)", self.interval)
        for module, kind in ((kafka_connect, "KafkaConnect"), (kafka_mirror_maker2, "KafkaMirrorMaker2")):
            for obj in self._list(kind):
                meta = obj["metadata"]
                ticket = self.ctx.locks.reserve(module.lock_key(meta["namespace"], meta["name"]))
                self._spawn(f"periodic-{meta['name']}", self._safely,
                            lambda m=module, t=ticket: m.reconcile_under_lock(self.ctx, t, "periodic"))

    def _under_lock(self, ticket, what, work):
        with self.ctx.locks.hold(ticket, what) as acquired:
            if acquired:
                self._safely(work)

    def _safely(self, work):
        self.reload_faults()
        try:
            work()
        except Exception as err:  # noqa: BLE001 - a failed reconcile is logged; only the next event/pass retries
            LOG.error("reconcile in %s crashed: %s: %s\n%s", threading.current_thread().name, type(err).__name__,
                      err, traceback.format_exc())

    def _spawn(self, name, fn, *args):
        threading.Thread(target=fn, args=args, name=name, daemon=True).start()


class FastOperator(Operator):
    """The original emulator: keyed queue, coalesced events, fresh reads, everything re-queued every interval."""

    cadence = "fast"
    RECONCILERS = {
        "KafkaConnector": kafka_connector.reconcile,
        "KafkaMirrorMaker2": kafka_mirror_maker2.reconcile,
    }

    def __init__(self, *args, workers=4, **kwargs):
        super().__init__(*args, **kwargs)
        self.queue = WorkQueue()
        self._workers = workers

    def start(self):
        for i in range(self._workers):
            threading.Thread(target=self._work, name=f"reconcile-{i}", daemon=True).start()
        super().start()

    def stop(self):
        super().stop()
        self.queue.shutdown()

    def on_event(self, kind, event_type, obj):
        """Every watch event queues a reconcile of that resource (§2.9); pending duplicates collapse."""
        self.ctx.remember(kind, obj)
        meta = obj["metadata"]
        self.queue.add((kind, meta["namespace"], meta["name"]))

    def periodic_pass(self):
        for kind in KINDS:
            for obj in self._list(kind):
                self.queue.add((kind, obj["metadata"]["namespace"], obj["metadata"]["name"]))

    def _work(self):
        while not self.stop_event.is_set():
            key = self.queue.get()
            if key is None:
                continue
            try:
                self.reconcile(key)
            except Exception as err:  # noqa: BLE001 - one bad reconcile must not kill the worker
                LOG.error("%s %s/%s: reconcile crashed: %s: %s\n%s", key[0], key[1], key[2], type(err).__name__,
                          err, traceback.format_exc())
                self._retry_later(key)
            finally:
                self.queue.done(key)

    def _retry_later(self, key):
        timer = threading.Timer(RETRY_AFTER_ERROR_SECONDS, self.queue.add, args=(key,))
        timer.daemon = True
        timer.start()

    def reconcile(self, key):
        kind, namespace, name = key
        self.reload_faults()
        if kind == "KafkaConnect":
            for connector_key in kafka_connect.reconcile(self.ctx, namespace, name):
                self.queue.add(connector_key)
            return
        self.RECONCILERS[kind](self.ctx, namespace, name)


def make_operator(cadence, *args, **kwargs):
    if cadence not in CADENCES:
        raise ValueError(f"cadence must be one of {CADENCES}")
    return (RealisticOperator if cadence == "realistic" else FastOperator)(*args, **kwargs)
