"""The edits to the repository's YAML files for one plan, rendered to file changes (nothing written here)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

from ... import strimzi
from ...adapters import yamlfiles
from ...conventions import (ANNOTATION_CONNECTOR, ANNOTATION_GITOPS, ANNOTATION_OPERATION, LABEL_MANAGED_BY, LABEL_ROLE,
                           LABEL_TARGET, MANAGED_BY, Role, Trigger, gitops_configmap_name)
from ...errors import PreconditionError
from ...files import read_bytes
from ...model import OffsetsDocument
from . import locate as manifests
from . import trigger_job
from .plan import PATCH_SUFFIX, FileChange, parse_record
from .validation import validate

def _names(data: Any, kind: str | None, name: str) -> bool:
    """A document of ``kind`` (any kind: None) named ``name``."""
    return isinstance(data, dict) and (kind is None or data.get("kind") == kind) and \
        (data.get("metadata") or {}).get("name") == name


def _managed(data: Any) -> bool:
    """A document kubectl-offsets wrote: it carries our managed-by label."""
    return ((data.get("metadata") or {}).get("labels") or {}).get(LABEL_MANAGED_BY) == MANAGED_BY


class Editor:
    """Collects edits to loaded files and new/deleted files; validates; renders FileChanges."""

    def __init__(self, repo: manifests.Repository, location: manifests.Location, target):
        self.repo, self.location, self.target = repo, location, target
        self.new_files: dict[Path, str | None] = {}  # path -> text (written as UTF-8), None = delete
        self.touched: set[Path] = set()
        self.warnings: list[str] = []
        self.new_loaded: dict[Path, yamlfiles.YamlFile] = {}  # new files we edit as YAML (our overlay patch)
        self.record_doc: manifests.DocRef | None = None  # phase 2: where phase 1 put the record

    # -- phase 1 --
    def phase1(self, record: dict[str, Any], configmap: str | None) -> None:
        doc, stanza = self._edit_place()
        if yamlfiles.is_flow_style(doc.data):
            raise manifests.NotEditableError(f"{doc.where} is written in flow style (JSON-like braces): an edit "
                                             "would re-emit it in another style; refusing, nothing was written",
                                             advice="write the resource in block style YAML, or change offsets "
                                                    "online (kubectl offsets alter/reset)")
        stanza = self._own_stanza(doc, stanza, record)
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

    def _own_stanza(self, doc: manifests.DocRef, stanza: Any, record: dict[str, Any]) -> Any:
        """A stanza shared with another connector through a YAML alias (two mirrors' ``sourceConnector: *same``)
        gets its own copy before the edit: stopping one connector must not stop the other. The record keeps the
        anchor's name so that phase 2 makes it an alias again. A whole mirror that is an alias is refused: its
        source alias is the other mirror's too, so it cannot be told apart."""
        slot = self._slot(doc.data)
        if slot is None:
            return stanza
        parent, key = slot
        if parent is not doc.data and yamlfiles.is_shared(doc.data, parent):
            raise manifests.NotEditableError(f"in {doc.where} the connector's mirror is a YAML alias of another "
                                             "mirror; refusing to edit it (nothing was written)",
                                             advice="write the mirrors out separately, or change offsets online")
        anchor = yamlfiles.unshare(parent, key, doc.data)
        if anchor is None:
            return stanza
        record["aliasOf"] = anchor
        self.warnings.append(f"{doc.rel}: the {key} stanza was an alias of &{anchor}; it gets its own copy so the "
                             "other connector keeps its values (phase 2 makes it an alias again)")
        return parent[key]

    def _slot(self, data: Any) -> tuple[Any, Any] | None:
        """(container, key) of the connector's stanza in ``data``."""
        if self.target.kind == strimzi.KIND_CONNECTOR:
            return (data, "spec") if isinstance(data.get("spec"), dict) else None
        _, _, index, field_name = self.target.stanza_path
        mirrors = (data.get("spec") or {}).get("mirrors") or []
        if index >= len(mirrors) or not isinstance(mirrors[index].get(field_name), dict):
            return None
        return mirrors[index], field_name

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
        assert self.location.root is not None  # asked only of a resource declared through kustomizations
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
        if location.namespace_in_root_inputs():
            body["metadata"]["namespace"] = location.namespace_in_root_inputs()
        if target.kind == strimzi.KIND_MM2:
            body["spec"] = {"mirrors": effective["spec"]["mirrors"]}
        name = target.resource_name + PATCH_SUFFIX
        assert location.root is not None  # a patch is added only in an overlay, which has a root kustomization
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
        body: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": name, "labels": {LABEL_MANAGED_BY: MANAGED_BY,
                                                      LABEL_ROLE: Role.GITOPS_OFFSETS,
                                                      LABEL_TARGET: target.resource_name},
                             "annotations": {ANNOTATION_CONNECTOR: target.connector_name,
                                             ANNOTATION_OPERATION: operation_id}},
                "data": {target.configmap_key: change.dumps() + "\n"}}
        # Where the connector lands, so Strimzi finds the ConfigMap beside it: a kustomization without
        # namespace: leaves the new file's namespace to whoever applies it, not to the connector's metadata.
        if self.location.namespace:
            body["metadata"]["namespace"] = self.location.namespace
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
        assert doc is not None  # plan_phase2 refuses before this when find_record found none
        if doc.rel.endswith(PATCH_SUFFIX):
            ours = Path(doc.rel).name
            name = self.location.name_in_root_inputs()
            if self._remove_ours(self.repo.root / doc.rel, lambda d: _names(d, doc.data.get("kind"), name)):
                self._remove_from_kustomization("patches", lambda e: isinstance(e, dict) and e.get("path") == ours)
        else:
            self._restore(doc, record)
        if record.get("configMap") and not keep_record:
            configmap = gitops_configmap_name(self._base_name(), record["id"])
            self._delete_new_file(configmap + ".yaml", lambda d: _names(d, "ConfigMap", configmap) and _managed(d))
        if record.get("trigger", Trigger.COMMAND) != Trigger.COMMAND:
            job = trigger_job.file_name(self._base_name(), record["id"])
            self._delete_new_file(job, lambda d: _names(d, None, job.removesuffix(".yaml")) and _managed(d))

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
        if record.get("aliasOf"):
            slot = self._slot(doc.data)
            if slot is None or not yamlfiles.reshare(*slot, doc.data, record["aliasOf"]):
                self.warnings.append(f"{doc.rel}: the stanza no longer matches &{record['aliasOf']}, so it stays a "
                                     "copy instead of an alias")
        meta = doc.data["metadata"]
        yamlfiles.delete_key(meta["annotations"], ANNOTATION_GITOPS)
        if record.get("annotationsCreated") and not meta["annotations"]:
            yamlfiles.delete_key(meta, "annotations")
        self._touch(doc)

    def _delete_new_file(self, name: str, ours: Callable[[Any], bool]) -> None:
        """Phase 1's own file, and its kustomization entry, unless the user added a document to it since."""
        directory = self.location.root.dir if self.location.root else self._definition_dir()
        if self._remove_ours(directory / name, ours):
            self._remove_from_kustomization("resources", lambda e: e == name)

    def _remove_ours(self, path: Path, ours: Callable[[Any], bool]) -> bool:
        """Remove the documents phase 1 wrote to ``path`` (a file phase 1 added); True when the file goes with them.
        A document someone appended since stays, with the file (and so its kustomization entry): phase 2 removes
        what phase 1 added, nothing else."""
        if not path.exists():
            return True
        loaded = self.repo.files.get(path) or yamlfiles.load_file(path, self.repo.rel(path))
        theirs = [d for d in loaded.documents if d.data is not None and not ours(d.data)]
        if not theirs:
            self.new_files[path] = None
            return True
        kept = [d for d in loaded.documents if d.data is None or not ours(d.data)]
        self.new_files[path] = "".join(d.text for d in kept)
        self.warnings.append(f"kept {self.repo.rel(path)}: phase 1 added it, but it also holds {len(theirs)} "
                             f"document{'s' if len(theirs) != 1 else ''} it did not write; only phase 1's were removed")
        return False

    # -- result --
    def finish(self) -> list[FileChange]:
        for path, new in self.new_loaded.items():
            self.new_files[path] = new.render()
        changes = []
        for path in sorted(self.touched):
            loaded = self.repo.files.get(path) or next(
                (k.file for k in self.repo.kustomizations.values() if k.file.path == path), None)
            if loaded is None or path in self.new_files:
                continue
            after: bytes | None = loaded.render_bytes()
            self.warnings += loaded.warnings
            if after != loaded.original_bytes:
                changes.append(FileChange(self.repo.rel(path), loaded.original_bytes, after))
        for path, text in sorted(self.new_files.items()):
            before = read_bytes(path, self.repo.rel(path)) if os.path.lexists(path) else None
            after = None if text is None else text.encode("utf-8")
            if before != after:
                changes.append(FileChange(self.repo.rel(path), before, after))
        validate(self.repo, self.location, changes)
        return changes
