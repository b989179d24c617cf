"""A single-node KRaft Kafka broker and a distributed Kafka Connect worker (the main classes Kafka's
bin/kafka-storage.sh, bin/kafka-server-start.sh and bin/connect-distributed.sh exec: kafka.tools.StorageTool,
kafka.Kafka, org.apache.kafka.connect.cli.ConnectDistributed).

Both run from the Maven-fetched jars in $KAFKA_LIB with one flat classpath: Connect scans its classpath for
plugins, so FileStreamSource/Sink and the MirrorMaker 2 connectors are found without plugin.path.
"""
from __future__ import annotations

import base64
import json
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

from . import cds
from .ports import HOST, accepts_connections, free_ports
from .processes import Proc, run_checked, spawn, wait_until

HEAP = "512m"
# A Connect worker's internal-topic consumers long-poll this long (Kafka's default is 500 ms): new records still
# answer a fetch at once, and an idle worker and its broker spend about a third of the CPU (benchmarks/env_costs.py).
# The environment's own worker and every pod's (tests/env/kubelet.IDLE_FRIENDLY_DEFAULTS) use it.
IDLE_FETCH_MAX_WAIT_MS = 5000
BROKER_READY_TIMEOUT = 120.0
CONNECT_READY_TIMEOUT = 180.0  # creates its internal topics and joins its group: 10-30 s, more when busy
CONNECT_GROUP = "connect-cluster"  # Strimzi's default group.id for a KafkaConnect cluster
REQUIRED_PLUGINS = (
    "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "org.apache.kafka.connect.file.FileStreamSinkConnector",
    "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
)

# Kafka 4.x logs through Log4j 2. A *properties* config needs no YAML/JSON parser on the classpath. Everything
# goes to stdout, which the process runner sends to the component's log file.
LOG4J2_PROPERTIES = """\
status = warn
appender.out.type = Console
appender.out.name = STDOUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d{HH:mm:ss,SSS}] %p %m (%c{1})%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = STDOUT
logger.kafka.name = kafka
logger.kafka.level = WARN
logger.apache.name = org.apache.kafka
logger.apache.level = WARN
logger.connect.name = org.apache.kafka.connect
logger.connect.level = INFO
logger.mirror.name = org.apache.kafka.connect.mirror
logger.mirror.level = INFO
logger.controller.name = org.apache.kafka.controller
logger.controller.level = WARN
logger.jetty.name = org.eclipse.jetty
logger.jetty.level = WARN
logger.reflections.name = org.reflections
logger.reflections.level = ERROR
"""


@dataclass
class Broker:
    proc: Proc
    bootstrap_servers: str


@dataclass
class Connect:
    proc: Proc
    url: str


def _write_properties(path: Path, props: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def _java(run_dir: Path, lib: Path, main: str, *args: str, heap: str = HEAP, jvm: list[str] = ()) -> list[str]:
    log4j = run_dir / "config" / "log4j2.properties"
    if not log4j.exists():
        log4j.parent.mkdir(parents=True, exist_ok=True)
        log4j.write_text(LOG4J2_PROPERTIES)
    # C1 only and SerialGC: quicker start-up and less CPU on a shared 2-core machine; tests are short-lived.
    return ["java", "-Xms128m", f"-Xmx{heap}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *jvm,
            "-Djava.awt.headless=true", "-Djava.net.preferIPv4Stack=true",
            f"-Dlog4j2.configurationFile={log4j}", "-cp", f"{lib}/*", main, *args]


def _cluster_id() -> str:
    """What `kafka-storage random-uuid` prints: a base64url UUID without padding; saves a JVM start.

    Like Kafka's own Uuid.randomUuid(), draw again while the text starts with '-' (about 1 in 64): the id is a
    command-line argument (`format -t <id>`) and would be read as an option."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def broker_config(run_dir: Path) -> tuple[Path, str]:
    broker_port, controller_port = free_ports(2)
    props = {
        "process.roles": "broker,controller",
        "node.id": 1,
        # A static quorum: `format` needs no --standalone and the file is the same for 3.9 and 4.x.
        "controller.quorum.voters": f"1@{HOST}:{controller_port}",
        "listeners": f"PLAINTEXT://{HOST}:{broker_port},CONTROLLER://{HOST}:{controller_port}",
        "advertised.listeners": f"PLAINTEXT://{HOST}:{broker_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": run_dir / "data" / "kafka",
        "num.partitions": 1,
        "offsets.topic.replication.factor": 1,
        "offsets.topic.num.partitions": 5,  # default 50: fewer partitions = faster first group coordinator
        "transaction.state.log.replication.factor": 1,
        "transaction.state.log.min.isr": 1,
        "transaction.state.log.num.partitions": 5,
        "share.coordinator.state.topic.replication.factor": 1,
        "share.coordinator.state.topic.min.isr": 1,
        "group.initial.rebalance.delay.ms": 0,
        # The controller appends a no-op record every 500 ms by default (each one written and replayed): a tenth as
        # often on an idle test broker.
        "metadata.max.idle.interval.ms": 5000,
        "auto.create.topics.enable": "true",
        # ACLs work (the full reset's permission pre-flight is tested with DENY ACLs), and a resource without any
        # ACL stays open to everyone, so nothing else changes. No super users: they would bypass the DENY ACLs.
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found": "true",
    }
    return _write_properties(run_dir / "config" / "server.properties", props), f"{HOST}:{broker_port}"


def start_broker(run_dir: Path, lib: Path, jvm: list[str] | None = None) -> Broker:
    """``jvm``: options for the broker's JVM (default: map its class-data archive, tests/env/cds.py)."""
    config, bootstrap = broker_config(run_dir)
    log = run_dir / "logs" / "kafka.log"
    run_checked("kafka", _java(run_dir, lib, "kafka.tools.StorageTool", "format", "-t", _cluster_id(),
                               "-c", str(config), heap="256m", jvm=cds.flags(lib, "broker")), log, timeout=120)
    proc = spawn("kafka", _java(run_dir, lib, "kafka.Kafka", str(config),
                                jvm=cds.flags(lib, "broker") if jvm is None else jvm), log)
    wait_until(proc, f"accepting connections on {bootstrap}",
               lambda: accepts_connections(int(bootstrap.rsplit(":", 1)[1])), BROKER_READY_TIMEOUT)
    wait_until(proc, "listing topics through the admin client", lambda: _lists_topics(bootstrap),
               BROKER_READY_TIMEOUT, interval=0.5)
    return Broker(proc, bootstrap)


def _lists_topics(bootstrap: str) -> bool:
    from confluent_kafka.admin import AdminClient  # imported late: unit tests never need it

    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0, "socket.timeout.ms": 3000})
    metadata = admin.list_topics(timeout=3)
    return bool(metadata.brokers)


