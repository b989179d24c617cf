"""Offsets documents in ConfigMaps: the ones the operator writes (list) and the ones we write for it (alter).

The data key is the target's (``offsets.json``, or ``<src>--<tgt>.<Type>.json`` for MirrorMaker 2, so several
MirrorMaker 2 connectors can share one ConfigMap); other keys are always preserved.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from ... import schemas, strimzi
from ...conventions import (ANNOTATION_CONNECTOR, LABEL_MANAGED_BY, LABEL_ROLE, LABEL_TARGET, MANAGED_BY, label_value,
                             offsets_configmap_name)
from ...errors import ClusterError, NotFoundError, OperatorError, PreconditionError
from ...model import OffsetsDocument

if TYPE_CHECKING:
    from ...adapters.kube import Kube


def owned_metadata(target: strimzi.ConnectorTarget, name: str, role: str) -> dict[str, Any]:
    return {"name": name, "namespace": target.namespace,
            "labels": {LABEL_MANAGED_BY: MANAGED_BY, LABEL_ROLE: role,
                       LABEL_TARGET: label_value(target.resource_name)},
            "annotations": {ANNOTATION_CONNECTOR: target.connector_name}}


def configmap_body(target: strimzi.ConnectorTarget, name: str, document: OffsetsDocument, role: str) -> dict[str, Any]:
    """The whole ConfigMap we would create: also what --dry-run prints."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": owned_metadata(target, name, role),
            "data": {target.configmap_key: document.dumps()}}


def put_document(kube: Kube, target: strimzi.ConnectorTarget, name: str, document: OffsetsDocument, *, role: str) -> None:
    """Create the ConfigMap, or set just our key in one we created earlier (never in anybody else's), as a guarded
    write: the key is merged into the version checked to be ours (someone who replaced it meanwhile makes it a
    conflict, and it is looked at again), and a create that loses to another is one too."""
    from .writes import guarded

    def write(found: dict[str, Any] | None) -> None:
        if found is None:
            kube.create_configmap(target.namespace, configmap_body(target, name, document, role))
            return
        check_ours(found, target)
        kube.patch_configmap(name, target.namespace, {"metadata": {"resourceVersion": found["metadata"]["resourceVersion"]},
                                                      "data": {target.configmap_key: document.dumps()}})

    guarded(lambda: kube.find_configmap(name, target.namespace), write, exhausted=lambda: ClusterError(
        f"configmap/{name} kept changing while we tried to write it", advice="retry in a moment"))


def check_writable(kube: Kube, target: strimzi.ConnectorTarget, name: str) -> None:
    """Before the first change: ``name`` is free, or a ConfigMap we created for this resource."""
    found = kube.find_configmap(name, target.namespace)
    if found is not None:
        check_ours(found, target)


def check_ours(configmap: dict[str, Any], target: strimzi.ConnectorTarget) -> None:
    """Refuse a ConfigMap that kubectl-offsets did not create for ``target``: its name is ours by convention, but
    its data may be someone's (a Helm chart, a colleague's notes), and patching it would change what they own."""
    labels = (configmap.get("metadata") or {}).get("labels") or {}
    if labels.get(LABEL_MANAGED_BY) == MANAGED_BY and labels.get(LABEL_TARGET) == label_value(
            target.resource_name):
        return
    name = configmap["metadata"]["name"]
    raise PreconditionError(
        f"configmap/{name} exists in namespace {target.namespace} but was not created by kubectl-offsets for "
        f"{target.display} (it lacks the labels {LABEL_MANAGED_BY}=kubectl-offsets and "
        f"{LABEL_TARGET}={label_value(target.resource_name)}); it is left alone and nothing was changed",
        advice=f"if nothing uses it, delete it (kubectl delete configmap {name} -n {target.namespace}) and retry; "
        "if it is a leftover of kubectl-offsets, add those labels; otherwise rename it")


def check_list_configmap(kube: Kube, target: strimzi.ConnectorTarget, resource: Mapping[str, Any]) -> None:
    """Before anything changes: the ConfigMap a list will make the operator write to, when we add the listOffsets
    stanza (``<name>-offsets``), is free or the one the operator wrote for this resource.

    Strimzi writes into an existing ConfigMap of that name whoever made it (AbstractConnectOperator#
    generateListOffsetsConfigMap, 0.45.2 to 1.2.0): the other data keys stay, but the connector's key is
    overwritten, Strimzi's labels are put on it and an owner reference to the resource is added (0.45/0.51 only when
    it has none), so a ConfigMap without other owners is deleted with the resource. The operator's own ConfigMap
    carries that owner reference from its creation; anything else is not ours to hand over. A stanza the resource
    already has names the user's choice, used as it is."""
    stanza = target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS) or {}
    if (stanza.get(strimzi.FIELD_TO_CONFIGMAP) or {}).get("name"):
        return
    name = offsets_configmap_name(target.resource_name)
    found = kube.find_configmap(name, target.namespace)
    if found is None or strimzi.owned_by(found, target.kind, target.resource_name):
        return
    raise PreconditionError(
        f"configmap/{name} exists in namespace {target.namespace} but the operator did not write it for "
        f"{target.display} (no owner reference to {target.kind.lower()}/{target.resource_name}): a list would make "
        f"Strimzi overwrite its key {target.configmap_key}, put its labels on it and add an owner reference (then "
        f"it is deleted with the {target.kind}); it is left alone and nothing was changed",
        advice=f"rename or delete it if nothing uses it (kubectl delete configmap {name} -n {target.namespace}), or "
               f"set the connector's listOffsets.toConfigMap.name to a free name in the {target.kind} (kubectl-"
               "offsets lists through the ConfigMap it names)")


def get_document(kube: Kube, target: strimzi.ConnectorTarget, name: str, *, written_by: str = "kubectl-offsets"
                 ) -> OffsetsDocument:
    try:
        configmap = kube.get_configmap(name, target.namespace)
    except NotFoundError:
        raise OperatorError(f"configmap/{name}, which {written_by} should have written, does not exist",
                            advice="check the operator's logs and the resource's status conditions") from None
    return parse_document(configmap, target.configmap_key, f"configmap/{name}")


def parse_document(configmap: dict[str, Any], key: str, where: str) -> OffsetsDocument:
    text = (configmap.get("data") or {}).get(key)
    if text is None:
        raise OperatorError(f"{where} has no key {key}", advice="list the offsets again")
    try:
        document = json.loads(text)
    except ValueError as error:
        raise OperatorError(f"{where} key {key} is not valid JSON: {error}") from None
    problems = schemas.errors("offsets", document)
    if problems:
        raise OperatorError(f"{where} key {key} is not an offsets document: {problems[0]}")
    return OffsetsDocument.from_json(document)
