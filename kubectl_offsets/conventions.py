"""Names kubectl-offsets itself puts on the cluster: its field manager, its journal annotation, the ConfigMaps it
owns. (Strimzi's own names live in ``strimzi.py``.) Once released, none of these may change: journals and backups
written by an older version must still be found."""

from __future__ import annotations

import datetime as _dt
import enum
import hashlib


class StrEnum(str, enum.Enum):
    """A name declared once whose members *are* their values: ``str()``, f-strings and ``json.dumps`` give exactly the
    value (as Python 3.11's ``enum.StrEnum``, which 3.10 lacks), so what we write is byte-identical to the literal it
    replaces, and a value read back from a journal or record compares (and hashes) equal to its member."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(self, spec)


class Operation(StrEnum):
    """What a user asks kubectl-offsets to do to a connector's offsets. Stored in journals, backups (the
    ``kubectl-offsets.io/operation`` annotation) and GitOps records: never rename a value. (Not Strimzi's
    ``strimzi.OffsetsAction``, the request handed to the operator: an undo is handed over as an alter or a reset;
    nor compute's ``core.compute.positions.Operation``, how a position is computed.)"""

    ALTER = "alter"
    RESET = "reset"
    UNDO = "undo"


# The field manager of every write. It must not start with "kubectl": Flux's kustomize-controller takes over the
# fields of every manager whose name starts with "kubectl" (its defaults, to undo `kubectl apply/edit`; matched by
# prefix, fluxcd/pkg/ssa FieldManager) and prunes those it does not declare itself on its next reconcile: our
# journal, the trigger's marker and the one-shot annotation the operator has not yet read (docs/gitops.md).
FIELD_MANAGER = "plugin-kubectl-offsets"
MANAGED_BY = "kubectl-offsets"  # the value of LABEL_MANAGED_BY on everything we create
# Our mark on a custom resource while an operation is under way; holds a JSON journal (schemas/journal.schema.json).
ANNOTATION_JOURNAL = "kubectl-offsets.io/journal"
# Our own annotation whose new value is a watch event the operator reconciles (a "nudge", see core/online/operator.py).
ANNOTATION_NUDGE = "kubectl-offsets.io/nudge"
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_ROLE = "kubectl-offsets.io/role"  # a Role: which of our ConfigMaps this is
LABEL_TARGET = "kubectl-offsets.io/target"  # label_value(resource name) of the resource the ConfigMap belongs to
ANNOTATION_CONNECTOR = "kubectl-offsets.io/connector"  # the Connect connector name (may contain '->', so not a label)
# On a backup ConfigMap: when it was taken (the journal's start, ISO-8601 UTC).
ANNOTATION_TAKEN_AT = "kubectl-offsets.io/taken-at"
# On a backup ConfigMap the Operation that took it; on a GitOps offsets ConfigMap the id of its GitOps operation.
ANNOTATION_OPERATION = "kubectl-offsets.io/operation"
BACKUP_KEY = "offsets.json"  # the data key of a backup ConfigMap
# The backup ConfigMap's record of which partitions the operation that took it changed ({"partitions": [...]} or
# {"all": true} for a reset): undo puts back those and leaves partitions the operation never touched alone.
BACKUP_CHANGED_KEY = "changed.json"
# On a KafkaConnector that `kubectl offsets create` created stopped, until it has the state its manifest asks for:
# {"requestedState": "running"|"paused"|"stopped"|null}. Seen on a connector left stopped by an interrupted create.
ANNOTATION_CREATING = "kubectl-offsets.io/creating"


class Role(StrEnum):
    """The value of LABEL_ROLE: which of our ConfigMaps this is."""

    BACKUP = "backup"  # core/online/backups.py
    ALTER = "alter"  # the document an online alter/undo hands to the operator (alter_configmap_name)
    GITOPS_OFFSETS = "gitops-offsets"  # the document a GitOps alter commits (gitops_configmap_name)


# Kubernetes' limits (apimachinery validation): object names are DNS subdomains of at most 253 characters, label
# values at most 63. A custom resource may be named with up to 253, so every name and label derived from it is cut.
NAME_MAX = 253
LABEL_VALUE_MAX = 63
BACKUP_SUFFIX_ROOM = 3  # "-2" .. "-99", added to a backup's name when that second is already taken


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def label_value(resource_name: str) -> str:
    """A resource name as a label value: itself when it fits, else its first 54 characters and 8 hex digits of its
    SHA-256 (``<prefix>-1a2b3c4d``): still recognisable, distinct for names sharing a prefix, and stable, so the
    backups of a long-named connector are found again by label."""
    if len(resource_name) <= LABEL_VALUE_MAX:
        return resource_name
    return f"{_cut(resource_name, LABEL_VALUE_MAX - 9)}-{_digest(resource_name)}"


def derived_name(resource_name: str, suffix: str, room: int = 0) -> str:
    """``<resource><suffix>``, with the resource part cut to a prefix + hash when the whole (plus ``room`` for a
    later suffix) would pass the 253 characters of an object name."""
    if len(resource_name) + len(suffix) + room <= NAME_MAX:
        return resource_name + suffix
    keep = NAME_MAX - room - len(suffix) - 9
    return f"{_cut(resource_name, keep)}-{_digest(resource_name)}{suffix}"


def _cut(name: str, length: int) -> str:
    """A prefix that may be followed by '-': no trailing '-' or '.' (".-" is not a valid DNS label boundary)."""
    return name[:length].rstrip("-.")


def offsets_configmap_name(resource_name: str) -> str:
    """The tool-owned ConfigMap that list writes to and alter reads from."""
    return derived_name(resource_name, "-offsets")


def backup_configmap_name(resource_name: str, when: _dt.datetime) -> str:
    """``<name>-offsets-backup-20261122t101500z``: sortable, and a valid ConfigMap name (lower case)."""
    return derived_name(resource_name, f"-offsets-backup-{when.strftime('%Y%m%dt%H%M%Sz')}", BACKUP_SUFFIX_ROOM)


def utc_now() -> _dt.datetime:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)


