"""`kubectl offsets list` without a target: every connector of the selected resources, as `kcctl get connectors`
shows them, from what the operator copied into each resource's status (``connectorStatus`` of a KafkaConnector,
``connectors[]`` of a KafkaMirrorMaker2). No listOffsets round trip: nothing is annotated or written."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from ... import strimzi
from ...errors import ApiNotServedError, NotFoundError
from .fleet import Member, Selection

if TYPE_CHECKING:
    from ...adapters.kube import Kube


@dataclass(frozen=True)
class ConnectorRow:
    member: Member
    connector_class: str | None
    type: str | None  # Connect's "source" / "sink" from the status; None before the operator's first pass
    state: str | None  # Connect's connector state (RUNNING, PAUSED, STOPPED, FAILED, ...)
    tasks_running: int
    tasks: int

    @property
    def name(self) -> str:
        """What a user types as TARGET: a KafkaConnector's bare name, ``kmm2/NAME`` for MirrorMaker 2."""
        return self.member.name if self.member.kind == strimzi.KIND_CONNECTOR else f"kmm2/{self.member.name}"

    def to_json(self) -> dict[str, Any]:
        return {"namespace": self.member.namespace, "name": self.name, "kind": self.member.kind,
                "connector": self.member.connector, "type": self.type, "class": self.connector_class,
                "state": self.state, "tasksRunning": self.tasks_running, "tasks": self.tasks}


def overview(kube: Kube, selection: Selection) -> list[ConnectorRow]:
    """One row per connector, sorted by namespace, kind and name (as fleet.select)."""
    namespace = None if selection.all_namespaces else (selection.namespace or kube.namespace)
    rows: list[ConnectorRow] = []
    not_served: list[NotFoundError] = []
    for kind in (strimzi.KIND_CONNECTOR, strimzi.KIND_MM2):
        try:
            resources = kube.list_selected(kind, namespace, selection.selector)
        except NotFoundError as error:  # the kind is not served (no KafkaMirrorMaker2 CRD): it contributes nothing
            not_served.append(error)
            continue
        for resource in resources:
            targets = ([strimzi.connector_target(resource)] if kind == strimzi.KIND_CONNECTOR
                       else strimzi.mm2_targets(resource))
            rows += [_row(target, resource) for target in targets]
    if len(not_served) == 2 and isinstance(not_served[0], ApiNotServedError):
        raise not_served[0]  # neither kind: Strimzi is not installed, which "No resources found" would hide
    return sorted(rows, key=lambda r: r.member)


def _row(target: strimzi.ConnectorTarget, resource: Mapping[str, Any]) -> ConnectorRow:
    status = target.connector_status(resource) or {}
    tasks = status.get("tasks") or []
    member = Member(target.namespace, target.kind, target.resource_name, target.connector_name)
    return ConnectorRow(member, target.connector_class(resource), status.get("type"),
                        (status.get("connector") or {}).get("state"),
                        sum(1 for t in tasks if t.get("state") == "RUNNING"), len(tasks))
