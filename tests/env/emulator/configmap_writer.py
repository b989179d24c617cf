"""The ConfigMap written by ``list``, Strimzi 1.x rules (strimzi-offsets.md §2.6,
``AbstractConnectOperator#generateListOffsetsConfigMap``).

* existing ``data`` kept, only our key replaced; created with just that key when absent;
* owner references: existing list kept, the CR appended unless one with the same name *and* kind exists;
  ``controller: false``, ``blockOwnerDeletion: true``;
* labels: the CR's labels minus ``STRIMZI_LABELS_EXCLUSION_PATTERN`` plus Strimzi's default labels (which override,
  e.g. ``strimzi.io/cluster`` becomes the CR name);
* the desired object carries only name, namespace, labels, ownerReferences and data and is written with
  server-side apply as ``strimzi-kafka-operator``, retried with ``force`` on a 409 conflict.
"""
import re

from kubernetes.client.rest import ApiException

# Strimzi 1.x owner references use the apiVersion the CO read, i.e. v1 (§2.6).
OWNER_API_VERSION = "kafka.strimzi.io/v1"
# OC/model/Labels.java default of STRIMZI_LABELS_EXCLUSION_PATTERN.
LABELS_EXCLUSION = re.compile(r"(^app.kubernetes.io/(?!part-of).*|^kustomize.toolkit.fluxcd.io.*)")


def default_labels(kind, cr_name):
    """``Labels.generateDefaultLabels`` as asserted by ``testListOffsetsSucceeds`` (§2.6)."""
    return {
        "strimzi.io/kind": kind,
        "strimzi.io/name": cr_name,
        "strimzi.io/cluster": cr_name,
        "strimzi.io/component-type": "kafka-connector",
        "app.kubernetes.io/name": "kafka-connector",
        "app.kubernetes.io/instance": cr_name,
        "app.kubernetes.io/part-of": f"strimzi-{cr_name}",
        "app.kubernetes.io/managed-by": "strimzi-cluster-operator",
    }


def owner_reference(cr):
    meta = cr["metadata"]
    return {
        "apiVersion": OWNER_API_VERSION,
        "kind": cr["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": False,
        "blockOwnerDeletion": True,
    }


def desired_configmap(cr, cm_name, key, value, existing):
    meta = cr["metadata"]
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if not LABELS_EXCLUSION.match(k)}
    labels.update(default_labels(cr["kind"], meta["name"]))

    existing = existing or {}
    data = dict(existing.get("data") or {})
    data[key] = value

    owners = list((existing.get("metadata") or {}).get("ownerReferences") or [])
    if not any(o.get("name") == meta["name"] and o.get("kind") == cr["kind"] for o in owners):
        owners.append(owner_reference(cr))

    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": cm_name, "namespace": meta["namespace"], "labels": labels, "ownerReferences": owners},
        "data": data,
    }


def write_list_configmap(kube, cr, cm_name, key, value):
    """Build and server-side-apply the list ConfigMap in the CR's namespace; returns the applied object."""
    existing = kube.get_configmap(cr["metadata"]["namespace"], cm_name)
    desired = desired_configmap(cr, cm_name, key, value, existing)
    try:
        return kube.apply_configmap(desired, force=False)
    except ApiException as err:
        if err.status != 409:
            raise
        return kube.apply_configmap(desired, force=True)
