"""The library's front door: list, alter (also by time), reset, undo, recover and check, usable from Python.

    from kubectl_offsets.core.online import operations
    from kubectl_offsets.core.online.targets import TargetSpec
    kube = operations.connect(ClusterConfig(namespace="kafka"))
    result = operations.list_offsets(kube, TargetSpec("my-sink"))

Each function validates everything it can before the first change; the step machine in ``steps.py`` does the
changing. The modules it calls (``timetravel``, ``mm2_check``, ``mm2_full_reset``, ...) never import it: their own
entry points live here, so the imports only go down. Confirmation is a callback, so the CLI can ask on a terminal
and Python callers can decide in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, cast

from ... import strimzi
from ...connect import ConnectorKind, external_offsets_warning, in_listing_order
from ...conventions import ANNOTATION_JOURNAL, Operation, alter_configmap_name, offsets_configmap_name
from ...errors import InputError, NotFoundError
from ...model import ClusterConfig, OffsetEntry, OffsetsDocument, Options, diff
from ...progress import Progress, SilentProgress
from ...strimzi import OffsetsAction
from . import backups, configmaps
from ..inputs import AlterRequest, build_change, read_offsets_file, validate_change
from .journal import Journal
from .operator import OperatorClient
from .partitions import PartitionChecker
from .partitions import describe as describe_partitions
from .engine import Declaration, Outcome, Run
from .steps import ALTER, expected_after
from .targets import LiveTarget, TargetSpec, preflight, resolve

if TYPE_CHECKING:
    from ...adapters.kube import Kube
    from .timetravel import Resolved, TimeTravel
    from .timetravel import TimeTravelRequest  # answers what an AlterRequest answers, from the broker


def connect(cluster: ClusterConfig) -> Kube:
    from ...adapters.kube import Kube  # the kubernetes client is heavy: only when a command talks to a cluster

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
    # Dry run: the writes the engine recorded, in order: (description, JSON Patch, manifest or merge body)
    patches: list[tuple[str, Any]] = field(default_factory=list)
    # The connector was running when ``before`` was listed: its offsets may move until it is stopped, so the flow
    # lists again once it is stopped, backs that up and computes the final change from it (the preview says so).
    listed_while_running: bool = False
    # Partitions that neither the brokers nor a KafkaTopic could vouch for and the connector has no offset for yet
    unverified: list[tuple[str, int]] = field(default_factory=list)
    check: Any = None  # mm2_check.CheckReport: the MirrorMaker 2 pre-flight, None for other connectors
    extra_steps: list[str] = field(default_factory=list)  # steps beyond the usual ones (MirrorMaker 2 full reset)
    # Dry run: ``before`` is the connector's last list (a dry run lists nothing: a list writes to the cluster), and
    # this is when the operator wrote it (UTC, RFC 3339), None when unknown
    listed_at: str | None = None
    # --dry-run=server: how many of the recorded writes the API server judged (and accepted); None: client side
    server_judged: int | None = None

    def unverified_note(self) -> str:
        return (f"partitions not among the current offsets, whose existence could not be checked: "
                f"{describe_partitions(self.unverified)} (give --bootstrap-server to check them against the brokers; "
                "a partition that does not exist makes Connect fail the alter after the connector was stopped); "
                "confirming, or --yes in scripts, accepts them")

    @property
    def after(self) -> OffsetsDocument | None:
        return None if self.before is None else expected_after(self.before, self.change)

    def rows(self):
        return diff(self.before or OffsetsDocument(), self.after or self.change or OffsetsDocument())


Confirm = Callable[[Preview], bool]


# --- list --------------------------------------------------------------------------------------------------------


def list_offsets(kube: Kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
                 progress: Progress | None = None) -> ListResult:
    options = options or Options()
    progress = progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    preflight(kube, live, mutating=False, wait=options.wait, progress=progress)
    text = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    if text is not None:  # an interrupted operation (preflight refuses one whose owner is at work)
        journal = Journal.from_annotation(text)
        progress.warn(f"{journal.presence()}; it has not finished; finish or roll it back with: "
                      f"{journal.recover_command(live.target.namespace)}")
    client = OperatorClient(kube, live.target, options.wait, progress)
    return ListResult(live.target, live.kind, in_listing_order(live.kind, client.list_offsets()))


# --- alter / reset / undo ----------------------------------------------------------------------------------------


def alter_offsets(kube: Kube, spec: TargetSpec, request: AlterRequest | TimeTravelRequest, *, namespace: str | None = None,
                  options: Options | None = None, confirm: Confirm | None = None, progress: Progress | None = None,
                  bootstrap_servers: str | None = None,
                  kafka_options: tuple[tuple[str, str], ...] = (),
                  listed: OffsetsDocument | None = None) -> Outcome | Preview:
    """``bootstrap_servers`` (and librdkafka ``kafka_options``): the brokers to check partitions against.
    ``listed``: the offsets a caller listed moments ago for its own preview (a fleet plan), used for validation and
    the preview instead of asking the operator again; the flow lists once the connector is stopped either way."""
    options, progress = options or Options(), progress or SilentProgress()
    request.check_combination()
    live = _prepare(kube, spec, namespace, options, progress)
    configmaps.check_writable(kube, live.target, alter_configmap_name(live.target.resource_name))
    facts = live.facts()
    partitions = PartitionChecker(kube, live, bootstrap_servers, kafka_options)
    # Build the change once when it does not depend on the current offsets: every check that needs no cluster
    # state runs before any change, and `-f -` reads standard input only once.
    early = None if request.needs_current else _build(request, facts, None)
    partitions.check(early, None)  # refuses partitions known not to exist before listing (which annotates)
    if options.dry_run:
        return dry_run(Operation.ALTER, kube, live, ALTER,
                       lambda before: early if early is not None else _build(request, facts, before),
                       options, progress, unverified_for=partitions.check)
    before = listed if listed is not None else list_for_preview(kube, live, options, progress)
    change = early if early is not None else _build(request, facts, before)
    unverified = partitions.check(change, before)

    def plan(stopped: OffsetsDocument) -> OffsetsDocument:
        # Relative requests (--shift-by, --topic T) are relative to the offsets that count: the stopped ones. Their
        # partitions are the connector's own (they exist); the explicit ones were checked above.
        return early if early is not None else _build(request, facts, stopped)

    return _confirm_and_run(Operation.ALTER, kube, live, before, change, options, confirm, progress, plan, unverified)


def _build(request, facts, current: OffsetsDocument | None) -> OffsetsDocument:
    """The change document: an ``AlterRequest`` goes through the input checks of ``inputs``; a request that knows
    how to build its own change (time travel, ``core/online/timetravel.py``) builds it and runs the same checks."""
    own = getattr(request, "build_change", None)
    return own(facts, current) if own is not None else build_change(request, facts, current)


def reset_offsets(kube: Kube, spec: TargetSpec, *, namespace: str | None = None, options: Options | None = None,
                  confirm: Confirm | None = None, progress: Progress | None = None,
                  listed: OffsetsDocument | None = None) -> Outcome | Preview:
    """``listed``: as for ``alter_offsets``, the offsets a caller listed moments ago for its preview."""
    options, progress = options or Options(), progress or SilentProgress()
    live = _prepare(kube, spec, namespace, options, progress)
    full = _full_reset_plan(kube, live, options, progress)
    if options.dry_run:  # a full reset's own steps reach the broker: they are described, not run
        preview = dry_run(Operation.RESET, kube, live, ALTER, lambda before: None, options, progress)
        preview.extra_steps = full.steps() if full else []
        return preview
    before = listed if listed is not None else list_for_preview(kube, live, options, progress)
    return _confirm_and_run(Operation.RESET, kube, live, before, None, options, confirm, progress,
                            lambda stopped: None, full_reset=full)


def _full_reset_plan(kube: Kube, live: LiveTarget, options: Options, progress: Progress):
    """MirrorMaker 2's full reset (--with-offset-syncs): validated and planned before anything changes."""
    from . import mm2_full_reset

    settings = options.mm2
    if settings is None or not settings.with_offset_syncs:
        if live.target.kind == strimzi.KIND_MM2 and live.kind is ConnectorKind.MIRROR_SOURCE:
            progress.warn("only the Connect offsets are reset; the offset-syncs topic keeps the old syncs that "
                          "checkpoints translate with (add --with-offset-syncs for a full reset)")
        return None
    return mm2_full_reset.plan(kube, live, settings, allow_shared=settings.allow_shared_offset_syncs,
                               progress=progress)


