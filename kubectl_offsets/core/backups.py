"""Backups of a connector's offsets, taken before every alter, reset and undo: a ConfigMap on the cluster (so a
colleague can undo) and a local file (so a deleted namespace or a lost cluster does not lose them).

Backup ConfigMaps are labelled ``kubectl-offsets.io/role=backup`` and ``kubectl-offsets.io/target=<resource>``
and annotated with the connector name, so ``undo`` finds the newest one for the connector.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

from .. import schemas, strimzi
from ..conventions import (ANNOTATION_CONNECTOR, BACKUP_CHANGED_KEY, BACKUP_KEY, LABEL_ROLE, LABEL_TARGET,
                           backup_configmap_name)
from ..errors import NotFoundError
from ..model import OffsetsDocument
from .configmaps import owned_metadata, parse_document

ANNOTATION_TAKEN_AT = "kubectl-offsets.io/taken-at"
ANNOTATION_OPERATION = "kubectl-offsets.io/operation"


def configmap_name(target: strimzi.ConnectorTarget, when: dt.datetime, kube=None) -> str:
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


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kubectl-offsets" / "backups"


def save(kube, target: strimzi.ConnectorTarget, journal, offsets: OffsetsDocument,
         change: OffsetsDocument | None = None) -> Path:
    """Write the backup ConfigMap and the local copy; returns the local file's path. ``change``: what the operation
    will PATCH (None: a reset, every partition), recorded so that undo restores only what it changed."""
    metadata = owned_metadata(target, journal.backup, "backup")
    metadata["annotations"].update({ANNOTATION_TAKEN_AT: journal.started, ANNOTATION_OPERATION: journal.operation})
    changed = {"all": True} if change is None else {"partitions": [dict(e.partition) for e in change]}
    kube.create_configmap(target.namespace, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata,
                                             "data": {BACKUP_KEY: offsets.dumps(),
                                                      BACKUP_CHANGED_KEY: json.dumps(changed)}})
    return write_local(target, journal.backup, journal.started, journal.operation, offsets)


def write_local(target: strimzi.ConnectorTarget, name: str, taken_at: str, operation: str,
                offsets: OffsetsDocument) -> Path:
    document = {"kind": target.kind, "namespace": target.namespace, "resource": target.resource_name,
                "connector": target.connector_name, "taken_at": taken_at, "operation": operation,
                "configmap": name, "offsets": offsets.to_json()}
    schemas.validate("backup", document, what="the backup")
    safe_connector = re.sub(r"[^A-Za-z0-9._-]", "_", target.connector_name.replace("->", "--"))
    path = state_dir() / target.namespace / target.resource_name / f"{safe_connector}-{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def load_configmap(kube, target: strimzi.ConnectorTarget, name: str) -> OffsetsDocument:
    return parse_document(kube.get_configmap(name, target.namespace), BACKUP_KEY, f"configmap/{name}")


def load_changed(kube, target: strimzi.ConnectorTarget, name: str) -> list[dict[str, Any]] | None:
    """The partitions the backed-up operation changed; None when it changed them all (a reset) or the backup does
    not say (taken by an older kubectl-offsets)."""
    text = (kube.get_configmap(name, target.namespace).get("data") or {}).get(BACKUP_CHANGED_KEY)
    try:
        changed = json.loads(text) if text else {}
    except ValueError:
        return None
    partitions = changed.get("partitions")
    return partitions if isinstance(partitions, list) and all(isinstance(p, dict) for p in partitions) else None


def list_backups(kube, target: strimzi.ConnectorTarget) -> list[dict[str, Any]]:
    """The target connector's backup ConfigMaps, newest first."""
    selector = f"{LABEL_ROLE}=backup,{LABEL_TARGET}={target.resource_name}"
    found = [cm for cm in kube.list_configmaps(target.namespace, selector)
             if (cm["metadata"].get("annotations") or {}).get(ANNOTATION_CONNECTOR) == target.connector_name]
    return sorted(found, key=_order, reverse=True)


def newest(kube, target: strimzi.ConnectorTarget) -> str:
    backups = list_backups(kube, target)
    if not backups:
        raise NotFoundError(f"no kubectl-offsets backup found for connector '{target.connector_name}' in namespace "
                            f"{target.namespace}", advice="backups are taken by alter, reset and undo; name one with --backup")
    return backups[0]["metadata"]["name"]
