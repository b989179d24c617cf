"""``kubectl offsets gitops create``: a new KafkaConnector that starts at chosen offsets, as GitOps phase 1.

Phase 1 adds the connector to the repository with ``state: stopped``, ``alterOffsets.fromConfigMap`` naming a new
offsets ConfigMap (or, with ``--from-scratch``, no ConfigMap: a reset), and the record annotation whose
``previousState`` is the state the manifest asks for. Everything after that is the existing GitOps machinery:
``kubectl offsets trigger`` (or the trigger Job) fires the alter/reset once the connector exists and is STOPPED,
and ``gitops next`` (phase 2) sets the requested state and removes the stanza and the ConfigMap.

On Strimzi 1.2+ the operator creates the connector stopped (``initial_state``); older operators create it running
and stop it in the same reconcile, so a few records may be processed first (docs/lifecycle.md): phase 1 cannot see
the cluster, so it says so and requires ``--accept-start-window`` unless ``--strimzi-version`` says 1.2 or newer.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import strimzi
from ...adapters import yamlfiles
from ...connect import connector_kind
from ...conventions import (ANNOTATION_CONNECTOR, ANNOTATION_CREATING, ANNOTATION_GITOPS, ANNOTATION_OPERATION,
                           LABEL_MANAGED_BY, LABEL_ROLE, LABEL_TARGET, MANAGED_BY, Operation, Role, Trigger,
                           gitops_configmap_name)
from ...errors import InputError, NotFoundError, PreconditionError
from ..inputs import AlterRequest, build_change
from ..online.lifecycle import Manifest, _facts, _stopped_body
from . import locate as manifests
from .phases import _operation_id
from .plan import FileChange, GitopsRequest, Plan


@dataclass(frozen=True)
class CreateRequest:
    manifest: Manifest
    directory: str  # where the new files go, relative to the repository
    namespace: str | None = None
    alter: AlterRequest | None = None
    from_scratch: bool = False
    trigger: str = Trigger.COMMAND
    base: str = ""
    accept_start_window: bool = False
    strimzi_version: str | None = None


def plan_create(root: Path, scope: Path | None, request: CreateRequest) -> Plan:
    """Phase 1 for a new connector; validated, nothing written."""
    if request.trigger != Trigger.COMMAND:
        raise InputError("gitops create fires with kubectl offsets trigger (--trigger command)",
                         advice="the trigger Job of gitops alter needs the connector to exist when it is created")
    if (request.alter is None) == (not request.from_scratch):
        raise InputError("give the offsets (-f/--offsets, --set, --skip-record, --to-offset) or --from-scratch, "
                         "not both and not neither",
                         advice="offline, the leftovers of an earlier connector are unknown: --from-scratch resets "
                         "them all; the offsets alter only the partitions they name")
    _check_start_window(request)
    manifest = request.manifest
    namespace = manifest.namespace(request.namespace, "")
    repo = manifests.scan(root, scope)
    _check_not_in_repo(repo, manifest.name, namespace or None)
    body = copy.deepcopy(manifest.body)
    if namespace:
        body["metadata"]["namespace"] = namespace
    target = strimzi.connector_target(body)
    kind = connector_kind(body["spec"].get("class"), None)
    change = None
    if request.alter is not None:
        if request.alter.needs_current:
            raise InputError("a new connector has no current offsets to move or select from",
                             advice="name the partitions (--topic TOPIC:0,1) and use absolute offsets")
        change = build_change(request.alter, _facts(target, body, kind), None)
    operation = Operation.ALTER if change is not None else Operation.RESET
    operation_id = _operation_id(GitopsRequest(operation, manifest.name, base=request.base), target,
                                        change)
    plan = Plan(1, operation, target, operation_id, kind, change=change, trigger=Trigger.COMMAND)
    directory = (root / request.directory).resolve()
    if not directory.is_relative_to(root.resolve()):
        raise InputError(f"--dir {request.directory} is outside the repository")
    configmap = gitops_configmap_name(manifest.name, operation_id) if change is not None else None
    files = {directory / f"{manifest.name}.yaml": _connector_file(body, manifest, operation_id, configmap)}
    if change is not None:
        assert configmap is not None  # named above whenever there is a change
        files[directory / f"{configmap}.yaml"] = _configmap_file(target, configmap, change, operation_id, namespace)
    plan.files = _file_changes(root, directory, files)
    plan.configmap = configmap
    plan.warnings.append("the connector's own leftovers (offsets of an earlier connector of this name) are not "
                         "visible offline" + (": --from-scratch resets them" if request.from_scratch else
                                              "; only the partitions named are set (add --from-scratch instead "
                                              "to start clean, or use the online kubectl offsets create)"))
    return plan


def _check_start_window(request: CreateRequest) -> None:
    version = strimzi.operator_version_from_image(f":{request.strimzi_version}") if request.strimzi_version else None
    if request.strimzi_version and version is None:
        raise InputError(f"--strimzi-version '{request.strimzi_version}' is not a version like 1.2.0")
    if version is not None and version >= strimzi.INITIAL_STATE_SINCE:
        return
    if not request.accept_start_window:
        raise InputError("an operator older than Strimzi 1.2 creates a new connector running and stops it only in "
                         "the same reconcile, so it may process a few records before the offsets are set",
                         advice="pass --strimzi-version 1.2.0 (or newer) when the cluster runs it, or "
                         "--accept-start-window to accept the window")


def _check_not_in_repo(repo: manifests.Repository, name: str, namespace: str | None) -> None:
    try:
        location = manifests.locate(repo, strimzi.KIND_CONNECTOR, name, namespace)
    except NotFoundError:
        return
    raise PreconditionError(f"kafkaconnector/{name} is already defined in {location.definition.where}",
                            advice=f"change its offsets with kubectl offsets gitops alter {name}")


def _connector_file(body: dict[str, Any], manifest: Manifest, operation_id: str, configmap: str | None) -> str:
    created = _stopped_body(body, manifest.requested_state)
    annotations = created["metadata"]["annotations"]
    annotations.pop(ANNOTATION_CREATING, None)  # the online mark; the GitOps record says the same here
    record = {"id": operation_id, "phase": 1, "operation": Operation.ALTER if configmap else Operation.RESET,
              "connector": manifest.name, "configMap": configmap, "trigger": Trigger.COMMAND,
              "previousState": manifest.requested_state,
              "annotationsCreated": not (manifest.body["metadata"].get("annotations"))}
    annotations[ANNOTATION_GITOPS] = json.dumps({k: v for k, v in record.items() if v not in (None, False)},
                                                separators=(",", ":"))
    if configmap:
        created["spec"][strimzi.FIELD_ALTER_OFFSETS] = {strimzi.FIELD_FROM_CONFIGMAP: {"name": configmap}}
    return yamlfiles.dump_new([created], header="# Added by kubectl offsets gitops create (phase 1: created stopped "
                                                "at chosen offsets); 'kubectl offsets gitops next' sets its state.\n")


def _configmap_file(target, name: str, change, operation_id: str, namespace: str) -> str:
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, **({"namespace": namespace} if namespace else {}),
                         "labels": {LABEL_MANAGED_BY: MANAGED_BY,
                                                  LABEL_ROLE: Role.GITOPS_OFFSETS,
                                                  LABEL_TARGET: target.resource_name},
                         "annotations": {ANNOTATION_CONNECTOR: target.connector_name,
                                         ANNOTATION_OPERATION: operation_id}},
            "data": {target.configmap_key: change.dumps() + "\n"}}
    return yamlfiles.dump_new([body], header="# The offsets for Strimzi's alterOffsets (kubectl offsets gitops "
                                             "create, phase 1).\n")


def _file_changes(root: Path, directory: Path, files: dict[Path, str]) -> list[FileChange]:
    """The new files, plus their names in the directory's kustomization.yaml when there is one."""
    changes = []
    for path, text in files.items():
        if path.exists():
            raise PreconditionError(f"{path.relative_to(root)} already exists", advice="choose another --dir")
        changes.append(FileChange(str(path.relative_to(root)), None, text.encode("utf-8")))
    kustomization = next((directory / n for n in ("kustomization.yaml", "kustomization.yml", "Kustomization")
                          if (directory / n).exists()), None)
    if kustomization is not None:
        loaded = yamlfiles.load_file(kustomization, str(kustomization.relative_to(root)))
        data = loaded.documents[0].data
        if data.get("resources") is None:
            yamlfiles.set_key(data, "resources", [])
        for path in files:
            data["resources"].append(path.name)
        loaded.documents[0].edited = True
        changes.append(FileChange(str(kustomization.relative_to(root)), loaded.original_bytes,
                                  loaded.render_bytes()))
    for change in changes:
        if change.rel.endswith(".yaml") and change.before is None:
            _validate_new(change)
    return changes


def _validate_new(change: FileChange) -> None:
    from ... import schemas

    assert change.after is not None  # a new file: it has bytes
    for document in yamlfiles.load_bytes(change.after, Path(change.rel), change.rel).documents:
        data = yamlfiles.to_plain(document.data)
        if data.get("kind") == strimzi.KIND_CONNECTOR:
            schemas.validate("kafkaconnector", data, what=f"the new {change.rel}")
        elif data.get("kind") == "ConfigMap":
            for key, value in (data.get("data") or {}).items():
                schemas.validate("offsets", json.loads(value), what=f"{change.rel} key {key}")
