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

import contextlib
import dataclasses
import datetime as dt
import json
import os
import signal
import tempfile
import threading
import traceback
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, cast

from ... import files, schemas, strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_OPERATION, ANNOTATION_TAKEN_AT, Operation
from ...errors import ApiNotServedError, ExitStatus, InputError, InterruptedOperationError, NotFoundError, OffsetsError
from ...model import ClusterConfig, OffsetsDocument, Options
from ...progress import Progress, SilentProgress
from . import backups, operations
from ..inputs import AlterRequest, build_change, check_document_shape, validate_change
from .engine import Outcome, as_offsets_error
from .mm2_check import require_reachable
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

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """The connector this member is, as Connect and Strimzi know it: a KafkaConnector's connector is named
        after the resource, whatever ``connector`` says."""
        connector = self.connector if self.kind == strimzi.KIND_MM2 else self.name
        return (self.namespace, self.kind, self.name, connector)

    @property
    def where(self) -> str:
        return f"{self.namespace}/{self.display}"

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


def check_distinct(members: Iterable[Member]) -> None:
    """A fleet never holds one connector twice: two flows on one connector would race (the second refuses the
    first's journal, or alters it again after it)."""
    seen: dict[tuple[str, str, str, str], list[Member]] = {}
    for member in members:
        seen.setdefault(member.identity, []).append(member)
    twice = [found for found in seen.values() if len(found) > 1]
    if twice:
        shown = "; ".join(f"{found[0].where} ({len(found)} times)" for found in twice[:5])
        raise InputError(f"the same connector is selected more than once: {shown}; nothing was changed")


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
    origin: str = "the fleet document"  # where it was read from, for messages

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"connectors": [e.to_json() for e in self.entries]}
        if self.source:
            document["source"] = self.source
        return document

    @classmethod
    def from_json(cls, document: Any, where: str) -> "FleetDocument":
        schemas.validate(FLEET_SCHEMA, document, what=f"the fleet document in {where}")
        for number, entry in enumerate(document["connectors"], start=1):
            check_document_shape({"offsets": entry["offsets"]}, f"{where} entry {number} ({entry['connector']})")
        entries = [FleetEntry(Member(e["namespace"], e["kind"], e["name"], e["connector"]),
                              OffsetsDocument.from_json({"offsets": e["offsets"]})) for e in document["connectors"]]
        return cls(entries, document.get("source"), where)


def read_fleet_file(path: str) -> FleetDocument:
    """A fleet document in JSON or YAML, as ``export`` writes it."""
    from ...adapters.yamlfiles import load_data  # heavy (ruamel.yaml); only here

    text = files.read_text(path)
    try:
        if text.lstrip().startswith("{"):
            try:
                document = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{path} is not valid JSON: {e.msg} at line {e.lineno}") from None
        else:
            document = load_data(text, path, invalid="is neither valid JSON nor valid YAML",
                                 advice='expected {"connectors": [...]} as kubectl offsets export writes it')
    except RecursionError:
        raise InputError(f"{path} is nested too deeply to be a fleet document") from None
    if not isinstance(document, dict) or "connectors" not in document:
        raise InputError(f"{path} is not a fleet document",
                         advice='expected {"connectors": [...]} as kubectl offsets export writes it')
    return FleetDocument.from_json(document, path)


