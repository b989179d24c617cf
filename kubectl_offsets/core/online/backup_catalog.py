"""`kubectl offsets backups`: the backup ConfigMaps that alter, reset and undo leave behind (``backups.py`` writes
them), listed across connectors and namespaces, and pruned.

A prune deletes only ConfigMaps that carry both our role label (``kubectl-offsets.io/role=backup``) and our
``app.kubernetes.io/managed-by=kubectl-offsets``: a ConfigMap someone else named like ours is never touched. It keeps
the newest backup of every connector unless ``keep=0`` is asked for explicitly, because that backup is what
``undo`` restores by default. Local backup files (``backups.state_dir()``) are left alone.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from ...adapters.kube import ConflictError
from ...conventions import (ANNOTATION_CONNECTOR, ANNOTATION_JOURNAL, ANNOTATION_OPERATION, ANNOTATION_TAKEN_AT,
                            LABEL_MANAGED_BY, LABEL_ROLE, LABEL_TARGET, MANAGED_BY, Role, label_value)
from ...errors import ApiNotServedError, InputError, NotFoundError, OffsetsError
from ...strimzi import KIND_CONNECTOR, KIND_MM2
from ...times import parse_instant
from .backups import newest_first_key as _order
from .journal import Journal

if TYPE_CHECKING:
    from ...adapters.kube import Kube

# Server-side filter: only ConfigMaps with both of our labels are even read.
OWNED_BACKUPS = f"{LABEL_ROLE}={Role.BACKUP},{LABEL_MANAGED_BY}={MANAGED_BY}"


@dataclass(frozen=True)
class Scope:
    """Which backups: one namespace (None with ``all_namespaces``: every namespace), optionally only those of
    the custom resources named in ``resources`` (``None``: every resource), or of the given (namespace, resource,
    connector) members (a -l selection)."""

    namespace: str | None = None
    all_namespaces: bool = False
    resources: frozenset[tuple[str, str]] | None = None  # (kind, name): kafkaconnector/app is not kmm2/app
    members: frozenset[tuple[str, str, str]] | None = None


@dataclass(frozen=True)
class Backup:
    namespace: str
    name: str
    resource: str  # the kubectl-offsets.io/target label: the resource name (cut and hashed when long)
    connector: str
    operation: str
    taken_at: str
    age: dt.timedelta | None
    size: int  # bytes of data (keys and values), what the ConfigMap costs in etcd roughly
    resource_version: str | None
    owned: bool
    order: tuple[str, int]

    @classmethod
    def from_configmap(cls, configmap: dict[str, Any], now: dt.datetime) -> "Backup":
        metadata = configmap.get("metadata") or {}
        labels, annotations = metadata.get("labels") or {}, metadata.get("annotations") or {}
        taken_at = annotations.get(ANNOTATION_TAKEN_AT) or metadata.get("creationTimestamp") or ""
        data = configmap.get("data") or {}
        return cls(namespace=metadata.get("namespace", ""), name=metadata["name"],
                   resource=labels.get(LABEL_TARGET, ""), connector=annotations.get(ANNOTATION_CONNECTOR, ""),
                   operation=annotations.get(ANNOTATION_OPERATION, ""), taken_at=taken_at,
                   age=_age(taken_at, now),
                   size=sum(len(k.encode()) + len(str(v).encode()) for k, v in data.items()),
                   resource_version=metadata.get("resourceVersion"),
                   owned=labels.get(LABEL_ROLE) == Role.BACKUP and labels.get(LABEL_MANAGED_BY) == MANAGED_BY,
                   order=_order(configmap))

    @property
    def connector_key(self) -> tuple[str, str, str]:
        return (self.namespace, self.resource, self.connector)

    @property
    def kind(self) -> str:
        """The backed-up resource's kind, which the labels do not say: a KafkaConnector's connector has the
        resource's name (Strimzi names it after metadata.name), a mirror's connectors have generated names
        (source->target.MirrorSourceConnector), which are never a resource name."""
        return KIND_CONNECTOR if label_value(self.connector) == self.resource else KIND_MM2

    def to_json(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name, "resource": self.resource,
                "connector": self.connector, "operation": self.operation, "takenAt": self.taken_at,
                "ageSeconds": int(self.age.total_seconds()) if self.age is not None else None, "size": self.size}


def _age(taken_at: str, now: dt.datetime) -> dt.timedelta | None:
    try:
        when = parse_instant(taken_at)
    except ValueError:
        return None  # shown without an age; a prune by age leaves it alone
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(dt.timedelta(), now - when)


def find(kube: Kube, scope: Scope, now: dt.datetime | None = None) -> list[Backup]:
    """Our backups in ``scope``, newest first within each connector (grouped by namespace, resource, connector)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    namespace = None if scope.all_namespaces else (scope.namespace or kube.namespace)
    found = [Backup.from_configmap(cm, now) for cm in kube.list_configmaps(namespace, OWNED_BACKUPS)]
    found = [b for b in found if b.owned and _in_scope(b, scope)]
    found.sort(key=lambda b: b.order, reverse=True)
    found.sort(key=lambda b: b.connector_key)
    return found