def undo(kube: Kube, spec: TargetSpec, *, backup: str | None = None, from_file: str | None = None,
         namespace: str | None = None, options: Options | None = None, confirm: Confirm | None = None,
         progress: Progress | None = None) -> Outcome | Preview:
    """Put back the offsets of a backup (the newest ConfigMap by default, or a local backup file): partitions the
    backup has get its offsets, partitions that appeared since are reset, so the connector ends exactly as the
    backup shows. A backup that records the partitions its operation changed restores only those."""
    options, progress = options or Options(), progress or SilentProgress()
    if backup and from_file:
        raise InputError("--backup and --from-file name two different backups", advice="give one of them")
    live = _prepare(kube, spec, namespace, options, progress)
    if from_file:
        backups.check_local_owner(live.target, from_file)
        saved = read_offsets_file(from_file, live.facts())
        changed = backups.load_local_changed(from_file)
        progress.step(f"restoring {from_file}")
    else:
        name = backup or backups.newest(kube, live.target)
        saved = backups.load_for_undo(kube, live.target, name)
        changed = backups.load_changed(kube, live.target, name)
        progress.step(f"restoring configmap/{name}")
    if len(saved) or changed:  # an empty backup of a reset is restored by a reset, which writes no ConfigMap
        configmaps.check_writable(kube, live.target, alter_configmap_name(live.target.resource_name))
    if options.dry_run:
        return dry_run(Operation.UNDO, kube, live, ALTER, lambda before: restoring_change(saved, before, changed),
                       options, progress)
    before = list_for_preview(kube, live, options, progress)
    change = restoring_change(saved, before, changed)
    if change is not None:
        validate_change(change, live.facts())

    def plan(stopped: OffsetsDocument) -> OffsetsDocument | None:
        # Partitions that appeared while the connector still ran are reset too.
        final = restoring_change(saved, stopped, changed)
        if final is not None:
            validate_change(final, live.facts())
        return final

    return _confirm_and_run(Operation.UNDO, kube, live, before, change, options, confirm, progress, plan)


