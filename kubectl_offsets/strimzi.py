"""Every Strimzi fact the plugin relies on, in one place.

Field paths, annotation names, connector naming for MirrorMaker 2, ConfigMap keys, condition reasons and the
differences between the ``v1beta2`` and ``v1`` API layouts. Standard library only. Each fact names where it is in
Strimzi's source, github.com/strimzi/strimzi-kafka-operator (0.44.0, the first release with offsets support, to
1.2.0), with ``CO/`` = ``cluster-operator/src/main/java/io/strimzi/operator/cluster/``, ``OC/`` =
``operator-common/src/main/java/io/strimzi/operator/common/``, ``API/`` = ``api/src/main/java/io/strimzi/api/``;
CRDs under ``packaging/install/cluster-operator/``; release facts in its ``CHANGELOG.md``. docs/online.md says what
the plugin makes of them.

The central abstraction is :class:`ConnectorTarget`: *one Connect connector managed through one custom
resource*. A KafkaConnector is one target; each connector generated from a KafkaMirrorMaker2 mirror is one
target. The online flow, GitOps edits and completion only talk to targets, so MirrorMaker 2 is "just another
kind of target": where its stanza lives, which annotations trigger it and which ConfigMap key it uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from .conventions import StrEnum
from .errors import InputError

GROUP = "kafka.strimzi.io"
# Served versions we understand, in order of preference. v1beta2 first whenever it is served: in Strimzi 0.49-0.51
# both are served (no conversion webhook, v1beta2 stored) and v1beta2's schema is the superset, while the v1 view
# prunes the v1beta2-only fields (MirrorMaker 2's clusters/connectCluster/sourceCluster/targetCluster/
# heartbeatConnector, a connector's pause). Read through v1, a v1beta2-layout KafkaMirrorMaker2 has no aliases at
# all, and a write through v1 would delete those fields from the stored object. From 1.0.0 only v1 is served.
VERSIONS = ("v1beta2", "v1")

KIND_CONNECTOR = "KafkaConnector"
KIND_MM2 = "KafkaMirrorMaker2"
KIND_CONNECT = "KafkaConnect"
KIND_TOPIC = "KafkaTopic"
PLURALS = {KIND_CONNECTOR: "kafkaconnectors", KIND_MM2: "kafkamirrormaker2s", KIND_CONNECT: "kafkaconnects",
           KIND_TOPIC: "kafkatopics"}

# What users may type before the slash in TARGET (kubectl style: kind, plural, short name, with or without group).
KIND_ALIASES = {
    KIND_CONNECTOR: ("kafkaconnector", "kafkaconnectors", "kctr"),
    KIND_MM2: ("kafkamirrormaker2", "kafkamirrormaker2s", "kmm2"),
}

# --- annotations and labels (CO/operator/assembly/KafkaConnectAssemblyOperator.java and
# KafkaMirrorMaker2AssemblyOperator.java #getConnectorOffsetsOperation; the KafkaConnector CRD 047-Crd-kafkaconnector.yaml)
ANNOTATION_CONNECTOR_OFFSETS = "strimzi.io/connector-offsets"
ANNOTATION_MIRRORMAKER_CONNECTOR = "strimzi.io/mirrormaker-connector"
ANNOTATION_USE_CONNECTOR_RESOURCES = "strimzi.io/use-connector-resources"
ANNOTATION_PAUSE_RECONCILIATION = "strimzi.io/pause-reconciliation"
LABEL_CLUSTER = "strimzi.io/cluster"

class OffsetsAction(StrEnum):
    """The value of ANNOTATION_CONNECTOR_OFFSETS: the one-shot request handed to the operator. The only values the
    operator accepts (CO/model/KafkaConnectorOffsetsAnnotation.java, whose ``none`` we never write); anything else
    fails its enum lookup with an IllegalArgumentException, and the resource goes NotReady."""

    LIST = "list"
    ALTER = "alter"
    RESET = "reset"


OFFSETS_ACTIONS = tuple(OffsetsAction)

# --- spec.state (API/kafka/model/common/ConnectorState.java; CO/operator/assembly/AbstractConnectOperator.java#updateState)
STATE_RUNNING, STATE_PAUSED, STATE_STOPPED = "running", "paused", "stopped"
# Connect task states written once the task has closed (after its last offset commit)
TASK_STATES_ENDED = frozenset({"UNASSIGNED", "FAILED"})
STATES = (STATE_RUNNING, STATE_PAUSED, STATE_STOPPED)
DEFAULT_STATE = STATE_RUNNING  # an absent spec.state means running
# spec.state -> the connector.state Connect reports once the operator has applied it.
CONNECT_STATE_FOR = {STATE_RUNNING: "RUNNING", STATE_PAUSED: "PAUSED", STATE_STOPPED: "STOPPED"}

# --- the stanzas' field names (API/kafka/model/connector/AbstractConnectorSpec.java, ListOffsets.java, AlterOffsets.java)
FIELD_STATE = "state"
FIELD_PAUSE = "pause"  # deprecated boolean, v1beta2 only
FIELD_LIST_OFFSETS = "listOffsets"
FIELD_ALTER_OFFSETS = "alterOffsets"
FIELD_TO_CONFIGMAP = "toConfigMap"
FIELD_FROM_CONFIGMAP = "fromConfigMap"

# --- status conditions (KafkaConnectAssemblyOperator#maybeUpdateConnectorStatus; OC/model/StatusUtils.java#buildWarningCondition;
# the reasons AbstractConnectOperator#manageConnectorOffsets gives) ---------------------------------------------
CONDITION_WARNING = "Warning"
CONDITION_NOT_READY = "NotReady"
CONDITION_READY = "Ready"
REASON_FOR_ACTION: dict[str, str] = {OffsetsAction.LIST: "ListOffsets", OffsetsAction.ALTER: "AlterOffsets",
                     OffsetsAction.RESET: "ResetOffsets"}
REASON_MANAGE_OFFSETS = "ManageOffsets"
REASON_RECONCILIATION_PAUSED = "ReconciliationPaused"

# --- MirrorMaker 2 connectors (CO/model/KafkaMirrorMaker2Connectors.java#generateConnectorDefinitions) ----------------
MM2_TYPES = {
    "source": ("sourceConnector", "MirrorSourceConnector"),
    "checkpoint": ("checkpointConnector", "MirrorCheckpointConnector"),
    "heartbeat": ("heartbeatConnector", "MirrorHeartbeatConnector"),  # v1beta2 only; gone in v1
}
MIRROR_CLASS_PREFIX = "org.apache.kafka.connect.mirror."
OFFSETS_CONFIGMAP_KEY = "offsets.json"
# Strimzi's default offset.storage.topic for a KafkaConnect (defaultConfiguration in
# cluster-operator/src/main/java/io/strimzi/operator/cluster/model/KafkaConnectCluster.java).
CONNECT_OFFSETS_TOPIC = "connect-cluster-offsets"


def mm2_connector_name(source_alias: str, target_alias: str, connector_type: str) -> str:
    """``east->west.MirrorSourceConnector``: the name Strimzi gives a generated MirrorMaker 2 connector."""
    return f"{source_alias}->{target_alias}.{connector_type}"


def configmap_key(kind: str, connector_name: str) -> str:
    """The ConfigMap data key Strimzi reads and writes: ``offsets.json`` for a KafkaConnector, the connector name
    with ``->`` replaced by ``--`` plus ``.json`` for MirrorMaker 2 (``getConnectorOffsetsConfigMapEntryKey`` in
    KafkaConnectAssemblyOperator and KafkaMirrorMaker2AssemblyOperator)."""
    if kind == KIND_CONNECTOR:
        return OFFSETS_CONFIGMAP_KEY
    return connector_name.replace("->", "--") + ".json"


def parse_kind(word: str) -> str:
    """``kafkaconnector``, ``kctr``, ``kafkamirrormaker2.kafka.strimzi.io``, ... -> the Kind."""
    base = word.lower().split(".", 1)[0]
    for kind, aliases in KIND_ALIASES.items():
        if base in aliases:
            return kind
    known = ", ".join(a for aliases in KIND_ALIASES.values() for a in aliases)
    raise InputError(f"unknown resource type '{word}'", advice=f"use one of: {known}")


def parse_target(text: str) -> tuple[str, str]:
    """``[kind/]NAME`` -> (Kind, name); a bare name is a KafkaConnector, as in the issue's command surface."""
    if "/" in text:
        kind_word, name = text.split("/", 1)
        kind = parse_kind(kind_word)
    else:
        kind, name = KIND_CONNECTOR, text
    if not re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", name or ""):
        raise InputError(f"'{name}' is not a valid resource name",
                         advice="Kubernetes names are lower-case letters, digits, '-' and '.'")
    return kind, name