def alter_configmap_name(resource_name: str) -> str:
    """The tool-owned ConfigMap that alter/undo write the requested offsets to (``alterOffsets.fromConfigMap``).
    Kept apart from the list ConfigMap so that listing (to verify) never overwrites the request being recovered."""
    return derived_name(resource_name, "-offsets-alter")


# --- GitOps mode (docs/gitops.md) --------------------------------------------------------------------------------
# On the custom resource *in git* while a GitOps operation is between phase 1 and phase 2: compact JSON
# {"id", "phase", "operation", "connector", "configMap", "previousState", ...} (schemas/gitops-record.schema.json).
# It is ours, not Strimzi's, so re-applying it any number of times triggers nothing.
ANNOTATION_GITOPS = "kubectl-offsets.io/gitops"
# Set *on the cluster only* (never in git), in the same patch as Strimzi's one-shot annotation: the id of the GitOps
# operation that was fired. A trigger (command, Job or Argo CD hook) that finds its own id here does nothing.
ANNOTATION_TRIGGERED = "kubectl-offsets.io/triggered"


def gitops_configmap_name(resource_name: str, operation_id: str) -> str:
    """The offsets ConfigMap a GitOps alter commits: unique per operation, so a kept record never collides with
    the next operation or with the list/alter ConfigMaps of the online commands."""
    return derived_name(resource_name, f"-offsets-{operation_id[:8]}")


class Trigger(StrEnum):
    """How the operation of a synced GitOps phase 1 is fired (``gitops ... --trigger``; docs/gitops.md). Stored in the GitOps
    record: never rename a value."""

    COMMAND = "command"  # someone runs `kubectl offsets trigger` after the sync
    JOB = "job"  # a one-shot Job committed with phase 1 (core/gitops/trigger_job.py)
    ARGOCD = "argocd"  # the same Job as an Argo CD PostSync hook


TRIGGERS = tuple(Trigger)


# The image of the one-shot trigger Job: a fixed kubectl version with a POSIX shell, never a moving tag such as
# "latest" (what runs on the cluster must not change under a reviewed manifest). docs/gitops.md shows how to pin a
# digest with --trigger-image.
DEFAULT_TRIGGER_IMAGE = "alpine/k8s:1.32.3"
# The Job controller copies a Job's name into its pods' job-name label, and a label value has at most 63 characters.
MAX_JOB_NAME = 63


def trigger_job_name(resource_name: str, operation_id: str) -> str:
    """The one-shot trigger Job (and its ServiceAccount/Role/RoleBinding): unique per operation, at most 63
    characters. A long resource name is cut and completed by a hash of the whole name, so two long names that share
    their beginning still get different Jobs."""
    suffix = f"-offsets-trigger-{operation_id[:8]}"
    if len(resource_name) + len(suffix) <= MAX_JOB_NAME:
        return resource_name + suffix
    digest = hashlib.sha256(resource_name.encode()).hexdigest()[:8]
    keep = MAX_JOB_NAME - len(suffix) - len(digest) - 1
    return f"{resource_name[:keep].rstrip('.-')}-{digest}{suffix}"
