"""A KafkaMirrorMaker2 replicating real topics between two aliases of the one test broker, in both layouts, plus
helpers to run the CLI in-process and to read what really arrived on the target topic.

One MirrorMaker 2 per layout the session's Strimzi profile supports (KO_STRIMZI: legacy v1beta2 only on 0.45, both on
0.51, v1 only on 1.2) per module (``mirror`` is module-scoped and parametrized): mirror 0 replicates
``topic`` with a source, a checkpoint (and, in the v1beta2 layout, a heartbeat) connector; mirror 1 replicates
``topic2`` with a source connector only, so the short form ``source`` is ambiguous and the other mirror's stanza
can be checked to stay untouched. Aliases are unique per module (all MirrorMaker 2 share the one Connect worker).
``topicsPattern`` is explicit and heartbeats are not replicated, so ``<src>.<topic>`` is never mirrored again.

Live traffic: ``topic`` has a second partition that a producer keeps writing to for the whole module, so the
source connector's offsets move during every operation, as in production. The tests' records go to partition 0
(``Mirror.produce``), and their assertions are about partition 0 (``partition0``); partition 1 is only checked
never to move backwards.
"""
from __future__ import annotations

import copy
import json
import threading
import time
import uuid
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from tests.env.clients import Feeder, create_topic, for_one_broker, kafka_conf, produce, producer_conf
from tests.env.emulator import profiles
from tests.env.kind.shared import KAFKA_CONNECT_READY_TIMEOUT, cluster_bootstrap
from tests.judges import Judges
from tests.waits import eventually, nudging, unchanged_for

PROFILE = profiles.selected()
# Read and patched through the version whose schema shows every stored field (v1beta2 while it is served: a write
# through v1 would prune the legacy layout's fields).
READ_VERSION = PROFILE.superset_version
GROUP, PLURAL = "kafka.strimzi.io", "kafkamirrormaker2s"
OFFSETS, MM2_CONNECTOR = "strimzi.io/connector-offsets", "strimzi.io/mirrormaker-connector"
JOURNAL = "kubectl-offsets.io/journal"
SOURCE_CONFIG = {"refresh.topics.interval.seconds": 1, "sync.topic.configs.enabled": False,
                 "heartbeats.replication.enabled": False}


# --------------------------------------------------------------------------------------------- the CLI

@dataclass
class Run:
    code: int
    out: str
    err: str

    def ok(self) -> "Run":
        assert self.code == 0, f"exit {self.code}\nstdout:\n{self.out}\nstderr:\n{self.err}"
        return self

    def refused(self, *needles: str) -> "Run":
        assert self.code != 0, f"expected a refusal, got exit 0\nstdout:\n{self.out}\nstderr:\n{self.err}"
        for needle in needles:
            assert needle in self.err, f"{needle!r} not in stderr:\n{self.err}"
        return self


@pytest.fixture(scope="session")
def cli(env, tmp_path_factory):
    """cli("list", "kmm2/x", ...) -> Run: the real CLI, in-process (the kubernetes import is paid once)."""
    from kubectl_offsets.cli.root import root

    state = tmp_path_factory.mktemp("xdg-state")

    def run(*args: str) -> Run:
        result = CliRunner().invoke(root, list(args), prog_name="kubectl offsets", catch_exceptions=False,
                                    env={"KUBECONFIG": env.kubeconfig, "XDG_STATE_HOME": str(state)})
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


# --------------------------------------------------------------------------------------------- the resource

