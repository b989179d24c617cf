"""Phase 1 and phase 2 as plans: everything computed and validated; nothing is written here."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ... import strimzi
from ...connect import ConnectorKind, connector_kind
from ...conventions import ANNOTATION_GITOPS, TRIGGERS, Operation, Trigger, gitops_configmap_name
from ...errors import InputError, PreconditionError
from ...model import OffsetsDocument
from ..inputs import ConnectorFacts, build_change
from . import locate as manifests
from . import trigger_job
from .edits import Editor
from ..online.timetravel import TimeTravelRequest
from .plan import OPERATIONS, GitopsRequest, Plan, parse_record
from .time_travel import describe as describe_time_travel

# --- phase 1 ----------------------------------------------------------------------------------------------------


def plan_phase1(root: Path, scope: Path | None, request: GitopsRequest) -> Plan:
    """Everything phase 1 changes, computed and validated; nothing is written here."""
    if request.operation not in OPERATIONS or request.trigger not in TRIGGERS:
        raise InputError(f"unknown operation or trigger: {request.operation}, {request.trigger}")
    repo = manifests.scan(root, scope)
    location = _locate(repo, request)
    effective = _effective(location, request)
    target = _target(effective, request)
    kind = _kind(target, effective)
    _check_phase1(repo, location, effective, target, kind, request)
    change = _change(request, target, kind, effective)
    operation_id = _operation_id(request, target, change)
    plan = Plan(1, request.operation, target, operation_id, kind, change=change, before=request.current,
                trigger=request.trigger, build_dir=_build_dir(repo, location))
    if isinstance(request.alter, TimeTravelRequest):
        plan.time_travel = describe_time_travel(request.alter)
    record = _existing_record(effective)
    if record is not None:
        return _already(plan, record, request, root)
    _edit_phase1(plan, repo, location, request)
    _check_phase2_restores(root, scope, request, plan)
    return plan


def _check_phase2_restores(root: Path, scope: Path | None, request: GitopsRequest, plan: Plan) -> None:
    """Phase 2 must give back the original bytes of every file phase 1 touches. Some layouts cannot be edited and
    restored exactly (a document written as JSON, a comment whose spacing the YAML library re-aligns): we find out
    by running phase 2 on a scratch copy of the phase-1 result, and refuse phase 1 rather than leave a repository
    that the operation changes for good."""
    import tempfile

    from .output import copy_repository, write

    with tempfile.TemporaryDirectory(prefix="kubectl-offsets-undo-") as scratch:
        copy = Path(scratch) / "repo"
        copy_repository(root, copy)
        write(plan, copy)
        inner = copy / os.path.relpath(scope, root) if scope is not None else None
        undo = plan_phase2(copy, inner, GitopsRequest(request.operation, request.target, request.namespace,
                                                      request.connector, request.source_cluster))
        write(undo, copy)
        for change in plan.files:
            path = copy / change.rel
            if (path.read_bytes() if path.exists() else None) != change.before:
                raise PreconditionError(f"{change.rel}: phase 2 could not give back this file's original bytes "
                                        "after the edit (its layout does not survive a YAML round-trip); refusing, "
                                        "nothing was written",
                                        advice="write the resource in block style YAML, or change offsets online "
                                               "(kubectl offsets alter/reset)")


def _effective(location: manifests.Location, request: GitopsRequest) -> dict[str, Any]:
    """The resource as built; a manifest without a namespace gets the one the user named (-n), as kubectl would."""
    effective = location.effective()
    if request.namespace and not effective["metadata"].get("namespace"):
        effective["metadata"]["namespace"] = request.namespace
    return effective


def _check_phase1(repo, location, effective, target, kind: ConnectorKind, request: GitopsRequest) -> None:
    if kind.offsets_ignored_by_runtime and not request.force:
        raise InputError(f"'{target.connector_name}' is a {kind.value} connector: its task never reads its offsets",
                         advice="add --force if you really want to change them")
    _check_no_committed_trigger(effective, location)
    _check_json6902(repo, location, target)


def _already(plan: Plan, record: dict[str, Any], request: GitopsRequest, root: Path) -> Plan:
    """Re-running the same phase 1 changes nothing; a different operation must wait for phase 2."""
    if record.get("id") == plan.operation_id and record.get("phase") == 1:
        plan.already, plan.configmap = True, record.get("configMap")
        return plan
    raise PreconditionError(f"{plan.target.display} is already in GitOps phase {record.get('phase')} of operation "
                            f"{record.get('id')} ({record.get('operation')})", advice="finish it first",
                            next_command=_next_phase_command(request, root))


def _next_phase_command(request: GitopsRequest, root: Path) -> str:
    """`gitops next` for the same resource, with every flag that picked it (-n, the MirrorMaker 2 connector)."""
    import shlex

    words = ["kubectl", "offsets", "gitops", "next", request.target]
    for flag, value in (("-n", request.namespace), ("--connector", request.connector),
                        ("--source-cluster", request.source_cluster), ("--repo", request.repo_arg or str(root))):
        if value:
            words += [flag, value]
    return shlex.join(words)


def _edit_phase1(plan: Plan, repo, location: manifests.Location, request: GitopsRequest) -> None:
    target, operation_id = plan.target, plan.operation_id
    editor = Editor(repo, location, target)
    base_name = location.definition.data["metadata"]["name"]  # kustomize adds the overlays' prefixes itself
    configmap = gitops_configmap_name(base_name, operation_id) if plan.change is not None else None
    final_cm = location.root.renamed(configmap) if (configmap and location.root) else configmap
    record = {"id": operation_id, "phase": 1, "operation": request.operation, "connector": target.connector_name,
              "configMap": final_cm, "trigger": request.trigger}
    editor.phase1(record, final_cm)
    if plan.change is not None:
        assert configmap is not None  # named above whenever there is a change
        editor.add_configmap(configmap, target, plan.change, operation_id)
    if request.trigger != Trigger.COMMAND:
        editor.add_file(trigger_job.file_name(base_name, operation_id),
                        trigger_job.manifests(target, operation_id, location.namespace, request.operation,
                                             request.trigger_image, argocd=request.trigger == Trigger.ARGOCD,
                                             name_base=base_name))
    plan.files, plan.configmap, plan.warnings = editor.finish(), final_cm, editor.warnings


def _build_dir(repo: manifests.Repository, location: manifests.Location) -> str | None:
    return repo.rel(location.root.dir) if location.root else None


def _locate(repo: manifests.Repository, request: GitopsRequest) -> manifests.Location:
    kind, name = strimzi.parse_target(request.target)
    if kind == strimzi.KIND_CONNECTOR and request.connector:
        raise InputError("--connector only applies to kafkamirrormaker2 targets")
    location = manifests.locate(repo, kind, name, request.namespace)
    manifests.check_links(repo, location)
    return location


def _target(effective: dict[str, Any], request: GitopsRequest) -> strimzi.ConnectorTarget:
    if effective["kind"] == strimzi.KIND_CONNECTOR:
        return strimzi.connector_target(effective)
    return strimzi.resolve_mm2_target(effective, request.connector, request.source_cluster)


def _kind(target: strimzi.ConnectorTarget, resource: dict[str, Any]) -> ConnectorKind:
    return connector_kind(target.connector_class(resource), None)


def _facts(target: strimzi.ConnectorTarget, kind: ConnectorKind, resource: dict[str, Any]) -> ConnectorFacts:
    from ..online.targets import topic_filter  # the same topic checks as online

    consumes, description = topic_filter(target, resource)
    return ConnectorFacts(kind=kind, source_alias=target.source_alias, consumes=consumes,
                          consumes_description=description)


def _change(request: GitopsRequest, target, kind, effective) -> OffsetsDocument | None:
    if request.operation == Operation.RESET:
        if isinstance(request.alter, TimeTravelRequest) or (request.alter is not None
                                                             and (request.alter.file or request.alter.shorthand)):
            raise InputError("reset takes no offsets", advice="use gitops alter to set offsets")
        return None
    if request.alter is None:
        raise InputError("nothing to alter", advice="give -f FILE, --set, --skip-record, --shift-by or --to-offset")
    if isinstance(request.alter, TimeTravelRequest):
        return request.alter.build_change(_facts(target, kind, effective), request.current)
    return build_change(request.alter, _facts(target, kind, effective), request.current)


def _operation_id(request: GitopsRequest, target: strimzi.ConnectorTarget, change: OffsetsDocument | None) -> str:
    """Deterministic: the same target, operation, offsets and base commit give the same id, hence the same
    branch, files and Job name (re-running updates instead of duplicating). A later repeat of the same change
    from a newer commit is a new operation with a new id, so the trigger's marker does not block it."""
    basis = json.dumps({"target": [target.kind, target.namespace, target.resource_name, target.connector_name],
                        "operation": request.operation, "change": change.to_json() if change else None,
                        "base": request.base}, sort_keys=True)
    return hashlib.sha256(basis.encode()).hexdigest()[:16]


