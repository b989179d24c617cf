"""The in-memory cluster: the API server, the Connect worker and the emulator's operator in virtual time, and the
client the plugin talks to (``Cluster.kube``, the surface of ``adapters.kube.Kube`` that the online code uses).

The operator is the emulator's realistic cadence without its threads: every watch event is reconciled on its own,
with the object the event carried (``kafka_connector.plan_event``), in the order of the events; KafkaConnects are
reconciled with their connectors every ``interval`` seconds (the periodic pass). Locks are not needed: one event is
handled at a time.

Faults (``Cluster.arm``) hit the plugin's next request of a kind: a kill before or after a write lands (the process
dies, nothing of it runs again), an API error, a concurrent writer (someone writes the object just before us), a watch
that ends (the connection is lost for good), and an operator that does not answer (events dropped until
``operator_back``).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Callable

from kubernetes.client.rest import ApiException

from kubectl_offsets.core.online.engine import SimulatedCrash
from kubectl_offsets.errors import (ClusterError, ConflictError, InvalidError, NotFoundError, OperationTimeoutError,
                                    UnreachableError)
from tests.env.emulator import kafka_connect, kafka_connector, kafka_mirror_maker2, profiles
from tests.env.emulator.faults import Faults

from .apiserver import ApiServer, Rejected, clone
from .connect import Connector, Worker, WorkerClient

NAMESPACE = "kafka"
CONNECT = "my-connect"
SINK_CLASS = "org.apache.kafka.connect.file.FileStreamSinkConnector"
START = dt.datetime(2026, 11, 27, 12, 0, 0, tzinfo=dt.timezone.utc)
EVENTS_PER_SETTLE = 2000  # more than this without quiet is a reconcile loop: a bug in the emulation


class VirtualClock:
    """Time that passes only when the cluster lets it (a wait, a sleep)."""

    def __init__(self, cluster: "Cluster") -> None:
        self.cluster, self.seconds = cluster, 0.0
        self._ns = 0

    def monotonic(self) -> float:
        return self.seconds

    def now(self) -> dt.datetime:
        return START + dt.timedelta(seconds=int(self.seconds))

    def time_ns(self) -> int:
        self._ns += 1
        return int((START.timestamp() + self.seconds) * 1e9) + self._ns

    def sleep(self, seconds: float) -> None:
        self.cluster.run_until(self.seconds + seconds)


@dataclass
class Fault:
    """One fault for the plugin's next matching request. ``what``: kill (before the write lands), kill-after (the
    write lands, the answer never arrives), interrupt (Ctrl-C or SIGTERM once the write landed), api-error,
    concurrent-writer, watch-ends, operator-silent (from the next write on, until ``Cluster.operator_back``)."""

    what: str
    times: int = 1
    fired: int = 0

    @property
    def on_watch(self) -> bool:
        return self.what == "watch-ends"


class Killed(SimulatedCrash):
    """The process died (a fault): raised from the plugin's request; the engine lets it through untouched, as
    nothing runs after a kill -9."""


class Cluster:
    def __init__(self, *, profile: str = "1.2", interval: float = 120.0, namespace: str = NAMESPACE,
                 connect: str = CONNECT) -> None:
        self.namespace, self.connect = namespace, connect
        self.clock = VirtualClock(self)
        self.api = ApiServer(self.clock)
        self.worker = Worker(self.clock)
        self.profile = profiles.get(profile)
        self.faults = Faults(None)
        self.operator = _Operator(self, interval)
        self.kube = PluginKube(self)
        self.armed: list[Fault] = []
        self.writes: list[tuple[str, str, str, Any]] = []  # the plugin's writes: (verb, kind, name, body)
        self.on_write: Callable[[str, str, str], None] | None = None  # called before each plugin write (tests)
        self.api.create("KafkaConnect", namespace, {
            "apiVersion": "kafka.strimzi.io/v1", "metadata": {
                "name": connect, "annotations": {"strimzi.io/use-connector-resources": "true"}},
            "spec": {"replicas": 1, "bootstrapServers": "my-kafka:9092"}})
        self.settle()

    # --- building the scene ----------------------------------------------------------------------------------------
    def add_sink(self, name: str, *, offsets: dict[tuple[str, int], int] | None = None, state: str | None = None,
                 topics: str = "orders", traffic: bool = False) -> None:
        """A KafkaConnector of a FileStreamSink reading ``topics``, with these offsets stored in Connect and
        ``state`` as its spec.state (None: absent, running)."""
        config = {"connector.class": SINK_CLASS, "topics": topics, "file": "/tmp/out", "tasks.max": "1"}
        connector = Connector(name, {"name": name, **config}, traffic=traffic)
        for (topic, partition), offset in (offsets or {}).items():
            connector.offsets[json.dumps({"kafka_partition": partition, "kafka_topic": topic}, sort_keys=True)] = \
                {"kafka_offset": offset}
        self.worker.connectors[name] = connector
        spec: dict[str, Any] = {"class": SINK_CLASS, "tasksMax": 1, "config": {"topics": topics, "file": "/tmp/out"}}
        if state is not None:
            spec["state"] = state
        self.api.create("KafkaConnector", self.namespace, {
            "apiVersion": "kafka.strimzi.io/v1", "metadata": {"name": name, "labels": {"strimzi.io/cluster": self.connect}},
            "spec": spec})
        self.run_until(self.clock.seconds + 5)  # the operator's first pass and Connect's transition

    def add_mirror(self, name: str, *, source: str = "east", target: str = "west", topics: str = "orders") -> None:
        """A KafkaMirrorMaker2 (v1 layout) with a source and a checkpoint connector for one mirror."""
        self.api.create("KafkaMirrorMaker2", self.namespace, {
            "apiVersion": "kafka.strimzi.io/v1", "metadata": {"name": name},
            "spec": {"replicas": 1, "target": {"alias": target, "bootstrapServers": f"{target}:9092",
                                               "groupId": f"{name}-g", "configStorageTopic": f"{name}-c",
                                               "statusStorageTopic": f"{name}-s", "offsetStorageTopic": f"{name}-o"},
                     "mirrors": [{"source": {"alias": source, "bootstrapServers": f"{source}:9092"},
                                  "topicsPattern": topics, "groupsPattern": ".*",
                                  "sourceConnector": {"tasksMax": 1, "config": {"replication.factor": 1}},
                                  "checkpointConnector": {"tasksMax": 1, "config": {}}}]}})
        self.run_until(self.clock.seconds + 5)

    def stored(self, name: str) -> dict[str, Any]:
        """Connect's stored offsets of any connector, as {partition JSON: offset}."""
        return {k: v for k, v in self.worker.connectors[name].offsets.items()}

    def offsets(self, name: str) -> dict[tuple[str, int], int]:
        """What Connect stores for the connector: the judge of the tests, not the plugin's list."""
        return {(p["kafka_topic"], p["kafka_partition"]): o["kafka_offset"]
                for p, o in ((json.loads(k), v) for k, v in self.worker.connectors[name].offsets.items())}

    def connect_state(self, name: str) -> str:
        return self.worker.connectors[name].state

    def resource(self, name: str, kind: str = "KafkaConnector") -> dict[str, Any] | None:
        """The resource as stored (None: there is none)."""
        return self.api.find(kind, self.namespace, name)

    # --- faults ------------------------------------------------------------------------------------------------------
    def arm(self, fault: Fault) -> Fault:
        self.armed.append(fault)
        return fault

    def disarm(self) -> None:
        self.armed.clear()

    def operator_back(self) -> None:
        """The operator runs again: like a restarted operator it lists every resource (synthetic ADDED events)."""
        self.operator.running = True
        self.operator.relist()
        self.settle()

    def concurrent_write(self, kind: str, name: str) -> None:
        """Someone else writes the object (a label of theirs): its resourceVersion moves under the plugin."""
        current = self.api.find(kind, self.namespace, name)
        if current is not None:
            labels = dict((current["metadata"].get("labels") or {}))
            labels["someone-else"] = str(int(labels.get("someone-else", "0")) + 1)
            self.api.merge(kind, self.namespace, name, {"metadata": {"labels": labels}})

    def _fault_for(self, *, watch: bool) -> Fault | None:
        for fault in self.armed:
            if fault.fired < fault.times and fault.on_watch == watch:
                fault.fired += 1
                return fault
        return None

    # --- virtual time ------------------------------------------------------------------------------------------------
    def settle(self) -> None:
        """Run the operator on every pending event, and Connect's due transitions, until nothing is pending."""
        for _ in range(EVENTS_PER_SETTLE):
            self.worker.tick()
            if not self.operator.deliver():
                return
        raise AssertionError("the emulated operator does not settle: a reconcile loop")

    def run_until(self, deadline: float, stop: Callable[[], bool] | None = None) -> bool:
        """Let time pass up to ``deadline`` (or until ``stop()``), in jumps to the next thing that happens."""
        while True:
            self.settle()
            if stop is not None and stop():
                return True
            if self.clock.seconds >= deadline:
                return False
            upcoming = [deadline, self.operator.next_periodic]
            change = self.worker.next_change()
            if change is not None:
                upcoming.append(change)
            self.clock.seconds = max(self.clock.seconds, min(upcoming))
            if self.clock.seconds >= self.operator.next_periodic:
                self.operator.periodic()