def build_mm2(layout: str, ns: str, name: str, bootstrap: str, src: str, src2: str, tgt: str, topic: str,
              topic2: str, group: str) -> dict:
    mirror0 = {"sourceConnector": {"tasksMax": 1, "config": dict(SOURCE_CONFIG)},
               "checkpointConnector": {"tasksMax": 1, "config": {
                   "emit.checkpoints.interval.seconds": 1, "refresh.groups.interval.seconds": 1,
                   "sync.group.offsets.enabled": False}},
               # an include list with an exclusion, so "a topic the mirror does not replicate" covers both
               "topicsPattern": f"^{topic}$,^{topic}-.*$", "topicsExcludePattern": f"^{topic}-secret$",
               "groupsPattern": f"^{group}$"}
    mirror1 = {"sourceConnector": {"tasksMax": 1, "config": dict(SOURCE_CONFIG)},
               "topicsPattern": f"^{topic2}$", "groupsPattern": "^none$"}
    if layout == "v1":
        mirror0["source"] = {"alias": src, "bootstrapServers": bootstrap}
        mirror1["source"] = {"alias": src2, "bootstrapServers": bootstrap}
        spec = {"replicas": 1, "target": {"alias": tgt, "bootstrapServers": bootstrap, "groupId": f"{name}-g",
                                          "configStorageTopic": f"{name}-c", "statusStorageTopic": f"{name}-s",
                                          "offsetStorageTopic": f"{name}-o"},
                "mirrors": [mirror0, mirror1]}
    else:
        mirror0.update({"sourceCluster": src, "targetCluster": tgt,
                        "heartbeatConnector": {"config": {"emit.heartbeats.interval.seconds": 2}}})
        mirror1.update({"sourceCluster": src2, "targetCluster": tgt})
        spec = {"replicas": 1, "connectCluster": tgt,
                "clusters": [{"alias": a, "bootstrapServers": bootstrap} for a in (src, src2, tgt)],
                "mirrors": [mirror0, mirror1]}
    return for_one_broker({"apiVersion": f"{GROUP}/{layout}", "kind": "KafkaMirrorMaker2",
                           "metadata": {"name": name, "namespace": ns}, "spec": spec})


@dataclass
class Mirror:
    layout: str
    ns: str
    name: str
    src: str
    src2: str
    tgt: str
    topic: str
    topic2: str
    group: str
    custom: object
    core: object
    bootstrap: str
    produced: list = field(default_factory=list)
    producer: object = None
    feeder: Feeder | None = None
    judge: Judges | None = None  # what Connect stores, never the plugin (tests/judges.py)

    # names
    def connector(self, kind: str = "MirrorSourceConnector", src: str | None = None) -> str:
        return f"{src or self.src}->{self.tgt}.{kind}"

    @property
    def target_arg(self) -> str:
        return f"kmm2/{self.name}"

    @property
    def target_topic(self) -> str:
        return f"{self.src}.{self.topic}"  # DefaultReplicationPolicy

    # the resource (read through READ_VERSION: the superset view of the era's layouts)
    def get(self) -> dict:
        return self.custom.get_namespaced_custom_object(GROUP, READ_VERSION, self.ns, PLURAL, self.name)

    def merge_patch(self, patch: dict) -> dict:
        return self.custom.patch_namespaced_custom_object(GROUP, READ_VERSION, self.ns, PLURAL, self.name, patch)

    def set_state(self, mirror_index: int, slot: str, state: str | None) -> None:
        """Replace spec.mirrors with one connector's state changed, guarded by the resourceVersion read (nothing
        else in the list is overwritten); the operator writes the status all the time, so a guard that no longer
        holds (422) reads again and retries, as kubectl edit would (a failed guard was a rerun on CI, 2026-11-28)."""
        from kubernetes.client import ApiException

        def attempt():
            obj = self.get()
            mirrors = copy.deepcopy(obj["spec"]["mirrors"])
            if state is None:
                mirrors[mirror_index][slot].pop("state", None)
            else:
                mirrors[mirror_index][slot]["state"] = state
            return self.custom.patch_namespaced_custom_object(
                GROUP, READ_VERSION, self.ns, PLURAL, self.name,
                [{"op": "test", "path": "/metadata/resourceVersion", "value": obj["metadata"]["resourceVersion"]},
                 {"op": "replace", "path": "/spec/mirrors", "value": mirrors}],
                _content_type="application/json-patch+json")
        eventually(f"spec.mirrors[{mirror_index}].{slot}.state set to {state}", attempt, timeout=30, interval=0.1,
                   tolerate=(ApiException,))

    def live_state(self, connector: str) -> str | None:
        for entry in (self.get().get("status") or {}).get("connectors") or []:
            if entry.get("name") == connector:
                return (entry.get("connector") or {}).get("state")
        return None

    def wait_state(self, connector: str, state: str, timeout: float = 120) -> None:
        """Until the resource's status shows ``connector`` in ``state``. Strimzi writes a mirror's connector states at
        its passes; a connector that reached the state after a pass shows it only at the next event, or at the
        periodic pass minutes later (Strimzi 0.51.0 at load, a fresh-clone run of 2026-11-28): the wait nudges the
        resource as a user's touch would, and takes its nudge annotation away again (tests/waits.nudging)."""
        with nudging(self.custom, READ_VERSION, self.ns, PLURAL, self.name) as touch:
            eventually(f"{connector} {state}", lambda: self.live_state(connector) == state, timeout, nudge=touch)

    def wait_tasks(self, connector: str, state: str, timeout: float = 60) -> None:
        """Connect reports the connector PAUSED before its tasks have stopped polling: wait for the tasks too."""
        def settled():
            for entry in (self.get().get("status") or {}).get("connectors") or []:
                if entry.get("name") == connector:
                    tasks = entry.get("tasks") or []
                    return entry["connector"]["state"] == state and tasks and all(t["state"] == state for t in tasks)
            return False
        eventually(f"{connector} and its tasks {state}", settled, timeout)

    def configmaps(self) -> dict:
        items = self.core.list_namespaced_config_map(self.ns).items
        return {cm.metadata.name: (cm.metadata.resource_version, dict(cm.data or {})) for cm in items}

    def snapshot(self) -> dict:
        """What we and the user write: generation, labels, annotations, spec and ConfigMaps. Not the resourceVersion: the
        operator writes the status whenever a connector's or task's state moves (its periodic pass on a fed mirror),
        and the status is never ours (a fresh-clone run failed on such a write in the middle of a test)."""
        obj = self.get()
        return {"generation": obj["metadata"]["generation"], "labels": obj["metadata"].get("labels") or {},
                "annotations": obj["metadata"].get("annotations") or {}, "spec": obj["spec"],
                "configmaps": self.configmaps()}

    def wait_steady(self, quiet: float = 5.0, timeout: float = 60) -> dict:
        """The resource as soon as its resourceVersion stayed put for ``quiet`` seconds (the operator only writes
        status when something changed), so a later comparison cannot be fooled by a status write."""
        unchanged_for(f"kafkamirrormaker2/{self.name}", lambda: self.get()["metadata"]["resourceVersion"], quiet,
                      timeout)
        return self.snapshot()

    # Kafka
    def produce(self, values: list[str], topic: str | None = None) -> None:
        from confluent_kafka import Producer

        if self.producer is None:  # one per mirror, dropped at teardown while the broker still runs
            self.producer = Producer(producer_conf(self.bootstrap))
        produce(self.producer, topic or self.topic, values, partition=0)
        if topic is None:
            self.produced += values

    def stored(self, connector: str) -> dict:
        """What Connect stores for ``connector`` on source partition 0 (the tests' records; see partition0)."""
        assert self.judge is not None
        return partition0({"offsets": self.judge.stored(connector)})

    def stored_until(self, connector: str, predicate, what: str, timeout: float = 30) -> dict:
        """``stored(connector)`` once it satisfies ``predicate`` (Connect flushes source offsets every second)."""
        return eventually(what, lambda: (lambda doc: doc if predicate(doc) else None)(self.stored(connector)), timeout)

    def target_values(self, count: int, timeout: float = 60) -> list[str]:
        """Every record on the target topic, once it holds exactly ``count`` (fails if it holds more)."""
        return topic_values(self.bootstrap, self.target_topic, count, timeout)


