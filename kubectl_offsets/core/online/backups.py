"""Backups of a connector's offsets, taken before every alter, reset and undo: a ConfigMap on the cluster (so a
colleague can undo) and a local file (so a deleted namespace or a lost cluster does not lose them; ``undo
--from-file`` restores it).

Backup ConfigMaps are labelled ``kubectl-offsets.io/role=backup`` and ``kubectl-offsets.io/target=<resource>``
(``conventions.label_value``: a long name is cut and hashed) and annotated with the connector name, so ``undo``
finds the newest one for the connector.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import files, strimzi
from ...conventions import (ANNOTATION_CONNECTOR, ANNOTATION_OPERATION, ANNOTATION_TAKEN_AT, BACKUP_CHANGED_KEY,
                           BACKUP_KEY, LABEL_ROLE, LABEL_TARGET, NAME_MAX, Role, backup_configmap_name, derived_name,
                           label_value)
from ...errors import InputError, NotFoundError
from ...model import OffsetsDocument
from .configmaps import owned_metadata, parse_document

if TYPE_CHECKING:
    from ...adapters.kube import Kube

def configmap_name(target: strimzi.ConnectorTarget, when: dt.datetime, kube: Kube | None = None) -> str:
    """The backup's name. Names have one-second resolution and a fast alter + undo (or two connectors of one
    MirrorMaker 2) can start within the same second: with ``kube``, a name already taken gets ``-2``, ``-3``, ..."""
    base = backup_configmap_name(target.resource_name, when)
    if kube is None:
        return base
    for number in range(1, 100):
        name = base if number == 1 else f"{base}-{number}"
        if kube.find_configmap(name, target.namespace) is None:
            return name
    return base  # creating it will fail with a clear AlreadyExists


def _order(configmap: dict[str, Any]) -> tuple[str, int]:
    """Newest first: the time taken, then the same-second suffix (-2 after the bare name)."""
    name = configmap["metadata"]["name"]
    tail = name.rsplit("-", 1)[-1]
    return ((configmap["metadata"].get("annotations") or {}).get(ANNOTATION_TAKEN_AT, ""),
            int(tail) if tail.isdigit() and len(tail) <= 2 else 1)


newest_first_key = _order  # for backup_catalog.py (listing and pruning across connectors)


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kubectl-offsets" / "backups"


def save(kube: Kube, target: strimzi.ConnectorTarget, journal, offsets: OffsetsDocument,
         change: OffsetsDocument | None = None) -> Path:
    """Write the backup ConfigMap and the local copy; returns the local file's path. ``change``: what the operation
    will PATCH (None: a reset, every partition), recorded so that undo restores only what it changed."""
    metadata = owned_metadata(target, journal.backup, Role.BACKUP)
    metadata["annotations"].update({ANNOTATION_TAKEN_AT: journal.started, ANNOTATION_OPERATION: journal.operation})
    changed: dict[str, Any] = {"all": True} if change is None else {"partitions": [dict(e.partition) for e in change]}
    kube.create_configmap(target.namespace, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata,
                                             "data": {BACKUP_KEY: offsets.dumps(),
                                                      BACKUP_CHANGED_KEY: json.dumps(changed)}})
    context = getattr(kube, "context", None)
    if getattr(kube, "dry_run", False):  # a dry run's cluster (recording.Recorder) records the file instead
        path = local_path(target, journal.backup, context)
        kube.record_local(str(path), offsets.dumps())  # type: ignore[attr-defined]
        return path
    return write_local(target, journal.backup, journal.started, journal.operation, offsets, context, changed)


# --- the local copy ------------------------------------------------------------------------------------------------
# A YAML file whose comment lines say where it came from and whose body is the plain {"offsets": [...]} JSON (JSON is
# YAML): `alter -f FILE` takes it as it is, `undo --from-file FILE` restores it, and a person can read it. Offsets
# reveal what a connector has read, so the file is 0600 in 0700 folders, one folder per kubeconfig context (two
# clusters may both have a namespace "kafka" with a connector "my-sink").
LOCAL_MARK = "kubectl-offsets backup"
_HEADER_LINE = re.compile(r"^# ([a-z-]+): (.*)$")


def local_path(target: strimzi.ConnectorTarget, name: str, context: str | None) -> Path:
    parts = [context or "no-context", target.namespace, target.resource_name,
             f"{target.connector_name.replace('->', '--')}-{name}"]
    folders = [_path_safe(p) for p in parts]
    return state_dir().joinpath(*folders[:-1], folders[-1] + ".yaml")


def _path_safe(text: str) -> str:
    """One path component: context names such as arn:aws:eks:...:cluster/prod contain ':' and '/', and file systems
    allow 255 bytes per component (a 253-character resource name plus the backup's name would not fit)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", text).lstrip(".") or "_"
    return derived_name(safe, "", room=NAME_MAX - 240)  # at most 240 characters: room for ".yaml" and more


def write_local(target: strimzi.ConnectorTarget, name: str, taken_at: str, operation: str,
                offsets: OffsetsDocument, context: str | None, changed: dict[str, Any] | None = None) -> Path:
    header: dict[str, Any] = {"backup": name, "context": context or "", "kind": target.kind, "namespace": target.namespace,
              "resource": target.resource_name, "connector": target.connector_name, "taken-at": taken_at,
              "operation": operation}
    if changed is not None:  # as in the ConfigMap: undo --from-file restores only what the operation changed
        header["changed"] = changed
    restore = f"kubectl offsets undo {target.display} -n {target.namespace} --from-file FILE"
    lines = [f"# {LOCAL_MARK}: offsets before {operation} (restore: {restore})"]
    lines += [f"# {key}: {json.dumps(value)}" for key, value in header.items()]
    path = local_path(target, name, context)
    _private_folders(path.parent)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # O_CREAT's mode applies to new files only
    with os.fdopen(descriptor, "w") as file:
        file.write("\n".join(lines) + "\n" + offsets.dumps() + "\n")
    return path


def _private_folders(folder: Path) -> None:
    """Create ``folder`` and every parent up to our own top folder as 0700 (and tighten ones an older version made
    0755); the XDG state folder above it is the user's and left alone."""
    top = state_dir().parent
    ours = [folder, *[p for p in folder.parents if p == top or top in p.parents]]
    top.parent.mkdir(parents=True, exist_ok=True)
    for path in reversed(ours):
        path.mkdir(mode=0o700, exist_ok=True)
        path.chmod(0o700)


def local_header(path: str) -> dict[str, str]:
    """The provenance comment lines of a local backup file; {} for any other offsets file."""
    found: dict[str, str] = {}
    try:
        lines = files.read_text(path).splitlines()
    except InputError:
        return {}  # reading it as offsets reports the problem properly
    if not lines or not lines[0].startswith(f"# {LOCAL_MARK}:"):
        return {}
    for line in lines[1:]:
        match = _HEADER_LINE.match(line)
        if not match:
            break
        try:
            found[match.group(1)] = str(json.loads(match.group(2)))
        except ValueError:
            found[match.group(1)] = match.group(2)
    return found


def check_local_owner(target: strimzi.ConnectorTarget, path: str) -> None:
    """A local backup names its connector; refuse to restore another connector's (the same reason as
    ``load_for_undo``). Files without our header are plain offsets documents and are taken as they are."""
    header = local_header(path)
    if not header:
        return
    owner = (header.get("resource"), header.get("connector"))
    if owner != (target.resource_name, target.connector_name):
        raise InputError(f"{path} is a backup of connector '{owner[1]}' (resource {owner[0]}, namespace "
                         f"{header.get('namespace')}), not of '{target.connector_name}' ({target.display})",
                         advice="give the local backup of this connector (they are kept under "
                         f"{state_dir()}/<context>/<namespace>/<resource>/)")


def load_configmap(kube: Kube, target: strimzi.ConnectorTarget, name: str) -> OffsetsDocument:
    return parse_document(kube.get_configmap(name, target.namespace), BACKUP_KEY, f"configmap/{name}")


def load_changed(kube: Kube, target: strimzi.ConnectorTarget, name: str) -> list[dict[str, Any]] | None:
    """The partitions the backed-up operation changed; None when it changed them all (a reset) or the backup does
    not say (taken by an older kubectl-offsets)."""
    return _changed_partitions((kube.get_configmap(name, target.namespace).get("data") or {}).get(BACKUP_CHANGED_KEY))


def load_local_changed(path: str) -> list[dict[str, Any]] | None:
    """``load_changed`` for a local backup file (its ``changed`` header line); None for any other offsets file."""
    if not local_header(path):
        return None
    for line in files.read_text(path).splitlines():
        match = _HEADER_LINE.match(line)
        if match and match.group(1) == "changed":
            return _changed_partitions(match.group(2))
        if not line.startswith("#"):
            break
    return None


def _changed_partitions(text: str | None) -> list[dict[str, Any]] | None:
    try:
        changed = json.loads(text) if text else {}
    except ValueError:
        return None
    partitions = changed.get("partitions") if isinstance(changed, dict) else None
    return partitions if isinstance(partitions, list) and all(isinstance(p, dict) for p in partitions) else None


def load_for_undo(kube: Kube, target: strimzi.ConnectorTarget, name: str) -> OffsetsDocument:
    """A backup the user named, after checking that it is one of ours and belongs to ``target``'s connector.

    Two connectors that consume the same topic have backups of the same shape, so the offsets alone cannot tell
    them apart; restoring the other connector's positions would silently skip or replay records."""
    configmap = kube.get_configmap(name, target.namespace)
    metadata = configmap.get("metadata") or {}
    labels, annotations = metadata.get("labels") or {}, metadata.get("annotations") or {}
    if labels.get(LABEL_ROLE) != Role.BACKUP:
        raise InputError(f"configmap/{name} is not a kubectl-offsets backup (no label {LABEL_ROLE}=backup)",
                         advice=_list_hint(target))
    owner = (labels.get(LABEL_TARGET), annotations.get(ANNOTATION_CONNECTOR))
    if owner != (label_value(target.resource_name), target.connector_name):
        raise InputError(f"configmap/{name} is a backup of connector '{owner[1]}' (resource {owner[0]}), not of "
                         f"'{target.connector_name}' ({target.display})", advice=_list_hint(target))
    return parse_document(configmap, BACKUP_KEY, f"configmap/{name}")


def _list_hint(target: strimzi.ConnectorTarget) -> str:
    return ("restore one of this connector's backups; list them with: kubectl get configmaps -n "
            f"{target.namespace} -l {LABEL_ROLE}=backup,{LABEL_TARGET}={label_value(target.resource_name)}")


def list_backups(kube: Kube, target: strimzi.ConnectorTarget) -> list[dict[str, Any]]:
    """The target connector's backup ConfigMaps, newest first."""
    selector = f"{LABEL_ROLE}=backup,{LABEL_TARGET}={label_value(target.resource_name)}"
    found = [cm for cm in kube.list_configmaps(target.namespace, selector)
             if (cm["metadata"].get("annotations") or {}).get(ANNOTATION_CONNECTOR) == target.connector_name]
    return sorted(found, key=_order, reverse=True)


def newest(kube: Kube, target: strimzi.ConnectorTarget) -> str:
    backups = list_backups(kube, target)
    if not backups:
        raise NotFoundError(f"no kubectl-offsets backup found for connector '{target.connector_name}' in namespace "
                            f"{target.namespace}", advice="backups are taken by alter, reset and undo; name one with --backup")
    return backups[0]["metadata"]["name"]
