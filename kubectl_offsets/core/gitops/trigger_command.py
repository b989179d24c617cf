"""``kubectl offsets trigger`` for a GitOps phase 1: fire Strimzi's one-shot annotation exactly once.

The pieces are the online flow's (``targets.resolve``/``preflight``, ``OperatorClient`` waits and patches,
``configmaps``); what this adds is the GitOps bookkeeping:
- the operation comes only from the record annotation that phase 1 committed (``kubectl-offsets.io/gitops``), so the
  trigger needs no repository and cannot fire something phase 1 did not ask for (no record: it refuses, even on a
  stopped connector, whose stale alterOffsets would otherwise be re-applied or whose offsets would be reset);
- it backs up the offsets first and journals like alter (the engine runs ``steps.PREPARED``), so an interrupted
  trigger is finished by ``recover`` and a finished one undone by ``undo``;
- our marker ``kubectl-offsets.io/triggered=<id>`` goes into the *same* JSON Patch as Strimzi's annotation(s), so a
  second run (by hand, or the trigger Job) sees it and does nothing: it never fires twice;
- the marker exists only on the cluster; GitOps syncs leave it alone because git never declares it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_GITOPS, ANNOTATION_TRIGGERED, Operation
from ...errors import InputError, NotFoundError, OffsetsError, OperatorError, PreconditionError
from ...model import OffsetsDocument, Options
from ...progress import Progress, SilentProgress
from ..online import configmaps
from ..online.targets import LiveTarget, TargetSpec, preflight, resolve

if TYPE_CHECKING:
    from ...adapters.kube import Kube


@dataclass
class TriggerResult:
    target: strimzi.ConnectorTarget
    action: str
    operation_id: str | None
    kind: ConnectorKind | None = None  # for rendering
    already: bool = False
    after: OffsetsDocument | None = None
    backup: str | None = None  # the ConfigMap holding the offsets before the trigger (undo restores it)
    change: OffsetsDocument | None = None  # what an alter hands Strimzi: phase 1's ConfigMap, read before firing
    configmap: str | None = None  # that ConfigMap's name
    # --dry-run: the connector's last list (None: never listed), the writes the engine recorded (description, body),
    # and with --dry-run=server how many of them the API server judged
    before: OffsetsDocument | None = None
    writes: list[tuple[str, Any]] = field(default_factory=list)
    server_judged: int | None = None


def record_of(resource: dict[str, Any]) -> dict[str, Any] | None:
    text = ((resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_GITOPS)
    if not text:
        return None
    from .plan import parse_record

    return parse_record(text, "on the cluster")


def trigger(kube: Kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
            progress: Progress | None = None, force: bool = False) -> TriggerResult:
    options, progress = options or Options(), progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    record = record_of(live.resource)
    if record is None:
        raise _no_record(live)
    _check_record(live, record)
    marker = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_TRIGGERED)
    if marker == record["id"] and not force:
        return TriggerResult(live.target, record["operation"], record["id"], live.kind, already=True)
    change = _phase1_change(kube, live.target, record)
    preflight(kube, live, mutating=True, wait=options.wait, progress=progress)
    if options.dry_run:  # every check above ran; firing is the first write
        return _recorded_fire(kube, live, record, change, options)
    return _fire(kube, live, record, change, options, progress)


def _no_record(live: LiveTarget) -> PreconditionError:
    """Without the record, a stopped connector says nothing about what was asked: firing a reset (or re-applying
    whatever ConfigMap a stale alterOffsets names) would change offsets nobody requested, with no backup."""
    target = live.target
    stanza = target.stanza(live.resource)
    named = ((stanza.get(strimzi.FIELD_ALTER_OFFSETS) or {}).get(strimzi.FIELD_FROM_CONFIGMAP) or {}).get("name")
    stale = f" (its alterOffsets names configmap/{named}, which trigger will not re-apply)" if named else ""
    return PreconditionError(
        f"{target.display} has no {ANNOTATION_GITOPS} record{stale}, so there is no GitOps phase 1 to trigger; "
        "nothing was changed",
        advice="trigger fires only what 'kubectl offsets gitops' phase 1 committed: merge and sync phase 1, then "
        f"retry. To change the offsets directly use kubectl offsets alter or reset {target.display} "
        f"-n {target.namespace} (they back up, journal and verify)")


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
    if record.get("operation") == Operation.ALTER and named != wanted:
        raise PreconditionError(f"{target.display}: alterOffsets names '{named}' but phase 1 wrote '{wanted}'",
                                advice="sync phase 1 completely (is the resource out of sync?), then retry")


def _phase1_change(kube: Kube, target: strimzi.ConnectorTarget, record: dict[str, Any]) -> OffsetsDocument | None:
    """The offsets an alter hands Strimzi, read from phase 1's ConfigMap and checked before anything is written
    (and by --dry-run): a ConfigMap the sync has not applied yet, or that holds no offsets document, is refused
    here instead of after the backup and the journal."""
    if record.get("operation") != Operation.ALTER:
        return None
    name = record.get("configMap")
    synced = "sync phase 1 completely (its ConfigMap beside the connector, in its namespace), then retry"
    if not name:
        raise PreconditionError(f"the GitOps record on {target.display} names no offsets ConfigMap for its alter; "
                                "nothing was changed", advice=f"phase 1 writes it: {synced}")
    try:
        configmap = kube.get_configmap(name, target.namespace)
    except NotFoundError:
        raise PreconditionError(f"configmap/{name}, which GitOps phase 1 adds, does not exist in namespace "
                                f"{target.namespace}: there are no offsets to hand Strimzi; nothing was changed",
                                advice=synced) from None
    try:
        return configmaps.parse_document(configmap, target.configmap_key, f"configmap/{name}")
    except OperatorError as error:
        raise PreconditionError(f"{error.message}, so GitOps phase 1's alter cannot be fired; nothing was changed",
                                advice="fix the ConfigMap in the repository and sync it, or start over with "
                                       "kubectl offsets gitops next and a new gitops alter") from None


def _run(kube: Kube, live: LiveTarget, record: dict[str, Any], change: OffsetsDocument | None, options: Options,
         progress: Progress):
    """The engine's run of ``steps.PREPARED`` that fires phase 1's request, for the real run and the dry run alike."""
    from ..online.engine import Run
    from ..online.steps import PREPARED

    action = record["operation"]
    return Run(PREPARED, kube, live.target, live.kind, options.wait, progress, operation=action, request=action,
               plan=lambda stopped: change, marker={ANNOTATION_TRIGGERED: record["id"]},
               offsets_configmap=record.get("configMap"))


def _recorded_fire(kube: Kube, live: LiveTarget, record: dict[str, Any], change: OffsetsDocument | None,
                   options: Options) -> TriggerResult:
    """--dry-run: the same engine run against a recording client (``operations.record_run``), starting from the
    connector's last list; nothing is written. The writes it would send are the result's ``writes``."""
    from ..online.operations import peek_last_list, record_run

    last, listed_at = peek_last_list(kube, live)
    recorder = record_run(kube, live, options, (last, listed_at), lambda client, _recorder: _run(
        client, live, record, change, options, SilentProgress()))
    return TriggerResult(live.target, record["operation"], record["id"], live.kind, change=change,
                         configmap=record.get("configMap"), before=last,
                         writes=[(write.description, write.body) for write in recorder.writes],
                         server_judged=recorder.sent if options.dry_run_server else None)


def _fire(kube: Kube, live: LiveTarget, record: dict[str, Any], change: OffsetsDocument | None, options: Options,
          progress: Progress) -> TriggerResult:
    """Fire through the engine (``steps.PREPARED``): wait until Connect reports it stopped, back up (the list is
    exact then), and hand phase 1's request over (``change``: its ConfigMap's offsets, read and checked before
    anything was written) with our marker in the same patch."""
    target, action = live.target, record["operation"]
    progress.step(f"firing GitOps operation {record['id']} ({action})")
    flow = _run(kube, live, record, change, options, progress)
    try:
        outcome = flow.execute()
    except OffsetsError as error:
        if flow.journal is None or not flow.journal.past_point_of_no_return:
            raise
        # The marker went on with the request and stays (it may have been acted on): a plain re-run would say
        # "already triggered".
        raise type(error)(error.message, advice=f"{error.advice or ''}; the resource is marked {ANNOTATION_TRIGGERED}="
                          f"{record['id']}: once the cause is fixed (and any recover done), fire again with kubectl "
                          f"offsets trigger {target.display} -n {target.namespace} --force".lstrip("; "),
                          next_command=error.next_command) from None
    return TriggerResult(target, action, record["id"], live.kind, after=outcome.after, backup=outcome.backup)