def write_fleet_file(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file beside it, renamed over ``path`` only
    once complete, so an interrupted or failed export never leaves a truncated document that looks finished (and a
    previous export there stays intact)."""
    target = Path(path)
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error.__class__.__name__}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fchmod(file.fileno(), _mode_for(target))
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputError(f"cannot write {path}: {error.strerror or error.__class__.__name__}") from None
        raise


def _mode_for(target: Path) -> int:
    """The mode a plain write would have given: the old file's, else the default under the umask (mkstemp's is
    0600)."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


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
               progress: Progress | None = None, stop: threading.Event | None = None
               ) -> tuple[FleetDocument, list[tuple[Member, OffsetsError]]]:
    """The offsets of every member (listing stops nothing, so only the per-resource lanes limit parallelism).
    Returns the document of the members that could be listed and the errors of those that could not. An interrupt
    (``stop`` set, or Ctrl-C) raises InterruptedOperationError once the lists under way are done: a document
    without the members never asked for must not pass for the whole selection."""
    progress = progress or SilentProgress()
    results: dict[Member, FleetEntry | OffsetsError] = {}

    def list_one(kube: Kube, member: Member) -> None:
        try:
            found = operations.list_offsets(kube, member.spec, namespace=member.namespace, options=options,
                                            progress=_Prefixed(progress, member))
            results[member] = FleetEntry(member, found.offsets, found.kind)
        except OffsetsError as error:
            results[member] = error

    run = _run_lanes(cluster, members, list_one, parallel, stop or threading.Event(), progress)
    _raise_unexpected(run)
    if run.interrupted:
        raise InterruptedOperationError(f"interrupted after listing {len(results)} of {len(members)} connectors; "
                                        "nothing was written")
    entries = [r for _, r in sorted(results.items()) if isinstance(r, FleetEntry)]
    errors = [(m, r) for m, r in sorted(results.items()) if isinstance(r, OffsetsError)]
    return FleetDocument(entries), errors


def _raise_unexpected(run: LaneRun) -> None:
    """A read-only pass (list, plan) that met an unexpected exception stops there: it is a bug, with its traceback."""
    if run.failures:
        raise next(iter(run.failures.values()))


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

    def __post_init__(self) -> None:
        check_distinct(item.member for item in self.items)


# plan_one(kube, member, live, progress): the member's plan item, given its resolved target.
Planner = Callable[[Any, Member, LiveTarget, Any], PlanItem]


def _plan(cluster: ClusterConfig, members: Iterable[Member], plan_one: Planner, options: Options, parallel: int,
          progress: Progress | None, stop: threading.Event | None, *,
          missing: Callable[[Member, NotFoundError], PlanItem] | None = None) -> list[PlanItem]:
    """Resolve, check and preview every member; the listing each preview needs runs in the lanes, in parallel.
    ``missing``: the item of a member whose resource does not exist (default: a problem).

    Planning changes no offsets and no state, so an interrupt (``stop`` set, or Ctrl-C) ends it with
    InterruptedOperationError once the lists under way are done: a plan that misses members must never run."""
    members = list(members)
    progress = progress or SilentProgress()
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

    run = _run_lanes(cluster, members, one, parallel, stop or threading.Event(), progress)
    _raise_unexpected(run)
    if run.interrupted:
        raise InterruptedOperationError(f"interrupted while planning ({len(items)} of {len(members)} connectors "
                                        "checked); nothing was changed")
    return [items[m] for m in sorted(items)]


def _current(kube: Kube, live: LiveTarget, options: Options, progress: Progress) -> OffsetsDocument:
    """The offsets now, after the mutating preflight: the preview's 'before' (the flow lists again once the
    connector is stopped, which is what it backs up and verifies against). The preflight refuses a journal, so
    there is none to warn about, as a plain list does."""
    preflight(kube, live, mutating=True, wait=options.wait, progress=progress)
    require_reachable(live, options.mm2)  # --require-check: an unreachable source cluster is a plan problem
    return operations.list_for_preview(kube, live, options, progress)


def plan_reset(cluster: ClusterConfig, members: list[Member], options: Options, *, parallel: int = DEFAULT_PARALLEL,
               progress: Progress | None = None, stop: threading.Event | None = None) -> Plan:
    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        before = _current(kube, live, options, progress)
        preview = operations.Preview(Operation.RESET, live.target, live.kind, before, None)
        # The plan's list is the run's preview too: one list (and its operator passes) per connector less.
        return PlanItem(member, Operation.RESET, preview, run=lambda kube, opts, prog: operations.reset_offsets(
            kube, member.spec, namespace=member.namespace, options=opts, progress=prog, listed=before))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress, stop))


