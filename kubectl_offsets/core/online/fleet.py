"""Fleet operations: list, export, reset, alter, import and undo for many connectors at once.

Built on the single-connector flow of ``operations.py`` without weakening it: every connector goes through the same
preflight, keeps its own backup and journal (so ``recover`` and ``undo`` work per connector as before) and is
verified on its own. What the fleet adds:

- selection: a label selector (``-l``), every connector in the namespace (``--all``) or in every namespace (``-A``);
  a KafkaMirrorMaker2 contributes each connector it generates;
- one plan first: every target resolved, validated and previewed before anything changes, then one confirmation;
  nothing changes when any target fails validation, unless the caller skips the invalid ones;
- bounded parallelism: at most ``parallel`` connectors in flight, so never more than that many stopped at once; the
  connectors of one KafkaMirrorMaker2 run one after another, because Strimzi's offsets annotations are per resource;
- a report per connector (outcome, backup, the next command); an interrupt starts nothing new and lets the flows
  already running finish, each of which ends with its connector back in its previous state.

    from kubectl_offsets.core.online import fleet
    members = fleet.select(kube, fleet.Selection(selector="team=payments"))
    plan = fleet.plan_reset(cluster, members, options)
    report = fleet.execute(cluster, plan, options, parallel=4)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, cast

from ... import schemas, strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_TAKEN_AT, Operation
from ...errors import ApiNotServedError, ExitStatus, InputError, NotFoundError, OffsetsError
from ...model import ClusterConfig, OffsetsDocument, Options
from ...progress import Progress, SilentProgress
from . import backups, operations
from ..inputs import AlterRequest, build_change, validate_change
from .steps import Outcome
from .targets import LiveTarget, TargetSpec, preflight, resolve

if TYPE_CHECKING:
    from ...adapters.kube import Kube

DEFAULT_PARALLEL = 4
FLEET_SCHEMA = "fleet"

# --- selection -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """Which custom resources, as kubectl says it: ``-n``, ``-A``, ``-l``."""

    namespace: str | None = None  # None: the kubeconfig context's namespace (ignored with all_namespaces)
    all_namespaces: bool = False
    selector: str | None = None  # a label selector on the KafkaConnector / KafkaMirrorMaker2 resources


@dataclass(frozen=True, order=True)
class Member:
    """One connector of the fleet: a KafkaConnector, or one connector generated from a KafkaMirrorMaker2."""

    namespace: str
    kind: str  # strimzi.KIND_CONNECTOR or strimzi.KIND_MM2
    name: str  # the custom resource
    connector: str  # the connector's name in Connect

    @property
    def spec(self) -> TargetSpec:
        word = strimzi.PLURALS[self.kind][:-1]  # kafkaconnector / kafkamirrormaker2
        mm2 = self.kind == strimzi.KIND_MM2
        return TargetSpec(f"{word}/{self.name}", connector=self.connector if mm2 else None)

    @property
    def lane(self) -> tuple[str, str, str]:
        """Members of one lane run one after another: one KafkaMirrorMaker2 takes one offsets request at a time."""
        return (self.namespace, self.kind, self.name)

    @property
    def display(self) -> str:
        base = f"{self.kind.lower()}/{self.name}"
        return base if self.kind == strimzi.KIND_CONNECTOR else f"{base} '{self.connector}'"

    def command(self, verb: str) -> str:
        """The single-connector command for this member (``recover``, ``undo``), as the user would type it."""
        words = ["kubectl offsets", verb, f"{strimzi.PLURALS[self.kind][:-1]}/{self.name}"]
        if self.kind == strimzi.KIND_MM2:
            words.append(f"--connector '{self.connector}'")
        return " ".join([*words, "-n", self.namespace])


def select(kube: Kube, selection: Selection) -> list[Member]:
    """Every connector of the selected resources, sorted by namespace, kind and name. A Strimzi kind the API server
    does not serve (no KafkaMirrorMaker2 CRD, say) simply contributes nothing."""
    namespace = None if selection.all_namespaces else (selection.namespace or kube.namespace)
    members: list[Member] = []
    not_served: list[NotFoundError] = []
    for kind in (strimzi.KIND_CONNECTOR, strimzi.KIND_MM2):
        try:
            resources = kube.list_selected(kind, namespace, selection.selector)
        except NotFoundError as error:
            not_served.append(error)
            continue
        for resource in resources:
            targets = ([strimzi.connector_target(resource)] if kind == strimzi.KIND_CONNECTOR
                       else strimzi.mm2_targets(resource))
            members += [Member(t.namespace, t.kind, t.resource_name, t.connector_name) for t in targets]
    if len(not_served) == 2 and isinstance(not_served[0], ApiNotServedError):
        raise not_served[0]  # neither kind: Strimzi is not installed, which an empty answer would hide
    return sorted(members)


# --- the fleet document ---------------------------------------------------------------------------------------


@dataclass
class FleetEntry:
    member: Member
    offsets: OffsetsDocument
    kind: ConnectorKind | None = None  # known when listed from the cluster; used only to render positions

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.member.kind, "namespace": self.member.namespace, "name": self.member.name,
                "connector": self.member.connector, **self.offsets.to_json()}


@dataclass
class FleetDocument:
    """``{"connectors": [{"kind", "namespace", "name", "connector", "offsets": [...]}], "source": {...}}``
    (schemas/fleet.schema.json). ``source`` (export only) records where and when the offsets were taken."""

    entries: list[FleetEntry]
    source: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"connectors": [e.to_json() for e in self.entries]}
        if self.source:
            document["source"] = self.source
        return document

    @classmethod
    def from_json(cls, document: Any, where: str) -> "FleetDocument":
        schemas.validate(FLEET_SCHEMA, document, what=f"the fleet document in {where}")
        entries = [FleetEntry(Member(e["namespace"], e["kind"], e["name"], e["connector"]),
                              OffsetsDocument.from_json({"offsets": e["offsets"]})) for e in document["connectors"]]
        return cls(entries, document.get("source"))


def read_fleet_file(path: str) -> FleetDocument:
    """A fleet document in JSON or YAML, as ``export`` writes it."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e.__class__.__name__}") from None
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{path} is not valid JSON: {e.msg} at line {e.lineno}") from None
    else:
        from ruamel.yaml import YAML  # heavy; only for YAML input
        from ruamel.yaml.error import YAMLError

        try:
            document = YAML(typ="safe", pure=True).load(text)
        except YAMLError as e:
            raise InputError(f"{path} is neither valid JSON nor valid YAML: {e.__class__.__name__}") from None
    if not isinstance(document, dict) or "connectors" not in document:
        raise InputError(f"{path} is not a fleet document",
                         advice='expected {"connectors": [...]} as kubectl offsets export writes it')
    return FleetDocument.from_json(document, path)


