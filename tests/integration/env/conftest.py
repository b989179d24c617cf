"""Fixtures for the emulator's own tests: plain Kubernetes client objects, a fresh namespace with a KafkaConnect,
Kafka helpers (confluent-kafka); the one bounded wait is tests/waits.py (``h.wait_for``).

The running environment comes from the session fixture ``env`` of tests/conftest.py (``KO_ENV_JSON=<env.json>``
attaches to an environment started with ``python -m tests.env up``).
"""
import json
import time
import urllib.request
import uuid

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from tests.env.clients import producer_conf
from tests.env.emulator import profiles
from tests.waits import eventually

GROUP = "kafka.strimzi.io"
# The session's Strimzi era: create/read through the version users would (v1 whenever served).
V = profiles.selected().preferred_version
PLURALS = {"KafkaConnect": "kafkaconnects", "KafkaConnector": "kafkaconnectors",
           "KafkaMirrorMaker2": "kafkamirrormaker2s"}


# --------------------------------------------------------------------------------------------- environment

@pytest.fixture(scope="session")
def emu_env(env):
    """The session environment of tests/conftest.py (which also honours KO_ENV_JSON)."""
    return env


class Kube:
    """Plain kubernetes-client access to the custom resources and ConfigMaps (never the plugin)."""

    def __init__(self, kubeconfig):
        self.api = config.new_client_from_config(config_file=kubeconfig)
        self.custom = client.CustomObjectsApi(self.api)
        self.core = client.CoreV1Api(self.api)

    def create(self, obj, **kwargs):
        group, version = obj["apiVersion"].split("/")
        ns = obj["metadata"]["namespace"]
        return self.custom.create_namespaced_custom_object(group, version, ns, PLURALS[obj["kind"]], obj, **kwargs)

    def get(self, kind, ns, name, version=V):
        try:
            return self.custom.get_namespaced_custom_object(GROUP, version, ns, PLURALS[kind], name)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def merge_patch(self, kind, ns, name, patch, version=V):
        return self.custom.patch_namespaced_custom_object(GROUP, version, ns, PLURALS[kind], name, patch)

    def annotate(self, kind, ns, name, annotations, version=V):
        """Set (value) or remove (None) annotations in one metadata update.

        Writing through ``v1`` prunes v1beta2-only fields (legacy MM2 layout, ``pause``) from the stored object, as
        the real API server does, so legacy objects must be annotated through ``v1beta2``.
        """
        return self.merge_patch(kind, ns, name, {"metadata": {"annotations": annotations}}, version)

    def delete(self, kind, ns, name):
        try:
            self.custom.delete_namespaced_custom_object(GROUP, V, ns, PLURALS[kind], name)
        except ApiException as err:
            if err.status != 404:
                raise

    def configmap(self, ns, name):
        try:
            return self.core.read_namespaced_config_map(name, ns)
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def create_configmap(self, ns, name, data):
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": data}
        return self.core.create_namespaced_config_map(ns, body)


@pytest.fixture(scope="session")
def kube(emu_env):
    return Kube(emu_env.kubeconfig)


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def connect_connectors(connect_url):
    with urllib.request.urlopen(connect_url.rstrip("/") + "/connectors", timeout=10) as resp:
        return set(json.loads(resp.read()))


@pytest.fixture
def connect_ns(kube, emu_env):
    """A fresh namespace holding KafkaConnect ``connect`` with connector resources enabled; CRs deleted after.

    There is no kube-controller-manager, so namespace deletion would not cascade: the test's custom resources are
    deleted one by one, and teardown checks that the emulator then deleted their connectors from Connect (a leftover
    would keep running on the shared worker).
    """
    ns = unique("emu")
    kube.core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    kube.create({"apiVersion": f"{GROUP}/{V}", "kind": "KafkaConnect",
                 "metadata": {"name": "connect", "namespace": ns,
                              "annotations": {"strimzi.io/use-connector-resources": "true"}},
                 "spec": {"replicas": 1, "bootstrapServers": "unused:9092", "groupId": f"{ns}-g",
                          "configStorageTopic": f"{ns}-c", "statusStorageTopic": f"{ns}-s",
                          "offsetStorageTopic": f"{ns}-o"}})
    yield ns
    owned = set()
    for kind in ("KafkaConnector", "KafkaMirrorMaker2"):
        items = kube.custom.list_namespaced_custom_object(GROUP, V, ns, PLURALS[kind])["items"]
        for item in items:
            if kind == "KafkaConnector":
                owned.add(item["metadata"]["name"])
            owned.update(c.get("name") for c in (item.get("status") or {}).get("connectors") or [])
            kube.delete(kind, ns, item["metadata"]["name"])
    eventually("the emulator to delete the test's connectors from Connect",
             lambda: not (owned & connect_connectors(emu_env.connect_url)) or None, timeout=30)


# --------------------------------------------------------------------------------------------- Kafka helpers

class KafkaHelper:
    def __init__(self, bootstrap):
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap})

    def create_topic(self, name, partitions=1):
        futures = self.admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])
        futures[name].result(30)

    def produce(self, topic, values):
        producer = Producer(producer_conf(self.bootstrap))
        for value in values:
            producer.produce(topic, value=value.encode() if isinstance(value, str) else value)
        assert producer.flush(30) == 0

    def consume_all(self, topic, expected, timeout=60.0):
        """Read from the beginning until ``expected`` records arrived (or fail)."""
        consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": unique("reader"),
                             "auto.offset.reset": "earliest", "enable.auto.commit": False,
                             "topic.metadata.refresh.interval.ms": 1000})
        consumer.subscribe([topic])
        records, deadline = [], time.monotonic() + timeout
        try:
            while len(records) < expected and time.monotonic() < deadline:
                msg = consumer.poll(0.5)
                if msg is not None and not msg.error():
                    records.append(msg.value())
        finally:
            consumer.close()
        assert len(records) >= expected, f"only {len(records)} of {expected} records arrived in {topic}"
        return records


@pytest.fixture(scope="session")
def kafka(emu_env):
    return KafkaHelper(emu_env.bootstrap_servers)


# --------------------------------------------------------------------------------------------- faults

@pytest.fixture
def faults(emu_env):
    """Write the emulator's faults file for one test; cleared afterwards."""
    from tests.env.emulator_process import write_faults

    def _write(data):
        write_faults(emu_env.faults_file, data)

    yield _write
    write_faults(emu_env.faults_file, {})


# --------------------------------------------------------------------------------------------- status readers

def conditions(obj):
    return ((obj or {}).get("status") or {}).get("conditions") or []


def condition(obj, ctype, reason=None):
    for cond in conditions(obj):
        if cond.get("type") == ctype and (reason is None or cond.get("reason") == reason):
            return cond
    return None


def annotations(obj):
    return ((obj or {}).get("metadata") or {}).get("annotations") or {}


def dump(obj):
    return json.dumps(obj, indent=1, sort_keys=True)[:3000]


@pytest.fixture(scope="session")
def h():
    """The helpers above as one fixture (test modules cannot import a conftest reliably)."""
    import types
    return types.SimpleNamespace(wait_for=eventually, unique=unique, conditions=conditions, condition=condition,
                                 annotations=annotations, dump=dump, GROUP=GROUP, V=V, profile=profiles.selected())
