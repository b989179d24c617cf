"""Names kubectl-offsets itself puts on the cluster: its field manager, its journal annotation, the ConfigMaps it
owns. (Strimzi's own names live in ``strimzi.py``.) Once released, none of these may change: journals and backups
written by an older version must still be found."""

from __future__ import annotations

import datetime as _dt

FIELD_MANAGER = "kubectl-offsets"
# Our mark on a custom resource while an operation is under way; holds a JSON journal (schemas/journal.schema.json).
ANNOTATION_JOURNAL = "kubectl-offsets.io/journal"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_ROLE = "kubectl-offsets.io/role"  # "offsets" (list/alter document) or "backup"
LABEL_TARGET = "kubectl-offsets.io/target"  # the resource name the ConfigMap belongs to
ANNOTATION_CONNECTOR = "kubectl-offsets.io/connector"  # the Connect connector name (may contain '->', so not a label)
BACKUP_KEY = "offsets.json"  # the data key of a backup ConfigMap
LOCAL_BACKUP_DIR = ".offsets-backups"  # below $XDG_STATE_HOME/kubectl-offsets, or ~/.local/state/kubectl-offsets


def offsets_configmap_name(resource_name: str) -> str:
    """The tool-owned ConfigMap that list writes to and alter reads from."""
    return f"{resource_name}-offsets"


def backup_configmap_name(resource_name: str, when: _dt.datetime) -> str:
    """``<name>-offsets-backup-20261122t101500z``: sortable, and a valid ConfigMap name (lower case)."""
    return f"{resource_name}-offsets-backup-{when.strftime('%Y%m%dt%H%M%Sz')}"


def utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)


def alter_configmap_name(resource_name: str) -> str:
    """The tool-owned ConfigMap that alter/undo write the requested offsets to (``alterOffsets.fromConfigMap``).
    Kept apart from the list ConfigMap so that listing (to verify) never overwrites the request being recovered."""
    return f"{resource_name}-offsets-alter"
