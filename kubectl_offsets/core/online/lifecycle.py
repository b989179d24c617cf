"""Connector lifecycle: create a KafkaConnector at chosen offsets, and delete one so that its offsets do not
outlive it.

Kafka Connect keeps a deleted connector's offsets (a sink's consumer group, a source's records in the offsets
topic), so a connector re-created under the same name silently resumes from the old position. ``create`` therefore
creates the connector stopped, lists what it holds (leftovers), shows them in the preview, applies the requested
offsets through the normal alter flow (backup, journal, verify) and only then sets the state the manifest asks for.
``delete --reset-offsets`` resets (with a backup) before deleting, so a later connector of that name starts clean.

Strimzi 1.2+ creates a connector directly in its requested state (``initial_state``), so one created stopped never
processes a record before its offsets are set. Older operators create it running and stop it in the same
reconcile: a few records may be processed first (the start window), which ``create`` requires the user to accept.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from ... import clock as clocks
from ... import files, strimzi
from ...connect import ConnectorKind, connector_kind
from ...conventions import ANNOTATION_CREATING, ANNOTATION_JOURNAL, Operation
from ...errors import ConflictError, InputError, NotFoundError, OffsetsError, PreconditionError
from ...model import OffsetEntry, OffsetsDocument, Options
from ...strimzi import OffsetsAction
from ...progress import Progress, SilentProgress
from ..inputs import AlterRequest, ConnectorFacts, build_change
from . import steps
from .engine import Declaration, Run, SimulatedCrash, StepSpec, as_offsets_error
from .configmaps import check_list_configmap
from .journal import Step, refuse_other_operation
from .operator import OperatorClient
from .operator_version import OperatorVersion, detect
from .writes import guarded
from .targets import LiveTarget, TargetSpec, _check_connect_cluster, topic_filter

if TYPE_CHECKING:
    from ...adapters.kube import Kube


# --- the manifest -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """A KafkaConnector as the user's file has it."""

    body: dict[str, Any]
    path: str

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]

    @property
    def requested_state(self) -> str | None:
        """spec.state as the file says it; None = absent (running)."""
        return (self.body.get("spec") or {}).get(strimzi.FIELD_STATE)

    def namespace(self, flag: str | None, default: str) -> str:
        own = self.body["metadata"].get("namespace")
        if flag and own and flag != own:
            raise InputError(f"{self.path} says namespace {own}, but -n/--namespace says {flag}",
                             advice="drop one of them, or make them agree")
        return flag or own or default


def read_manifest(path: str) -> Manifest:
    """One KafkaConnector from a YAML or JSON file (or ``-`` for standard input), with the checks the operator
    would otherwise only report later as NotReady."""
    import sys

    from ...adapters.yamlfiles import load_all_data  # heavy (ruamel.yaml); only here

    text = sys.stdin.read() if path == "-" else files.read_text(path)
    where = "standard input" if path == "-" else path
    documents = [d for d in load_all_data(text, where) if d is not None]
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise InputError(f"{where} must hold exactly one KafkaConnector (found {len(documents)} documents)",
                         advice="one resource per file; kubectl offsets create creates one connector")
    body = documents[0]
    _check_manifest(body, where)
    return Manifest(body, where)


def _check_manifest(body: dict[str, Any], where: str) -> None:
    if body.get("kind") != strimzi.KIND_CONNECTOR or not str(body.get("apiVersion", "")).startswith(
            strimzi.GROUP + "/"):
        raise InputError(f"{where} is a {body.get('kind') or 'resource without kind'} "
                         f"({body.get('apiVersion') or 'no apiVersion'}), not a KafkaConnector",
                         advice=f"apiVersion: {strimzi.GROUP}/v1 and kind: KafkaConnector; MirrorMaker 2 connectors "
                         "come and go with their KafkaMirrorMaker2")
    metadata = body.get("metadata") or {}
    strimzi.parse_target(str(metadata.get("name") or ""))  # a valid resource name, or an InputError
    if not strimzi.connect_cluster_of(body):
        raise InputError(f"{where}: the KafkaConnector has no {strimzi.LABEL_CLUSTER} label",
                         advice=f"add metadata.labels.{strimzi.LABEL_CLUSTER}: <the KafkaConnect's name>")
    spec = body.get("spec")
    if not isinstance(spec, dict) or not spec.get("class"):
        raise InputError(f"{where}: spec.class (the connector class) is missing")
    state = spec.get(strimzi.FIELD_STATE)
    if state is not None and state not in strimzi.STATES:
        raise InputError(f"{where}: spec.state '{state}' is not one of {', '.join(strimzi.STATES)}")
    if strimzi.reconciliation_paused(body):
        raise InputError(f"{where} pauses reconciliation ({strimzi.ANNOTATION_PAUSE_RECONCILIATION}=true): the "
                         "operator would never create the connector", advice="remove the annotation")
    for field in (strimzi.FIELD_ALTER_OFFSETS, strimzi.FIELD_LIST_OFFSETS):
        if field in spec:
            raise InputError(f"{where}: spec.{field} is managed by kubectl offsets create",
                             advice=f"remove spec.{field} from the file")
    annotations = metadata.get("annotations") or {}
    if strimzi.ANNOTATION_CONNECTOR_OFFSETS in annotations:
        raise InputError(f"{where} carries {strimzi.ANNOTATION_CONNECTOR_OFFSETS}", advice="remove the annotation")