def export_source(kube: Kube, cluster: ClusterConfig, selection: Selection) -> dict[str, Any]:
    """Where the offsets come from: the context, the Strimzi API versions served (the Strimzi era), the time."""
    from .versions import strimzi_api

    api = strimzi_api(kube)
    return {"context": kube.context, "server": kube.server,
            "strimziApiVersions": api.served, "namespace": None if selection.all_namespaces else kube.namespace,
            "selector": selection.selector, "exportedAt": _now()}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --- listing --------------------------------------------------------------------------------------------------


def list_fleet(cluster: ClusterConfig, members: list[Member], options: Options, *, parallel: int = DEFAULT_PARALLEL,
               progress: Progress | None = None) -> tuple[FleetDocument, list[tuple[Member, OffsetsError]]]:
    """The offsets of every member (listing stops nothing, so only the per-resource lanes limit parallelism).
    Returns the document of the members that could be listed and the errors of those that could not."""
    progress = progress or SilentProgress()
    results: dict[Member, FleetEntry | OffsetsError] = {}

    def list_one(kube: Kube, member: Member) -> None:
        try:
            found = operations.list_offsets(kube, member.spec, namespace=member.namespace, options=options,
                                            progress=_Prefixed(progress, member))
            results[member] = FleetEntry(member, found.offsets, found.kind)
        except OffsetsError as error:
            results[member] = error

    _run_lanes(cluster, members, list_one, parallel, threading.Event())
    entries = [r for _, r in sorted(results.items()) if isinstance(r, FleetEntry)]
    errors = [(m, r) for m, r in sorted(results.items()) if isinstance(r, OffsetsError)]
    return FleetDocument(entries), errors


