"""Small clients for tests: Kafka Connect REST, Kafka (confluent-kafka) and Kubernetes API clients.

Kept apart from the fixtures so a script or a debugging session can use them with a running environment:
    env = Env.load("/tmp/kubectl-offsets-env/current.json"); ConnectRest(env.connect_url).get("/connectors")
"""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


class ConnectRest:
    """get/put/post/delete/patch against the Connect REST API, each returning (status, decoded JSON or None)."""

    def __init__(self, url: str, timeout: float = 30.0):
        self.url = url.rstrip("/")
        self.timeout = timeout

    def request(self, method: str, path: str, body=None) -> tuple[int, object]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.status, _json_or_none(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, _json_or_none(e.read())

    def get(self, path: str):
        return self.request("GET", path)

    def put(self, path: str, body=None):
        return self.request("PUT", path, body)

    def post(self, path: str, body=None):
        return self.request("POST", path, body)

    def delete(self, path: str):
        return self.request("DELETE", path)

    def patch(self, path: str, body=None):
        return self.request("PATCH", path, body)

    @staticmethod
    def connector_path(name: str, suffix: str = "") -> str:
        """/connectors/<name><suffix> with the name escaped (MirrorMaker 2 names contain '->')."""
        return f"/connectors/{urllib.parse.quote(name, safe='')}{suffix}"


def forget_in_connect(connect_url: str, connectors: list[str], grace: float = 30.0, timeout: float = 60.0) -> None:
    """Until Connect runs none of ``connectors`` (their KafkaConnectors are deleted). The operator deletes each from
    Connect, one event at a time under the KafkaConnect's lock; a deletion that meets a rebalance fails and waits
    for the operator's periodic pass (minutes), which would then delete it in the middle of the next module. After
    ``grace`` the stragglers are deleted here: no KafkaConnector is left to re-create them."""
    from tests.waits import eventually

    rest = ConnectRest(connect_url)

    def left() -> list[str]:
        return [name for name in connectors if rest.get(rest.connector_path(name))[0] != 404]

    def delete_left() -> None:
        for name in left():
            rest.delete(rest.connector_path(name))

    try:
        eventually("Connect to forget the module's connectors", lambda: not left(), timeout=grace)
    except AssertionError:
        delete_left()
        eventually("Connect to forget the module's connectors", lambda: not left(), timeout=timeout,
                   nudge=delete_left)


def _json_or_none(raw: bytes):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def unique_name(prefix: str) -> str:
    """A DNS-1123-safe unique name (namespaces, topics, connectors)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# ---- Kafka ------------------------------------------------------------------------------------------------------

def kafka_conf(bootstrap: str, **extra) -> dict:
    # log_level 3 (errors): librdkafka otherwise logs every broker disconnect to stderr.
    return {"bootstrap.servers": bootstrap, "log_level": 3, **extra}


def producer_conf(bootstrap: str, **extra) -> dict:
    """A test producer's settings: idempotent, so records land in the order produced. Without it librdkafka retries
    a failed request (a just-created topic's leader not known yet) after later ones succeeded: a test produced r0,
    r1, r2 and the partition held r1, r2, r0."""
    return kafka_conf(bootstrap, **{"enable.idempotence": True, **extra})


def create_topic(admin, name: str, partitions: int = 1, timeout: float = 30.0) -> str:
    from confluent_kafka.admin import NewTopic

    futures = admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])
    futures[name].result(timeout=timeout)
    return name


def produce(producer, topic: str, values, key=None, partition: int | None = None, timeout: float = 30.0) -> None:
    """Produce every value and wait until the broker acknowledged all of them (raises on any delivery error)."""
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(err)

    for value in values:
        kwargs = {"key": key, "value": value, "on_delivery": on_delivery}
        if partition is not None:
            kwargs["partition"] = partition
        producer.produce(topic, **kwargs)
    remaining = producer.flush(timeout)
    if remaining or errors:
        raise AssertionError(f"producing to {topic}: {remaining} undelivered, errors {errors}")


class Feeder:
    """Live traffic: a thread that keeps producing ``<prefix>-<n>`` records to one partition of a topic until
    ``stop()`` (every ``interval`` seconds, acknowledged in small batches), so a connector reading it has offsets
    that move during an operation, as in production. ``produced`` counts the acknowledged records."""

    # Four records a second: an operation (stop, alter, resume) takes seconds, so the offsets still move during
    # each one; at twenty a second, the dozen feeders alive at once in a suite run (each with its sink connector
    # fetching every record) kept the broker, the Connect workers and the pytest workers busy for nothing.
    INTERVAL = 0.25

    def __init__(self, bootstrap: str, topic: str, partition: int, *, prefix: str = "live",
                 interval: float = INTERVAL):
        import threading

        self.bootstrap, self.topic, self.partition, self.prefix, self.interval = \
            bootstrap, topic, partition, prefix, interval
        self.produced, self.errors = 0, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"feeder-{topic}-{partition}", daemon=True)

    def start(self) -> "Feeder":
        self._thread.start()
        return self

    def _run(self) -> None:
        from confluent_kafka import Producer

        producer = Producer(producer_conf(self.bootstrap, **{"linger.ms": 5}))

        def on_delivery(err, _msg):
            if err is None:
                self.produced += 1
            else:
                self.errors.append(err)

        sent = 0
        while not self._stop.wait(self.interval):
            producer.produce(self.topic, value=f"{self.prefix}-{sent}".encode(), partition=self.partition,
                             on_delivery=on_delivery)
            sent += 1
            producer.poll(0)
        producer.flush(10)
        del producer  # destroyed here, while the broker still runs (librdkafka logs refusals otherwise)

    def stop(self) -> int:
        """Stop producing (idempotent); returns how many records were acknowledged."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(30)
        return self.produced


def consume(consumer, topics: list[str], count: int, timeout: float = 30.0) -> list:
    """Subscribe and return exactly `count` messages (raises if they do not arrive in time)."""
    consumer.subscribe(topics)
    messages, deadline = [], time.monotonic() + timeout
    while len(messages) < count and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            raise AssertionError(f"consumer error: {msg.error()}")
        messages.append(msg)
    if len(messages) < count:
        raise AssertionError(f"got {len(messages)} of {count} messages from {topics} in {timeout}s")
    return messages


# ---- Kubernetes ---------------------------------------------------------------------------------------------------

def kube_api_client(kubeconfig: str):
    """A `kubernetes` ApiClient for one kubeconfig, independent of ~/.kube/config and of other clients."""
    from kubernetes import config

    return config.new_client_from_config(config_file=kubeconfig)


# A KafkaMirrorMaker2 on this environment's one broker, as a user of a one-broker cluster writes it: the Connect
# cluster's internal topics and the MirrorMaker 2 topics at the broker's default replication (Connect and MirrorMaker
# default to 3 and fail on one broker), offsets flushed within a second like the environment's own worker, no ACL sync
# (the broker may run without an authorizer). Values a test sets win.
MM2_TARGET_CONFIG = {"config.storage.replication.factor": -1, "offset.storage.replication.factor": -1,
                     "status.storage.replication.factor": -1, "offset.flush.interval.ms": 1000}
MM2_CONNECTOR_CONFIG = {"sourceConnector": {"replication.factor": -1, "offset-syncs.topic.replication.factor": -1,
                                            "sync.topic.acls.enabled": False},
                        "checkpointConnector": {"checkpoints.topic.replication.factor": -1},
                        "heartbeatConnector": {"heartbeats.topic.replication.factor": -1}}


def legacy_connect_group(name: str) -> dict:
    """The Connect group and internal topics of a legacy-layout KafkaMirrorMaker2 named ``name``. Without them
    Strimzi uses its defaults (group ``mirrormaker2-cluster``, topics ``mirrormaker2-cluster-*``), the same for every
    such resource: their workers on one Kafka would join one Connect cluster, and each resource's operator pass
    would delete the other resources' connectors from it. The v1 layout requires these fields."""
    return {"group.id": f"{name}-g", "config.storage.topic": f"{name}-c", "status.storage.topic": f"{name}-s",
            "offset.storage.topic": f"{name}-o"}


def for_one_broker(mm2: dict) -> dict:
    """``mm2`` (either layout) with MM2_TARGET_CONFIG on its Connect cluster and MM2_CONNECTOR_CONFIG on its
    connectors, and in the legacy layout its own Connect group and topics (``legacy_connect_group``), where the
    test did not set them. Returns the same dict."""
    spec = mm2["spec"]
    target = spec.get("target") or next(c for c in spec.get("clusters") or []
                                        if c.get("alias") == spec.get("connectCluster"))
    own = {} if spec.get("target") else legacy_connect_group(mm2["metadata"]["name"])
    target["config"] = {**MM2_TARGET_CONFIG, **own, **(target.get("config") or {})}
    for mirror in spec.get("mirrors") or []:
        for slot, defaults in MM2_CONNECTOR_CONFIG.items():
            if slot in mirror:
                mirror[slot]["config"] = {**defaults, **(mirror[slot].get("config") or {})}
    return mm2


def one_mirror_mm2(name: str, source: str, target: str, bootstrap: str, mirror: dict, profile=None) -> dict:
    """A KafkaMirrorMaker2 with one mirror ``source -> target`` (both on ``bootstrap``), in the layout that the
    session's Strimzi profile lets a user write (the v1 layout where it is served, the legacy one on 0.44-0.48):
    ``mirror`` holds the connectors and patterns, the cluster fields are added here. Create it through
    ``profile.preferred_version``."""
    from tests.env.emulator import profiles

    profile = profile or profiles.selected()
    mirror = dict(mirror)
    if profiles.LAYOUT_V1 in profile.mm2_layouts:
        mirror["source"] = {"alias": source, "bootstrapServers": bootstrap}
        spec = {"replicas": 1, "target": {"alias": target, "bootstrapServers": bootstrap, "groupId": f"{name}-g",
                                          "configStorageTopic": f"{name}-c", "statusStorageTopic": f"{name}-s",
                                          "offsetStorageTopic": f"{name}-o"},
                "mirrors": [mirror]}
    else:
        mirror.update({"sourceCluster": source, "targetCluster": target})
        spec = {"replicas": 1, "connectCluster": target,
                "clusters": [{"alias": a, "bootstrapServers": bootstrap} for a in (source, target)],
                "mirrors": [mirror]}
    return for_one_broker({"apiVersion": f"kafka.strimzi.io/{profile.preferred_version}", "kind": "KafkaMirrorMaker2",
                           "metadata": {"name": name}, "spec": spec})