def connect_name(manifest: Manifest) -> str:
    """The KafkaConnect the connector belongs to (its strimzi.io/cluster label, checked by read_manifest)."""
    return strimzi.connect_cluster_of(manifest.body) or ""


def travel_with_default_topics(travel, manifest: Manifest):
    """Time travel for a new connector without --topic: every partition of the topics its config names
    (``topics``); a connector that names none (a source, ``topics.regex``) needs --topic."""
    if travel.topics:
        return travel
    config = (manifest.body.get("spec") or {}).get("config") or {}
    topics = tuple(t.strip() for t in str(config.get("topics") or "").split(",") if t.strip())
    if not topics:
        raise InputError(f"{travel.flag} for a new connector needs the topics to move",
                         advice="add --topic TOPIC (all its partitions) or --topic TOPIC:0,1")
    return replace(travel, topics=topics)


# --- create ------------------------------------------------------------------------------------------------------


@dataclass
class CreatePlan:
    """What create will do, known before anything is created (also what --dry-run prints)."""

    manifest: Manifest
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    change: OffsetsDocument | None  # None: no offsets given (only --from-scratch)
    operator: OperatorVersion
    created_body: dict[str, Any]


@dataclass
class CreateOutcome:
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    leftovers: OffsetsDocument
    change: OffsetsDocument | None  # what was applied (None: nothing, or a reset)
    after: OffsetsDocument
    backup: str | None
    final_state: str
    operator: OperatorVersion


Confirm = Callable[[Any], bool]
ChangeBuilder = Callable[[ConnectorFacts], OffsetsDocument]


def plan_create(kube: Kube, manifest: Manifest, offsets: AlterRequest | Any | None, *, from_scratch: bool,
                accept_start_window: bool, namespace: str | None, progress: Progress) -> CreatePlan:
    """Every check that needs no change: the input, the namespace, the KafkaConnect, RBAC, the operator version,
    and the offsets document (built against the manifest's connector)."""
    if offsets is None and not from_scratch:
        raise InputError("nothing to set: give the offsets (--offsets FILE, --set, --to-offset, --skip-record, "
                         "--to-datetime, ...) or --from-scratch", advice="to create a connector without choosing "
                         "its offsets, use kubectl apply -f")
    if offsets is not None:
        offsets.check_combination()
        if offsets.needs_current:
            raise InputError("a new connector has no current offsets to move or select from",
                             advice="name the partitions (--topic TOPIC:0,1) and use absolute offsets, not --shift-by")
    ns = manifest.namespace(namespace, kube.namespace)
    body = copy.deepcopy(manifest.body)
    body["metadata"]["namespace"] = ns
    target = strimzi.connector_target(body)
    _check_absent(kube, target)
    check_list_configmap(kube, target, body)  # create lists the new connector's leftovers through it
    _check_connect_cluster(kube, body, ns)
    _check_create_permissions(kube, target)
    kind = connector_kind(body["spec"].get("class"), None)
    change = _build(offsets, _facts(target, body, kind))
    operator = _check_operator(kube, ns, accept_start_window, progress)
    created = _stopped_body(body, manifest.requested_state)
    # Written through the version the plugin reads KafkaConnectors with (v1beta2 while it is served, until Strimzi 1.0.0;
    # strimzi.VERSIONS):
    # the API server insists that the body's apiVersion is the one of the URL.
    created["apiVersion"] = f"{strimzi.GROUP}/{kube.served_version(strimzi.KIND_CONNECTOR)}"
    return CreatePlan(manifest, target, kind, change, operator, created)