def topic_values(bootstrap: str, topic: str, count: int, timeout: float = 60) -> list[str]:
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": f"reader-{uuid.uuid4().hex[:8]}",
                                                 "enable.auto.commit": False}))
    try:
        # the target topic may not exist yet (KafkaException): no answer
        high = eventually(f"{count} records on {topic}", lambda: (lambda h: h if h >= count else None)(
            consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=5)[1]), timeout,
            tolerate=(KafkaException,))
        consumer.assign([TopicPartition(topic, 0, 0)])
        values: list[str] = []
        deadline = time.monotonic() + 10
        while len(values) < high and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and not msg.error():
                values.append(msg.value().decode())
        assert high == count == len(values), f"{topic} holds {high} records, expected {count}: {values}"
        return values
    finally:
        consumer.close()


@pytest.fixture(scope="module", params=PROFILE.mm2_layouts)
def mirror(request, env, kube_api, kafka_admin):
    from confluent_kafka import Consumer, TopicPartition
    from kubernetes import client

    layout = request.param
    tag = uuid.uuid4().hex[:6]
    ns, name = f"mm2-{layout}-{tag}", f"mirror-{tag}"
    src, src2, tgt = f"east{tag}", f"north{tag}", f"west{tag}"
    topic, topic2, group = f"orders-{tag}", f"audit-{tag}", f"billing-{tag}"
    core, custom = client.CoreV1Api(kube_api), client.CustomObjectsApi(kube_api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(
        name=ns, labels={"kubectl-offsets-test": "true"})))
    create_topic(kafka_admin, topic, partitions=2)  # partition 1: live traffic
    create_topic(kafka_admin, topic2)
    m = Mirror(layout, ns, name, src, src2, tgt, topic, topic2, group, custom, core, env.bootstrap_servers,
               judge=Judges(env.connect_url, env.bootstrap_servers))
    m.feeder = Feeder(env.bootstrap_servers, topic, 1, prefix="live").start()
    m.produce([f"r{i}" for i in range(5)])
    m.produce(["a0", "a1"], topic=topic2)
    # A consumer group on the source that the checkpoint connector translates (so its offsets are not empty).
    consumer = Consumer(kafka_conf(env.bootstrap_servers, **{"group.id": group}))
    consumer.commit(offsets=[TopicPartition(topic, 0, 3)], asynchronous=False)
    consumer.close()

    obj = build_mm2(layout, ns, name, cluster_bootstrap(env), src, src2, tgt, topic, topic2, group)
    custom.create_namespaced_custom_object(GROUP, layout, ns, PLURAL, obj)
    expected = sorted([m.connector(), m.connector("MirrorCheckpointConnector"), m.connector(src=src2)]
                      + ([m.connector("MirrorHeartbeatConnector")] if layout == "v1beta2" else []))

    def ready():
        status = m.get().get("status") or {}
        entries = status.get("connectors") or []
        return [e["name"] for e in entries] == expected and all(
            (e.get("connector") or {}).get("state") == "RUNNING" for e in entries)

    # A new KafkaMirrorMaker2 starts a Connect worker of its own first: a new KafkaConnect's bound.
    eventually(f"{layout} KafkaMirrorMaker2 with {expected} RUNNING", ready, timeout=KAFKA_CONNECT_READY_TIMEOUT)
    assert m.target_values(5) == m.produced  # replication works before we touch anything
    try:
        yield m
    finally:
        m.feeder.stop()
    m.producer = None  # librdkafka would log connection errors if it outlived the broker
    try:
        custom.delete_namespaced_custom_object(GROUP, READ_VERSION, ns, PLURAL, name)
    finally:
        core.delete_namespace(ns)


