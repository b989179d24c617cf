"""The library's front door: list, alter, reset, undo, recover and trigger, usable from Python.

    from kubectl_offsets.core import operations
    from kubectl_offsets.core.targets import TargetSpec
    kube = operations.connect(ClusterConfig(namespace="kafka"))
    result = operations.list_offsets(kube, TargetSpec("my-sink"))

Each function validates everything it can before the first change; the step machine in ``steps.py`` does the
changing. Confirmation is a callback, so the CLI can ask on a terminal and Python callers can decide in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .. import strimzi
from ..connect import ConnectorKind, external_offsets_warning
from ..conventions import ANNOTATION_JOURNAL, alter_configmap_name, offsets_configmap_name
from ..errors import InputError, NotFoundError, PreconditionError
from ..model import ClusterConfig, OffsetEntry, OffsetsDocument, Options, diff
from ..output.progress import Progress, SilentProgress
from . import backups, configmaps
from .inputs import AlterRequest, build_change, validate_change
from .journal import Journal
from .operator import OperatorClient
from .steps import AlterFlow, Outcome, expected_after
from .targets import LiveTarget, TargetSpec, preflight, resolve


def connect(cluster: ClusterConfig):
    from ..adapters.kube import Kube  # the kubernetes client is heavy: only when a command talks to a cluster

    return Kube(cluster)


@dataclass
class ListResult:
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    offsets: OffsetsDocument


@dataclass
class Preview:
    """What an alter/reset/undo will do: shown before confirmation and printed by --dry-run."""

    operation: str
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    before: OffsetsDocument | None  # None: unknown without listing (dry run, never listed before)
    change: OffsetsDocument | None  # None for reset
    patches: list[tuple[str, Any]] = field(default_factory=list)  # (description, patch or manifest)
    # The connector was running when ``before`` was listed: its offsets may move until it is stopped, so the flow
    # lists again once it is stopped, backs that up and computes the final change from it (the preview says so).
    listed_while_running: bool = False

    @property
    def after(self) -> OffsetsDocument | None:
        return None if self.before is None else expected_after(self.before, self.change)

    def rows(self):
        return diff(self.before or OffsetsDocument(), self.after or self.change or OffsetsDocument())


Confirm = Callable[[Preview], bool]


# --- list --------------------------------------------------------------------------------------------------------


def list_offsets(kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
                 progress: Progress | None = None) -> ListResult:
    options = options or Options()
    progress = progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    preflight(kube, live, mutating=False)
    text = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    if text is not None:
        journal = Journal.from_annotation(text)
        if journal.owner_alive():
            progress.warn(journal.presence())  # its owner is at work: nothing for anyone else to do
        else:
            progress.warn(f"{journal.presence()}; it has not finished; finish or roll it back with: "
                          f"{journal.recover_command(live.target.namespace)}")
    client = OperatorClient(kube, live.target, options.wait, progress)
    return ListResult(live.target, live.kind, client.list_offsets())


# --- alter / reset / undo ----------------------------------------------------------------------------------------


def alter_offsets(kube, spec: TargetSpec, request: AlterRequest, *, namespace: str | None = None,
                  options: Options | None = None, confirm: Confirm | None = None, progress: Progress | None = None,
                  crash_after: str | None = None) -> Outcome | Preview:
    options, progress = options or Options(), progress or SilentProgress()
    request.check_combination()
    live = _prepare(kube, spec, namespace, options, progress)
    facts = live.facts()
    # Build the change once when it does not depend on the current offsets: every check that needs no cluster
    # state runs before any change, and `-f -` reads standard input only once.
    early = None if request.needs_current else _build(request, facts, None)
    if options.dry_run:
        before = peek_listed(kube, live)
        change = early if early is not None else _build(request, facts, before)
        return _dry_run_preview("alter", live, before, change)
    before = _list_for_preview(kube, live, options, progress)
    change = early if early is not None else _build(request, facts, before)

    def plan(stopped: OffsetsDocument) -> OffsetsDocument:
        # Relative requests (--shift-by, --topic T) are relative to the offsets that count: the stopped ones.
        return early if early is not None else _build(request, facts, stopped)

    return _confirm_and_run("alter", kube, live, before, change, options, confirm, progress, crash_after, plan)


def _build(request, facts, current: OffsetsDocument | None) -> OffsetsDocument:
    """The change document: an ``AlterRequest`` goes through the input checks of ``inputs``; a request that knows
    how to build its own change (time travel, ``core/timetravel.py``) builds it and runs the same checks."""
    own = getattr(request, "build_change", None)
    return own(facts, current) if own is not None else build_change(request, facts, current)


def reset_offsets(kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
                  confirm: Confirm | None = None, progress: Progress | None = None,
                  crash_after: str | None = None) -> Outcome | Preview:
    options, progress = options or Options(), progress or SilentProgress()
    live = _prepare(kube, spec, namespace, options, progress)
    if options.dry_run:
        return _dry_run_preview("reset", live, peek_listed(kube, live), None)
    before = _list_for_preview(kube, live, options, progress)
    return _confirm_and_run("reset", kube, live, before, None, options, confirm, progress, crash_after,
                            lambda stopped: None)


def undo(kube, spec: TargetSpec, *, backup: str | None = None, namespace: str | None = None,
         options: Options | None = None, confirm: Confirm | None = None, progress: Progress | None = None,
         crash_after: str | None = None) -> Outcome | Preview:
    """Put back the offsets of a backup (the newest by default): partitions the backup has get its offsets,
    partitions that appeared since are reset, so the connector ends exactly as the backup shows."""
    options, progress = options or Options(), progress or SilentProgress()
    live = _prepare(kube, spec, namespace, options, progress)
    name = backup or backups.newest(kube, live.target)
    saved = backups.load_configmap(kube, live.target, name)
    changed = backups.load_changed(kube, live.target, name)
    progress.step(f"restoring configmap/{name}")
    if options.dry_run:
        before = peek_listed(kube, live)
        return _dry_run_preview("undo", live, before, restoring_change(saved, before, changed))
    before = _list_for_preview(kube, live, options, progress)
    change = restoring_change(saved, before, changed)
    if change is not None:
        validate_change(change, live.facts())

    def plan(stopped: OffsetsDocument) -> OffsetsDocument | None:
        # Partitions that appeared while the connector still ran are reset too.
        final = restoring_change(saved, stopped, changed)
        if final is not None:
            validate_change(final, live.facts())
        return final

    return _confirm_and_run("undo", kube, live, before, change, options, confirm, progress, crash_after, plan)


def restoring_change(saved: OffsetsDocument, current: OffsetsDocument | None,
                     changed: list[dict] | None = None) -> OffsetsDocument | None:
    """The PATCH that turns ``current`` into ``saved``; None (a reset) when the backup holds no offsets.

    ``changed``: the partitions the backed-up operation changed. Only those are put back (as the backup had them,
    or removed if it had none): a partition the operation never touched has moved on since (live traffic), and
    rewinding it would make the connector process its records again."""
    if changed is not None:
        return OffsetsDocument.of(OffsetEntry(p, (saved.get(p).offset if saved.get(p) else None)) for p in changed)
    if not len(saved):
        return None
    extra = [OffsetEntry(e.partition, None) for e in current or () if saved.get(e.partition) is None]
    return OffsetsDocument.of([*saved, *extra])


def _prepare(kube, spec: TargetSpec, namespace: str | None, options: Options, progress: Progress) -> LiveTarget:
    live = resolve(kube, spec, namespace)
    if live.kind.offsets_ignored_by_runtime and not options.force:
        raise InputError(f"'{live.target.connector_name}' is a {live.kind.value} connector: Connect stores its "
                         "offsets but the task never reads them, so changing them has no effect",
                         advice="add --force if you really want to change them")
    preflight(kube, live, mutating=True)
    warning = external_offsets_warning(live.target.connector_class(live.resource))
    if warning:
        progress.warn(warning)
    return live


def _list_for_preview(kube, live: LiveTarget, options: Options, progress: Progress) -> OffsetsDocument:
    """The offsets now, for validation and the preview only: the backup is listed again once it is stopped."""
    progress.step(f"listing the current offsets of '{live.target.connector_name}'")
    return OperatorClient(kube, live.target, options.wait, progress).list_offsets()


def _confirm_and_run(operation, kube, live, before, change, options, confirm, progress, crash_after, plan) -> Outcome:
    running = live.target.live_state(live.resource) not in ("PAUSED", "STOPPED")
    preview = Preview(operation, live.target, live.kind, before, change, listed_while_running=running)
    if not options.yes and (confirm is None or not confirm(preview)):
        raise InputError(f"{operation} cancelled; nothing was changed")
    flow = AlterFlow(kube, live.target, live.kind, wait=options.wait, progress=progress, resume=options.resume,
                     crash_after=crash_after)
    return flow.run(operation, plan, "reset" if change is None else "alter")


# --- dry run -------------------------------------------------------------------------------------------------------


def peek_listed(kube, live: LiveTarget) -> OffsetsDocument | None:
    """The offsets from the last list, if its ConfigMap exists; read-only (a dry run must not annotate)."""
    stanza = live.target.stanza(live.resource).get(strimzi.FIELD_LIST_OFFSETS) or {}
    name = (stanza.get(strimzi.FIELD_TO_CONFIGMAP) or {}).get("name") or offsets_configmap_name(
        live.target.resource_name)
    found = kube.find_configmap(name, live.target.namespace)
    if found is None or live.target.configmap_key not in (found.get("data") or {}):
        return None
    return configmaps.parse_document(found, live.target.configmap_key, f"configmap/{name}")


def _dry_run_preview(operation: str, live: LiveTarget, before, change) -> Preview:
    target = live.target
    preview = Preview(operation, target, live.kind, before, change)
    base = target.stanza_pointer()
    stop = [{"op": "add", "path": f"{base}/{strimzi.FIELD_STATE}", "value": strimzi.STATE_STOPPED}]
    preview.patches.append((f"patch {target.kind.lower()}/{target.resource_name} (stop)", stop))
    action = "reset" if change is None else "alter"
    trigger: list[dict[str, Any]] = []
    if change is not None:
        name = alter_configmap_name(target.resource_name)
        preview.patches.append((f"configmap/{name}", configmaps.configmap_body(target, name, change, "alter")))
        trigger.append({"op": "add", "path": f"{base}/{strimzi.FIELD_ALTER_OFFSETS}",
                        "value": {strimzi.FIELD_FROM_CONFIGMAP: {"name": name}}})
    trigger += [{"op": "add", "path": "/metadata/annotations/" + k.replace("/", "~1"), "value": v}
                for k, v in target.trigger_annotations(action).items()]
    preview.patches.append((f"patch {target.kind.lower()}/{target.resource_name} ({action})", trigger))
    previous = target.stanza(live.resource).get(strimzi.FIELD_STATE)
    restore = [{"op": "remove", "path": f"{base}/{strimzi.FIELD_STATE}"}] if previous is None else \
        [{"op": "add", "path": f"{base}/{strimzi.FIELD_STATE}", "value": previous}]
    preview.patches.append((f"patch {target.kind.lower()}/{target.resource_name} (restore state)", restore))
    return preview


# --- recover -------------------------------------------------------------------------------------------------------


def recover(kube, spec: TargetSpec, *, namespace: str | None = None, rollback: bool = False, force: bool = False,
            options: Options | None = None, progress: Progress | None = None) -> str:
    """Finish (or with ``rollback`` undo the state changes of) an interrupted operation, from its journal.
    ``force``: take over even though its owner's heartbeat is fresh (the owner is known to be gone)."""
    options, progress = options or Options(), progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    text = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    if text is None:
        raise NotFoundError(f"no interrupted kubectl-offsets operation on {live.target.display}",
                            advice="nothing to recover; kubectl offsets list shows the current offsets")
    journal = Journal.from_annotation(text)
    if journal.connector != live.target.connector_name:
        raise PreconditionError(f"the interrupted operation is on connector '{journal.connector}'",
                                next_command=journal.recover_command(live.target.namespace))
    flow = AlterFlow(kube, live.target, live.kind, wait=options.wait, progress=progress, resume=options.resume)
    return flow.recover(journal, rollback=rollback, force=force)