class _Context:
    """What the emulator's reconciles need (the emulator's operator.Context, without its threads and log)."""

    def __init__(self, cluster: Cluster) -> None:
        self.kube = EmulatorKube(cluster)
        self.connect = WorkerClient(cluster.worker, cluster.faults, cluster.profile)
        self.faults, self.profile = cluster.faults, cluster.profile
        self.mm2_readiness_seconds = 0.0
        self.decisions: list[str] = []

    def decide(self, cr, message) -> None:
        meta = (cr or {}).get("metadata") or {}
        self.decisions.append(f"{(cr or {}).get('kind', '?')} {meta.get('name')}: {message}")

    def operator_version(self, namespace):
        return tuple(int(p) for p in self.profile.release.split(".")[:3])

    def remember(self, kind, obj) -> None:
        pass


class _Operator:
    def __init__(self, cluster: Cluster, interval: float) -> None:
        self.cluster, self.interval = cluster, interval
        self.ctx = _Context(cluster)
        self.position = 0
        self.running = True
        self.next_periodic = interval

    def deliver(self) -> bool:
        """Reconcile the next event; False when there is none."""
        log = self.cluster.api.log
        if self.position >= len(log):
            return False
        event = log[self.position]
        self.position += 1
        if self.running:
            self._handle(event.kind, event.type, clone(event.object))
        return True

    def _handle(self, kind: str, event_type: str, obj: dict[str, Any]) -> None:
        if kind == "KafkaConnector":
            _, work = kafka_connector.plan_event(self.ctx, event_type, obj)
            work()
        elif kind == "KafkaConnect" and event_type != "DELETED":
            kafka_connect._reconcile(self.ctx, obj["metadata"]["namespace"], obj["metadata"]["name"])
        elif kind == "KafkaMirrorMaker2" and event_type != "DELETED":
            fresh = self.cluster.api.find(kind, obj["metadata"]["namespace"], obj["metadata"]["name"])
            if fresh is not None:  # AbstractOperator#reconcile: the MirrorMaker 2's own lock, a fresh GET
                kafka_mirror_maker2._reconcile(self.ctx, fresh, readiness_seconds=0.0)

    def periodic(self) -> None:
        self.next_periodic += self.interval
        if self.running:
            for connect in self.cluster.api.list("KafkaConnect"):
                kafka_connect._reconcile(self.ctx, connect["metadata"]["namespace"], connect["metadata"]["name"])
            for mirror in self.cluster.api.list("KafkaMirrorMaker2"):
                kafka_mirror_maker2._reconcile(self.ctx, mirror, readiness_seconds=0.0)

    def relist(self) -> None:
        self.position = len(self.cluster.api.log)
        for kind in ("KafkaConnect", "KafkaConnector", "KafkaMirrorMaker2"):
            for obj in self.cluster.api.list(kind):
                self._handle(kind, "ADDED", obj)