@dataclass(frozen=True)
class ConnectorTarget:
    """One Connect connector and the custom resource through which Strimzi manages it."""

    kind: str  # KIND_CONNECTOR or KIND_MM2
    namespace: str
    resource_name: str
    connector_name: str  # the name in Connect
    # Path from the resource root to the connector's spec stanza (holds state/listOffsets/alterOffsets).
    stanza_path: tuple[Any, ...] = ("spec",)
    mm2_type: str | None = None  # "MirrorSourceConnector", ... for MirrorMaker 2
    source_alias: str | None = None
    target_alias: str | None = None

    # --- naming -----------------------------------------------------------------------------------------------
    @property
    def configmap_key(self) -> str:
        return configmap_key(self.kind, self.connector_name)

    @property
    def display(self) -> str:
        base = f"{self.kind.lower()}/{self.resource_name}"
        return base if self.kind == KIND_CONNECTOR else f"{base} --connector '{self.connector_name}'"

    @property
    def lock_scope(self) -> str:
        """What one operation at a time is counted over: the operator handles one MirrorMaker 2 connector per
        annotation, so a whole KafkaMirrorMaker2 is one scope; each KafkaConnector is its own."""
        return f"{self.kind}/{self.namespace}/{self.resource_name}"

    # --- reading a resource ----------------------------------------------------------------------------------
    def stanza(self, resource: Mapping[str, Any]) -> Mapping[str, Any]:
        node: Any = resource
        for step in self.stanza_path:
            if isinstance(step, int):  # a mirror index: the mirror may have been removed since we resolved
                node = node[step] if isinstance(node, list) and 0 <= step < len(node) else None
            else:
                node = (node or {}).get(step)
            if node is None:
                return {}
        return node

    def spec_state(self, resource: Mapping[str, Any]) -> str:
        stanza = self.stanza(resource)
        state = stanza.get(FIELD_STATE)
        if state:
            return state
        if stanza.get(FIELD_PAUSE) is True:  # v1beta2's deprecated boolean, honoured when state is absent
            return STATE_PAUSED
        return DEFAULT_STATE

    def connector_status(self, resource: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """The verbatim ``GET /connectors/{c}/status`` the operator copied into the resource's status."""
        status = resource.get("status") or {}
        if self.kind == KIND_CONNECTOR:
            return status.get("connectorStatus")
        for entry in status.get("connectors") or []:
            if entry.get("name") == self.connector_name:
                return entry
        return None

    def live_state(self, resource: Mapping[str, Any]) -> str | None:
        """Connect's ``connector.state`` (RUNNING, PAUSED, STOPPED, FAILED, ...) as last reported."""
        status = self.connector_status(resource) or {}
        return (status.get("connector") or {}).get("state")

    def tasks_not_ended(self, resource: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The tasks Connect still lists for the connector in a state from which they may commit offsets.

        Connect removes a stopped connector's task statuses at its leader's next rebalance
        (DistributedHerder#updateDeletedTaskStatus), but a task's own last status write can land after that removal
        and is then listed until a rebalance a stopped connector never brings (a connector deleted and created again
        under the same name can inherit one the same way). That write is UNASSIGNED (WorkerTask#onShutdown) or FAILED, both made
        once the task has closed, after its last commit: such a task is over whether or not it is still listed."""
        tasks = (self.connector_status(resource) or {}).get("tasks") or []
        return [task for task in tasks if task.get("state") not in TASK_STATES_ENDED]

    def connector_class(self, resource: Mapping[str, Any]) -> str | None:
        if self.mm2_type:
            return MIRROR_CLASS_PREFIX + self.mm2_type
        return (resource.get("spec") or {}).get("class")

    def pending_annotations(self, resource: Mapping[str, Any]) -> dict[str, str]:
        """The one-shot annotations still on the resource (the operator removes them when done)."""
        annotations = (resource.get("metadata") or {}).get("annotations") or {}
        keys = [ANNOTATION_CONNECTOR_OFFSETS]
        if self.kind == KIND_MM2:
            keys.append(ANNOTATION_MIRRORMAKER_CONNECTOR)
        return {k: annotations[k] for k in keys if k in annotations}

    def trigger_annotations(self, action: str) -> dict[str, str]:
        """The annotations that ask the operator for ``action``; for MirrorMaker 2 both, applied in one patch
        (KafkaMirrorMaker2AssemblyOperator#getConnectorOffsetsOperation wants both: between two patches it reports a
        ManageOffsets warning per connector)."""
        if action not in OFFSETS_ACTIONS:
            raise ValueError(f"unknown offsets action {action!r}")
        annotations = {ANNOTATION_CONNECTOR_OFFSETS: action}
        if self.kind == KIND_MM2:
            annotations[ANNOTATION_MIRRORMAKER_CONNECTOR] = self.connector_name
        return annotations

    def warning_for(self, resource: Mapping[str, Any], action: str) -> Mapping[str, Any] | None:
        """The condition in which the operator refused ``action``, if any: the Warning reasons of
        AbstractConnectOperator#manageConnectorOffsets, or the NotReady IllegalArgumentException of an invalid value."""
        reasons = {REASON_FOR_ACTION[action], REASON_MANAGE_OFFSETS}
        for condition in (resource.get("status") or {}).get("conditions") or []:
            if condition.get("type") == CONDITION_WARNING and condition.get("reason") in reasons:
                return condition
            if condition.get("type") == CONDITION_NOT_READY and condition.get("status") == "True" \
                    and condition.get("reason") == "IllegalArgumentException":
                return condition
        return None

    # --- writing the stanza ----------------------------------------------------------------------------------
    def stanza_pointer(self) -> str:
        """The JSON Pointer (RFC 6901) of the stanza, for JSON Patch operations."""
        return "/" + "/".join(str(s) for s in self.stanza_path)

    def stanza_guard(self, resource: Mapping[str, Any]) -> list[dict[str, Any]]:
        """JSON Patch ``test`` operations that make a patch fail if the stanza moved (a mirror was inserted or
        removed since we read the resource), so we never write into another connector's stanza; and if the target
        alias changed, since the operator would then silently ignore an annotation naming the old connector."""
        if self.kind != KIND_MM2:
            return []
        index = self.stanza_path[2]
        spec = resource.get("spec") or {}
        mirrors = spec.get("mirrors") or []
        # A mirror that is gone still gets its test: the API server then rejects the whole patch.
        mirror = mirrors[index] if 0 <= index < len(mirrors) else {}
        pointer = f"/spec/mirrors/{index}"
        if "source" in mirror or (not mirror and mm2_layout(resource) is LAYOUT_V1):
            guard = [{"op": "test", "path": f"{pointer}/source/alias", "value": self.source_alias}]
            target = "/spec/target/alias" if (spec.get("target") or {}).get("alias") else "/spec/connectCluster"
        else:
            guard = [{"op": "test", "path": f"{pointer}/sourceCluster", "value": self.source_alias}]
            target = f"{pointer}/targetCluster" if mirror.get("targetCluster") else "/spec/connectCluster"
        return guard + [{"op": "test", "path": target, "value": self.target_alias}]


# --- finding targets in resources -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Mm2Layout:
    """How a KafkaMirrorMaker2 names its clusters: ``v1`` (spec.target, mirrors[].source) or the older
    ``v1beta2`` form (spec.connectCluster, spec.clusters, mirrors[].sourceCluster/targetCluster)."""

    name: str
    has_heartbeat: bool


LAYOUT_V1 = Mm2Layout("v1", has_heartbeat=False)
LAYOUT_V1BETA2 = Mm2Layout("v1beta2", has_heartbeat=True)


def mm2_layout(resource: Mapping[str, Any]) -> Mm2Layout:
    spec = resource.get("spec") or {}
    return LAYOUT_V1 if "target" in spec else LAYOUT_V1BETA2


def mm2_targets(resource: Mapping[str, Any]) -> list[ConnectorTarget]:
    """Every connector the operator generates from a KafkaMirrorMaker2, in mirror order
    (KafkaMirrorMaker2Connectors#generateConnectorDefinitions).
    A connector exists only when its stanza does; heartbeat connectors exist only in the v1beta2 layout."""
    meta, spec = resource["metadata"], resource.get("spec") or {}
    layout = mm2_layout(resource)
    targets = []
    for index, mirror in enumerate(spec.get("mirrors") or []):
        if "source" in mirror:
            source = (mirror.get("source") or {}).get("alias")
            target = (spec.get("target") or {}).get("alias") or spec.get("connectCluster")
        else:
            source, target = mirror.get("sourceCluster"), mirror.get("targetCluster") or spec.get("connectCluster")
        for short, (field, mm2_type) in MM2_TYPES.items():
            if field not in mirror or mirror[field] is None:
                continue
            if short == "heartbeat" and not layout.has_heartbeat:
                continue  # a v1 resource cannot have one; the API server prunes it anyway
            targets.append(ConnectorTarget(
                kind=KIND_MM2, namespace=meta.get("namespace", ""), resource_name=meta["name"],
                connector_name=mm2_connector_name(str(source), str(target), mm2_type),  # as f"{source}" would
                stanza_path=("spec", "mirrors", index, field), mm2_type=mm2_type,
                source_alias=source, target_alias=target,
            ))
    return targets


def resolve_mm2_target(resource: Mapping[str, Any], wanted: str | None, source_alias: str | None = None
                       ) -> ConnectorTarget:
    """Pick the connector the user meant: a full generated name, or a short form (``source``, ``checkpoint``,
    ``heartbeat``) that is unambiguous, optionally narrowed by ``--source-cluster``.

    A name the operator does not generate would make it do nothing, forever, without a warning
    (KafkaMirrorMaker2AssemblyOperator#getConnectorOffsetsOperation compares it exactly, else takes ``none``),
    so anything that does not match exactly is refused with the list of valid names.
    """
    targets = mm2_targets(resource)
    valid = ", ".join(f"'{t.connector_name}'" for t in targets) or "(none: the resource has no mirrors)"
    name = resource["metadata"]["name"]
    if not wanted:
        raise InputError(f"kafkamirrormaker2/{name} needs --connector", advice=f"valid connectors: {valid}")
    exact = [t for t in targets if t.connector_name == wanted]
    if exact:
        if source_alias is not None and exact[0].source_alias != source_alias:
            raise InputError(f"--connector '{wanted}' replicates from '{exact[0].source_alias}', not from "
                             f"--source-cluster '{source_alias}'", advice="drop --source-cluster (the full name "
                             "already says which mirror), or use a short --connector with it")
        return exact[0]
    if wanted in MM2_TYPES:
        mm2_type = MM2_TYPES[wanted][1]
        matches = [t for t in targets if t.mm2_type == mm2_type
                   and (source_alias is None or t.source_alias == source_alias)]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            aliases = ", ".join(sorted({t.source_alias or "" for t in matches}))
            raise InputError(f"--connector {wanted} is ambiguous in kafkamirrormaker2/{name}",
                             advice=f"add --source-cluster (one of: {aliases}) or use a full name: {valid}")
        if wanted == "heartbeat" and mm2_layout(resource) is LAYOUT_V1:
            raise InputError(f"kafkamirrormaker2/{name} uses the v1 layout, which has no heartbeat connector",
                             advice=f"valid connectors: {valid}")
        if source_alias is not None:
            having = ", ".join(sorted({t.source_alias or "" for t in targets if t.mm2_type == mm2_type})) or "none"
            raise InputError(f"kafkamirrormaker2/{name} has no {wanted} connector replicating from source cluster "
                             f"'{source_alias}'", advice=f"source clusters with a {wanted} connector: {having}; "
                             f"valid connectors: {valid}")
    raise InputError(f"kafkamirrormaker2/{name} has no connector named '{wanted}'",
                     advice=_mangled_hint(wanted) + f"valid connectors: {valid}")


def _mangled_hint(wanted: str) -> str:
    """A shell turns an unquoted ``east->west.X`` into ``east-`` plus a redirect to a file named ``west.X``."""
    if "->" not in wanted and (wanted.endswith("-") or re.fullmatch(r"[\w.\-]+-[\w.\-]+\.Mirror\w+", wanted)):
        return "the '->' looks mangled by the shell; quote the name, e.g. --connector 'east->west.MirrorSourceConnector'; "
    return ""


def connector_target(resource: Mapping[str, Any]) -> ConnectorTarget:
    """The target of a KafkaConnector resource."""
    meta = resource["metadata"]
    return ConnectorTarget(kind=KIND_CONNECTOR, namespace=meta.get("namespace", ""),
                           resource_name=meta["name"], connector_name=meta["name"])


def connect_cluster_of(resource: Mapping[str, Any]) -> str | None:
    """The KafkaConnect a KafkaConnector belongs to (its ``strimzi.io/cluster`` label)."""
    return ((resource.get("metadata") or {}).get("labels") or {}).get(LABEL_CLUSTER)


def boolean_annotation(resource: Mapping[str, Any], key: str) -> bool:
    """Strimzi reads its boolean annotations with Java's ``Boolean.parseBoolean`` (``Annotations#booleanAnnotation``):
    "true" in any letter case is true, anything else (absent, "yes", "1") false."""
    value = ((resource.get("metadata") or {}).get("annotations") or {}).get(key)
    return isinstance(value, str) and value.lower() == "true"


def reconciliation_paused(resource: Mapping[str, Any]) -> bool:
    return boolean_annotation(resource, ANNOTATION_PAUSE_RECONCILIATION)


def uses_connector_resources(connect: Mapping[str, Any]) -> bool:
    return boolean_annotation(connect, ANNOTATION_USE_CONNECTOR_RESOURCES)


# --- MirrorMaker 2 clusters (the KafkaMirrorMaker2 CRD 048-Crd-kafkamirrormaker2.yaml, both layouts) -----------------


def mm2_clusters(resource: Mapping[str, Any], target: ConnectorTarget
                 ) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    """The (source, target) cluster specs of ``target``'s mirror, each with ``alias``, ``bootstrapServers`` and
    optionally ``tls``, ``authentication``, ``config``: ``mirrors[i].source`` and ``spec.target`` in the v1 layout,
    the ``spec.clusters`` entries named by the aliases in the v1beta2 layout. Empty maps when not found."""
    spec = resource.get("spec") or {}
    mirrors = spec.get("mirrors") or []
    index = target.stanza_path[2]
    mirror = mirrors[index] if 0 <= index < len(mirrors) else {}
    if "source" in mirror:
        return mirror.get("source") or {}, spec.get("target") or {}
    clusters = {c.get("alias"): c for c in spec.get("clusters") or []}
    return clusters.get(target.source_alias) or {}, clusters.get(target.target_alias) or {}


def mm2_sibling(resource: Mapping[str, Any], target: ConnectorTarget, short: str) -> ConnectorTarget | None:
    """The connector of type ``short`` (source, checkpoint, heartbeat) generated from the same mirror as ``target``."""
    mm2_type = MM2_TYPES[short][1]
    for candidate in mm2_targets(resource):
        if candidate.stanza_path[:3] == target.stanza_path[:3] and candidate.mm2_type == mm2_type:
            return candidate
    return None


def mm2_connector_config(resource: Mapping[str, Any], target: ConnectorTarget) -> Mapping[str, Any]:
    """The ``config`` of the connector's stanza (what Strimzi passes to Connect besides the generated keys)."""
    return target.stanza(resource).get("config") or {}


# --- where a connector's records live (the KafkaConnect and KafkaMirrorMaker2 specs: their CRDs) ---------------------


def bootstrap_servers_of(target: ConnectorTarget, resource: Mapping[str, Any],
                         connect: Mapping[str, Any] | None) -> str | None:
    """The bootstrap address of the cluster whose topics the connector reads, as the spec names it: the
    KafkaConnect's ``spec.bootstrapServers`` for a KafkaConnector (``connect`` is that KafkaConnect), the mirror's
    source cluster for a MirrorMaker 2 connector (``mirrors[].source.bootstrapServers`` in v1, the
    ``clusters[]`` entry named by ``sourceCluster`` in v1beta2)."""
    if target.kind == KIND_CONNECTOR:
        return ((connect or {}).get("spec") or {}).get("bootstrapServers")
    spec = resource.get("spec") or {}
    mirror = (spec.get("mirrors") or [])[target.stanza_path[2]]
    if "source" in mirror:
        return (mirror.get("source") or {}).get("bootstrapServers")
    for cluster in spec.get("clusters") or []:
        if cluster.get("alias") == mirror.get("sourceCluster"):
            return cluster.get("bootstrapServers")
    return None


# --- operator versions (Strimzi's CHANGELOG.md, 0.44.0 to 1.2.0) --------------------------------------------------

# From 1.2.0 a new connector is created with POST /connectors and ``initial_state`` = spec.state (KIP-980;
# AbstractConnectOperator#createConnector, KafkaConnectApiImpl#createConnector): a connector created with
# ``state: stopped`` never runs. Before, it was created running (PUT /config) and then stopped by updateState in
# the same reconcile, so its tasks could process a few records first.
INITIAL_STATE_SINCE = (1, 2, 0)
# The cluster operator's pods carry this label in both the YAML and the Helm installation
# (060-Deployment-strimzi-cluster-operator.yaml: the selector and pod template labels); the image tag is the version
# (quay.io/strimzi/operator:1.2.0).
OPERATOR_POD_SELECTOR = "strimzi.io/kind=cluster-operator"
# Only Strimzi before 1.0.0 serves v1beta2 (CHANGELOG.md 1.0.0: v1 the only served version), so serving it proves an
# operator older than 1.2.
LEGACY_API_VERSION = "v1beta2"


# The installed CRDs tell a release apart where no operator pod can be seen (most users may not list pods in the
# operator's namespace). The API server publishes each served version's schemas at OPENAPI_V1_PATH, readable by
# every authenticated user (Kubernetes' system:discovery ClusterRole); the one of kafka.strimzi.io/v1 (1.0.0+)
# tells 1.2.0 and newer by a field first in its KafkaConnect: spec.template.pod.templatedVolumes (in 1.2.0's
# 041-Crd-kafkaconnect.yaml; absent from the pod template of 0.51.0 and, as far as we know, 1.1.0). CRDs are
# upgraded with the operator, so the CRDs' release stands for the operator's.
OPENAPI_V1_PATH = f"/openapi/v3/apis/{GROUP}/v1"
INITIAL_STATE_SCHEMA_MARK = (KIND_CONNECT, ("spec", "template", "pod"), "templatedVolumes")


def creates_stopped_by_schema(openapi: Mapping[str, Any] | None) -> bool | None:
    """From the OpenAPI v3 document of kafka.strimzi.io/v1: True when the KafkaConnect schema has 1.2.0's field
    (CRDs of 1.2.0 or newer), False when its pod template lacks it (older CRDs), None when the document does not
    describe that pod template (not Strimzi's full CRDs, or nothing published): then it tells nothing."""
    kind, path, mark = INITIAL_STATE_SCHEMA_MARK
    for schema in ((openapi or {}).get("components") or {}).get("schemas", {}).values():
        kinds = schema.get("x-kubernetes-group-version-kind") or []
        if not any(k.get("group") == GROUP and k.get("kind") == kind for k in kinds):
            continue
        node = schema
        for step in path:
            node = ((node or {}).get("properties") or {}).get(step)
        fields = (node or {}).get("properties")
        return None if not fields else mark in fields
    return None


def operator_version_from_image(image: str | None) -> tuple[int, int, int] | None:
    """``quay.io/strimzi/operator:1.2.0`` (or ``...:0.45.1@sha256:...``) -> (1, 2, 0); None when not a version."""
    match = re.search(r":(\d+)\.(\d+)\.(\d+)(?:[-@][^:/]*)?$", image or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


# --- why the operator did not do what we asked (AbstractConnectOperator#manageConnectorOffsets, OC/model/StatusDiff.java,
# CO/ClusterOperatorConfig.java for the interval) -------------------------------------------------------------------
# Strimzi reports a failed list/alter/reset as a Warning and keeps the annotation; it retries once at once (its
# own status write is an event) and then only on its next pass, up to STRIMZI_FULL_RECONCILIATION_INTERVAL_MS
# (120 s) later. Failures earlier in the reconcile (preconditions, Connect unreachable, state changes) show only
# as a NotReady condition, and then the offsets step never runs.

FULL_RECONCILIATION_INTERVAL = 120.0  # seconds, Strimzi's default periodic pass

# How long one pass of the operator over a resource takes, 99 times in 100 (the operator's logs of a test-suite run on
# a busy 2-core machine, 2026-11-29). A write of ours to the resource during a pass makes the pass's closing patch a
# conflict: Strimzi removes the one-shot annotations with a JSON Patch computed from the resource as the pass read it,
# resourceVersion included (CrdOperator#patchAsync, fabric8's JSON diff), so a write meanwhile is a 409 ("Operation
# cannot be fulfilled ... the object has been modified"), a Warning, and the action applied again on the next pass.
# A KafkaMirrorMaker2's pass reconciles its whole deployment before its connectors (KafkaMirrorMaker2AssemblyOperator
# #createOrUpdate); a KafkaConnector's only the connector (KafkaConnectAssemblyOperator#connectorEventHandler).
PASS_SECONDS_P99 = {KIND_CONNECTOR: 5.0, KIND_MM2: 13.0}

# How a Warning's message bodes for the request: "final" (the operator will fail the same way on every pass),
# "retry" (a conflict the next pass gets past), or "unsure" (Connect's status code alone cannot tell: a sink whose
# tasks have not stopped yet and an offset Connect rejects both read "returned 500").
WARNING_OUTLOOK = (
    ("missing property", "final"),
    ("does not exist", "final"),
    ("is missing", "final"),
    ("Failed to parse contents", "final"),
    ("No enum constant", "final"),
    ("returned 409", "retry"),
    ("the object has been modified", "retry"),  # the annotation removal hit a change we made meanwhile
    ("code=409", "retry"),
)


def warning_outlook(message: str) -> str:
    return next((outlook for needle, outlook in WARNING_OUTLOOK if needle in message), "unsure")


@dataclass(frozen=True)
class ReconcileBlock:
    """A NotReady cause: ``lasting`` ones need the user to act; the others the operator may get past."""

    needle: str  # found in the condition's message (or equal to its reason)
    lasting: bool
    advice: str


RECONCILE_BLOCKS = (
    ReconcileBlock("has 0 replicas", True,
                   "the operator manages no connectors of a cluster scaled to replicas: 0; scale it up first"),
    ReconcileBlock("is not configured with annotation " + ANNOTATION_USE_CONNECTOR_RESOURCES, True,
                   f"annotate the KafkaConnect {ANNOTATION_USE_CONNECTOR_RESOURCES}=\"true\"; without it Strimzi "
                   "ignores KafkaConnector resources"),
    ReconcileBlock("Resource lacks label", True,
                   f"label the KafkaConnector {LABEL_CLUSTER}=<the KafkaConnect it runs on>"),
    ReconcileBlock(f"identified by label '{LABEL_CLUSTER}' does not exist", True,
                   f"the {LABEL_CLUSTER} label names a KafkaConnect that does not exist; fix the label"),
    ReconcileBlock("cannot be paused since it is in failed state", True,
                   "Strimzi 1.1+ cannot pause a FAILED connector, so the reconcile fails before the offsets step: "
                   "restart the connector (annotation strimzi.io/restart=true) or set spec.state to stopped"),
    ReconcileBlock(REASON_RECONCILIATION_PAUSED, True,
                   f"someone paused reconciliation ({ANNOTATION_PAUSE_RECONCILIATION}); the operator acts again once "
                   "the annotation is removed"),
    ReconcileBlock("/stop returned", False,
                   "Connect refused the operator's stop call (PUT .../stop); check the Connect worker's log. The "
                   "operator retries on its next pass"),
    ReconcileBlock("/pause returned", False,
                   "Connect refused the operator's pause call (PUT .../pause); check the Connect worker's log"),
    ReconcileBlock("/resume returned", False,
                   "Connect refused the operator's resume call (PUT .../resume); check the Connect worker's log"),
    ReconcileBlock("/config returned", False,
                   "Connect did not accept the connector's configuration (PUT .../config), so the operator never "
                   "reaches the offsets step: fix spec.config (Connect's log says why)"),
    ReconcileBlock("ConnectException", False,
                   "the operator cannot reach Kafka Connect's REST API (<connect>-connect-api:8083): are the Connect "
                   "pods running and ready, and does a NetworkPolicy admit the operator?"),
    ReconcileBlock("Connection refused", False,
                   "the operator cannot reach Kafka Connect's REST API (<connect>-connect-api:8083): are the Connect "
                   "pods running and ready?"),
    ReconcileBlock("TimeoutException", False,
                   "the operator timed out (for MirrorMaker 2: its pods did not become ready within "
                   "STRIMZI_OPERATION_TIMEOUT_MS, 300 s by default, and connectors are reconciled only after that); "
                   "check the pods with kubectl get pods -l strimzi.io/cluster=<name>"),
)


def reconcile_block(condition: Mapping[str, Any]) -> ReconcileBlock | None:
    """The known cause of a NotReady (or ReconciliationPaused) condition, if it is one we can advise on."""
    reason, message = str(condition.get("reason") or ""), str(condition.get("message") or "")
    if condition.get("type") == CONDITION_NOT_READY and condition.get("status") == "True":
        return next((b for b in RECONCILE_BLOCKS if b.needle in message or b.needle == reason), None)
    if reason == REASON_RECONCILIATION_PAUSED:
        return next(b for b in RECONCILE_BLOCKS if b.needle == REASON_RECONCILIATION_PAUSED)
    return None


def not_ready_message(resource: Mapping[str, Any]) -> str | None:
    """The operator's reason for its last failed pass: the message of a NotReady condition that holds."""
    for condition in (resource.get("status") or {}).get("conditions") or []:
        if condition.get("type") == CONDITION_NOT_READY and condition.get("status") == "True":
            return str(condition.get("message") or condition.get("reason") or CONDITION_NOT_READY)
    return None


def reconcile_blocks(resource: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], ReconcileBlock]]:
    found = []
    for condition in (resource.get("status") or {}).get("conditions") or []:
        block = reconcile_block(condition)
        if block is not None:
            found.append((condition, block))
    return found


def observed_generation_behind(resource: Mapping[str, Any]) -> bool:
    """The operator has not reconciled the resource's latest spec: no status, or observedGeneration behind.
    When this never changes, the operator does not run or does not watch the resource (STRIMZI_NAMESPACE,
    STRIMZI_CUSTOM_RESOURCE_SELECTOR)."""
    status = resource.get("status") or {}
    observed = status.get("observedGeneration")
    generation = (resource.get("metadata") or {}).get("generation")
    return observed is None or (generation is not None and observed < generation)


def owned_by(obj: Mapping[str, Any], kind: str, name: str) -> bool:
    """Whether ``obj`` has an owner reference to the custom resource ``kind``/``name``: the reference the operator
    puts on the list ConfigMap it creates, and the test it applies itself before adding one (the same name and
    kind: AbstractConnectOperator#generateListOffsetsConfigMap; ModelUtils#createOwnerReference)."""
    references = (obj.get("metadata") or {}).get("ownerReferences") or []
    return any(ref.get("kind") == kind and ref.get("name") == name for ref in references)


def replicas_zero(resource: Mapping[str, Any]) -> bool:
    """A KafkaConnect or KafkaMirrorMaker2 scaled to 0: the operator skips (MM2) or fails (KafkaConnector) its
    connectors' reconcile."""
    return (resource.get("spec") or {}).get("replicas") == 0


# --- Kafka clusters and KafkaTopics (where the cluster can tell which partitions exist) ---------------------------

# KafkaResources.bootstrapServiceName: the Service a Strimzi Kafka cluster named C exposes is C-kafka-bootstrap,
# reached as C-kafka-bootstrap[.NAMESPACE[.svc[.cluster.local]]]:PORT.
_BOOTSTRAP = re.compile(r"^(?P<cluster>[a-z0-9]([-a-z0-9]*[a-z0-9])?)-kafka-bootstrap"
                        r"(\.(?P<namespace>[a-z0-9]([-a-z0-9]*[a-z0-9])?))?(\.svc(\.[a-z0-9.-]+)?)?(:\d+)?$")


def kafka_cluster_of_bootstrap(bootstrap_servers: str | None) -> tuple[str, str | None] | None:
    """(Kafka cluster name, namespace or None) when ``bootstrap_servers`` names a Strimzi bootstrap Service."""
    for server in (bootstrap_servers or "").split(","):
        match = _BOOTSTRAP.match(server.strip())
        if match:
            return match.group("cluster"), match.group("namespace")
    return None


# KafkaResources.brokersServiceName: the headless Service C-kafka-brokers, also reached through one broker pod's name
# (C-kafka-N, or C-POOL-N with node pools) in front of it.
_BROKERS = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)?(?P<cluster>[a-z0-9]([-a-z0-9]*[a-z0-9])?)-kafka-brokers"
                      r"(\.(?P<namespace>[a-z0-9]([-a-z0-9]*[a-z0-9])?))?(\.svc(\.[a-z0-9.-]+)?)?(:\d+)?$")


def kafka_cluster_keys(bootstrap_servers: str | None, namespace: str) -> frozenset[str]:
    """One key per address of ``bootstrap_servers`` as written in a resource of ``namespace``, equal for two
    spellings of the same Strimzi cluster: its Services (C-kafka-bootstrap, the headless C-kafka-brokers and the
    pod names behind it), short (the resource's own namespace) or qualified (.NS, .NS.svc, .NS.svc.<cluster
    domain>), on whichever listener port, all become ``strimzi:NS/C``. Any other address is host:port, lowercased
    (nothing tells whether another port of the same host is another cluster)."""
    keys = set()
    for address in (bootstrap_servers or "").split(","):
        address = address.strip().lower()
        if not address:
            continue
        match = _BOOTSTRAP.match(address) or _BROKERS.match(address)
        keys.add(f"strimzi:{match.group('namespace') or namespace}/{match.group('cluster')}" if match else address)
    return frozenset(keys)


def kafkatopic_partitions(kafkatopic: Mapping[str, Any]) -> tuple[str, int | None]:
    """(topic name, its partition count) as a KafkaTopic states it; the count is None when the Topic Operator has
    not confirmed the current spec (not Ready, or an older generation observed: e.g. a refused decrease leaves more
    partitions than spec.partitions), or when spec.partitions is absent (the broker's default applies)."""
    meta, spec, status = kafkatopic.get("metadata") or {}, kafkatopic.get("spec") or {}, kafkatopic.get("status") or {}
    name = spec.get("topicName") or status.get("topicName") or meta.get("name")
    ready = any(c.get("type") == CONDITION_READY and c.get("status") == "True" for c in status.get("conditions") or [])
    current = status.get("observedGeneration") == meta.get("generation")
    partitions = spec.get("partitions")
    return str(name), (int(partitions) if ready and current and isinstance(partitions, int) else None)