def plan_alter(cluster: ClusterConfig, members: list[Member], request: AlterRequest, options: Options, *,
               parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None,
               stop: threading.Event | None = None) -> Plan:
    """The same request for every member (``--shift-by N --topic T`` and the other relative inputs make sense for
    many connectors; each is validated against its own connector)."""
    check_request(request)

    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        before = _current(kube, live, options, progress)
        change = build_change(request, live.facts(), before)
        preview = operations.Preview(Operation.ALTER, live.target, live.kind, before, change)
        return PlanItem(member, Operation.ALTER, preview, run=lambda kube, opts, prog: operations.alter_offsets(
            kube, member.spec, request, namespace=member.namespace, options=opts, progress=prog, listed=before))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress, stop))


def check_request(request: AlterRequest) -> None:
    """What a request for many connectors cannot be, checked before the cluster is asked anything."""
    request.check_combination()
    if request.file == "-":
        raise InputError("-f - (standard input) cannot be read once per connector",
                         advice="save the document to a file and pass -f FILE")


def plan_undo(cluster: ClusterConfig, members: list[Member], since: dt.datetime, options: Options, *,
              parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None,
              stop: threading.Event | None = None) -> Plan:
    """Each member's newest backup taken at or after ``since`` by anything but an undo (what a fleet operation
    started then took). Undo's own backups are passed over, so running the same undo again restores the same
    backups (a member already back at its backup's offsets is skipped) instead of undoing the first undo."""
    def plan_one(kube: Kube, member: Member, live: LiveTarget, progress: Progress) -> PlanItem:
        name = backup_since(kube, live.target, since)
        if name is None:
            return PlanItem(member, skipped=f"no backup taken since {since.isoformat()} (other than by undo)")
        before = _current(kube, live, options, progress)
        saved = backups.load_configmap(kube, live.target, name)
        change = operations.restoring_change(saved, before, backups.load_changed(kube, live.target, name))
        if change is None and not len(before):
            return PlanItem(member, skipped=f"already as configmap/{name} has it (no offsets)")
        if change is not None:
            validate_change(change, live.facts())
            if before.same_offsets(before.merged_with(change)):
                return PlanItem(member, skipped=f"already at the offsets of configmap/{name}")
        preview = operations.Preview(Operation.UNDO, live.target, live.kind, before, change)
        return PlanItem(member, Operation.UNDO, preview, run=lambda kube, opts, prog: operations.undo(
            kube, member.spec, backup=name, namespace=member.namespace, options=opts, progress=prog))

    return Plan(_plan(cluster, members, plan_one, options, parallel, progress, stop))


def backup_since(kube: Kube, target: strimzi.ConnectorTarget, since: dt.datetime) -> str | None:
    """The newest backup of ``target`` taken at or after ``since`` by an alter or a reset (not by an undo)."""
    threshold = since.astimezone(dt.timezone.utc)
    for configmap in backups.list_backups(kube, target):  # newest first
        annotations = configmap["metadata"].get("annotations") or {}
        taken = annotations.get(ANNOTATION_TAKEN_AT)
        if annotations.get(ANNOTATION_OPERATION) == Operation.UNDO:
            continue
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
        if old in mapping and mapping[old] != new:
            raise InputError(f"--map-namespace maps {old} twice (to {mapping[old]} and to {new})",
                             advice="give one target namespace per source namespace")
        mapping[old] = new
    return mapping