def _check_absent(kube: Kube, target: strimzi.ConnectorTarget) -> None:
    try:
        existing = kube.get(target.kind, target.resource_name, target.namespace)
    except NotFoundError:
        return
    annotations = (existing.get("metadata") or {}).get("annotations") or {}
    if ANNOTATION_CREATING in annotations:
        wanted = (json.loads(annotations[ANNOTATION_CREATING]).get("requestedState") or strimzi.DEFAULT_STATE)
        recover = f"finish its offsets with kubectl offsets recover {target.resource_name} -n {target.namespace}, " \
            if ANNOTATION_JOURNAL in annotations else ""
        raise PreconditionError(
            f"kafkaconnector/{target.resource_name} was created by a kubectl offsets create that did not finish; it "
            f"is kept STOPPED ({ANNOTATION_CREATING})",
            advice=f"{recover}check its offsets (kubectl offsets list {target.resource_name}), then give it its state "
            f"and remove the mark: {finish_command(target, wanted)}")
    raise PreconditionError(f"kafkaconnector/{target.resource_name} already exists in namespace {target.namespace}",
                            advice=f"change its offsets with kubectl offsets alter {target.resource_name}, or delete "
                            f"it first: kubectl offsets delete {target.resource_name} --reset-offsets")


def _check_create_permissions(kube: Kube, target: strimzi.ConnectorTarget) -> None:
    from .targets import check_permissions

    check_permissions(kube, target, mutating=True)
    plural = strimzi.PLURALS[target.kind]
    needed = [("create", strimzi.GROUP, plural, None), ("delete", strimzi.GROUP, plural, target.resource_name)]
    answers = kube.can_i_all([(verb, group, resource, target.namespace, name) for verb, group, resource, name in needed])
    missing = [f"{verb} {resource}" for (verb, _, resource, _), allowed in zip(needed, answers) if not allowed]
    if missing:
        from ...errors import ForbiddenError

        raise ForbiddenError(f"you may not {', '.join(missing)} in namespace {target.namespace}",
                             advice="create needs create (and, to roll back, delete) on kafkaconnectors")


def _facts(target: strimzi.ConnectorTarget, body: dict[str, Any], kind: ConnectorKind) -> ConnectorFacts:
    consumes, description = topic_filter(target, body)
    return ConnectorFacts(kind=kind, consumes=consumes, consumes_description=description)


def _build(offsets, facts: ConnectorFacts) -> OffsetsDocument | None:
    if offsets is None:
        return None
    own = getattr(offsets, "build_change", None)
    return own(facts, None) if own is not None else build_change(offsets, facts, None)


def _check_operator(kube: Kube, namespace: str, accept_start_window: bool, progress: Progress) -> OperatorVersion:
    operator = detect(kube, namespace)
    if operator.creates_stopped:
        progress.step(f"{operator.describe()} creates the connector stopped: no record is processed before its "
                      "offsets are set")
        return operator
    window = ("creates a new connector running and stops it only in the same reconcile, so its tasks may process "
              "a few records before the offsets are set")
    if not accept_start_window:
        if operator.creates_stopped is False:
            raise InputError(f"{operator.describe()}: Strimzi before 1.2 {window}",
                             advice="pass --accept-start-window to accept that (nothing was changed), or upgrade to "
                             "Strimzi 1.2+, which creates it stopped (initial_state)")
        raise InputError(f"{operator.describe()}: if it is Strimzi before 1.2, it {window}",
                         advice="pass --accept-start-window to accept that risk (nothing was changed); with permission "
                         f"to list pods labelled {strimzi.OPERATOR_POD_SELECTOR} in the operator's namespace "
                         "create can see its version")
    progress.warn(f"{operator.describe()}: the connector is created running and stopped right after; a few records "
                  "may be processed before its offsets are set (--accept-start-window)")
    return operator


def _stopped_body(body: dict[str, Any], requested: str | None) -> dict[str, Any]:
    created = copy.deepcopy(body)
    created["spec"][strimzi.FIELD_STATE] = strimzi.STATE_STOPPED
    annotations = created["metadata"].setdefault("annotations", {})
    annotations[ANNOTATION_CREATING] = json.dumps({"requestedState": requested}, separators=(",", ":"))
    for key in ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"):
        created["metadata"].pop(key, None)
    created.pop("status", None)
    return created