def _api_exception(rejected: Rejected) -> ApiException:
    error = ApiException(status=rejected.status, reason=rejected.message)
    error.body = json.dumps({"message": rejected.message})
    return error


class EmulatorKube:
    """The emulator's ``tests/env/emulator/kube.Kube``, over the in-memory API server."""

    version = "v1"

    class _Configuration:
        host = "memory://apiserver"

    class api_client:  # noqa: N801 - the attribute path the emulator's error texts read
        configuration = None

    def __init__(self, cluster: Cluster) -> None:
        self.api = cluster.api
        self.api_client.configuration = self._Configuration()

    def get(self, kind, namespace, name):
        return self.api.find(kind, namespace, name)

    def list(self, kind, namespace=None, label_selector=None):
        return self.api.list(kind, namespace, label_selector), None

    def replace_status(self, kind, namespace, name, status):
        if self.api.find(kind, namespace, name) is not None:
            self.api.write_status(kind, namespace, name, status)

    def remove_annotations(self, kind, namespace, name, resource_version, keys):
        """fabric8's JSON patch that carries the resourceVersion read: 409 when the object changed since (§2.8)."""
        current = self.api.find(kind, namespace, name)
        if current is None:
            raise _api_exception(Rejected(404, "not found"))
        if current["metadata"]["resourceVersion"] != resource_version:
            raise _api_exception(Rejected(409, "the object has been modified"))
        ops = [{"op": "remove", "path": "/metadata/annotations/" + k.replace("~", "~0").replace("/", "~1")}
               for k in keys if k in (current["metadata"].get("annotations") or {})]
        self.api.patch(kind, namespace, name, ops)

    def operator_version(self, namespace):
        return None

    def get_configmap(self, namespace, name):
        return self.api.find("ConfigMap", namespace, name)

    def create_or_replace_configmap(self, desired):
        return self.apply_configmap(desired)

    def apply_configmap(self, desired, force=False):
        meta = desired["metadata"]
        if self.api.find("ConfigMap", meta["namespace"], meta["name"]) is None:
            return self.api.create("ConfigMap", meta["namespace"], desired)
        return self.api.replace("ConfigMap", {**desired, "metadata": {**meta, "resourceVersion": None}})