def restoring_change(saved: OffsetsDocument, current: OffsetsDocument | None,
                     changed: list[dict] | None = None) -> OffsetsDocument | None:
    """The PATCH that turns ``current`` into ``saved``; None (a reset) when the backup holds no offsets.

    ``changed``: the partitions the backed-up operation changed. Only those are put back (as the backup had them,
    or removed if it had none): a partition the operation never touched has moved on since (live traffic), and
    rewinding it would make the connector process its records again."""
    if changed is not None:
        return OffsetsDocument.of(OffsetEntry(p, (entry.offset if (entry := saved.get(p)) else None)) for p in changed)
    if not len(saved):
        return None
    extra = [OffsetEntry(e.partition, None) for e in current or () if saved.get(e.partition) is None]
    return OffsetsDocument.of([*saved, *extra])


def _prepare(kube: Kube, spec: TargetSpec, namespace: str | None, options: Options,
             progress: Progress | None = None) -> LiveTarget:
    # progress is optional: lifecycle.delete calls this without one
    live = resolve(kube, spec, namespace)
    if live.kind.offsets_ignored_by_runtime and not options.force:
        raise InputError(f"'{live.target.connector_name}' is a {live.kind.value} connector: Connect stores its "
                         "offsets but the task never reads them, so changing them has no effect",
                         advice="add --force if you really want to change them")
    preflight(kube, live, mutating=True, wait=options.wait, progress=progress)
    from .mm2_check import require_reachable

    require_reachable(live, options.mm2)
    warning = external_offsets_warning(live.target.connector_class(live.resource))
    if warning:
        (progress or SilentProgress()).warn(warning)
    return live


def list_for_preview(kube: Kube, live: LiveTarget, options: Options, progress: Progress) -> OffsetsDocument:
    """The offsets now, for validation and the preview only: the backup is listed again once it is stopped."""
    progress.step(f"listing the current offsets of '{live.target.connector_name}'")
    return OperatorClient(kube, live.target, options.wait, progress).list_offsets()