def create_connector(kube: Kube, manifest: Manifest, offsets: AlterRequest | Any | None = None, *, from_scratch: bool = False,
                     accept_start_window: bool = False, namespace: str | None = None, options: Options | None = None,
                     confirm: Confirm | None = None, progress: Progress | None = None) -> CreateOutcome | CreatePlan:
    """Create the KafkaConnector stopped, show its leftover offsets, apply ``offsets`` (and with ``from_scratch``
    reset every leftover), verify, then give it the state the manifest asks for. A dry run returns the plan."""
    options, progress = options or Options(), progress or SilentProgress()
    plan = plan_create(kube, manifest, offsets, from_scratch=from_scratch, accept_start_window=accept_start_window,
                       namespace=namespace, progress=progress)
    if options.dry_run:
        return plan
    target = plan.target
    progress.step(f"creating kafkaconnector/{target.resource_name} with spec.state: stopped")
    client = OperatorClient(kube, target, options.wait, progress)
    # From the create until the offsets are handed to the operator, only the new resource exists: whatever ends
    # this part (an error, Ctrl-C, "no" or Ctrl-C at the prompt, an exception from a caller's confirm) deletes it.
    created = False
    try:
        kube.create(target.kind, target.namespace, plan.created_body)
        created = True
        client.wait_for_connect_state("STOPPED")
        progress.step("listing the offsets the new connector already has (left by an earlier connector of this name)")
        leftovers = client.list_offsets()
        live = LiveTarget(target, client.read())
        change = _rebuild_for_live(offsets, plan, live)
        change = _with_reset_of_leftovers(change, leftovers) if from_scratch else change
        nothing_to_apply = change is None and not len(leftovers)
        if not nothing_to_apply:
            _confirm(live, leftovers, change, options, confirm)
    except SimulatedCrash:
        raise
    except BaseException as failure:  # noqa: BLE001 - the new resource must not be left behind, whatever ended us
        if not created:  # never delete what may be someone else's (a create that lost a race gets 409)
            raise _not_created(target, failure) from None
        raise _rolled_back(kube, target, failure, progress) from None
    if nothing_to_apply:
        progress.step("no leftover offsets: nothing to reset")
        return _finish(kube, client, plan, live.kind, leftovers, None, leftovers, None, progress)
    outcome = _apply(kube, plan, live, leftovers, change, options, progress)
    return _finish(kube, client, plan, live.kind, leftovers, outcome.change, outcome.after, outcome.backup, progress)


def _rebuild_for_live(offsets, plan: CreatePlan, live: LiveTarget) -> OffsetsDocument | None:
    """The manifest only suggested the connector's kind (by class name); Connect's status says it. Rebuild when
    they differ (a sink whose class name does not end in SinkConnector)."""
    if offsets is None or live.kind is plan.kind:
        return plan.change
    return _build(offsets, live.facts())


def _with_reset_of_leftovers(change: OffsetsDocument | None, leftovers: OffsetsDocument) -> OffsetsDocument | None:
    """--from-scratch: every leftover partition the change does not name is reset (a null offset in the same
    PATCH); with no change at all, a plain reset (None)."""
    if change is None:
        return None
    extra = [OffsetEntry(e.partition, None) for e in leftovers if change.get(e.partition) is None]
    return OffsetsDocument.of([*change, *extra])


def _confirm(live: LiveTarget, leftovers: OffsetsDocument, change: OffsetsDocument | None, options: Options,
             confirm) -> None:
    """The preview (leftovers -> offsets after) and the question; "no" raises, and the caller deletes the new
    connector again."""
    from .operations import Preview

    if options.yes:
        return
    preview = Preview(f"create ({_operation(change)})", live.target, live.kind, leftovers, change)
    if confirm is None or not confirm(preview):
        raise InputError("create cancelled")


def _operation(change: OffsetsDocument | None) -> Operation:
    return Operation.ALTER if change is not None else Operation.RESET


