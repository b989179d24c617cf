"""Generate the project-authored Strimzi CRDs (KafkaConnect, KafkaConnector, KafkaMirrorMaker2, KafkaTopic).

Run ``python tests/env/crds/generate.py`` after editing; ``tests/unit/env/test_crds.py`` fails when the committed
YAML files drift from this generator.  Python is used instead of hand-written YAML because the connector spec is
repeated seven times (KafkaConnector and three MM2 connector slots, per version) and must stay identical.

One directory per Strimzi profile (tests/env/emulator/profiles.py), shape per §1:
* ``0.45/``: ``v1beta2`` only, with ``pause`` and only the legacy MirrorMaker 2 layout (``clusters``,
  ``connectCluster``, ``mirrors[].sourceCluster/targetCluster``, ``heartbeatConnector``); no connector ``version``
  (added in 0.49).
* ``0.51/``: ``v1beta2`` (storage, both MM2 layouts, ``pause``) and ``v1`` served side by side, the only era where
  both are served.
* ``1.2/``: ``v1`` only (storage): no ``pause``, no legacy MM2 fields, ``spec`` required.
Schemas are structural, so the API server prunes (or, with strict field validation, rejects) what a version does
not declare.
"""
import copy
import pathlib
from typing import NamedTuple

import yaml

GROUP = "kafka.strimzi.io"
HERE = pathlib.Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------- eras


class ApiVersion(NamedTuple):
    name: str
    storage: bool
    pause: bool               # the deprecated connector `pause` (v1beta2 only)
    mm2_layouts: tuple        # "legacy" (clusters/connectCluster/sourceCluster/...) and/or "v1" (target/source)
    connector_version: bool   # connector `version` (plugin version), added in 0.49
    spec_required: bool       # v1: `required: [spec]`
    # KafkaConnect spec.template.pod.templatedVolumes, first in 1.2.0's 041-Crd-kafkaconnect.yaml (0.51.0's pod
    # template lacks it): what tells `create` the release when no operator pod is visible (strimzi.py)
    templated_volumes: bool = False


V1BETA2_045 = ApiVersion("v1beta2", True, True, ("legacy",), False, False)
V1BETA2_051 = ApiVersion("v1beta2", True, True, ("legacy", "v1"), True, False)
V1_051 = ApiVersion("v1", False, False, ("v1",), True, True)
V1_12 = ApiVersion("v1", True, False, ("v1",), True, True, templated_volumes=True)
# Must agree with tests/env/emulator/profiles.py (tests/unit/env/test_crds.py checks it).
ERAS = {"0.45": [V1BETA2_045], "0.51": [V1BETA2_051, V1_051], "1.2": [V1_12]}

# ---------------------------------------------------------------------------------------------- shared pieces

PRESERVE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

CONDITION = {
    "type": "object",
    "properties": {
        "type": {"type": "string"},
        "status": {"type": "string"},
        "lastTransitionTime": {"type": "string"},
        "reason": {"type": "string"},
        "message": {"type": "string"},
    },
}

# §1.2: LocalObjectReference; `name` itself is not schema-required.
LOCAL_REF = {"type": "object", "properties": {"name": {"type": "string"}}}


def connector_spec(with_class, with_pause, with_version=True):
    """AbstractConnectorSpec (§1.2/§1.3); `class` only on KafkaConnector, `pause` only on v1beta2, `version`
    from 0.49."""
    props = {}
    if with_class:
        props["class"] = {"type": "string", "description": "The Class for the Kafka Connector."}
    props.update({
        "tasksMax": {"type": "integer", "minimum": 1},
        "version": {"type": "string"},
        "autoRestart": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "maxRestarts": {"type": "integer"}},
        },
        "config": dict(PRESERVE, description="The Kafka Connector configuration."),
        "state": {
            "type": "string",
            "enum": ["paused", "stopped", "running"],
            "description": "The state the connector should be in. Defaults to running.",
        },
        "listOffsets": {
            "type": "object",
            "properties": {"toConfigMap": LOCAL_REF},
            "required": ["toConfigMap"],
        },
        "alterOffsets": {
            "type": "object",
            "properties": {"fromConfigMap": LOCAL_REF},
            "required": ["fromConfigMap"],
        },
    })
    if not with_version:
        del props["version"]
    if with_pause:
        props["pause"] = {
            "type": "boolean",
            "description": "Whether the connector should be paused. Defaults to false. "
                           "Deprecated in Strimzi 0.38.0, use state instead.",
        }
    return {"type": "object", "properties": props}


CONNECTOR_STATUS = {
    "type": "object",
    "properties": {
        "conditions": {"type": "array", "items": CONDITION},
        "observedGeneration": {"type": "integer"},
        "autoRestart": {
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "connectorName": {"type": "string"},
                "lastRestartTimestamp": {"type": "string"},
            },
        },
        "connectorStatus": PRESERVE,
        "tasksMax": {"type": "integer"},
        "topics": {"type": "array", "items": {"type": "string"}},
    },
}

READY_COLUMN = {
    "name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
    "description": "The state of the custom resource",
}