def _existing_record(resource: dict[str, Any]) -> dict[str, Any] | None:
    text = ((resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_GITOPS)
    if text is None:
        return None
    return parse_record(text, "in the repository")


def _check_no_committed_trigger(resource: dict[str, Any], location: manifests.Location) -> None:
    annotations = (resource.get("metadata") or {}).get("annotations") or {}
    committed = [k for k in (strimzi.ANNOTATION_CONNECTOR_OFFSETS, strimzi.ANNOTATION_MIRRORMAKER_CONNECTOR)
                 if k in annotations]
    if committed:
        raise PreconditionError(f"{location.definition.where} commits {', '.join(committed)}: a GitOps controller "
                                "re-applies it after the operator removes it, so the operation fires on every sync",
                                advice="remove the annotation from the repository first")


def _check_json6902(repo: manifests.Repository, location: manifests.Location, target) -> None:
    """A JSON6902 patch that sets the stanza's state or alterOffsets would override our edit after the build."""
    pointer = target.stanza_pointer()
    fields = (strimzi.FIELD_STATE, strimzi.FIELD_ALTER_OFFSETS)
    for where, ops in manifests.json6902_ops(repo, location):
        for op in ops:
            path = str((op or {}).get("path", ""))
            if any(path == f"{pointer}/{f}" or path.startswith(f"{pointer}/{f}/") for f in fields) \
                    or path in (pointer, "/spec"):
                raise PreconditionError(f"{where} sets {path} with a JSON6902 patch, which would override the "
                                        "GitOps edit", advice="move that field into a strategic-merge patch or "
                                        "the resource, or change offsets online (kubectl offsets alter/reset)")


# --- phase 2 ----------------------------------------------------------------------------------------------------


def plan_phase2(root: Path, scope: Path | None, request: GitopsRequest, keep_record: bool = False) -> Plan:
    repo = manifests.scan(root, scope)
    location = _locate(repo, request)
    editor = Editor(repo, location, None)
    record = editor.find_record()
    if record is None:
        raise PreconditionError(f"{request.target} has no GitOps operation in phase 1 in this repository",
                                advice="start one with kubectl offsets gitops alter|reset")
    effective = _effective(location, request)
    target = _target(effective, GitopsRequest(request.operation, request.target, connector=record["connector"]))
    editor.target = target
    plan = Plan(2, record["operation"], target, record["id"], _kind(target, effective), configmap=record.get(
        "configMap"), trigger=record.get("trigger", Trigger.COMMAND))
    editor.phase2(record, keep_record)
    plan.files, plan.warnings = editor.finish(), editor.warnings
    plan.build_dir = _build_dir(repo, location)
    return plan