def _apply(kube: Kube, plan: CreatePlan, live: LiveTarget, leftovers: OffsetsDocument, change: OffsetsDocument | None,
           options: Options, progress: Progress):
    operation = _operation(change)
    # The change was computed from the leftovers of the connector being created, not from its running offsets.
    flow = Run(steps.ALTER, kube, live.target, live.kind, options.wait, progress, operation=operation,
               request=operation, plan=lambda stopped: change)
    try:
        return flow.execute()
    except SimulatedCrash:
        raise
    except BaseException as failure:  # noqa: BLE001 - ours, or Ctrl-C while the flow claimed the resource
        error = as_offsets_error(failure)
        handed_over = flow.journal is not None and flow.journal.past_point_of_no_return
        if handed_over or error.next_command:  # the offsets may have changed: keep it (stopped) and say how on
            advice = f"{error.advice + '; ' if error.advice else ''}the new connector stays STOPPED; once " \
                     f"recovered, give it the state of its manifest: {_state_command(plan)}"
            raise type(error)(error.message, advice=advice, next_command=error.next_command) from None
        raise _rolled_back(kube, live.target, error, progress) from None


def _finish(kube: Kube, client: OperatorClient, plan: CreatePlan, kind: ConnectorKind, leftovers, change, after, backup,
            progress: Progress) -> CreateOutcome:
    """The state the manifest asks for (absent stays absent), and our creating mark removed, in one patch."""
    wanted = plan.manifest.requested_state
    progress.step(f"setting the state the manifest asks for: {wanted or strimzi.DEFAULT_STATE}")
    try:
        client.guarded_patch(lambda resource: client.stanza_ops({strimzi.FIELD_STATE: wanted}, resource)
                             + client.annotation_ops({ANNOTATION_CREATING: None}, resource))
        client.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[wanted or strimzi.DEFAULT_STATE])
    except BaseException as failure:  # noqa: BLE001 - its offsets are set; it must not stay STOPPED unannounced
        error = as_offsets_error(failure)
        raise type(error)(f"{error.message}; kafkaconnector/{plan.target.resource_name} has its offsets, but may "
                          f"still be STOPPED", advice="check it with kubectl get kafkaconnector; if its state is "
                          "not the manifest's yet, run the command below", next_command=_state_command(plan)) from None
    return CreateOutcome(plan.target, kind, leftovers, change, after, backup, wanted or strimzi.DEFAULT_STATE,
                         plan.operator)


def _state_command(plan: CreatePlan) -> str:
    return finish_command(plan.target, plan.manifest.requested_state or strimzi.DEFAULT_STATE)


def finish_command(target: strimzi.ConnectorTarget, state: str) -> str:
    """The kubectl command that does create's last step by hand: the state, and our creating mark removed."""
    patch = json.dumps({"spec": {strimzi.FIELD_STATE: state}, "metadata": {"annotations": {ANNOTATION_CREATING: None}}},
                       separators=(",", ":"))
    return f"kubectl patch kafkaconnector {target.resource_name} -n {target.namespace} --type merge -p '{patch}'"


def _not_created(target: strimzi.ConnectorTarget, failure: BaseException) -> OffsetsError:
    error = as_offsets_error(failure)
    if isinstance(failure, OffsetsError):
        return error
    return type(error)(f"{error.message} while creating kafkaconnector/{target.resource_name}",
                       advice=f"it may have been created (STOPPED): check with kubectl get kafkaconnector "
                       f"{target.resource_name} -n {target.namespace}; kubectl offsets create again says what to do")


def _rolled_back(kube: Kube, target: strimzi.ConnectorTarget, failure: BaseException, progress: Progress) -> OffsetsError:
    """Before the offsets were handed to the operator nothing but the new resource exists: delete it again."""
    error = as_offsets_error(failure)
    try:
        kube.delete(target.kind, target.resource_name, target.namespace)
    except NotFoundError:  # the create itself did not happen (it failed, or Ctrl-C came first)
        return error
    except OffsetsError as second:
        return type(error)(f"{error.message}. Deleting the new kafkaconnector/{target.resource_name} failed too "
                           f"({second.message}); it is STOPPED", advice=f"delete it: kubectl delete kafkaconnector "
                           f"{target.resource_name} -n {target.namespace}")
    progress.warn(f"kafkaconnector/{target.resource_name} was deleted again: nothing is left of this create")
    return type(error)(f"{error.message}. The new kafkaconnector/{target.resource_name} was deleted again; offsets "
                       "unchanged", advice=error.advice, next_command=None)


# --- delete ------------------------------------------------------------------------------------------------------