def crd(kind, plural, short_names, versions, subresources):
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{GROUP}",
            "labels": {"app": "strimzi", "strimzi.io/crd-install": "true", "component": f"{plural}.{GROUP}-crd"},
        },
        "spec": {
            "group": GROUP,
            "names": {
                "kind": kind, "listKind": f"{kind}List", "singular": kind.lower(), "plural": plural,
                "shortNames": short_names, "categories": ["strimzi"],
            },
            "scope": "Namespaced",
            "conversion": {"strategy": "None"},
            "versions": [dict(v, subresources=copy.deepcopy(subresources)) for v in versions],
        },
    }


def version(name, storage, schema, columns):
    return {
        "name": name, "served": True, "storage": storage,
        "additionalPrinterColumns": columns,
        "schema": {"openAPIV3Schema": schema},
    }


def root(spec, status, spec_required):
    schema = {
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
    }
    if spec_required:
        schema["required"] = ["spec"]
    return schema


# ---------------------------------------------------------------------------------------------- KafkaConnect

def kafka_connect(era):
    # Only what the emulator reads (replicas: §2.9 "has 0 replicas") and the pod template field that marks 1.2.0's
    # CRDs; everything else is preserved as-is.
    def spec(v):
        properties = {
            "replicas": {"type": "integer"},
            "bootstrapServers": {"type": "string"},
            "config": PRESERVE,
        }
        if v.templated_volumes:
            volume = {**PRESERVE, "properties": {"name": {"type": "string"}}}
            pod = {**PRESERVE, "properties": {"templatedVolumes": {"type": "array", "items": volume}}}
            properties["template"] = {**PRESERVE, "properties": {"pod": pod}}
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": properties}
    status = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {
            "conditions": {"type": "array", "items": CONDITION},
            "observedGeneration": {"type": "integer"},
            "url": {"type": "string"},
            "replicas": {"type": "integer"},
            "labelSelector": {"type": "string"},
        },
    }
    columns = [
        {"name": "Desired replicas", "type": "integer", "jsonPath": ".spec.replicas",
         "description": "The desired number of Kafka Connect replicas"},
        READY_COLUMN,
    ]
    sub = {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                                   "labelSelectorPath": ".status.labelSelector"}}
    return crd("KafkaConnect", "kafkaconnects", ["kc"], [
        version(v.name, v.storage, root(spec(v), status, v.spec_required), columns) for v in era], sub)


# ---------------------------------------------------------------------------------------------- KafkaConnector

def kafka_connector(era):
    columns = [
        {"name": "Cluster", "type": "string", "jsonPath": ".metadata.labels.strimzi\\.io/cluster",
         "description": "The name of the Kafka Connect cluster this connector belongs to"},
        {"name": "Connector class", "type": "string", "jsonPath": ".spec.class",
         "description": "The class used by this connector"},
        {"name": "Max Tasks", "type": "integer", "jsonPath": ".spec.tasksMax",
         "description": "Maximum number of tasks"},
        READY_COLUMN,
    ]
    # §1.2: scale subresource on tasksMax, as Strimzi has.
    sub = {"status": {}, "scale": {"specReplicasPath": ".spec.tasksMax", "statusReplicasPath": ".status.tasksMax"}}
    return crd("KafkaConnector", "kafkaconnectors", ["kctr"], [
        version(v.name, v.storage, root(connector_spec(True, v.pause, v.connector_version), CONNECTOR_STATUS,
                                        v.spec_required), columns)
        for v in era], sub)


# ---------------------------------------------------------------------------------------------- KafkaMirrorMaker2

ALIAS = {"type": "string", "pattern": "^[a-zA-Z0-9\\._\\-]{1,100}$"}


def mm2_cluster(required, extra=None):
    props = {
        "alias": ALIAS,
        "bootstrapServers": {"type": "string"},
        "tls": PRESERVE,
        "authentication": PRESERVE,
        "config": PRESERVE,
    }
    props.update(extra or {})
    return {"type": "object", "properties": props, "required": required}


V1_TARGET_EXTRA = {
    "groupId": {"type": "string"},
    "configStorageTopic": {"type": "string"},
    "statusStorageTopic": {"type": "string"},
    "offsetStorageTopic": {"type": "string"},
}
V1_TARGET_REQUIRED = ["alias", "bootstrapServers", "groupId", "configStorageTopic", "statusStorageTopic",
                      "offsetStorageTopic"]

PATTERNS = {p: {"type": "string"} for p in (
    "topicsPattern", "topicsExcludePattern", "groupsPattern", "groupsExcludePattern",
    "topicsBlacklistPattern", "groupsBlacklistPattern")}


