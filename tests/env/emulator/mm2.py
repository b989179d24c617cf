"""KafkaMirrorMaker2 -> Kafka Connect connector definitions, for both CR layouts (§1.3).

* ``v1`` layout (Strimzi 0.49+, only layout from 1.0.0): ``spec.target`` + ``spec.mirrors[].source``; connectors
  ``<source.alias>-><target.alias>.MirrorSourceConnector`` and ``.MirrorCheckpointConnector`` (no heartbeat).
* ``v1beta2`` legacy layout (0.44-0.51): ``spec.connectCluster`` + ``spec.clusters[]`` +
  ``mirrors[].sourceCluster/targetCluster``; also ``.MirrorHeartbeatConnector`` from ``heartbeatConnector``.

Config follows ``KafkaMirrorMaker2Connectors#prepareMirrorMaker2ConnectorConfig``: the mirror connector's
``config``, then ``target.cluster.*``/``source.cluster.*`` (alias, bootstrap.servers, security.protocol, the
cluster's ``config`` prefixed), then ``topics``/``topics.exclude``/``groups``/``groups.exclude`` from the patterns.

Emulator-only additions (the real operator sets these at *worker* level or leaves them to the user; our single shared
worker uses JsonConverter and has one broker): ByteArrayConverter for key and value and replication factor 1 for the
MM2 internal topics, and no heartbeats-topic replication (see below).  They come first, so anything in the CR overrides them.
"""
from dataclasses import dataclass, field

from .conditions import ReconcileError
from .connector_config import stringify_config

SOURCE = "MirrorSourceConnector"
CHECKPOINT = "MirrorCheckpointConnector"
HEARTBEAT = "MirrorHeartbeatConnector"
CLASS_PREFIX = "org.apache.kafka.connect.mirror."

# (spec slot, connector type); heartbeat only exists in the legacy layout (§1.1: gone in v1 / 1.0.0).
V1_SLOTS = (("sourceConnector", SOURCE), ("checkpointConnector", CHECKPOINT))
LEGACY_SLOTS = (("sourceConnector", SOURCE), ("heartbeatConnector", HEARTBEAT), ("checkpointConnector", CHECKPOINT))

EMULATOR_DEFAULTS = {
    "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
    "replication.factor": "1",
    "offset-syncs.topic.replication.factor": "1",
    "checkpoints.topic.replication.factor": "1",
    "heartbeats.topic.replication.factor": "1",
    "sync.topic.acls.enabled": "false",
    # Both aliases point at the one broker: with the default (true) every source connector replicates every
    # heartbeats topic it sees (`heartbeats` -> `<src>.heartbeats` -> `<src>.<src>.heartbeats` -> ...) whatever
    # topicsPattern says, which fills the shared broker with topics without end.
    "heartbeats.replication.enabled": "false",
}

PATTERN_KEYS = (("topicsPattern", "topics"), ("topicsExcludePattern", "topics.exclude"),
                ("topicsBlacklistPattern", "topics.exclude"), ("groupsPattern", "groups"),
                ("groupsExcludePattern", "groups.exclude"), ("groupsBlacklistPattern", "groups.exclude"))


@dataclass
class MirrorConnector:
    name: str
    type: str
    source_alias: str
    target_alias: str
    spec: dict  # the mirror's connector spec: state, tasksMax, listOffsets, alterOffsets, pause, config
    config: dict = field(default_factory=dict)  # Connect config without name/connector.class/tasks.max

    @property
    def connector_class(self):
        return CLASS_PREFIX + self.type


def connector_name(source_alias, target_alias, connector_type):
    return f"{source_alias}->{target_alias}.{connector_type}"


def configmap_key(connector):
    """List/alter ConfigMap key for an MM2 connector: ``->`` replaced by ``--`` plus ``.json`` (§2.6)."""
    return connector.replace("->", "--") + ".json"


def is_v1_layout(spec):
    return bool(spec.get("target"))