def place_entries(document: FleetDocument, mapping: ImportMapping) -> dict[Member, FleetEntry]:
    """Each selected entry at the member it will be applied to. Refuses, before anything is asked of the cluster,
    what would otherwise be lost silently: a mapping or ``--only`` name that matches no entry (a typo that would
    skip everything), a KafkaConnector entry whose connector is not its resource (Strimzi names the connector after
    the resource), and two entries that end on one connector (the last would win, or it would be altered twice)."""
    where = document.origin
    for number, entry in enumerate(document.entries, start=1):
        member = entry.member
        if member.kind == strimzi.KIND_CONNECTOR and member.connector != member.name:
            raise InputError(f"entry #{number} of {where} ({member.namespace}/{member.display}) names connector "
                             f"'{member.connector}', but a KafkaConnector's connector has the resource's name; "
                             "nothing was changed", advice=f"correct its name or connector in {where}")
    recorded = sorted({e.member.namespace for e in document.entries})
    for old in mapping.namespaces:
        if old not in recorded:
            raise InputError(f"--map-namespace {old}={mapping.namespaces[old]}: no entry of {where} is in namespace "
                             f"{old} (its entries are in: {', '.join(recorded) or 'none'}); nothing was changed",
                             advice="the OLD of --map-namespace OLD=NEW is a namespace recorded in the document")
    names = {e.member.name for e in document.entries} | {e.member.connector for e in document.entries}
    for name in mapping.only:
        if name not in names:
            raise InputError(f"--only {name}: no entry of {where} has that resource or connector name; nothing was "
                             "changed", advice="kubectl offsets import -f FILE --dry-run lists the entries")
    targets: dict[tuple[str, str, str, str], list[tuple[int, FleetEntry, Member]]] = {}
    for number, entry in enumerate(document.entries, start=1):
        placed = mapping.place(entry.member)
        if placed is not None:
            targets.setdefault(placed.identity, []).append((number, entry, placed))
    collisions = [found for found in targets.values() if len(found) > 1] + _named_two_ways(targets)
    if collisions:
        shown = "; ".join(" and ".join(f"#{n} ({e.member.where})" for n, e, _ in found)
                          + f" would all go to {found[0][2].where}" for found in collisions[:3])
        raise InputError(f"entries of {where} collide: {shown}; nothing was changed",
                         advice="map each source namespace to a namespace of its own (--map-namespace OLD=NEW per "
                                "namespace, instead of -n for all), or remove the duplicate entries")
    if not targets:
        raise InputError(f"no entry of {where} is selected", advice="check --only")
    return {found[0][2]: found[0][1] for found in targets.values()}


def _named_two_ways(targets: Mapping[tuple[str, str, str, str], list[tuple[int, FleetEntry, Member]]]
                    ) -> list[list[tuple[int, FleetEntry, Member]]]:
    """Entries that name one MirrorMaker 2 connector once by its short form (``source``) and once by its full name
    (``east->west.MirrorSourceConnector``). The short form resolves to the only connector of its type, or is
    ambiguous and refused (strimzi.resolve_mm2_target), so a short form and any full name of that type on the same
    mirror are one connector, or the import would fail there anyway."""
    by_type: dict[tuple[str, str, str], list[tuple[int, FleetEntry, Member]]] = {}
    shorts: set[tuple[str, str, str]] = set()
    for (namespace, kind, name, connector), found in targets.items():
        if kind != strimzi.KIND_MM2:
            continue
        short = connector in strimzi.MM2_TYPES
        mm2_type = strimzi.MM2_TYPES[connector][1] if short else connector.rsplit(".", 1)[-1]
        by_type.setdefault((namespace, name, mm2_type), []).extend(found[:1])
        if short:
            shorts.add((namespace, name, mm2_type))
    return [sorted(found, key=lambda f: f[0]) for key, found in by_type.items() if key in shorts and len(found) > 1]


