"""``kubectl offsets trigger`` for a GitOps phase 1: fire Strimzi's one-shot annotation exactly once.

The pieces are the online flow's (``targets.resolve``/``preflight``, ``OperatorClient`` waits and patches,
``configmaps``); what this adds is the GitOps bookkeeping:
- the operation comes from the record annotation that phase 1 committed (``kubectl-offsets.io/gitops``), so the
  trigger needs no repository and cannot fire something phase 1 did not ask for;
- our marker ``kubectl-offsets.io/triggered=<id>`` goes into the *same* JSON Patch as Strimzi's annotation(s), so a
  second run (by hand, or the trigger Job) sees it and does nothing: it never fires twice;
- the marker exists only on the cluster; GitOps syncs leave it alone because git never declares it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import strimzi
from ...conventions import ANNOTATION_GITOPS, ANNOTATION_TRIGGERED
from ...errors import InputError, PreconditionError
from ...model import OffsetsDocument, Options
from ...output.progress import Progress, SilentProgress
from .. import configmaps, operations
from ..targets import LiveTarget, TargetSpec, preflight, resolve


@dataclass
class TriggerResult:
    target: strimzi.ConnectorTarget
    action: str
    operation_id: str | None
    kind: object = None  # connect.ConnectorKind, for rendering
    already: bool = False
    after: OffsetsDocument | None = None


def record_of(resource: dict[str, Any]) -> dict[str, Any] | None:
    text = ((resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_GITOPS)
    if not text:
        return None
    from .plan import parse_record

    return parse_record(text, "on the cluster")


def trigger(kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
            progress: Progress | None = None, force: bool = False) -> TriggerResult:
    options, progress = options or Options(), progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    record = record_of(live.resource)
    if record is None:  # no GitOps record: the plain online trigger (spec already stopped by other means)
        after = operations.trigger(kube, spec, namespace=namespace, options=options, progress=progress)
        return TriggerResult(live.target, "alter/reset", None, live.kind, after=after)
    _check_record(live, record)
    marker = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_TRIGGERED)
    if marker == record["id"] and not force:
        return TriggerResult(live.target, record["operation"], record["id"], live.kind, already=True)
    preflight(kube, live, mutating=True)
    return _fire(kube, live, record, options, progress)


def _check_record(live: LiveTarget, record: dict[str, Any]) -> None:
    target = live.target
    if record.get("connector") != target.connector_name:
        raise InputError(f"the GitOps operation on {target.resource_name} is for connector "
                         f"'{record.get('connector')}', not '{target.connector_name}'",
                         advice=f"use --connector '{record.get('connector')}'")
    stanza = target.stanza(live.resource)
    if stanza.get(strimzi.FIELD_STATE) != strimzi.STATE_STOPPED:
        raise PreconditionError(f"{target.display} does not have spec.state: stopped yet",
                                advice="merge and sync GitOps phase 1 first, then run trigger")
    wanted = record.get("configMap")
    named = ((stanza.get(strimzi.FIELD_ALTER_OFFSETS) or {}).get(strimzi.FIELD_FROM_CONFIGMAP) or {}).get("name")
    if record.get("operation") == "alter" and named != wanted:
        raise PreconditionError(f"{target.display}: alterOffsets names '{named}' but phase 1 wrote '{wanted}'",
                                advice="sync phase 1 completely (is the resource out of sync?), then retry")


def _fire(kube, live: LiveTarget, record: dict[str, Any], options: Options, progress: Progress) -> TriggerResult:
    target, action = live.target, record["operation"]
    change = configmaps.get_document(kube, target, record["configMap"], written_by="GitOps phase 1") \
        if action == "alter" else None
    after = operations.fire_prepared(kube, live, change, options, progress,
                                     extra_annotations={ANNOTATION_TRIGGERED: record["id"]},
                                     label=f" (GitOps operation {record['id']})")
    return TriggerResult(target, action, record["id"], live.kind, after=after)