def generate(mm2, profile=None):
    """All connectors the CR asks for, sorted by name.  Raises ReconcileError for an unusable spec.

    ``profile`` limits the layouts to the era's (the CRD schema already prunes the other layout's fields) and picks
    the era's legacy validation (0.44-0.48: a target that is not the connect cluster is accepted when both have the
    same bootstrap servers, ``KafkaMirrorMaker2Connectors#validateConnectors``)."""
    spec = mm2.get("spec") or {}
    if not spec:
        raise ReconcileError("InvalidResourceException", "spec property is required")
    layouts = profile.mm2_layouts if profile else ("v1beta2", "v1")
    if is_v1_layout(spec) and "v1" in layouts:
        connectors = list(_generate_v1(spec))
    elif "v1beta2" in layouts:
        connectors = list(_generate_legacy(spec, lenient_target="v1" not in layouts))
    else:
        raise ReconcileError("InvalidResourceException", ".spec.target section is required in KafkaMirrorMaker2 "
                                                         "resource")
    return sorted(connectors, key=lambda c: c.name)


def _generate_v1(spec):
    target = spec["target"]
    for mirror in spec.get("mirrors") or []:
        source = mirror.get("source") or {}
        if not source.get("alias"):
            raise ReconcileError("InvalidResourceException",
                                 "Each mirror in the KafkaMirrorMaker2 resource needs a source cluster with an alias")
        yield from _mirror_connectors(mirror, source, target, V1_SLOTS)


def _generate_legacy(spec, lenient_target=False):
    clusters = {c.get("alias"): c for c in spec.get("clusters") or []}
    connect_cluster = spec.get("connectCluster")
    for mirror in spec.get("mirrors") or []:
        source_alias, target_alias = mirror.get("sourceCluster"), mirror.get("targetCluster")
        for role, alias in (("source", source_alias), ("target", target_alias)):
            if alias not in clusters:
                raise ReconcileError(
                    "InvalidResourceException",
                    f"The {role} cluster alias {alias} is used in a mirror definition, but cluster with this alias "
                    f"does not exist in cluster definitions")
        if connect_cluster is not None and target_alias != connect_cluster and not (
                lenient_target and connect_cluster in clusters
                and clusters[connect_cluster].get("bootstrapServers") == clusters[target_alias].get("bootstrapServers")):
            # Since 0.42 a mirror's target must be the Connect cluster (§1.3).
            raise ReconcileError(
                "InvalidResourceException",
                f"The connectCluster {connect_cluster} has to be the same as all targetClusters "
                f"(mirror target {target_alias})")
        yield from _mirror_connectors(mirror, clusters[source_alias], clusters[target_alias], LEGACY_SLOTS)


def _mirror_connectors(mirror, source, target, slots):
    for slot, ctype in slots:
        conn_spec = mirror.get(slot)
        if conn_spec is None:
            continue
        yield MirrorConnector(
            name=connector_name(source["alias"], target["alias"], ctype),
            type=ctype,
            source_alias=source["alias"],
            target_alias=target["alias"],
            spec=conn_spec,
            config=build_config(mirror, conn_spec, source, target),
        )


def build_config(mirror, conn_spec, source, target):
    config = dict(EMULATOR_DEFAULTS)
    config.update(stringify_config(conn_spec.get("config") or {}))
    _add_cluster(config, target, "target.cluster.")
    _add_cluster(config, source, "source.cluster.")
    for spec_key, config_key in PATTERN_KEYS:
        if mirror.get(spec_key) is not None:
            config[config_key] = str(mirror[spec_key])
    return config


def _add_cluster(config, cluster, prefix):
    config[prefix + "alias"] = str(cluster["alias"])
    config[prefix + "bootstrap.servers"] = str(cluster.get("bootstrapServers", ""))
    # TLS/authentication are not emulated: the test broker is PLAINTEXT.
    config[prefix + "security.protocol"] = "PLAINTEXT"
    for key, value in stringify_config(cluster.get("config") or {}).items():
        config[prefix + key] = value
