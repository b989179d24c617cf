"""GitOps mode: the offsets change as reviewable edits to a repository, in two phases, never committing Strimzi's
one-shot annotation (a GitOps controller would re-apply it after the operator removed it, and fire again).

Phase 1 (``gitops alter|reset``): the connector's stanza gets ``state: stopped`` and, for an alter,
``alterOffsets.fromConfigMap``; a new offsets ConfigMap manifest is added (and listed in the kustomization); the
resource gets our record annotation ``kubectl-offsets.io/gitops`` (JSON: id, operation, previous state, ...).
Then something fires the annotation once on the cluster: ``kubectl offsets trigger`` or a one-shot Job.
Phase 2 (``gitops next``): the record tells what to put back: the previous state, no stanza, no ConfigMap (or
kept with ``--keep-record``), no Job.

Why a record annotation on the resource rather than a plan file: it travels with the manifest through every
overlay and into the cluster, so ``gitops next`` finds it next to the edit and ``trigger`` (or the Job) reads from
the live resource what to fire and with which id, without access to the repository. It is JSON in an annotation,
so it needs no comment-preserving tricks and a reviewer sees it in the diff.

Everything is computed and validated first (inputs, manifests, schemas); files are written only afterwards.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import schemas, strimzi
from ..adapters import yamlfiles
from ..connect import ConnectorKind, connector_kind
from ..conventions import ANNOTATION_GITOPS, gitops_configmap_name
from ..errors import InputError, PreconditionError
from ..model import OffsetsDocument, diff
from . import gitops_job, manifests
from .inputs import AlterRequest, ConnectorFacts, build_change

OPERATIONS = ("alter", "reset")
TRIGGERS = ("command", "job", "argocd")
PATCH_SUFFIX = ".offsets-patch.yaml"  # the patch file we add to an overlay, named after the resource


@dataclass(frozen=True)
class GitopsRequest:
    operation: str  # "alter" or "reset"
    target: str  # [kind/]NAME as typed
    namespace: str | None = None
    connector: str | None = None
    source_cluster: str | None = None
    alter: AlterRequest | None = None
    current: OffsetsDocument | None = None  # --before FILE or --from-cluster
    trigger: str = "command"
    trigger_image: str = gitops_job.DEFAULT_IMAGE
    base: str = ""  # the commit the change is based on; part of the operation id
    force: bool = False


@dataclass
class FileChange:
    rel: str
    before: str | None  # None: a new file
    after: str | None  # None: the file is deleted


@dataclass
class Plan:
    phase: int
    operation: str
    target: strimzi.ConnectorTarget
    operation_id: str
    kind: ConnectorKind
    files: list[FileChange] = field(default_factory=list)
    change: OffsetsDocument | None = None
    before: OffsetsDocument | None = None
    configmap: str | None = None
    trigger: str = "command"
    warnings: list[str] = field(default_factory=list)
    already: bool = False  # the repository already holds exactly this phase
    build_dir: str | None = None  # the root kustomization (relative), built to validate the result

    @property
    def after(self) -> OffsetsDocument | None:
        if self.before is None:
            return None
        return OffsetsDocument() if self.change is None else self.before.merged_with(self.change)

    def rows(self):
        return diff(self.before or OffsetsDocument(), self.after or self.change or OffsetsDocument())


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
    record = _existing_record(effective)
    if record is not None:
        return _already(plan, record, request, root)
    _edit_phase1(plan, repo, location, request)
    return plan


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
                            next_command=f"kubectl offsets gitops next {request.target} --repo {root}")


def _edit_phase1(plan: Plan, repo, location: manifests.Location, request: GitopsRequest) -> None:
    target, operation_id = plan.target, plan.operation_id
    editor = _Editor(repo, location, target)
    base_name = location.definition.data["metadata"]["name"]  # kustomize adds the overlays' prefixes itself
    configmap = gitops_configmap_name(base_name, operation_id) if plan.change is not None else None
    final_cm = location.root.renamed(configmap) if (configmap and location.root) else configmap
    record = {"id": operation_id, "phase": 1, "operation": request.operation, "connector": target.connector_name,
              "configMap": final_cm, "trigger": request.trigger}
    editor.phase1(record, final_cm)
    if plan.change is not None:
        editor.add_configmap(configmap, target, plan.change, operation_id)
    if request.trigger != "command":
        editor.add_file(gitops_job.file_name(base_name, operation_id),
                        gitops_job.manifests(target, operation_id, location.namespace, request.operation,
                                             request.trigger_image, argocd=request.trigger == "argocd",
                                             name_base=base_name))
    plan.files, plan.configmap, plan.warnings = editor.finish(), final_cm, editor.warnings


def _build_dir(repo: manifests.Repository, location: manifests.Location) -> str | None:
    return repo.rel(location.root.dir) if location.root else None


def _locate(repo: manifests.Repository, request: GitopsRequest) -> manifests.Location:
    kind, name = strimzi.parse_target(request.target)
    if kind == strimzi.KIND_CONNECTOR and request.connector:
        raise InputError("--connector only applies to kafkamirrormaker2 targets")
    return manifests.locate(repo, kind, name, request.namespace)


def _target(effective: dict[str, Any], request: GitopsRequest) -> strimzi.ConnectorTarget:
    if effective["kind"] == strimzi.KIND_CONNECTOR:
        return strimzi.connector_target(effective)
    return strimzi.resolve_mm2_target(effective, request.connector, request.source_cluster)


def _kind(target: strimzi.ConnectorTarget, resource: dict[str, Any]) -> ConnectorKind:
    return connector_kind(target.connector_class(resource), None)


def _facts(target: strimzi.ConnectorTarget, kind: ConnectorKind, resource: dict[str, Any]) -> ConnectorFacts:
    from .targets import topic_filter  # the same topic checks as online

    consumes, description = topic_filter(target, resource)
    return ConnectorFacts(kind=kind, source_alias=target.source_alias, consumes=consumes,
                          consumes_description=description)


def _change(request: GitopsRequest, target, kind, effective) -> OffsetsDocument | None:
    if request.operation == "reset":
        if request.alter is not None and (request.alter.file or request.alter.shorthand):
            raise InputError("reset takes no offsets", advice="use gitops alter to set offsets")
        return None
    if request.alter is None:
        raise InputError("nothing to alter", advice="give -f FILE, --set, --skip-record, --shift-by or --to-offset")
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


def parse_record(text: str, where: str) -> dict[str, Any]:
    """The record annotation's JSON, checked against schemas/gitops-record.schema.json."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        raise InputError(f"the {ANNOTATION_GITOPS} annotation {where} is not valid JSON",
                         advice="restore it from git history; kubectl-offsets writes it") from None
    schemas.validate("gitops-record", record, what=f"the {ANNOTATION_GITOPS} annotation {where}")
    return record


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
    editor = _Editor(repo, location, None)
    record = editor.find_record()
    if record is None:
        raise PreconditionError(f"{request.target} has no GitOps operation in phase 1 in this repository",
                                advice="start one with kubectl offsets gitops alter|reset")
    effective = _effective(location, request)
    target = _target(effective, GitopsRequest(request.operation, request.target, connector=record["connector"]))
    editor.target = target
    plan = Plan(2, record["operation"], target, record["id"], _kind(target, effective), configmap=record.get(
        "configMap"), trigger=record.get("trigger", "command"))
    editor.phase2(record, keep_record)
    plan.files, plan.warnings = editor.finish(), editor.warnings
    plan.build_dir = _build_dir(repo, location)
    return plan


