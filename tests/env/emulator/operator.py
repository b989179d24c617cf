"""The emulated cluster operator: watches -> keyed queue -> reconcile workers, plus the periodic full reconcile.

Limitation (documented in README.md of this package): every KafkaConnect and KafkaMirrorMaker2 maps to the single
Connect worker at ``--connect-url``; tests must use unique connector names and MM2 aliases.
"""
import logging
import threading
import traceback

from . import kafka_connect, kafka_connector, kafka_mirror_maker2
from .connect_client import ConnectClient
from .faults import Faults
from .kube import Kube
from .watcher import KindWatcher
from .workqueue import WorkQueue

LOG = logging.getLogger("emulator")
KINDS = ("KafkaConnect", "KafkaConnector", "KafkaMirrorMaker2")
RECONCILERS = {
    "KafkaConnector": kafka_connector.reconcile,
    "KafkaMirrorMaker2": kafka_mirror_maker2.reconcile,
}
RETRY_AFTER_ERROR_SECONDS = 5.0
DEFAULT_VERSION = (1, 2, 0)


class Context:
    """What a reconcile needs: API clients, fault knobs, the decision log, last-seen objects (for deletes)."""

    def __init__(self, kube, connect, faults):
        self.kube, self.connect, self.faults = kube, connect, faults
        self._seen = {}
        self._seen_lock = threading.Lock()

    def decide(self, cr, message):
        """One log line per reconcile decision."""
        meta = (cr or {}).get("metadata") or {}
        LOG.info("%s %s/%s: %s", (cr or {}).get("kind", "?"), meta.get("namespace"), meta.get("name"), message)

    def operator_version(self, namespace):
        """The Strimzi version this namespace's operator emulates: the image tag of a pod labelled
        ``strimzi.io/kind=cluster-operator`` in the namespace (how a real installation shows its version), else
        the newest emulated behaviour (1.2.0). Lets tests run one namespace as an older operator would."""
        return self.kube.operator_version(namespace) or DEFAULT_VERSION

    def remember(self, kind, obj):
        meta = obj["metadata"]
        with self._seen_lock:
            self._seen[(kind, meta["namespace"], meta["name"])] = obj

    def forget(self, kind, namespace, name):
        with self._seen_lock:
            return self._seen.pop((kind, namespace, name), None)


class Operator:
    def __init__(self, kubeconfig, connect_url, faults_path, interval, workers=4):
        self.faults = Faults(faults_path)
        self.ctx = Context(Kube(kubeconfig), ConnectClient(connect_url, self.faults), self.faults)
        self.interval = interval
        self.queue = WorkQueue()
        self.stop_event = threading.Event()
        self._workers = workers

    # ------------------------------------------------------------------------------------------- lifecycle

    def start(self):
        for kind in KINDS:
            KindWatcher(self.ctx.kube, kind, self.on_event, self.stop_event).start()
        for i in range(self._workers):
            threading.Thread(target=self._work, name=f"reconcile-{i}", daemon=True).start()
        threading.Thread(target=self._periodic, name="periodic", daemon=True).start()
        LOG.info("emulator started: interval=%ss workers=%s", self.interval, self._workers)

    def stop(self):
        self.stop_event.set()
        self.queue.shutdown()

    # ------------------------------------------------------------------------------------------- triggers

    def on_event(self, kind, event_type, obj):
        """Every watch event triggers a reconcile of that resource (§2.9)."""
        self.ctx.remember(kind, obj)
        meta = obj["metadata"]
        self.queue.add((kind, meta["namespace"], meta["name"]))

    def _periodic(self):
        """Full reconcile every ``interval`` seconds (STRIMZI_FULL_RECONCILIATION_INTERVAL_MS, §2.9)."""
        while not self.stop_event.wait(self.interval):
            for kind in KINDS:
                try:
                    items, _ = self.ctx.kube.list(kind)
                except Exception as err:  # noqa: BLE001 - try again next interval
                    LOG.warning("periodic list of %s failed: %s", kind, err)
                    continue
                for obj in items:
                    self.queue.add((kind, obj["metadata"]["namespace"], obj["metadata"]["name"]))

    # ------------------------------------------------------------------------------------------- workers

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
        try:
            self.faults.reload()  # knobs are re-read on every reconcile
        except ValueError as err:
            LOG.error("faults file unreadable, keeping previous knobs: %s", err)
        if kind == "KafkaConnect":
            for connector_key in kafka_connect.reconcile(self.ctx, namespace, name):
                self.queue.add(connector_key)
            return
        RECONCILERS[kind](self.ctx, namespace, name)