def _in_scope(backup: Backup, scope: Scope) -> bool:
    if scope.resources is not None and (backup.kind, backup.resource) not in {
            (kind, label_value(name)) for kind, name in scope.resources}:
        return False
    if scope.members is not None:
        return (backup.namespace, backup.resource, backup.connector) in {
            (ns, label_value(resource), connector) for ns, resource, connector in scope.members}
    return True


def named_by_journals(kube: Kube, scope: Scope) -> set[tuple[str, str]]:
    """(namespace, name) of every backup that an operation's journal names: an interrupted alter, reset or undo
    that ``recover`` may still need to roll back from it. The journals are on the custom resources."""
    namespace = None if scope.all_namespaces else (scope.namespace or kube.namespace)
    named: set[tuple[str, str]] = set()
    for kind in (KIND_CONNECTOR, KIND_MM2):
        try:
            resources = kube.list_selected(kind, namespace)
        except ApiNotServedError:
            continue  # no resource of that kind, so no journal
        for resource in resources:
            metadata = resource.get("metadata") or {}
            text = (metadata.get("annotations") or {}).get(ANNOTATION_JOURNAL)
            if text is None:
                continue
            try:
                named.add((metadata.get("namespace", ""), Journal.from_annotation(text).backup))
            except OffsetsError:
                continue  # a journal nobody can read names no backup we could recognise
    return named


def plan_prune(backups: Iterable[Backup], *, keep: int | None, older_than: dt.timedelta | None,
               protected: set[tuple[str, str]] | frozenset[tuple[str, str]] = frozenset()) -> list[Backup]:
    """What a prune deletes, per connector: the backups past the newest ``keep`` (default 1 when only
    ``older_than`` is given) and, with ``older_than``, only those older than it. ``keep=0`` is the one way to let
    the newest backup of a connector go. ``protected`` (named_by_journals) are never deleted."""
    if keep is None and older_than is None:
        raise InputError("--prune needs --keep N or --older-than DURATION (or both)",
                         advice="for example --prune --keep 3, or --prune --older-than 30d")
    if keep is not None and keep < 0:
        raise InputError(f"--keep {keep} is negative", advice="--keep 0 deletes every matching backup; 1 keeps the "
                                                              "newest of each connector")
    kept_per_connector = 1 if keep is None else keep
    doomed: list[Backup] = []
    seen: dict[tuple[str, str, str], int] = {}
    for backup in sorted(backups, key=lambda b: b.order, reverse=True):
        rank = seen.get(backup.connector_key, 0)
        seen[backup.connector_key] = rank + 1
        if rank < kept_per_connector:
            continue
        if older_than is not None and (backup.age is None or backup.age <= older_than):
            continue
        if (backup.namespace, backup.name) in protected:
            continue
        doomed.append(backup)
    return sorted(doomed, key=lambda b: (b.connector_key, b.order))


@dataclass
class PruneReport:
    """What a prune did with each backup it meant to delete."""

    deleted: list[Backup] = field(default_factory=list)
    gone: list[Backup] = field(default_factory=list)  # deleted by someone else meanwhile (404)
    changed: list[Backup] = field(default_factory=list)  # changed since it was listed (409): left alone


def delete(kube: Kube, doomed: Iterable[Backup]) -> PruneReport:
    """Delete each backup as it was listed (its resourceVersion), after checking again that it is ours. A backup
    already gone or changed meanwhile is reported and the others are still deleted."""
    doomed = list(doomed)
    foreign = [b.name for b in doomed if not b.owned]
    if foreign:
        raise InputError(f"refusing to delete ConfigMaps kubectl-offsets does not own: {', '.join(foreign)}",
                         advice=f"only ConfigMaps labelled {OWNED_BACKUPS} are pruned")
    report = PruneReport()
    for backup in doomed:
        try:
            kube.delete_configmap(backup.name, backup.namespace, resource_version=backup.resource_version)
        except NotFoundError:
            report.gone.append(backup)
        except ConflictError:
            report.changed.append(backup)
        else:
            report.deleted.append(backup)
    return report
