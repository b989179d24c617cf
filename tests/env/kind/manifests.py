"""The Strimzi resources of a kind environment, per profile (tests/env/kind/README.md).

Rendered from Strimzi's own release examples (packaging/examples at each pinned tag: kafka-single-node.yaml,
kafka-connect.yaml, kafka-mirror-maker-2.yaml), reduced to one node and pointed at each other:

- a KRaft Kafka (one dual-role KafkaNodePool + Kafka; 0.45 still needs the node-pools/kraft annotations) with an
  internal listener for the pods and a NodePort listener for the test process on the host;
- a KafkaConnect with ``strimzi.io/use-connector-resources: "true"`` running an image with the FileStream
  connectors (Dockerfile.connect); MirrorMaker 2's connectors ship with Kafka;
- a KafkaMirrorMaker2 replicating between two aliases of that one Kafka, in the era's layout (0.45: clusters/
  connectCluster/sourceCluster/targetCluster; 0.51 and 1.2: target/source).

``python -m tests.env.kind.manifests PROFILE`` prints them as one YAML stream (the workflow pipes it to kubectl).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROFILES = {k: v for k, v in json.loads((HERE / "profiles.json").read_text()).items() if not k.startswith("_")}
GROUP = "kafka.strimzi.io"
NAMESPACE = "kafka"
KAFKA = "ko-kafka"
CONNECT = "ko-connect"
MM2 = "ko-mm2"
CONNECT_IMAGE = "ko-connect:{strimzi}-kafka-{kafka}"
# In-cluster and host addresses of the Kafka listeners (ports match cluster.yaml's extraPortMappings).
CLUSTER_BOOTSTRAP = f"{KAFKA}-kafka-bootstrap.{NAMESPACE}.svc:9092"
HOST_BOOTSTRAP = "localhost:32100"
HOST_CONNECT_URL = "http://localhost:32083"
SHARED_DIR = "/tmp/ko-kind-shared"  # same path on the host, the kind node and in the Connect pods


def profile(name: str) -> dict:
    if name not in PROFILES:
        raise SystemExit(f"unknown Strimzi profile {name!r}; known: {', '.join(PROFILES)}")
    return PROFILES[name]


def _meta(name: str, **extra) -> dict:
    return {"name": name, "namespace": NAMESPACE, **extra}


def kafka(p: dict) -> list[dict]:
    api = f"{GROUP}/{p['api_version']}"
    pool = {"apiVersion": api, "kind": "KafkaNodePool",
            "metadata": _meta("dual-role", labels={"strimzi.io/cluster": KAFKA}),
            "spec": {"replicas": 1, "roles": ["controller", "broker"],
                     "storage": {"type": "jbod", "volumes": [{"id": 0, "type": "ephemeral", "kraftMetadata": "shared"}]}}}
    annotations = {"strimzi.io/node-pools": "enabled", "strimzi.io/kraft": "enabled"} \
        if p["api_version"] == "v1beta2" else {}
    cluster = {"apiVersion": api, "kind": "Kafka", "metadata": _meta(KAFKA, **({"annotations": annotations}
                                                                                 if annotations else {})),
               "spec": {"kafka": {
                   "version": p["kafka"], "metadataVersion": p["metadata_version"],
                   "listeners": [
                       {"name": "plain", "port": 9092, "type": "internal", "tls": False},
                       {"name": "external", "port": 9094, "type": "nodeport", "tls": False,
                        "configuration": {"bootstrap": {"nodePort": 32100},
                                          "brokers": [{"broker": 0, "nodePort": 32101, "advertisedHost": "localhost",
                                                       "advertisedPort": 32101}]}}],
                   "config": {"offsets.topic.replication.factor": 1, "transaction.state.log.replication.factor": 1,
                              "transaction.state.log.min.isr": 1, "default.replication.factor": 1,
                              "min.insync.replicas": 1}},
                   "entityOperator": {"topicOperator": {}}}}
    return [pool, cluster]


def connect_spec(p: dict, name: str = CONNECT) -> dict:
    """A KafkaConnect's spec in the profile's API version (0.45: group and topics in config; v1: spec fields)."""
    spec = {"version": p["kafka"], "replicas": 1, "bootstrapServers": CLUSTER_BOOTSTRAP,
            "image": CONNECT_IMAGE.format(**p),
            "config": {"config.storage.replication.factor": -1, "offset.storage.replication.factor": -1,
                       "status.storage.replication.factor": -1, "offset.flush.interval.ms": 1000}}
    topics = {"groupId": f"{name}-group", "configStorageTopic": f"{name}-configs",
              "statusStorageTopic": f"{name}-status", "offsetStorageTopic": f"{name}-offsets"}
    if p["api_version"] == "v1":
        spec.update(topics)
    else:
        spec["config"].update({"group.id": topics["groupId"], "config.storage.topic": topics["configStorageTopic"],
                               "status.storage.topic": topics["statusStorageTopic"],
                               "offset.storage.topic": topics["offsetStorageTopic"]})
    return spec


def connect(p: dict) -> list[dict]:
    return [{"apiVersion": f"{GROUP}/{p['api_version']}", "kind": "KafkaConnect",
             "metadata": _meta(CONNECT, annotations={"strimzi.io/use-connector-resources": "true"}),
             "spec": connect_spec(p)},
            # The host's way into the Connect REST API (the suite's `connect` fixture); Strimzi's own
            # <name>-connect-api Service is ClusterIP only.
            {"apiVersion": "v1", "kind": "Service", "metadata": _meta("ko-connect-rest"),
             "spec": {"type": "NodePort", "selector": {"strimzi.io/cluster": CONNECT, "strimzi.io/kind": "KafkaConnect"},
                      "ports": [{"port": 8083, "targetPort": 8083, "nodePort": 32083}]}}]


def mirror_maker2(p: dict) -> list[dict]:
    connectors = {"sourceConnector": {"tasksMax": 1, "config": {"replication.factor": -1,
                                                               "offset-syncs.topic.replication.factor": -1,
                                                               "sync.topic.acls.enabled": "false"}},
                  "checkpointConnector": {"tasksMax": 1, "config": {"checkpoints.topic.replication.factor": -1,
                                                                   "sync.group.offsets.enabled": "false"}}}
    # One Kafka under two aliases; only the suite's mm2-* topics, so replicas of replicas never pile up.
    pattern = {"topicsPattern": "mm2-.*", "groupsPattern": ".*"}
    if p["api_version"] == "v1":
        spec = {"version": p["kafka"], "replicas": 1,
                "target": {"alias": "west", "bootstrapServers": CLUSTER_BOOTSTRAP, "groupId": f"{MM2}-group",
                           "configStorageTopic": f"{MM2}-configs", "statusStorageTopic": f"{MM2}-status",
                           "offsetStorageTopic": f"{MM2}-offsets",
                           "config": {"config.storage.replication.factor": -1, "offset.storage.replication.factor": -1,
                                      "status.storage.replication.factor": -1}},
                "mirrors": [{"source": {"alias": "east", "bootstrapServers": CLUSTER_BOOTSTRAP}, **connectors,
                             **pattern}]}
    else:
        spec = {"version": p["kafka"], "replicas": 1, "connectCluster": "west",
                "clusters": [{"alias": "east", "bootstrapServers": CLUSTER_BOOTSTRAP},
                             {"alias": "west", "bootstrapServers": CLUSTER_BOOTSTRAP,
                              "config": {"config.storage.replication.factor": -1,
                                         "offset.storage.replication.factor": -1,
                                         "status.storage.replication.factor": -1}}],
                "mirrors": [{"sourceCluster": "east", "targetCluster": "west", **connectors, **pattern}]}
    return [{"apiVersion": f"{GROUP}/{p['api_version']}", "kind": "KafkaMirrorMaker2", "metadata": _meta(MM2),
             "spec": spec}]


def all_manifests(name: str) -> list[dict]:
    p = profile(name)
    return [*kafka(p), *connect(p), *mirror_maker2(p)]


def operator_manifest_url(name: str) -> str:
    """Strimzi's release asset with the CRDs, RBAC and the cluster operator Deployment of that release."""
    version = profile(name)["strimzi"]
    return (f"https://github.com/strimzi/strimzi-kafka-operator/releases/download/{version}/"
            f"strimzi-cluster-operator-{version}.yaml")


def main(argv: list[str]) -> int:
    import yaml

    if len(argv) != 1:
        raise SystemExit("usage: python -m tests.env.kind.manifests PROFILE")
    print(yaml.safe_dump_all(all_manifests(argv[0]), sort_keys=False), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
