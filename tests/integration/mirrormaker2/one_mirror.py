"""One KafkaMirrorMaker2 of its own, for the modules that stop it, damage its topics or deny it permissions
(test_mm2_integrity.py, test_mm2_full_reset_safety.py): one mirror with a source and a checkpoint connector, in the
newest layout the profile serves, in a namespace of its own, plus what those modules read about it.

The offset-syncs topic's name comes from ``kubectl_offsets.mirrormaker`` (the one place that knows how MirrorMaker 2
names it), for the connector config the mirror is built with.
"""
from __future__ import annotations

import contextlib
import json
import uuid
from typing import Iterator

from kubectl_offsets.mirrormaker import offset_syncs_topic
from tests.env.clients import for_one_broker, kafka_conf
from tests.env.kind.shared import KAFKA_CONNECT_READY_TIMEOUT, cluster_bootstrap

from tests.judges import Judges
from tests.waits import eventually, nudger

from .conftest import GROUP, PLURAL, PROFILE, READ_VERSION, SOURCE_CONFIG, Mirror

# The mirror in the newest layout the profile serves; the "other" mirror of the sharing test in the oldest.
LAYOUT, OTHER_LAYOUT = PROFILE.mm2_layouts[-1], PROFILE.mm2_layouts[0]


class MirrorUnderTest:
    """The mirror and the names the tests use: its two connectors and its offset-syncs topic."""

    def __init__(self, mirror: Mirror):
        self.m = mirror

    @property
    def source(self) -> str:
        return self.m.connector()

    @property
    def checkpoint(self) -> str:
        return self.m.connector("MirrorCheckpointConnector")

    @property
    def syncs_topic(self) -> str:
        return offset_syncs_topic(self.m.src, self.m.tgt, SOURCE_CONFIG).name


@contextlib.contextmanager
def running_mirror(env, kube_api, prefix: str, topics: list[str]) -> Iterator[Mirror]:
    """A namespace ``<prefix>-<tag>`` with a KafkaMirrorMaker2 replicating ``topics`` (which must exist), once both
    its connectors run; deleted afterwards, waiting until Connect has dropped its connectors (they share the one
    worker with every other mirror)."""
    from kubernetes import client

    tag = uuid.uuid4().hex[:6]
    ns, name, src, tgt = f"{prefix}-{tag}", f"mirror-{tag}", f"east{tag}", f"west{tag}"
    core, custom = client.CoreV1Api(kube_api), client.CustomObjectsApi(kube_api)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(
        name=ns, labels={"kubectl-offsets-test": "true"})))
    m = Mirror(LAYOUT, ns, name, src, f"unused{tag}", tgt, topics[0], "", "", custom, core, env.bootstrap_servers,
               judge=Judges(env.connect_url, env.bootstrap_servers))
    try:
        custom.create_namespaced_custom_object(GROUP, LAYOUT, ns, PLURAL, mirror_resource(
            LAYOUT, ns, name, cluster_bootstrap(env), src, tgt, ",".join(f"^{t}$" for t in topics)))
        try:
            # A new KafkaMirrorMaker2 is a new Connect cluster: its worker (a JVM) starts first, as a new
            # KafkaConnect's does, so the same bound (0.45.2 under the suite's load took longer than 180 s, CI
            # 2026-11-28). A pass that failed while the worker started is retried on the next event or the periodic
            # pass, 120 s later: the nudges give the operator that event.
            eventually("both connectors RUNNING", lambda: m.live_state(m.connector()) == "RUNNING" and m.live_state(
                m.connector("MirrorCheckpointConnector")) == "RUNNING", timeout=KAFKA_CONNECT_READY_TIMEOUT,
                nudge=nudger(custom, LAYOUT, ns, PLURAL, name))
            yield m
        finally:
            custom.delete_namespaced_custom_object(GROUP, READ_VERSION, ns, PLURAL, name)
            eventually("the mirror's connectors deleted from Connect", lambda: not connectors_of(env, src), 60)
    finally:
        core.delete_namespace(ns)


def mirror_resource(layout, ns, name, bootstrap, src, tgt, pattern, *, checkpoint=True, state=None):
    spec = _mirror_spec(bootstrap, src, tgt, pattern, name)
    mirror = spec["mirrors"][0]
    if not checkpoint:
        del mirror["checkpointConnector"]
    if state:
        mirror["sourceConnector"]["state"] = state
    if layout != "v1":  # the legacy layout: clusters, connectCluster, sourceCluster/targetCluster
        source = mirror.pop("source")
        spec.pop("target")
        spec.update({"connectCluster": tgt, "clusters": [source, {"alias": tgt, "bootstrapServers": bootstrap}]})
        mirror.update({"sourceCluster": src, "targetCluster": tgt})
    return for_one_broker({"apiVersion": f"{GROUP}/{layout}", "kind": "KafkaMirrorMaker2",
                           "metadata": {"name": name, "namespace": ns}, "spec": spec})


def _mirror_spec(bootstrap, src, tgt, pattern, name):
    return {"replicas": 1,
            "target": {"alias": tgt, "bootstrapServers": bootstrap, "groupId": f"{name}-g",
                       "configStorageTopic": f"{name}-c", "statusStorageTopic": f"{name}-s",
                       "offsetStorageTopic": f"{name}-o"},
            "mirrors": [{"source": {"alias": src, "bootstrapServers": bootstrap},
                         "sourceConnector": {"tasksMax": 1, "config": dict(SOURCE_CONFIG)},
                         "checkpointConnector": {"tasksMax": 1, "config": {
                             "emit.checkpoints.interval.seconds": 1, "refresh.groups.interval.seconds": 1,
                             "sync.group.offsets.enabled": False}},
                         "topicsPattern": pattern, "groupsPattern": "^none$"}]}


def watermarks(bootstrap, topic):
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(kafka_conf(bootstrap, **{"group.id": f"wm-{uuid.uuid4().hex[:6]}"}))
    try:
        return consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    finally:
        consumer.close()


def connectors_of(env, alias):
    import urllib.request

    with urllib.request.urlopen(f"{env.connect_url}/connectors", timeout=10) as response:
        return [c for c in json.loads(response.read()) if c.startswith(f"{alias}->")]