class PluginKube:
    """What ``adapters.kube.Kube`` offers the online code, over the in-memory API server, with the faults."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster, self.api = cluster, cluster.api
        self.clock = cluster.clock
        self.namespace, self.context, self.server = cluster.namespace, "memory", "memory://apiserver"
        self.denied: set[tuple[str, str]] = set()  # (verb, resource) RBAC refuses

    def sibling(self) -> "PluginKube":
        return self

    # --- the fault gate and error translation ------------------------------------------------------------------------
    def _write(self, verb: str, kind: str, name: str, body: Any, send: Callable[[], Any], what: str) -> Any:
        if self.cluster.on_write is not None:
            self.cluster.on_write(verb, kind, name)
        fault = self.cluster._fault_for(watch=False)
        if fault is not None:
            if fault.what == "kill":
                raise Killed(f"killed before {verb} {kind}/{name}")
            if fault.what == "api-error":
                raise ClusterError(f"API server error for {what}: 500 etcdserver: request timed out")
            if fault.what == "concurrent-writer":
                self.cluster.concurrent_write(kind, name)
            if fault.what == "operator-silent":
                self.cluster.operator.running = False
        try:
            result = send()
        except Rejected as rejected:
            raise _translate(rejected, what) from None
        self.cluster.writes.append((verb, kind, name, clone(body)))
        if fault is not None and fault.what == "kill-after":
            raise Killed(f"killed after {verb} {kind}/{name}")
        if fault is not None and fault.what == "interrupt":
            raise KeyboardInterrupt(f"Ctrl-C after {verb} {kind}/{name}")
        return result

    # --- custom resources ---------------------------------------------------------------------------------------------
    def served_version(self, kind: str) -> str:
        return "v1"

    def served_versions(self) -> list[str]:
        return ["v1"]

    def get(self, kind: str, name: str, namespace: str) -> dict[str, Any]:
        try:
            return self.api.get(kind, namespace, name)
        except Rejected as rejected:
            raise _translate(rejected, f"{kind.lower()}/{name} in namespace {namespace}") from None

    def get_connect(self, name: str, namespace: str) -> dict[str, Any]:
        return self.get("KafkaConnect", name, namespace)

    def list(self, kind: str, namespace: str, *, timeout: float | None = None) -> list[dict[str, Any]]:
        return self.api.list(kind, namespace)

    def list_selected(self, kind: str, namespace: str | None, selector: str | None = None) -> list[dict[str, Any]]:
        return self.api.list(kind, namespace, selector)

    def patch(self, kind: str, name: str, namespace: str, operations: list[dict[str, Any]], *,
              dry_run: bool = False) -> dict[str, Any]:
        if dry_run:
            return self.get(kind, name, namespace)
        return self._write("patch", kind, name, operations, lambda: self.api.patch(kind, namespace, name, operations),
                           f"{kind.lower()}/{name}")

    def create(self, kind: str, namespace: str, body: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        name = body["metadata"]["name"]
        if dry_run:
            return clone(body)
        return self._write("create", kind, name, body, lambda: self.api.create(kind, namespace, body),
                           f"{kind.lower()}/{name}")

    def delete(self, kind: str, name: str, namespace: str, *, resource_version: str | None = None,
               dry_run: bool = False) -> None:
        if dry_run:
            self.get(kind, name, namespace)
            return
        self._write("delete", kind, name, {"preconditions": {"resourceVersion": resource_version}},
                    lambda: self.api.delete(kind, namespace, name, resource_version), f"{kind.lower()}/{name}")

    def watch_until(self, kind: str, name: str, namespace: str, done: Callable[[dict[str, Any]], Any], *,
                    timeout: float, chunk: float = 30.0, what: str = "the change",
                    initial: dict[str, Any] | None = None) -> Any:
        """Like the real one: ``done`` on the object, then on every later version of it, until truthy or
        ``timeout`` (virtual) seconds have passed."""
        if self.cluster._fault_for(watch=True) is not None:
            raise UnreachableError(f"lost the connection to the API server at {self.server} while waiting for {what} "
                                   "(watch interrupted), and could not reconnect for 30s")
        deadline = self.clock.monotonic() + timeout
        current = initial if initial is not None else self.get(kind, name, namespace)
        seen = int(current["metadata"]["resourceVersion"])
        answer = done(current)
        if answer:
            return answer
        log, position = self.api.log, 0
        found: list[Any] = []

        def answered() -> bool:
            nonlocal position, seen
            while position < len(log):
                event = log[position]
                position += 1
                if event.key != (kind, namespace, name) or int(event.object["metadata"]["resourceVersion"]) <= seen:
                    continue
                seen = int(event.object["metadata"]["resourceVersion"])
                if event.type == "DELETED":
                    raise NotFoundError(f"{kind}/{name} was deleted while we waited")
                result = done(clone(event.object))
                if result:
                    found.append(result)
                    return True
            return False

        if self.cluster.run_until(deadline, answered):
            return found[0]
        raise OperationTimeoutError(f"timed out after {timeout:.0f}s waiting for {what} on {kind.lower()}/{name}")

    # --- ConfigMaps ------------------------------------------------------------------------------------------------------
    def get_configmap(self, name: str, namespace: str) -> dict[str, Any]:
        return self.get("ConfigMap", name, namespace)

    def find_configmap(self, name: str, namespace: str) -> dict[str, Any] | None:
        return self.api.find("ConfigMap", namespace, name)

    def create_configmap(self, namespace: str, body: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        return self.create("ConfigMap", namespace, body, dry_run=dry_run)

    def patch_configmap(self, name: str, namespace: str, body: dict[str, Any], *, dry_run: bool = False
                        ) -> dict[str, Any]:
        if dry_run:
            return self.get_configmap(name, namespace)
        return self._write("merge", "ConfigMap", name, body, lambda: self.api.merge("ConfigMap", namespace, name, body),
                           f"configmap/{name}")

    def list_configmaps(self, namespace: str | None, selector: str) -> list[dict[str, Any]]:
        return self.api.list("ConfigMap", namespace, selector)

    def delete_configmap(self, name: str, namespace: str, *, resource_version: str | None = None) -> None:
        self.delete("ConfigMap", name, namespace, resource_version=resource_version)

    def list_pods(self, selector: str, namespace: str | None = None) -> list[dict[str, Any]]:
        """The cluster operator's pod, whose image tag says the profile's release (how create tells 1.2+)."""
        image = f"quay.io/strimzi/operator:{self.cluster.profile.release}"
        return [{"metadata": {"name": "strimzi-cluster-operator", "namespace": self.namespace},
                 "spec": {"containers": [{"name": "strimzi-cluster-operator", "image": image}]}}]

    def list_namespaces(self, *, timeout: float | None = None) -> list[str]:
        return sorted({ns for _, ns, _ in self.api.objects} | {self.namespace})

    # --- permissions -------------------------------------------------------------------------------------------------------
    def can_i(self, verb: str, group: str, resource: str, namespace: str, name: str | None = None) -> bool:
        return (verb, resource) not in self.denied

    def can_i_all(self, checks) -> list[bool]:
        return [self.can_i(*check) for check in checks]


def _translate(rejected: Rejected, what: str) -> ClusterError | NotFoundError:
    if rejected.status == 404:
        return NotFoundError(f"{what} not found", advice=rejected.message)
    if rejected.status == 409:
        return ConflictError(f"{what} changed while we worked on it: {rejected.message}")
    if rejected.status == 422:
        return InvalidError(f"the API server refused the change to {what}: {rejected.message}")
    return ClusterError(f"API server error for {what}: {rejected.status} {rejected.message}")