# --- trigger (GitOps phase 1 already applied) ----------------------------------------------------------------------


def trigger(kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
            progress: Progress | None = None) -> OffsetsDocument:
    """Fire the one-shot annotation(s) for a resource whose spec already says ``state: stopped`` (and, for an alter,
    names the offsets ConfigMap in ``alterOffsets``): wait for STOPPED, annotate, wait, verify. Returns the offsets
    listed afterwards. Used by ``kubectl offsets trigger`` between GitOps phases 1 and 2."""
    options, progress = options or Options(), progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    preflight(kube, live, mutating=True)
    stanza = live.target.stanza(live.resource)
    if stanza.get(strimzi.FIELD_STATE) != strimzi.STATE_STOPPED:
        raise PreconditionError(f"{live.target.display} does not have spec.state: stopped yet",
                                advice="merge and sync GitOps phase 1 first, then run trigger")
    source = ((stanza.get(strimzi.FIELD_ALTER_OFFSETS) or {}).get(strimzi.FIELD_FROM_CONFIGMAP) or {}).get("name")
    change = configmaps.get_document(kube, live.target, source, written_by="GitOps phase 1") if source else None
    return fire_prepared(kube, live, change, options, progress)


def fire_prepared(kube, live: LiveTarget, change: OffsetsDocument | None, options: Options, progress: Progress,
                  extra_annotations: dict[str, str] | None = None, label: str = "") -> OffsetsDocument:
    """The annotate-wait-verify part of a trigger, for a resource already prepared (stopped, alterOffsets naming
    a ConfigMap that holds ``change``; ``change`` None = reset). ``extra_annotations`` go into the same patch as
    Strimzi's, so a marker such as "fired" can never be set without the request, nor the request without it."""
    client = OperatorClient(kube, live.target, options.wait, progress)
    client.wait_for_connect_state("STOPPED")
    action = "alter" if change is not None else "reset"
    progress.step(f"asking the operator to {action} the offsets{label}")
    client.place_request(action, lambda resource: [], extra=extra_annotations)
    client.wait_until_done(action)
    progress.step("verifying by listing the offsets")
    after = client.list_offsets()
    verify_applied(live, change, after)
    return after


def verify_applied(live: LiveTarget, change: OffsetsDocument | None, after: OffsetsDocument) -> None:
    """Every partition of ``change`` now holds its requested offset (a null offset: the partition is gone); after a
    reset nothing is left. Partitions the change does not name are not judged: before is unknown here."""
    if change is None:
        if len(after):
            raise_verify(live, "expected no offsets after the reset", after)
        return
    for entry in change:
        found = after.get(entry.partition)
        if (found.offset if found else None) != entry.offset:
            raise_verify(live, f"partition {dict(entry.partition)} should be {entry.offset}", after)


def raise_verify(live: LiveTarget, what: str, after: OffsetsDocument) -> None:
    from ..errors import VerificationError

    raise VerificationError(f"{live.target.display}: {what}; found {after.to_json()}",
                            advice="the connector is still stopped (GitOps phase 1); check and re-run trigger")