def plan_import(cluster: ClusterConfig, document: FleetDocument, mapping: ImportMapping, options: Options, *,
                strict: bool = False, parallel: int = DEFAULT_PARALLEL, progress: Progress | None = None,
                stop: threading.Event | None = None) -> Plan:
    """Each entry applied to the connector of the same name through the normal alter flow, so that the connector
    ends exactly as exported: partitions the export has get its offsets, partitions that appeared since are reset
    (as ``undo`` does), and an entry without offsets becomes a reset. When not one of the entries' connectors
    exists, the target is wrong (namespace, context), not the connectors: that is an error, not a run that skips
    every entry."""
    placed = place_entries(document, mapping)
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

    absent: list[Member] = []

    def missing(member: Member, error: NotFoundError) -> PlanItem:
        absent.append(member)
        if strict:
            return PlanItem(member, problem=error)
        return PlanItem(member, skipped=f"not found ({error.message})")

    try:
        items = _plan(cluster, placed, plan_one, options, parallel, progress, stop, missing=missing)
        if len(absent) == len(items):
            namespaces = sorted({m.namespace for m in absent})
            where = f"namespace{'s' if len(namespaces) > 1 else ''} {', '.join(namespaces)}"
            raise NotFoundError(f"not one of the {len(items)} connectors of {document.origin} exists where it would "
                                f"be imported ({where}); nothing was changed",
                                advice="check -n, --map-namespace OLD=NEW and --context")
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
    interrupted: bool = False  # Ctrl-C/SIGTERM: nothing new was started after it
    stopped_by_failure: bool = False  # an unexpected failure of one member: nothing new was started after it

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
    interrupt the calling thread) to start nothing new; the flows under way always finish, and the report always
    comes back. A member that fails with anything but our own errors (a bug) is reported as failed and, like an
    interrupt, stops the starting of new members."""
    progress = progress or SilentProgress()
    stop = stop or threading.Event()
    results = {id(item): MemberResult(item) for item in plan.items}
    runnable = plan.runnable
    counter = _Counter(progress, len(runnable))
    # Every option the run was given, as it was given (a field added to Options travels too: --require-check's
    # MirrorMaker 2 settings once did not), except the confirmation and dry run the plan has already had.
    flow_options = dataclasses.replace(options, yes=True, dry_run=False)

    def run_one(kube: Kube, item: PlanItem) -> None:
        result = results[id(item)]
        result.started = True
        try:
            run = item.run
            assert run is not None  # only runnable items get here
            result.outcome = cast(Outcome, run(kube, flow_options, _Prefixed(progress, item.member)))  # not a dry run
        except OffsetsError as error:
            result.error = error
        except BaseException as failure:  # noqa: BLE001 - a bug: report it for this member, start nothing new
            result.error = as_offsets_error(failure)
            progress.warn(f"{item.member.where}: {result.error.message}\n{traceback.format_exc().rstrip()}")
            counter.finished(item.member, result)
            raise
        counter.finished(item.member, result)

    items_by_member = {item.member: item for item in runnable}
    try:
        run = _run_lanes(cluster, list(items_by_member), lambda kube, m: run_one(kube, items_by_member[m]),
                         parallel, stop, progress)
    finally:
        plan.close()
    return FleetReport([results[id(item)] for item in plan.items], interrupted=run.interrupted,
                       stopped_by_failure=bool(run.failures))


@dataclass
class LaneRun:
    """How a run of the lanes ended: ``interrupted`` (Ctrl-C, SIGTERM or ``stop`` set from outside) and the members
    whose work raised (each stopped the starting of new members, as an interrupt does)."""

    interrupted: bool = False
    failures: dict[Member, BaseException] = field(default_factory=dict)


# How often the calling thread looks at the lanes while it waits for them (and how soon it notices ``stop``).
_POLL_SECONDS = 0.2


def _run_lanes(cluster: ClusterConfig, members: list[Member], work: Callable[[Any, Member], None], parallel: int,
               stop: threading.Event, progress: Progress | None = None) -> LaneRun:
    """Run ``work(kube, member)`` for every member: members of one lane in order, at most ``parallel`` lanes at
    once, each worker thread with its own API client (siblings of one: what discovery and access reviews answered
    is asked once).

    Once ``stop`` is set (by the caller, e.g. from a signal handler; by Ctrl-C in the calling thread; or by a
    member whose work raised) no lane starts a new member, and the work under way runs to its end: this returns
    only when no worker is left, however often Ctrl-C is pressed meanwhile, so the caller can always report.

    The pool is driven from a thread of its own, which Ctrl-C never interrupts (Python raises KeyboardInterrupt in
    the main thread only): a KeyboardInterrupt inside ``submit`` lost the lane it had just started, and one inside
    a thread's ``join`` marks a running thread as ended on Python 3.11 (threading's _wait_for_tstate_lock), so the
    run returned with a member still at work. The calling thread only waits for an Event, which an interrupt
    cannot corrupt."""
    if parallel < 1:
        raise InputError(f"--parallel must be at least 1 (got {parallel})")
    check_distinct(members)
    lanes: dict[tuple[str, str, str], list[Member]] = {}
    for member in members:
        lanes.setdefault(member.lane, []).append(member)
    run = LaneRun()
    failed = threading.Event()  # apart from ``stop``, so that a failure is not taken for an interrupt
    base = operations.connect(cluster)
    local = threading.local()

    def run_lane(lane: list[Member]) -> None:
        for member in lane:
            if stop.is_set() or failed.is_set():
                return
            try:
                if getattr(local, "kube", None) is None:
                    local.kube = base.sibling()
                work(local.kube, member)
            except BaseException as failure:  # noqa: BLE001 - reported for this member; the others stop starting
                run.failures[member] = failure
                failed.set()

    with _ctrl_c_sets(stop):
        lanes_done, futures, broken = _drive_lanes(list(lanes.values()), run_lane, parallel)
        announced = False
        while not lanes_done.is_set():
            try:
                try:
                    if (stop.is_set() or failed.is_set()) and not announced:
                        announced = True
                        _announce_stop(progress, not stop.is_set(), sum(1 for f in futures if f.running()))
                    lanes_done.wait(_POLL_SECONDS)
                except KeyboardInterrupt:  # a handler of the caller's that raises: the same as ``stop``
                    stop.set()
            except KeyboardInterrupt:  # a second one while the first was being handled
                stop.set()
    if broken:
        raise broken[0]
    run.interrupted = stop.is_set()
    return run


@contextlib.contextmanager
def _ctrl_c_sets(stop: threading.Event) -> Iterator[None]:
    """Where the caller left Python's own Ctrl-C handling (KeyboardInterrupt in the main thread), Ctrl-C sets
    ``stop`` while the lanes run: a KeyboardInterrupt can land anywhere, also in the handling of the one before
    (three Ctrl-C in a row escaped the wait). A handler the caller installed (the CLI's sets ``stop`` too) stays."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _drive_lanes(lanes: list[list[Member]], run_lane: Callable[[list[Member]], None],
                 parallel: int) -> tuple[threading.Event, list[Future], list[BaseException]]:
    """Start a thread that submits every lane to a pool of ``parallel`` workers and waits for all of them; the Event
    is set once no worker is left. ``futures`` fills as lanes are submitted; ``broken`` holds what the driving
    itself raised (a bug: the lanes catch what their members raise)."""
    lanes_done, futures, broken = threading.Event(), [], []

    def drive() -> None:
        try:
            with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="fleet") as pool:
                for lane in lanes:
                    futures.append(pool.submit(run_lane, lane))
                wait(futures)
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread
            broken.append(error)
        finally:
            lanes_done.set()

    threading.Thread(target=drive, name="fleet-lanes").start()
    return lanes_done, futures, broken


def _announce_stop(progress: Progress | None, failure: bool, running: int) -> None:
    if progress is None:
        return
    if failure:
        progress.warn(f"an unexpected failure: no new connector starts; waiting for the {running} under way to finish")
    else:
        progress.warn(f"interrupted: no new connector starts; waiting for the {running} under way to finish (each "
                      "ends its flow; another Ctrl-C changes nothing)")


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