# --------------------------------------------------------------------------------------------- watching

class Recorder:
    """Every version of the KafkaMirrorMaker2 the API server hands out while a block runs (a watch in a thread)."""

    def __init__(self, mirror: Mirror):
        self.mirror, self.objects, self._stop = mirror, [], threading.Event()
        self._ready = threading.Event()
        self._started_at: str | None = None  # the resourceVersion the watch starts from
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        from kubernetes import watch

        m = self.mirror
        rv = self._started_at = m.get()["metadata"]["resourceVersion"]
        self._ready.set()
        while not self._stop.is_set():
            w = watch.Watch()
            for event in w.stream(m.custom.list_namespaced_custom_object, GROUP, READ_VERSION, m.ns, PLURAL,
                                  field_selector=f"metadata.name={m.name}", resource_version=rv, timeout_seconds=2):
                obj = event["object"]
                rv = obj["metadata"]["resourceVersion"]
                self.objects.append(obj)
                if self._stop.is_set():
                    w.stop()

    def __enter__(self):
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc):
        # Every version up to the one the block left: the watch has delivered the resource's latest version.
        last = self.mirror.get()["metadata"]["resourceVersion"]
        eventually(f"the watch to deliver resourceVersion {last}", lambda: last == self._started_at or any(
            o["metadata"]["resourceVersion"] == last for o in list(self.objects)), timeout=30)
        self._stop.set()
        self._thread.join(10)


def annotations_of(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def json_out(run: Run) -> dict:
    return json.loads(run.ok().out)


def partition0(document: dict) -> dict:
    """The entries of source partition 0 (the tests' records); partition 1 carries the live traffic."""
    return {"offsets": [e for e in document["offsets"] if (e.get("partition") or {}).get("partition", 0) == 0]}


def live_offset(document: dict, topic: str) -> int | None:
    """The stored offset of the live partition 1 of ``topic`` (None: none stored)."""
    for entry in document["offsets"]:
        partition = entry.get("partition") or {}
        if partition.get("topic") == topic and partition.get("partition") == 1 and entry.get("offset"):
            return entry["offset"]["offset"]
    return None