# --- planning -------------------------------------------------------------------------------------------------


@dataclass
class PlanItem:
    """One connector in the plan: its preview, or why it is left out (``skipped``) or cannot be done (``problem``)."""

    member: Member
    operation: str = ""
    preview: operations.Preview | None = None
    problem: OffsetsError | None = None
    skipped: str | None = None
    # The single-connector call; it returns an Outcome, as execute() runs it with dry_run=False (a Preview otherwise).
    run: Callable[[Any, Options, Progress], Outcome | operations.Preview] | None = field(default=None, repr=False)

    @property
    def runnable(self) -> bool:
        return self.run is not None and self.problem is None and self.skipped is None


@dataclass
class Plan:
    items: list[PlanItem]
    _scratch: tempfile.TemporaryDirectory | None = field(default=None, repr=False)

    @property
    def problems(self) -> list[PlanItem]:
        return [i for i in self.items if i.problem is not None]

    @property
    def runnable(self) -> list[PlanItem]:
        return [i for i in self.items if i.runnable]

    def require_valid(self, skip_invalid: bool) -> None:
        """Nothing changes if any target failed validation, unless the caller chose to leave those out."""
        if self.problems and not skip_invalid:
            shown = "; ".join(f"{i.member.display} in {i.member.namespace}: {cast(OffsetsError, i.problem).message}"
                              for i in self.problems[:5])
            more = f" (and {len(self.problems) - 5} more)" if len(self.problems) > 5 else ""
            raise InputError(f"{len(self.problems)} of {len(self.items)} connectors failed validation: {shown}{more}; "
                             "nothing was changed",
                             advice="fix them, narrow the selection (-l, --only), or add --skip-invalid to go on "
                                    "with the others")

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.cleanup()


# plan_one(kube, member, live, progress): the member's plan item, given its resolved target.
Planner = Callable[[Any, Member, LiveTarget, Any], PlanItem]


def _plan(cluster: ClusterConfig, members: Iterable[Member], plan_one: Planner, options: Options, parallel: int,
          progress: Progress, *, missing: Callable[[Member, NotFoundError], PlanItem] | None = None
          ) -> list[PlanItem]:
    """Resolve, check and preview every member; the listing each preview needs runs in the lanes, in parallel.
    ``missing``: the item of a member whose resource does not exist (default: a problem)."""
    items: dict[Member, PlanItem] = {}

    def one(kube: Kube, member: Member) -> None:
        try:
            live = resolve(kube, member.spec, member.namespace)
            if not options.force and live.kind.offsets_ignored_by_runtime:
                items[member] = PlanItem(member, skipped="its task never reads its offsets (MirrorMaker 2 "
                                                         "checkpoint/heartbeat); --force includes it")
                return
            items[member] = plan_one(kube, member, live, _Prefixed(progress, member))
        except NotFoundError as error:
            items[member] = missing(member, error) if missing else PlanItem(member, problem=error)
        except OffsetsError as error:
            items[member] = PlanItem(member, problem=error)

    _run_lanes(cluster, list(members), one, parallel, threading.Event())
    return [items[m] for m in sorted(items)]


def _current(kube: Kube, live: LiveTarget, options: Options, progress: Progress) -> OffsetsDocument:
    """The offsets now, after the mutating preflight: the preview's 'before' (the flow lists again once the
    connector is stopped, which is what it backs up and verifies against). The preflight refuses a journal, so
    there is none to warn about, as a plain list does."""
    preflight(kube, live, mutating=True, wait=options.wait, progress=progress)
    return operations.list_for_preview(kube, live, options, progress)


