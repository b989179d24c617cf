"""Validation of a GitOps plan's result as a controller would see it: the edit applied to a scratch copy, built
with kustomize when the resource comes from a kustomization, every Strimzi resource checked against its schema
and, on request, every manifest sent to the API server as a server-side dry run. Nothing in the repository is
written here."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from ... import schemas, strimzi
from ...conventions import LABEL_ROLE, Role
from ...adapters import kustomize, yamlfiles
from . import locate as manifests
from ...errors import InputError
from .output import write
from .plan import PATCH_SUFFIX, FileChange, Plan

SCHEMA_FOR = {strimzi.KIND_CONNECTOR: "kafkaconnector", strimzi.KIND_MM2: "kafkamirrormaker2"}


def validate(repo: manifests.Repository, location: manifests.Location, changes: list[FileChange]) -> None:
    """Every full Strimzi resource and ConfigMap in the changed files must parse and match its schema; the
    resource as built through its patches too. Raises InputError before anything is written."""
    for change in changes:
        if change.after is None:
            continue
        loaded = yamlfiles.load_bytes(change.after, repo.root / change.rel, change.rel)
        for doc in loaded.documents:
            data = yamlfiles.to_plain(doc.data)
            if isinstance(data, dict) and data.get("kind") in SCHEMA_FOR and "apiVersion" in data \
                    and not change.rel.endswith(PATCH_SUFFIX) and _is_full_resource(repo, change.rel):
                schemas.validate(SCHEMA_FOR[data["kind"]], data, what=f"the edited {change.rel}")
            elif isinstance(data, dict) and data.get("kind") == "ConfigMap" and _ours(data):
                for key, value in (data.get("data") or {}).items():
                    schemas.validate("offsets", json.loads(value), what=f"{change.rel} key {key}")


def _ours(data: dict[str, Any]) -> bool:
    return ((data.get("metadata") or {}).get("labels") or {}).get(LABEL_ROLE) == Role.GITOPS_OFFSETS


def _is_full_resource(repo: manifests.Repository, rel: str) -> bool:
    path = (repo.root / rel).resolve()
    return not any(path in k.patch_files for k in repo.kustomizations.values())


def built_documents(plan: Plan, root: Path) -> list[dict[str, Any]]:
    """The manifests after the change: ``kubectl kustomize`` of the root kustomization, or the changed files."""
    with tempfile.TemporaryDirectory(prefix="kubectl-offsets-check-") as scratch:
        copy = Path(scratch) / "repo"
        write(plan, root, copy)
        if plan.build_dir is not None:
            try:
                text = kustomize.build(copy / plan.build_dir)
            except InputError as error:  # name the user's paths, not the scratch copy's
                raise InputError(error.message.replace(str(copy) + "/", "").replace(str(copy), "."),
                                 advice=error.advice) from None
            return _plain_documents(text, copy / plan.build_dir)
        docs: list[dict[str, Any]] = []
        for change in plan.files:
            if change.after is not None:
                docs += _plain_documents(yamlfiles.decode(change.after)[0], copy / change.rel)
        return docs


def _plain_documents(text: str, where: Path) -> list[dict[str, Any]]:
    loaded = yamlfiles.load_text(text, where, str(where))
    return [d for d in (yamlfiles.to_plain(doc.data) for doc in loaded.documents) if isinstance(d, dict) and d]


def check_schemas(documents: list[dict[str, Any]]) -> int:
    checked = 0
    for doc in documents:
        name = SCHEMA_FOR.get(doc.get("kind", ""))  # absent or null: no schema, as before
        if name and str(doc.get("apiVersion", "")).startswith("kafka.strimzi.io/"):
            schemas.validate(name, doc, what=f"the built {doc['kind']}/{doc['metadata'].get('name')}")
            checked += 1
    return checked


def check_built(plan: Plan, root: Path) -> list[str]:
    """Build the result (kustomize, when the resource comes from a kustomization) and check every Strimzi resource
    in it against its schema: this is where overlay patches are checked as part of the whole. Returns warnings
    (kubectl missing means the build cannot run; the per-file checks still ran)."""
    from ...errors import PreconditionError

    try:
        documents = built_documents(plan, root)
    except PreconditionError as missing:
        return [f"{missing.message}; only the edited files were checked"]
    check_schemas(documents)
    check_effect(plan, documents)
    return []


def check_effect(plan: Plan, documents: list[dict[str, Any]]) -> None:
    """The built resource must say what phase 1 means (stopped, our ConfigMap): a patch we could not see (an
    inline strategic-merge patch, a component) could otherwise silently override the edit."""
    from ...errors import PreconditionError

    target = plan.target
    _check_no_built_trigger(documents)
    built = [d for d in documents if d.get("kind") == target.kind
             and (d.get("metadata") or {}).get("name") == target.resource_name]
    if len(built) != 1:
        return  # a plain directory of several apps: the per-file checks already covered it
    if plan.phase != 1:
        return
    stanza = target.stanza(built[0])
    named = ((stanza.get(strimzi.FIELD_ALTER_OFFSETS) or {}).get(strimzi.FIELD_FROM_CONFIGMAP) or {}).get("name")
    if stanza.get(strimzi.FIELD_STATE) != strimzi.STATE_STOPPED or (plan.configmap and named != plan.configmap):
        raise PreconditionError(f"after the edit, {target.display} as built still has state "
                                f"{stanza.get(strimzi.FIELD_STATE)!r} / alterOffsets {named!r}: something applied "
                                "later (an inline patch, a component) overrides it",
                                advice="move that override into a patch file or remove it; nothing was written")


def server_dry_run(plan: Plan, root: Path, namespace: str | None, kubeconfig: str | None,
                   context: str | None) -> int:
    """Server-side apply with dryRun=All of every built manifest; returns how many were accepted."""
    from ...model import ClusterConfig
    from ..online import operations

    documents = built_documents(plan, root)
    check_schemas(documents)
    kube = operations.connect(ClusterConfig(kubeconfig=kubeconfig, context=context, namespace=namespace))
    for doc in documents:
        kube.server_dry_run(doc, (doc.get("metadata") or {}).get("namespace") or namespace or kube.namespace)
    return len(documents)


def _check_no_built_trigger(documents: list[dict[str, Any]]) -> None:
    """No Strimzi resource in what the controller applies together with the change may carry a one-shot annotation,
    whatever its value and wherever it comes from (the file, an overlay's commonAnnotations, a patch): a
    self-healing sync re-applies it after every operator run, firing the operation over and over, and an empty or
    misspelled value makes the operator refuse the resource. Another connector's counts too: the same sync applies
    it beside our change."""
    from ...errors import PreconditionError

    for resource in documents:
        if resource.get("kind") not in SCHEMA_FOR or not str(resource.get("apiVersion", "")).startswith(
                f"{strimzi.GROUP}/"):
            continue
        annotations = (resource.get("metadata") or {}).get("annotations") or {}
        found = [k for k in (strimzi.ANNOTATION_CONNECTOR_OFFSETS, strimzi.ANNOTATION_MIRRORMAKER_CONNECTOR)
                 if k in annotations]
        if found:
            name = f"{resource['kind'].lower()}/{(resource.get('metadata') or {}).get('name')}"
            raise PreconditionError(f"{name} as built carries {', '.join(found)}: a GitOps controller re-applies it "
                                    "after every operator run (an empty or misspelled value makes the operator "
                                    "refuse the resource), so nothing was written",
                                    advice="remove the annotation from the repository (the manifest, an overlay's "
                                    "commonAnnotations or a patch) and fire operations with kubectl offsets trigger")