def _confirm_and_run(operation, kube, live, before, change, options, confirm, progress, plan, unverified=(),
                     full_reset=None) -> Outcome:
    running = live.target.live_state(live.resource) not in ("PAUSED", "STOPPED")
    preview = Preview(operation, live.target, live.kind, before, change, listed_while_running=running,
                      unverified=list(unverified))
    _mm2_preflight(preview, live, options, progress)
    preview.extra_steps = full_reset.steps() if full_reset else []
    if not options.yes and (confirm is None or not confirm(preview)):
        raise InputError(f"{operation} cancelled; nothing was changed")
    if unverified and options.yes:
        progress.warn(preview.unverified_note())
    if full_reset is not None:
        from . import mm2_full_reset

        return mm2_full_reset.run(kube, live, full_reset, options, progress)
    return Run(ALTER, kube, live.target, live.kind, options.wait, progress, operation=operation,
               request=OffsetsAction.RESET if change is None else OffsetsAction.ALTER, plan=plan,
               resume=options.resume).execute()


# --- alter by time, check a mirror: the front doors of timetravel.py and mm2_check.py ---------------------------------


def alter_by_time(kube: Kube, spec: TargetSpec, travel: TimeTravel, *, namespace: str | None = None,
                  options: Options | None = None, confirm: Confirm | None = None, progress: Progress | None = None,
                  report: Callable[[list[Resolved]], None] | None = None) -> Outcome | Preview:
    """``alter`` with a time-travel question: resolve the offsets from the broker (``timetravel``), then the normal
    alter flow."""
    from .timetravel import TimeTravelRequest, open_broker

    options, progress = options or Options(), progress or SilentProgress()
    travel.check_combination()
    at_ms = travel.at_ms()
    broker = open_broker(kube, spec, travel, namespace, progress)
    request = TimeTravelRequest(travel, broker, at_ms, report or (lambda positions: None))
    return alter_offsets(kube, spec, request, namespace=namespace, options=options, confirm=confirm,
                         progress=progress)


def check_resource(kube: Kube, text: str, connector: str | None, source_cluster: str | None, *, options: Options,
                   progress: Progress) -> dict[str, Any]:
    """``kubectl offsets check``: list the offsets of the named MirrorSourceConnector (default: every one of the
    resource) through Strimzi and check them (``mm2_check``). Returns the report document
    (schemas/mm2-check.schema.json)."""
    from .mm2_check import Mm2Settings, check_document, check_offsets

    kind, name = strimzi.parse_target(text)
    if kind != strimzi.KIND_MM2:
        raise InputError(f"check compares MirrorMaker 2 source offsets with the source topics; '{text}' is a "
                         "KafkaConnector", advice="use kafkamirrormaker2/NAME (or kmm2/NAME)")
    namespace = kube.namespace
    if connector is None:
        try:
            resource = kube.get(kind, name, namespace)
        except NotFoundError:
            raise NotFoundError(f"kafkamirrormaker2/{name} not found in namespace {namespace}",
                                advice="check -n/--namespace and --context") from None
        names = [t.connector_name for t in strimzi.mm2_targets(resource)
                 if t.mm2_type == strimzi.MM2_TYPES["source"][1]
                 and (source_cluster is None or t.source_alias == source_cluster)]
        if not names:
            raise InputError(f"kafkamirrormaker2/{name} has no MirrorSourceConnector"
                             + (f" replicating from '{source_cluster}'" if source_cluster else ""))
        specs = [TargetSpec(text, connector=n) for n in names]
    else:
        specs = [TargetSpec(text, connector=connector, source_cluster=source_cluster)]
    settings = options.mm2 or Mm2Settings()
    lives = [resolve(kube, spec) for spec in specs]
    for live in lives:  # everything that can be refused is refused before the first list (which writes)
        if live.kind is not ConnectorKind.MIRROR_SOURCE:
            raise InputError(f"'{live.target.connector_name}' is a {live.kind.value} connector: only a "
                             "MirrorSourceConnector's offsets point into the source topics",
                             advice="use --connector source (or a full '<src>-><tgt>.MirrorSourceConnector' name)")
        check_offsets(live.resource, live.target, None, settings)  # the broker answers (or PreconditionError)
    reports = []
    for live, spec in zip(lives, specs):
        listed = list_offsets(kube, spec, options=options, progress=progress)
        progress.step(f"checking the offsets of '{listed.target.connector_name}' against the source topics")
        reports.append(check_offsets(live.resource, listed.target, listed.offsets, settings))
    document = {"resource": name, "namespace": namespace,
                "ok": all(r.skipped is None and not r.problems for r in reports),
                "connectors": [r.to_json() for r in reports]}
    return check_document(document)