def mm2_spec(v):
    """The MirrorMaker 2 spec of one served version ``v`` (an ``ApiVersion``), with the layouts it accepts."""
    mirror_props = {}
    if "v1" in v.mm2_layouts:
        mirror_props["source"] = mm2_cluster(["alias", "bootstrapServers"])
    mirror_props["sourceConnector"] = connector_spec(False, v.pause, v.connector_version)
    mirror_props["checkpointConnector"] = connector_spec(False, v.pause, v.connector_version)
    mirror_props.update(copy.deepcopy(PATTERNS))
    spec_props = {
        "version": {"type": "string"},
        "replicas": {"type": "integer"},
        "image": {"type": "string"},
    }
    if "v1" in v.mm2_layouts:
        spec_props["target"] = mm2_cluster(V1_TARGET_REQUIRED, V1_TARGET_EXTRA)
    spec_props["mirrors"] = {"type": "array", "items": {"type": "object", "properties": mirror_props}}
    if "legacy" in v.mm2_layouts:
        # §1.3: the legacy layout; 0.49–0.51 accept both on v1beta2, so nothing here is schema-required
        # (the emulator reports a resource that uses neither layout as NotReady).
        mirror_props["sourceCluster"] = {"type": "string"}
        mirror_props["targetCluster"] = {"type": "string"}
        mirror_props["heartbeatConnector"] = connector_spec(False, True, v.connector_version)
        spec_props["connectCluster"] = {"type": "string"}
        spec_props["clusters"] = {"type": "array", "items": mm2_cluster(["alias", "bootstrapServers"])}
    spec = {"type": "object", "properties": spec_props}
    if v.mm2_layouts == ("v1",):
        spec["required"] = ["target"]
    # Parts of a real MM2 spec we do not model (resources, template, logging, metrics, ...) are preserved.
    for extra in ("resources", "template", "logging", "metricsConfig", "jvmOptions", "livenessProbe",
                  "readinessProbe", "rack", "tracing", "externalConfiguration", "jmxOptions", "build"):
        spec_props[extra] = PRESERVE
    return spec


MM2_STATUS = {
    "type": "object",
    "properties": {
        "conditions": {"type": "array", "items": CONDITION},
        "observedGeneration": {"type": "integer"},
        "url": {"type": "string"},
        "connectors": {"type": "array", "items": PRESERVE},
        "autoRestartStatuses": {"type": "array", "items": PRESERVE},
        "connectorPlugins": {"type": "array", "items": PRESERVE},
        "labelSelector": {"type": "string"},
        "replicas": {"type": "integer"},
    },
}


def kafka_mirror_maker2(era):
    columns = [
        {"name": "Desired replicas", "type": "integer", "jsonPath": ".spec.replicas",
         "description": "The desired number of Kafka MirrorMaker 2 replicas"},
        READY_COLUMN,
    ]
    sub = {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas",
                                   "labelSelectorPath": ".status.labelSelector"}}
    return crd("KafkaMirrorMaker2", "kafkamirrormaker2s", ["kmm2"], [
        version(v.name, v.storage, root(mm2_spec(v), MM2_STATUS, v.spec_required), columns) for v in era], sub)


# ---------------------------------------------------------------------------------------------- KafkaTopic

def kafka_topic(era):
    """The fields kubectl-offsets reads to tell whether a partition exists (Strimzi's KafkaTopicSpec/Status):
    ``spec.topicName`` (default: metadata.name), ``spec.partitions``, and the Topic Operator's Ready condition and
    ``observedGeneration``; the rest is preserved. No Topic Operator runs here: tests write the status it would."""
    spec = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {
            "topicName": {"type": "string", "description": "The name of the topic. Defaults to metadata.name."},
            "partitions": {"type": "integer", "minimum": 1,
                           "description": "The number of partitions the topic should have. Defaults to the "
                                          "broker's num.partitions."},
            "replicas": {"type": "integer", "minimum": 1, "maximum": 32767},
            "config": PRESERVE,
        },
    }
    status = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {
            "conditions": {"type": "array", "items": CONDITION},
            "observedGeneration": {"type": "integer"},
            "topicName": {"type": "string"},
            "topicId": {"type": "string"},
        },
    }
    columns = [
        {"name": "Cluster", "type": "string", "jsonPath": ".metadata.labels.strimzi\\.io/cluster",
         "description": "The name of the Kafka cluster this topic belongs to"},
        {"name": "Partitions", "type": "integer", "jsonPath": ".spec.partitions",
         "description": "The desired number of partitions in the topic"},
        {"name": "Replication factor", "type": "integer", "jsonPath": ".spec.replicas",
         "description": "The desired number of replicas of each partition"},
        READY_COLUMN,
    ]
    return crd("KafkaTopic", "kafkatopics", ["kt"], [
        version(v.name, v.storage, root(spec, status, v.spec_required), columns) for v in era], {"status": {}})


# ---------------------------------------------------------------------------------------------- output

FILES = {
    "kafkaconnect.yaml": kafka_connect,
    "kafkaconnector.yaml": kafka_connector,
    "kafkamirrormaker2.yaml": kafka_mirror_maker2,
    "kafkatopic.yaml": kafka_topic,
}

HEADER = "# Generated by tests/env/crds/generate.py - edit that file, not this one.\n"


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


def render(factory, profile):
    return HEADER + yaml.dump(factory(ERAS[profile]), Dumper=_NoAliases, sort_keys=False, default_flow_style=False,
                              width=120)


def main():
    for profile in ERAS:
        (HERE / profile).mkdir(exist_ok=True)
        for filename, factory in FILES.items():
            (HERE / profile / filename).write_text(render(factory, profile))


if __name__ == "__main__":
    main()