@dataclass
class DeleteOutcome:
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    offsets: OffsetsDocument  # what it held before (now reset when reset_offsets)
    backup: str | None
    reset: bool


def delete_connector(kube: Kube, spec: TargetSpec, *, reset_offsets: bool = False, namespace: str | None = None,
                     options: Options | None = None, confirm: Confirm | None = None,
                     progress: Progress | None = None):
    """Delete a KafkaConnector. With ``reset_offsets``: first stop it, back up and reset its offsets (the alter
    flow: journaled, recoverable), so a connector created later under the same name starts from scratch."""
    from . import operations

    options, progress = options or Options(), progress or SilentProgress()
    kind, _ = strimzi.parse_target(spec.text)
    if kind != strimzi.KIND_CONNECTOR:
        raise InputError("delete works on KafkaConnectors; MirrorMaker 2 connectors come and go with the mirrors "
                         "of their KafkaMirrorMaker2", advice="kubectl offsets reset kmm2/NAME --connector ... "
                         "forgets a mirror connector's offsets")
    live = operations._prepare(kube, spec, namespace, options, progress)
    _check_delete_permission(kube, live.target)
    if options.dry_run:  # the reset and the delete as the engine would run them, recorded
        return operations.dry_run(Operation.RESET, kube, live, DELETE_AFTER_RESET, lambda before: None, options,
                                  progress) if reset_offsets else None
    client = OperatorClient(kube, live.target, options.wait, progress)
    progress.step(f"listing the offsets of '{live.target.connector_name}' before deleting it")
    offsets = client.list_offsets()
    if not options.yes and (confirm is None or not confirm(_delete_preview(live, offsets, reset_offsets))):
        raise InputError("delete cancelled; nothing was changed")
    if reset_offsets:
        outcome = _reset_and_delete(kube, live, options, progress)
        return DeleteOutcome(live.target, live.kind, outcome.before, outcome.backup, True)
    _delete(kube, live.target, progress, after_reset=False)
    if len(offsets):
        progress.warn(f"Connect keeps the offsets of '{live.target.connector_name}': a connector created later "
                      "under this name resumes from them (kubectl offsets create --from-scratch, or delete "
                      "--reset-offsets, forgets them)")
    return DeleteOutcome(live.target, live.kind, offsets, None, False)


def _check_delete_permission(kube: Kube, target: strimzi.ConnectorTarget) -> None:
    from ...errors import ForbiddenError

    plural = strimzi.PLURALS[target.kind]
    if not kube.can_i_all([("delete", strimzi.GROUP, plural, target.namespace, target.resource_name)])[0]:
        raise ForbiddenError(f"you may not delete {plural}/{target.resource_name} in namespace {target.namespace}",
                             advice="ask for a Role with delete on kafkaconnectors")


def _reset_and_delete(kube: Kube, live: LiveTarget, options: Options, progress: Progress):
    """The reset and the delete as one journaled operation (``DELETE_AFTER_RESET``): the journal is written with the
    stop, so an interruption at any point is made safe or left to ``recover``, never a stopped connector nobody
    knows of."""
    flow = Run(DELETE_AFTER_RESET, kube, live.target, live.kind, options.wait, progress, operation=Operation.RESET,
               request=OffsetsAction.RESET)
    name = live.target.resource_name
    try:
        return flow.execute()
    except SimulatedCrash:
        raise
    except BaseException as failure:  # noqa: BLE001 - ours (already made safe), or Ctrl-C before the first write
        error = as_offsets_error(failure)
        what = ("finish the reset and the delete with the command below (or add --rollback to keep it)"
                if error.next_command else "run the same delete again")
        advice = f"{error.advice + '; ' if error.advice else ''}kafkaconnector/{name} was not deleted: {what}"
        raise type(error)(f"{error.message}; kafkaconnector/{name} was not deleted", advice=advice,
                          next_command=error.next_command) from None


def _delete_resource(run: Run) -> None:
    """Delete the resource as we last read it (a resourceVersion precondition) while the journal is ours."""
    run.progress.step(f"deleting kafkaconnector/{run.target.resource_name} (its journal goes with it)")

    def delete(resource) -> None:
        run.check_owner(resource)
        run.kube.delete(run.target.kind, run.target.resource_name, run.target.namespace,
                        resource_version=resource["metadata"]["resourceVersion"])

    guarded(run.operator.read, delete, clock=run.clock, deadline=run.clock.monotonic() + run.wait.timeout,
            exhausted=lambda: PreconditionError(f"{run.target.display} kept changing while we tried to delete it",
                                                advice="another controller may be writing to the resource"))