def plan_reset(cluster: ClusterConfig, members: list[Member], options: Options, *, parallel: int = DEFAULT_PARALLEL,
               progress: Progress | None = None) -> Plan:
    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        before = _current(kube, live, options, progress)
        preview = operations.Preview(Operation.RESET, live.target, live.kind, before, None)
        # The plan's list is the run's preview too: one list (and its operator passes) per connector less.
        return PlanItem(member, Operation.RESET, preview, run=lambda kube, opts, prog: operations.reset_offsets(
            kube, member.spec, namespace=member.namespace, options=opts, progress=prog, listed=before))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress or SilentProgress()))


def plan_alter(cluster: ClusterConfig, members: list[Member], request: AlterRequest, options: Options, *,
               parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None) -> Plan:
    """The same request for every member (``--shift-by N --topic T`` and the other relative inputs make sense for
    many connectors; each is validated against its own connector)."""
    check_request(request)

    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        before = _current(kube, live, options, progress)
        change = build_change(request, live.facts(), before)
        preview = operations.Preview(Operation.ALTER, live.target, live.kind, before, change)
        return PlanItem(member, Operation.ALTER, preview, run=lambda kube, opts, prog: operations.alter_offsets(
            kube, member.spec, request, namespace=member.namespace, options=opts, progress=prog, listed=before))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress or SilentProgress()))


def check_request(request: AlterRequest) -> None:
    """What a request for many connectors cannot be, checked before the cluster is asked anything."""
    request.check_combination()
    if request.file == "-":
        raise InputError("-f - (standard input) cannot be read once per connector",
                         advice="save the document to a file and pass -f FILE")


def plan_undo(cluster: ClusterConfig, members: list[Member], since: dt.datetime, options: Options, *,
              parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None) -> Plan:
    """Each member's newest backup taken at or after ``since`` (what a fleet operation started then took)."""
    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        name = backup_since(kube, live.target, since)
        if name is None:
            return PlanItem(member, skipped=f"no backup taken since {since.isoformat()}")
        before = _current(kube, live, options, progress)
        change = operations.restoring_change(backups.load_configmap(kube, live.target, name), before)
        if change is not None:
            validate_change(change, live.facts())
        preview = operations.Preview(Operation.UNDO, live.target, live.kind, before, change)
        return PlanItem(member, Operation.UNDO, preview, run=lambda kube, opts, prog: operations.undo(
            kube, member.spec, backup=name, namespace=member.namespace, options=opts, progress=prog))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress or SilentProgress()))


def backup_since(kube: Kube, target: strimzi.ConnectorTarget, since: dt.datetime) -> str | None:
    threshold = since.astimezone(dt.timezone.utc)
    for configmap in backups.list_backups(kube, target):  # newest first
        taken = (configmap["metadata"].get("annotations") or {}).get(ANNOTATION_TAKEN_AT)
        if taken and _parse_time(taken) >= threshold:
            return configmap["metadata"]["name"]
    return None


def _parse_time(text: str) -> dt.datetime:
    from ...times import parse_instant

    return parse_instant(text)


# --- import ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportMapping:
    """Where an exported entry goes: ``--map-namespace OLD=NEW`` first, then ``-n NS``, else the recorded one."""

    namespace: str | None = None
    namespaces: Mapping[str, str] = field(default_factory=dict)
    only: tuple[str, ...] = ()  # resource or connector names; empty = every entry

    def place(self, member: Member) -> Member | None:
        if self.only and member.name not in self.only and member.connector not in self.only:
            return None
        namespace = self.namespaces.get(member.namespace) or self.namespace or member.namespace
        return Member(namespace, member.kind, member.name, member.connector)


