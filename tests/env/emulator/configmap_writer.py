"""The ConfigMap written by ``list`` (§2.6, ``AbstractConnectOperator#generateListOffsetsConfigMap``).

Strimzi 1.x (rewritten in 1.0, #12463/#12451):
* existing ``data`` kept, only our key replaced; created with just that key when absent;
* owner references: existing list kept, the CR appended unless one with the same name *and* kind exists;
  ``controller: false``, ``blockOwnerDeletion: true``;
* labels: the CR's labels minus ``STRIMZI_LABELS_EXCLUSION_PATTERN`` plus Strimzi's default labels (which override,
  e.g. ``strimzi.io/cluster`` becomes the CR name);
* the desired object carries only name, namespace, labels, ownerReferences and data and is written with
  server-side apply as ``strimzi-kafka-operator``, retried with ``force`` on a 409 conflict.

Strimzi 0.44-0.51 (read at 0.45.0 and 0.51.0):
* a new ConfigMap gets a copy of the CR's labels and one owner reference (``blockOwnerDeletion`` false up to 0.48,
  true from 0.49: ``ModelUtils#createOwnerReference``);
* an existing one is the fetched object itself, modified: the CR's labels merged over its labels, an owner reference
  only if it had none, our data key put; written back whole (0.45: an update; 0.51: server-side apply with the
  managedFields cleared, ``ServerSideApplyPhase1`` on by default).
Owner references name the apiVersion the operator read the CR through (v1beta2 up to 0.51, v1 from 1.0).
"""
import re

from kubernetes.client.rest import ApiException

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


def owner_reference(cr, block_owner_deletion=True):
    """``ModelUtils#createOwnerReference(resource, false)``: apiVersion as the CR was read."""
    meta = cr["metadata"]
    return {
        "apiVersion": cr["apiVersion"],
        "kind": cr["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": False,
        "blockOwnerDeletion": block_owner_deletion,
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


def legacy_configmap(cr, cm_name, key, value, existing, block_owner_deletion):
    """The 0.44-0.51 object: a fresh ConfigMap, or the existing one with labels, owner reference and data merged."""
    meta = cr["metadata"]
    if existing is None:
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": cm_name, "namespace": meta["namespace"], "labels": dict(meta.get("labels") or {}),
                             "ownerReferences": [owner_reference(cr, block_owner_deletion)]},
                "data": {key: value}}
    updated = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": dict(existing["metadata"]),
               "data": dict(existing.get("data") or {})}
    for extra in ("binaryData", "immutable"):
        if extra in existing:
            updated[extra] = existing[extra]
    labels = dict(updated["metadata"].get("labels") or {})
    labels.update(meta.get("labels") or {})
    updated["metadata"]["labels"] = labels
    updated["metadata"].pop("managedFields", None)
    if not updated["metadata"].get("ownerReferences"):
        updated["metadata"]["ownerReferences"] = [owner_reference(cr, block_owner_deletion)]
    updated["data"][key] = value
    return updated


def write_list_configmap(kube, cr, cm_name, key, value, profile):
    """Build and write the list ConfigMap in the CR's namespace the way ``profile``'s Strimzi does."""
    existing = kube.get_configmap(cr["metadata"]["namespace"], cm_name)
    if not profile.list_configmap_1x:
        desired = legacy_configmap(cr, cm_name, key, value, existing, profile.block_owner_deletion)
        if profile.vertx_http_client:  # 0.45: no server-side apply yet
            return kube.create_or_replace_configmap(desired)
        for transient in ("resourceVersion", "uid", "creationTimestamp"):
            desired["metadata"].pop(transient, None)
    else:
        desired = desired_configmap(cr, cm_name, key, value, existing)
    try:
        return kube.apply_configmap(desired, force=False)
    except ApiException as err:
        if err.status != 409:
            raise
        return kube.apply_configmap(desired, force=True)