# --- the edits ----------------------------------------------------------------------------------------------------


class _Editor:
    """Collects edits to loaded files and new/deleted files; validates; renders FileChanges."""

    def __init__(self, repo: manifests.Repository, location: manifests.Location, target):
        self.repo, self.location, self.target = repo, location, target
        self.new_files: dict[Path, str | None] = {}  # path -> text, None = delete
        self.touched: set[Path] = set()
        self.warnings: list[str] = []
        self.new_loaded: dict[Path, yamlfiles.YamlFile] = {}  # new files we edit as YAML (our overlay patch)
        self.record_doc: manifests.DocRef | None = None  # phase 2: where phase 1 put the record

    # -- phase 1 --
    def phase1(self, record: dict[str, Any], configmap: str | None) -> None:
        doc, stanza = self._edit_place()
        state_before = stanza.get(strimzi.FIELD_STATE)
        record["previousState"] = None if state_before is None else str(state_before)
        if configmap:
            previous = stanza.get(strimzi.FIELD_ALTER_OFFSETS)
            record["previousAlterOffsets"] = yamlfiles.to_plain(previous) if previous is not None else None
        record["annotationsCreated"] = not (doc.data.get("metadata") or {}).get("annotations")
        yamlfiles.set_key(stanza, strimzi.FIELD_STATE, strimzi.STATE_STOPPED, before=("config",))
        if configmap:
            yamlfiles.set_key(stanza, strimzi.FIELD_ALTER_OFFSETS,
                              {strimzi.FIELD_FROM_CONFIGMAP: {"name": configmap}}, before=("config",))
        self._set_record(doc, record)
        self._touch(doc)

    def _edit_place(self):
        """The document and stanza to edit: the definition, or (in an overlay) a strategic-merge patch of the
        root that already touches the resource, or a new patch file we add to the root."""
        location = self.location
        candidates = [p for p in location.patches if self._patch_in_root(p)] if location.in_overlay else \
            [p for p in location.patches if self._sets_state(p)]
        for doc in reversed(candidates):
            stanza = self._stanza_in(doc.data)
            if stanza is not None:
                return doc, stanza
        if location.in_overlay:
            doc = self._new_patch()
            return doc, self._stanza_in(doc.data, create=True)
        return location.definition, self._stanza_in(location.definition.data, create=True)

    def _patch_in_root(self, doc: manifests.DocRef) -> bool:
        return (self.repo.root / doc.rel).resolve() in self.location.root.patch_files

    def _sets_state(self, doc: manifests.DocRef) -> bool:
        stanza = self._stanza_in(doc.data)
        return stanza is not None and strimzi.FIELD_STATE in stanza

    def _stanza_in(self, data: Any, create: bool = False):
        """The connector's stanza inside ``data`` (a resource or a patch), checking for MirrorMaker 2 that the
        mirror at that index is the same mirror (a patch's ``mirrors`` list replaces the whole list)."""
        spec = data.get("spec")
        if spec is None:
            if not create:
                return None
            yamlfiles.set_key(data, "spec", {})
            spec = data["spec"]
        if self.target.kind == strimzi.KIND_CONNECTOR:
            return spec
        _, _, index, field_name = self.target.stanza_path
        mirrors = spec.get("mirrors") or []
        if index >= len(mirrors):
            return None
        mirror = mirrors[index]
        alias = (mirror.get("source") or {}).get("alias") if "source" in mirror else mirror.get("sourceCluster")
        if alias != self.target.source_alias or not isinstance(mirror.get(field_name), dict):
            return None
        return mirror[field_name]

    def _new_patch(self) -> manifests.DocRef:
        """A strategic-merge patch in the root overlay. For MirrorMaker 2 it repeats the whole ``mirrors`` list
        (lists of custom resources are replaced, not merged), taken from the effective resource."""
        location, target = self.location, self.target
        effective = location.effective()
        body: dict[str, Any] = {"apiVersion": effective["apiVersion"], "kind": effective["kind"],
                                "metadata": {"name": location.name_in_root_inputs()}}
        if target.kind == strimzi.KIND_MM2:
            body["spec"] = {"mirrors": effective["spec"]["mirrors"]}
        name = target.resource_name + PATCH_SUFFIX
        path = location.root.dir / name
        text = yamlfiles.dump_new([body], header="# Added by kubectl offsets gitops; removed again by "
                                                 "'kubectl offsets gitops next'.\n")
        loaded = yamlfiles.load_text(text, path, self.repo.rel(path))
        self.new_loaded[path] = loaded  # rendered in finish(), after the stanza edits
        self._add_to_kustomization("patches", {"path": name})
        return manifests.DocRef(loaded, 0, self.repo.rel(path))

    def _set_record(self, doc: manifests.DocRef, record: dict[str, Any]) -> None:
        meta = doc.data["metadata"]
        if not meta.get("annotations"):
            yamlfiles.set_key(meta, "annotations", {}, before=("labels",))
        compact = {k: v for k, v in record.items() if v not in (None, False)}  # absent means null/false
        yamlfiles.set_key(meta["annotations"], ANNOTATION_GITOPS, json.dumps(compact, separators=(",", ":")))

    def add_configmap(self, name: str, target, change: OffsetsDocument, operation_id: str) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "kubectl-offsets",
                                                      "kubectl-offsets.io/role": "gitops-offsets",
                                                      "kubectl-offsets.io/target": target.resource_name},
                             "annotations": {"kubectl-offsets.io/connector": target.connector_name,
                                             "kubectl-offsets.io/operation": operation_id}},
                "data": {target.configmap_key: change.dumps() + "\n"}}
        namespace = self.location.definition.data["metadata"].get("namespace")
        if namespace and not self.location.chain:
            body["metadata"]["namespace"] = namespace
        self.add_file(name + ".yaml", [body], header="# The offsets for Strimzi's alterOffsets (kubectl offsets "
                                                     "gitops, phase 1).\n")

    def add_file(self, name: str, documents: list[dict[str, Any]], header: str = "") -> None:
        directory = self.location.root.dir if self.location.root else self._definition_dir()
        self.new_files[directory / name] = yamlfiles.dump_new(documents, header=header)
        self._add_to_kustomization("resources", name)

    def _definition_dir(self) -> Path:
        return (self.repo.root / self.location.definition.rel).parent

    def _add_to_kustomization(self, key: str, entry: Any) -> None:
        root = self.location.root
        if root is None:
            return
        data = root.file.documents[0].data
        if data.get(key) is None:
            yamlfiles.set_key(data, key, [])
        if entry not in [yamlfiles.to_plain(e) for e in data[key]]:
            data[key].append(entry if isinstance(entry, str) else yamlfiles.commented(entry))
        root.file.documents[0].edited = True
        self.touched.add(root.file.path)

    def _remove_from_kustomization(self, key: str, match) -> None:
        root = self.location.root
        if root is None or not root.data.get(key):
            return
        items = root.data[key]
        for i in reversed(range(len(items))):
            if match(yamlfiles.to_plain(items[i])):
                del items[i]
        if not len(items):
            yamlfiles.delete_key(root.data, key)
        root.file.documents[0].edited = True
        self.touched.add(root.file.path)

    def _touch(self, doc: manifests.DocRef) -> None:
        doc.mark_edited()
        self.touched.add(doc.file.path)

    # -- phase 2 --
    def find_record(self) -> dict[str, Any] | None:
        for doc in self._record_holders():
            text = ((doc.data.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_GITOPS)
            if text:
                self.record_doc = doc
                return parse_record(text, f"in {doc.rel}")
        return None

    def _record_holders(self) -> list[manifests.DocRef]:
        return [*reversed(self.location.patches), self.location.definition]

    def phase2(self, record: dict[str, Any], keep_record: bool) -> None:
        doc = self.record_doc
        if doc.rel.endswith(PATCH_SUFFIX):
            self.new_files[self.repo.root / doc.rel] = None
            ours = Path(doc.rel).name
            self._remove_from_kustomization("patches", lambda e: isinstance(e, dict) and e.get("path") == ours)
        else:
            self._restore(doc, record)
        if record.get("configMap") and not keep_record:
            self._delete_new_file(gitops_configmap_name(self._base_name(), record["id"]) + ".yaml")
        if record.get("trigger", "command") != "command":
            self._delete_new_file(gitops_job.file_name(self._base_name(), record["id"]))

    def _base_name(self) -> str:
        return self.location.definition.data["metadata"]["name"]

    def _restore(self, doc: manifests.DocRef, record: dict[str, Any]) -> None:
        stanza = self._stanza_in(doc.data)
        if stanza is None:
            raise PreconditionError(f"cannot find the connector's stanza in {doc.where} any more",
                                    advice="restore the phase-1 edit or edit the file by hand")
        if record.get("previousState") is None:
            yamlfiles.delete_key(stanza, strimzi.FIELD_STATE)
        else:
            yamlfiles.set_key(stanza, strimzi.FIELD_STATE, record["previousState"])
        if record.get("configMap"):
            if record.get("previousAlterOffsets") is None:
                yamlfiles.delete_key(stanza, strimzi.FIELD_ALTER_OFFSETS)
            else:
                yamlfiles.set_key(stanza, strimzi.FIELD_ALTER_OFFSETS, record["previousAlterOffsets"])
        meta = doc.data["metadata"]
        yamlfiles.delete_key(meta["annotations"], ANNOTATION_GITOPS)
        if record.get("annotationsCreated") and not meta["annotations"]:
            yamlfiles.delete_key(meta, "annotations")
        self._touch(doc)

    def _delete_new_file(self, name: str) -> None:
        directory = self.location.root.dir if self.location.root else self._definition_dir()
        path = directory / name
        if path.exists():
            self.new_files[path] = None
        self._remove_from_kustomization("resources", lambda e: e == name)

    # -- result --
    def finish(self) -> list[FileChange]:
        for path, loaded in self.new_loaded.items():
            self.new_files[path] = loaded.render()
        changes = []
        for path in sorted(self.touched):
            loaded = self.repo.files.get(path) or next(
                (k.file for k in self.repo.kustomizations.values() if k.file.path == path), None)
            if loaded is None or path in self.new_files:
                continue
            after = loaded.render()
            self.warnings += loaded.warnings
            if after != loaded.original:
                changes.append(FileChange(self.repo.rel(path), loaded.original, after))
        for path, text in sorted(self.new_files.items()):
            before = path.read_text() if path.exists() else None
            if before != text:
                changes.append(FileChange(self.repo.rel(path), before, text))
        validate(self.repo, self.location, changes)
        return changes


# --- validation -------------------------------------------------------------------------------------------------

SCHEMA_FOR = {strimzi.KIND_CONNECTOR: "kafkaconnector", strimzi.KIND_MM2: "kafkamirrormaker2"}


def validate(repo: manifests.Repository, location: manifests.Location, changes: list[FileChange]) -> None:
    """Every full Strimzi resource and ConfigMap in the changed files must parse and match its schema; the
    resource as built through its patches too. Raises InputError before anything is written."""
    for change in changes:
        if change.after is None:
            continue
        loaded = yamlfiles.load_text(change.after, repo.root / change.rel, change.rel)
        for doc in loaded.documents:
            data = yamlfiles.to_plain(doc.data)
            if isinstance(data, dict) and data.get("kind") in SCHEMA_FOR and "apiVersion" in data \
                    and not change.rel.endswith(PATCH_SUFFIX) and _is_full_resource(repo, change.rel):
                schemas.validate(SCHEMA_FOR[data["kind"]], data, what=f"the edited {change.rel}")
            elif isinstance(data, dict) and data.get("kind") == "ConfigMap" and _ours(data):
                for key, value in (data.get("data") or {}).items():
                    schemas.validate("offsets", json.loads(value), what=f"{change.rel} key {key}")


def _ours(data: dict[str, Any]) -> bool:
    return ((data.get("metadata") or {}).get("labels") or {}).get("kubectl-offsets.io/role") == "gitops-offsets"


def _is_full_resource(repo: manifests.Repository, rel: str) -> bool:
    path = (repo.root / rel).resolve()
    return not any(path in k.patch_files for k in repo.kustomizations.values())


# --- output -------------------------------------------------------------------------------------------------------


def unified_diff(plan: Plan) -> str:
    parts = []
    for change in plan.files:
        before = (change.before or "").splitlines(keepends=True)
        after = (change.after or "").splitlines(keepends=True)
        old = "/dev/null" if change.before is None else f"a/{change.rel}"
        new = "/dev/null" if change.after is None else f"b/{change.rel}"
        parts.extend(_ensure_newlines(difflib.unified_diff(before, after, old, new)))
    return "".join(parts)


def _ensure_newlines(lines):
    for line in lines:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def write(plan: Plan, root: Path, out: Path | None = None) -> list[str]:
    """Write the changes in place, or into a copy of the repository at ``out``. Returns the paths written."""
    base = root
    if out is not None:
        if out.exists() and any(out.iterdir()):
            raise InputError(f"--out {out} exists and is not empty", advice="name a new or empty directory")
        shutil.copytree(root, out, ignore=shutil.ignore_patterns(".git"), dirs_exist_ok=True)
        base = out
    written = []
    for change in plan.files:
        path = base / change.rel
        if change.after is None:
            if path.exists():
                path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(change.after)
        written.append(change.rel)
    return written


def follow_up(plan: Plan, repo_arg: str, path_arg: str | None) -> list[str]:
    """The exact next steps, for the terminal and the pull-request body."""
    target = _target_words(plan.target)
    where = f" --repo {repo_arg}" + (f" --path {path_arg}" if path_arg else "") + \
        (f" -n {plan.target.namespace}" if plan.target.namespace else "")
    if plan.phase == 2:
        return ["Merge this change and let Argo CD / Flux sync it: the connector returns to its previous state"
                + (" and the offsets ConfigMap is pruned." if plan.configmap else ".")]
    steps = ["Merge this change and let Argo CD / Flux sync it: the connector stops"
             + (f" and ConfigMap {plan.configmap} appears." if plan.configmap else ".")]
    if plan.trigger == "command":
        steps.append(f"Fire the operation once: kubectl offsets trigger {target} -n {plan.target.namespace or '<ns>'}")
    else:
        steps.append("The trigger Job runs once after the sync (it waits for STOPPED, annotates, waits for the "
                     "operator); check it with: kubectl get jobs -l app.kubernetes.io/managed-by=kubectl-offsets")
    steps.append(f"Then produce phase 2: kubectl offsets gitops next {target}{where} and merge it.")
    return steps


def _target_words(target: strimzi.ConnectorTarget) -> str:
    if target.kind == strimzi.KIND_CONNECTOR:
        return target.resource_name
    return f"kmm2/{target.resource_name} --connector '{target.connector_name}'"


def describe(plan: Plan) -> str:
    what = "stop the connector and " + ("alter its offsets" if plan.operation == "alter" else "reset its offsets") \
        if plan.phase == 1 else f"finish the {plan.operation}: resume the connector"
    return f"{plan.target.display}: phase {plan.phase} of 2, {what} (operation {plan.operation_id})"