# --- dry run -------------------------------------------------------------------------------------------------------


def peek_last_list(kube: Kube, live: LiveTarget) -> tuple[OffsetsDocument | None, str | None]:
    """The offsets from the last list and when they were written (the ConfigMap's last write), if its ConfigMap
    exists; read-only (a dry run must not annotate)."""
    stanza = live.target.stanza(live.resource).get(strimzi.FIELD_LIST_OFFSETS) or {}
    name = (stanza.get(strimzi.FIELD_TO_CONFIGMAP) or {}).get("name") or offsets_configmap_name(
        live.target.resource_name)
    found = kube.find_configmap(name, live.target.namespace)
    if found is None or live.target.configmap_key not in (found.get("data") or {}):
        return None, None
    return configmaps.parse_document(found, live.target.configmap_key, f"configmap/{name}"), _last_write(found)


def _last_write(resource: dict[str, Any]) -> str | None:
    """When an object was last written: the newest time in its managedFields (the API server records one per
    writer and operation), else its creation. RFC 3339 timestamps of one format compare as strings."""
    metadata = resource.get("metadata") or {}
    times = [entry.get("time") for entry in metadata.get("managedFields") or ()]
    return max((t for t in times if t), default=None) or metadata.get("creationTimestamp")


def dry_run(operation: str, kube: Kube, live: LiveTarget, declaration: Declaration,
            change_for: Callable[[OffsetsDocument | None], OffsetsDocument | None], options: Options,
            progress: Progress, unverified_for=None) -> Preview:
    """The engine runs ``declaration`` against a recording client (``recording.Recorder``): nothing is written
    (with ``options.dry_run_server`` each write is also judged by the API server), the waits on the operator are
    assumed done, and lists answer with the connector's last list. The preview is what was recorded.
    ``change_for(before)``: the change, from the last list (None when it was never listed)."""
    last, listed_at = peek_last_list(kube, live)
    change = change_for(last)
    recorder = record_run(kube, live, options, (last, listed_at), lambda client, recorder: Run(
        declaration, client, live.target, live.kind, options.wait, SilentProgress(), operation=operation,
        request=OffsetsAction.RESET if change is None else OffsetsAction.ALTER,
        plan=lambda stopped: change_for(None if recorder.never_listed else stopped), resume=options.resume))
    unverified = unverified_for(change, last) if unverified_for is not None else ()
    preview = Preview(operation, live.target, live.kind, last, change, unverified=list(unverified))
    _mm2_preflight(preview, live, options, progress)
    preview.patches = [(write.description, write.body) for write in recorder.writes]
    preview.listed_at, preview.server_judged = listed_at, recorder.sent if options.dry_run_server else None
    return preview


def record_run(kube: Kube, live: LiveTarget, options: Options,
               last_list: tuple[OffsetsDocument | None, str | None], run_for: Callable[[Kube, Any], Run]):
    """A dry run's engine run: ``run_for(client, recorder)`` builds the Run on the recording client
    (``recording.Recorder``), whose lists answer with ``last_list`` (``peek_last_list``: the document and when it
    was written); nothing is written (with ``options.dry_run_server`` each write is also judged by the API
    server). Returns the recorder, which holds the writes."""
    from .recording import Recorder

    recorder = Recorder(kube, server=options.dry_run_server)
    recorder.start_from_last_list(live.target, *last_list)
    with recorder.observe():
        run_for(cast("Kube", recorder), recorder).execute()
    return recorder


def _mm2_preflight(preview: Preview, live: LiveTarget, options: Options, progress: Progress) -> None:
    """MirrorMaker 2 source connectors: check the offsets it will resume from against the source topics
    (``mm2_check``); problems and a skipped check are warnings in the preview, never silent."""
    from . import mm2_check

    preview.check = mm2_check.preflight(live, preview.after if preview.before is not None else preview.change,
                                        options.mm2)
    for line in preview.check.warnings() if preview.check else ():
        progress.warn(line)


def log_requests(logger: Callable[[str, str, Any, float], None] | None) -> None:
    """Report every Kubernetes API request of this process to ``logger(method, url, status, seconds)`` (``-v 6``);
    None stops it. Headers and bodies are never passed on."""
    from ...adapters import kube as kube_adapter

    kube_adapter.REQUEST_LOGGER = logger