def parse_namespace_map(pairs: Iterable[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for pair in pairs:
        old, sep, new = pair.partition("=")
        if not sep or not old or not new:
            raise InputError(f"--map-namespace takes OLD=NEW, got '{pair}'")
        mapping[old] = new
    return mapping


def plan_import(cluster: ClusterConfig, document: FleetDocument, mapping: ImportMapping, options: Options, *,
                strict: bool = False, parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None) -> Plan:
    """Each entry applied to the connector of the same name through the normal alter flow, so that the connector
    ends exactly as exported: partitions the export has get its offsets, partitions that appeared since are reset
    (as ``undo`` does), and an entry without offsets becomes a reset."""
    placed = {m: e for e in document.entries if (m := mapping.place(e.member)) is not None}
    if not placed:
        raise InputError("no entry of the fleet document is selected", advice="check --only")
    scratch = tempfile.TemporaryDirectory(prefix="kubectl-offsets-import-")
    os.chmod(scratch.name, 0o700)

    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        before = _current(kube, live, options, progress)
        change = operations.restoring_change(placed[member].offsets, before)
        if change is None:
            if not len(before):
                return PlanItem(member, skipped="no offsets exported and none now: nothing to do")
            preview = operations.Preview(Operation.RESET, live.target, live.kind, before, None)
            return PlanItem(member, Operation.RESET, preview, run=lambda kube, opts, prog: operations.reset_offsets(
                kube, member.spec, namespace=member.namespace, options=opts, progress=prog, listed=before))
        validate_change(change, live.facts())
        if before.same_offsets(before.merged_with(change)):
            return PlanItem(member, skipped="already at the exported offsets")
        # The change goes through `alter -f`, so it meets exactly the checks a user's file meets.
        path = Path(scratch.name) / f"{uuid.uuid4().hex}.json"
        path.write_text(json.dumps(change.to_json()))
        request = AlterRequest(file=str(path))
        preview = operations.Preview(Operation.ALTER, live.target, live.kind, before, change)
        return PlanItem(member, Operation.ALTER, preview, run=lambda kube, opts, prog: operations.alter_offsets(
            kube, member.spec, request, namespace=member.namespace, options=opts, progress=prog, listed=before))

    def missing(member: Member, error: NotFoundError) -> PlanItem:
        if strict:
            return PlanItem(member, problem=error)
        return PlanItem(member, skipped=f"not found ({error.message})")

    try:
        items = _plan(cluster, placed, plan_one, options, parallel, progress or SilentProgress(), missing=missing)
    except BaseException:
        scratch.cleanup()
        raise
    return Plan(items, scratch)


# --- execution ------------------------------------------------------------------------------------------------


@dataclass
class MemberResult:
    item: PlanItem
    outcome: Outcome | None = None
    error: OffsetsError | None = None
    started: bool = False

    @property
    def status(self) -> str:
        if self.item.skipped is not None:
            return "skipped"
        if self.item.problem is not None:
            return "invalid"
        if not self.started:
            return "not started"
        return "failed" if self.error is not None else "done"

    @property
    def next_command(self) -> str | None:
        if self.error is not None:
            return self.error.next_command or self.item.member.command("recover")
        if self.outcome is not None:
            return self.item.member.command("undo") + f" --backup {self.outcome.backup}"
        return None


@dataclass
class FleetReport:
    results: list[MemberResult]
    interrupted: bool = False

    @property
    def failed(self) -> list[MemberResult]:
        return [r for r in self.results if r.status == "failed"]

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for result in self.results:
            counts[result.status] = counts.get(result.status, 0) + 1
        return counts


def execute(cluster: ClusterConfig, plan: Plan, options: Options, *, parallel: int = DEFAULT_PARALLEL,
            progress: Progress | None = None, stop: threading.Event | None = None) -> FleetReport:
    """Run every runnable item of the plan, ``parallel`` at a time (lanes one after another). Set ``stop`` (or
    interrupt the calling thread) to start nothing new; the flows under way always finish."""
    progress = progress or SilentProgress()
    stop = stop or threading.Event()
    results = {id(item): MemberResult(item) for item in plan.items}
    runnable = plan.runnable
    counter = _Counter(progress, len(runnable))
    flow_options = Options(yes=True, dry_run=False, resume=options.resume, force=options.force, wait=options.wait)

    def run_one(kube: Kube, item: PlanItem) -> None:
        result = results[id(item)]
        result.started = True
        try:
            run = item.run
            assert run is not None  # only runnable items get here
            result.outcome = cast(Outcome, run(kube, flow_options, _Prefixed(progress, item.member)))  # not a dry run
        except OffsetsError as error:
            result.error = error
        counter.finished(item.member, result)

    items_by_member = {item.member: item for item in runnable}
    interrupted = _run_lanes(cluster, list(items_by_member), lambda kube, m: run_one(kube, items_by_member[m]),
                             parallel, stop)
    plan.close()
    return FleetReport([results[id(item)] for item in plan.items], interrupted=interrupted)


def _run_lanes(cluster: ClusterConfig, members: list[Member], work: Callable[[Any, Member], None], parallel: int,
               stop: threading.Event) -> bool:
    """Run ``work(kube, member)`` for every member: members of one lane in order, at most ``parallel`` lanes at
    once, each worker thread with its own API client (siblings of one: what discovery and access reviews answered
    is asked once). Returns True when interrupted (Ctrl-C in the calling thread or ``stop`` set): lanes then start
    no new member, and the calls under way run to their end."""
    if parallel < 1:
        raise InputError(f"--parallel must be at least 1 (got {parallel})")
    lanes: dict[tuple[str, str, str], list[Member]] = {}
    for member in members:
        lanes.setdefault(member.lane, []).append(member)
    base = operations.connect(cluster)
    local = threading.local()

    def run_lane(lane: list[Member]) -> None:
        for member in lane:
            if stop.is_set():
                return
            if getattr(local, "kube", None) is None:
                local.kube = base.sibling()
            work(local.kube, member)

    pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="fleet")
    futures = [pool.submit(run_lane, lane) for lane in lanes.values()]
    interrupted = False
    try:
        for future in futures:
            future.result()
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        for future in futures:  # the ones running finish their member; the rest see `stop` and start nothing
            future.cancel()
        pool.shutdown(wait=True)
    finally:
        pool.shutdown(wait=True)
    return interrupted or stop.is_set()


# --- progress -------------------------------------------------------------------------------------------------


class _Prefixed:
    """Progress of one member: every line names the connector, so interleaved lines stay readable."""

    _lock = threading.Lock()

    def __init__(self, inner: Progress, member: Member):
        self.inner, self.prefix = inner, f"[{member.namespace}/{member.display}]"

    def step(self, message: str) -> None:
        with self._lock:
            self.inner.step(f"{self.prefix} {message}")

    def waiting(self, message: str) -> None:
        pass  # a spinner per connector would fight over one terminal line; steps are enough

    def done(self) -> None:
        pass

    def warn(self, message: str) -> None:
        with self._lock:
            self.inner.warn(f"{self.prefix} {message}")


class _Counter:
    """``[3/12] done: kafkaconnector/a (2 done, 1 failed, 9 pending)`` after each member."""

    def __init__(self, progress: Progress, total: int):
        self.progress, self.total = progress, total
        self.done = self.failed = 0
        self._lock = threading.Lock()

    def finished(self, member: Member, result: MemberResult) -> None:
        with self._lock:
            if result.error is None:
                self.done += 1
            else:
                self.failed += 1
            finished = self.done + self.failed
            self.progress.step(f"[{finished}/{self.total}] {result.status}: {member.namespace}/{member.display} "
                               f"({self.done} done, {self.failed} failed, {self.total - finished} pending)")


def exit_status(report: FleetReport) -> int:
    """0 when every connector that ran succeeded; else the first failure's exit status (interrupted: 130)."""
    if report.failed:
        return int(cast(OffsetsError, report.failed[0].error).exit_status)  # failed: it has an error
    return int(ExitStatus.INTERRUPTED) if report.interrupted else 0