def connect_config(run_dir: Path, bootstrap: str) -> tuple[Path, str]:
    (port,) = free_ports(1)
    props = {
        "bootstrap.servers": bootstrap,
        "group.id": CONNECT_GROUP,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "false",
        "value.converter.schemas.enable": "false",
        # Strimzi's default topic names for a Connect cluster, so offsets land where the operator expects them.
        "offset.storage.topic": "connect-cluster-offsets",
        "config.storage.topic": "connect-cluster-configs",
        "status.storage.topic": "connect-cluster-status",
        "offset.storage.replication.factor": 1,
        "config.storage.replication.factor": 1,
        "status.storage.replication.factor": 1,
        "offset.storage.partitions": 5,  # default 25: fewer partitions make the first start quicker
        "status.storage.partitions": 1,
        "offset.flush.interval.ms": 1000,  # offsets visible to list/alter tests within about a second
        "connector.client.config.override.policy": "All",
        "listeners": f"http://{HOST}:{port}",
        "rest.advertised.host.name": HOST,
        "rest.advertised.port": port,
        "plugin.discovery": "service_load",  # built-in connectors ship ServiceLoader manifests; no reflection scan
        "fetch.max.wait.ms": IDLE_FETCH_MAX_WAIT_MS,
    }
    return _write_properties(run_dir / "config" / "connect-distributed.properties", props), f"http://{HOST}:{port}"


def start_connect(run_dir: Path, lib: Path, bootstrap: str, jvm: list[str] | None = None) -> Connect:
    """``jvm``: options for the worker's JVM (default: map its class-data archive, tests/env/cds.py)."""
    config, url = connect_config(run_dir, bootstrap)
    proc = spawn("kafka-connect", _java(run_dir, lib, "org.apache.kafka.connect.cli.ConnectDistributed", str(config),
                                        jvm=cds.flags(lib, "connect") if jvm is None else jvm),
                 run_dir / "logs" / "kafka-connect.log")
    wait_until(proc, "listing the file and MirrorMaker 2 connector plugins (GET /connector-plugins)",
               lambda: _has_plugins(url), CONNECT_READY_TIMEOUT, interval=0.5)
    # /health (KIP-1017) turns 200 once the herder has joined the group and read the config topic, so the
    # first connector a test creates is not refused with a 409 "rebalance in progress".
    wait_until(proc, "healthy (GET /health)", lambda: _get(f"{url}/health").get("status") == "healthy",
               CONNECT_READY_TIMEOUT, interval=0.5)
    return Connect(proc, url)


def _get(url: str):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


def _has_plugins(url: str) -> bool:
    classes = {p["class"] for p in _get(f"{url}/connector-plugins")}
    return all(c in classes for c in REQUIRED_PLUGINS)