def _kept_after_rollback(run: Run, summary: str) -> str:
    return f"{summary}; kafkaconnector/{run.target.resource_name} was not deleted"


# ``delete --reset-offsets``: the reset of ``steps.ALTER``, with the connector kept stopped after it (a sink must not
# read its topic from the beginning before it is deleted: the resume only records the step) and the delete as its
# last step, instead of removing the journal: the journal goes with the resource. The journal says so
# (``then_delete``), so ``recover`` finishes the delete. Before the hand-over a failure restores the previous state
# (nothing changed); from it on the connector stays STOPPED with its journal, for ``recover`` to finish (or roll
# back).
DELETE_AFTER_RESET = Declaration(
    "reset (then delete)",
    (steps.STOP, steps.BACKUP, steps.WRITE_CONFIGMAP,
     dataclasses.replace(steps.ANNOTATE, keeps_stopped=True), steps.AWAIT_OPERATOR, steps.VERIFY, steps.RESUME,
     StepSpec(Step.CLEANUP, _delete_resource)),
    journal_fields=lambda run, resource: {"then_delete": True},
    resume_allowed=False,
    finished=lambda run, state: f"finished: offsets verified, kafkaconnector/{run.target.resource_name} deleted",
    rolled_back=_kept_after_rollback)


def for_recover(kube: Kube, live: LiveTarget, journal, options: Options, progress: Progress) -> Run | None:
    """The run that can finish ``journal``: a delete --reset-offsets' when it is one, else None."""
    if not journal.then_delete:
        return None
    return Run(DELETE_AFTER_RESET, kube, live.target, live.kind, options.wait, progress)


def _delete_preview(live: LiveTarget, offsets: OffsetsDocument, reset: bool):
    from .operations import Preview

    what = "delete (after resetting these offsets)" if reset else "delete (offsets kept in Connect)"
    return Preview(what, live.target, live.kind, offsets, OffsetsDocument())


# Deletes tried while only the operator's status writes move the resourceVersion (each of its passes writes one).
DELETE_ATTEMPTS = 5


def _delete(kube: Kube, target: strimzi.ConnectorTarget, progress: Progress, after_reset: bool) -> None:
    """Delete the resource as we last saw it: with its resourceVersion as a precondition, so that a spec or an
    annotation changed meanwhile (a new manifest applied, another operation's journal) is not deleted unseen. The
    operator's own status writes change the resourceVersion too, and it writes one right after our last change (the
    journal's removal is an event it reconciles): when nothing but the status changed, the delete is tried again."""
    progress.step(f"deleting kafkaconnector/{target.resource_name}")
    seen = kube.get(target.kind, target.resource_name, target.namespace)

    def changed() -> OffsetsError:
        return ConflictError(f"kafkaconnector/{target.resource_name} changed while we worked on it")

    def delete(resource) -> None:
        # an operation that claimed it since our preflight (while the user read the prompt) keeps it
        refuse_other_operation(target, resource, now=clocks.of(kube).now())
        if _what_users_change(resource) != _what_users_change(seen):
            raise changed()  # not only the status: someone changed what was confirmed
        kube.delete(target.kind, target.resource_name, target.namespace,
                    resource_version=resource["metadata"]["resourceVersion"])

    try:
        guarded(lambda: kube.get(target.kind, target.resource_name, target.namespace), delete,
                attempts=DELETE_ATTEMPTS, exhausted=changed)
    except OffsetsError as error:
        raise _not_deleted(error, target, after_reset) from None


def _what_users_change(resource: dict[str, Any]) -> tuple[Any, ...]:
    """The resource but its status and bookkeeping: what a delete must not overlook a change of."""
    meta = resource.get("metadata") or {}
    return meta.get("uid"), meta.get("labels"), meta.get("annotations"), resource.get("spec")


def _not_deleted(error: OffsetsError, target: strimzi.ConnectorTarget, after_reset: bool) -> OffsetsError:
    state = ("its offsets are reset and it is STOPPED; " if after_reset else "")
    return type(error)(f"{error.message}; kafkaconnector/{target.resource_name} was not deleted: {state}"
                       "run the same command again", advice=error.advice, next_command=error.next_command)
