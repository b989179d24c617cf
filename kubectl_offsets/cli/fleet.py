"""What the fleet forms of list, alter, reset, undo, export and import share: the selection flags, the plan shown
before one confirmation, and the summary printed after. Parsing and printing only; core/online/fleet.py does the work."""

from __future__ import annotations

import dataclasses
import sys
import threading
from typing import TYPE_CHECKING, Callable

import click

from ..output.terminal import echo
from .options import group

if TYPE_CHECKING:
    from ..core.online.fleet import Plan

selection_options = group(
    click.option("-l", "--selector", metavar="SELECTOR",
                 help="The connectors whose resource matches this label selector (team=payments,tier!=test)."),
    click.option("--all", "all_", is_flag=True, help="Every connector in the namespace."),
    click.option("-A", "--all-namespaces", is_flag=True, help="Every connector in every namespace."),
)

parallel_options = group(
    click.option("--parallel", type=click.IntRange(min=1), default=4, metavar="N",
                 help="Connectors worked on (so stopped) at once (default 4)."),
    click.option("--skip-invalid", is_flag=True,
                 help="Go on with the valid connectors when some fail the checks."),
)


# What a fleet run (-l/--all/-A) does with the flags of alter, reset and undo: these it carries to every connector
# (the inputs, --no-resume, --force, --require-check, --timeout) or uses itself (the selection, the cluster, the
# confirmation, the summary). Any other flag given with -l/--all/-A is refused by refuse_unhonoured, naming it, so
# that a flag added later is refused until someone carries it, never silently dropped
# (tests/unit/cli/test_fleet_flags.py tries every flag of the three commands).
FLEET_FLAGS = frozenset({"selector", "all_", "all_namespaces", "parallel", "skip_invalid", "no_resume", "force",
                         "require_check", "namespace", "context", "kubeconfig", "timeout", "yes", "dry_run", "quiet",
                         "no_headers"})
FLEET_INPUTS = {"alter": frozenset({"file", "sets", "skip_records", "to_offset", "shift_by", "topics"}),
                "reset": frozenset(), "undo": frozenset({"since"})}
FLEET_OUTPUTS = ("table", "name")  # the summary table, and the resources changed
_FLEET_ADVICE = {
    "source_bootstrap_server": "each mirror has its own source cluster: run it per mirror (kmm2/NAME --connector "
                               "source), or leave it out and each mirror's bootstrapServers is used",
    "kafka_options": "they go with one source cluster: run it per mirror (kmm2/NAME --connector source), or leave "
                     "them out",
    "output": "-o table (the summary) or -o name (the resources changed); -o json|yaml|csv print one connector's "
              "offsets: use 'kubectl offsets list -l ... -o json' for many",
}


def refuse_unhonoured(verb: str) -> None:
    """Refuse, before the cluster is asked, every flag of this invocation that a fleet run would not carry to each
    connector (FLEET_FLAGS): exit 2, naming the flag."""
    from click.core import ParameterSource

    from ..errors import InputError

    ctx = click.get_current_context()
    carried = FLEET_FLAGS | FLEET_INPUTS[verb]
    for param in ctx.command.params:
        name = param.name or ""
        if name in carried or ctx.get_parameter_source(name) in (None, ParameterSource.DEFAULT,
                                                                 ParameterSource.DEFAULT_MAP):
            continue
        if name == "output" and ctx.params.get(name) in FLEET_OUTPUTS:
            continue
        flag = "/".join(param.opts)
        raise InputError(f"{verb} -l/--all/-A: {flag} is not carried to each connector",
                         advice=_FLEET_ADVICE.get(name, f"run 'kubectl offsets {verb} NAME {param.opts[-1]} ...' "
                                                        "per connector, or leave it out"))


def fleet_requested(selector, all_, all_namespaces) -> bool:
    return bool(selector or all_ or all_namespaces)


def check_target_or_selection(target, connector, selector, all_, all_namespaces, verb: str) -> bool:
    """True for a fleet invocation. A TARGET and a selection together, or neither, is a usage error."""
    from ..errors import InputError

    fleet = fleet_requested(selector, all_, all_namespaces)
    if fleet and target:
        raise InputError(f"{verb}: give either a TARGET or -l/--all/-A, not both")
    if fleet and connector:
        raise InputError(f"{verb}: --connector names a connector of one kafkamirrormaker2/NAME; it does not "
                         "combine with -l/--all/-A", advice=f"kubectl offsets {verb} kmm2/NAME --connector ...")
    if not fleet and not target:
        raise InputError(f"{verb}: missing TARGET", advice=f"kubectl offsets {verb} NAME, or -l SELECTOR / --all / -A "
                                                           "for many connectors")
    return fleet


def selection(namespace, selector, all_, all_namespaces):
    from ..core.online.fleet import Selection

    return Selection(namespace=namespace, all_namespaces=all_namespaces, selector=selector)


def no_resources_found(kube, sel) -> str:
    """kubectl's words for an empty selection."""
    return "No resources found" if sel.all_namespaces else f"No resources found in {kube.namespace} namespace."


def cluster_and_members(namespace, context, kubeconfig, sel, *, empty_ok: bool = False):
    """The cluster config, one client, and the selected members (an empty selection is an error: nothing to do;
    with ``empty_ok``, for reading, an empty list as kubectl get answers it)."""
    from ..core.online import fleet, operations
    from ..errors import NotFoundError
    from .options import cluster_config

    cluster = cluster_config(namespace, context, kubeconfig)
    kube = operations.connect(cluster)
    members = fleet.select(kube, sel)
    if not members and not empty_ok:
        where = "any namespace" if sel.all_namespaces else f"namespace {kube.namespace}"
        what = f" matching {sel.selector}" if sel.selector else ""
        raise NotFoundError(f"no KafkaConnector or KafkaMirrorMaker2 connector{what} in {where}",
                            advice="check -n/--context and the selector")
    return cluster, kube, members


def entry_rows(document):
    return [(e.member.namespace, e.member.kind, e.member.name, e.member.connector, e.kind, list(e.offsets))
            for e in document.entries]


def warn_unlisted(errors) -> None:
    for member, error in errors:
        echo(f"warning: {member.where}: {error.message}", err=True)


def exit_if_unlisted(errors) -> None:
    """After printing what could be listed: a listing that missed connectors is not a success. The one error's
    status, or ERROR for several."""
    from ..errors import ExitStatus

    if errors:
        sys.exit(int(ExitStatus.ERROR) if len(errors) > 1 else int(errors[0][1].exit_status))


# --- mutating fleet operations ------------------------------------------------------------------------------------


def run_plan(plan_builder: Callable[[threading.Event], Plan], cluster, options, parallel: int, skip_invalid: bool,
             verb: str, progress) -> None:
    """Plan, show, confirm once, execute, summarise; exit non-zero if any connector failed or it was interrupted.

    While the plan is built and while it runs, Ctrl-C/SIGTERM only set ``stop``: an interrupted plan changes
    nothing (exit 130); an interrupted run starts no new connector, lets the ones under way finish and prints the
    summary before it exits."""
    from ..core.online import fleet
    from ..errors import InterruptedOperationError
    from .exits import signals_set

    stop = threading.Event()
    with signals_set(stop):
        plan = plan_builder(stop)
    try:
        if stop.is_set():  # after the last list ended, before the handlers went back
            raise InterruptedOperationError("interrupted while planning; nothing was changed")
        plan.require_valid(skip_invalid)
        _show_plan(plan)
        runnable = plan.runnable
        if not runnable:
            echo(f"nothing to {verb}", err=True)
            return
        if options.dry_run:
            echo("dry run: nothing was changed", err=True)
            return
        if not options.yes:
            from .common import confirm_or_cancel

            confirm_or_cancel(f"{verb} the offsets of {len(runnable)} connector(s), {parallel} at a time?",
                              f"{verb} cancelled; nothing was changed")
    except BaseException:
        plan.close()
        raise
    with signals_set(stop):  # through the summary too: a late Ctrl-C must not cut it (and its commands) short
        report = fleet.execute(cluster, plan, options, parallel=parallel, progress=progress, stop=stop)
        _show_summary(report)
    status = fleet.exit_status(report)
    if status:
        sys.exit(status)


def _show_plan(plan) -> None:
    from ..output.fleet import render_plan
    from .common import render_preview

    for item in plan.runnable:
        echo(render_preview(item.preview) + "\n", err=True)
    rows = []
    for item in plan.items:
        changed = sum(1 for row in item.preview.rows() if row.changed) if item.preview is not None else ""
        note = item.skipped or (f"invalid: {item.problem.message}" if item.problem else "")
        rows.append([item.member.namespace, item.member.display, item.operation or "-", str(changed), note])
    echo(render_plan(rows), err=True)


def _show_summary(report) -> None:
    from ..output.fleet import render_summary
    from .kubectl_output import result_printer

    rows = [[r.item.member.namespace, r.item.member.display, r.status,
             r.outcome.backup if r.outcome is not None else "", r.next_command or ""] for r in report.results]
    # -o name: the resources whose offsets were changed, as a fleet document names them
    changed = {"connectors": [{"kind": r.item.member.kind, "name": r.item.member.name} for r in report.results
                              if r.outcome is not None]}
    result_printer("table").show(lambda: changed, lambda fmt, no_headers: render_summary(rows, no_headers=no_headers))
    counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts().items()))
    if report.stopped_by_failure:
        counts += "; stopped after an unexpected failure: connectors not started are unchanged"
    elif report.interrupted:
        counts += "; interrupted: connectors not started are unchanged"
    echo(counts, err=True)
    for result in report.failed:
        echo(f"error: {result.item.member.where}: {result.error.message}", err=True)
        if result.error.advice:
            echo(f"  hint: {result.error.advice}", err=True)


@dataclasses.dataclass(frozen=True)
class FleetFlags:
    """Every flag a fleet alter/reset/undo acts on, as one typed object: taken whole from the command's parsed
    flags (``of_command``), so none can be dropped on the way to the plan and the run."""

    namespace: str | None
    context: str | None
    kubeconfig: str | None
    timeout: float
    quiet: bool
    yes: bool
    dry_run: bool
    no_resume: bool
    force: bool
    selector: str | None
    all_: bool
    all_namespaces: bool
    parallel: int
    skip_invalid: bool
    require_check: bool  # MirrorMaker 2's pre-flight, asked of every mirror member

    @classmethod
    def of_command(cls) -> "FleetFlags":
        """The running command's flags (click's parsed parameters, by name: a flag missing here is a KeyError)."""
        params = click.get_current_context().params
        return cls(**{field.name: params[field.name] for field in dataclasses.fields(cls)})


def run_fleet_command(verb: str, plan_for, flags: FleetFlags) -> None:
    """reset/alter/undo with -l/--all/-A: select, plan (``plan_for(fleet, cluster, members, options, progress,
    stop)``), confirm once, run. The flags it is not given are refused first (refuse_unhonoured)."""
    from ..core.online import fleet
    from .common import mm2_settings, require_confirmation_possible, session

    refuse_unhonoured(verb)
    require_confirmation_possible(flags.yes, flags.dry_run, verb)  # after the input's checks: fix a typo first
    sel = selection(flags.namespace, flags.selector, flags.all_, flags.all_namespaces)
    cluster, _, members = cluster_and_members(flags.namespace, flags.context, flags.kubeconfig, sel)
    _, options, progress = session(flags.namespace, flags.context, flags.kubeconfig, flags.timeout, flags.quiet,
                                   yes=flags.yes, dry_run=flags.dry_run, resume=not flags.no_resume, force=flags.force,
                                   mm2=mm2_settings({"require_check": flags.require_check}))
    run_plan(lambda stop: plan_for(fleet, cluster, members, options, progress, stop), cluster, options,
             flags.parallel, flags.skip_invalid, verb, progress)


def parse_since(text: str):
    """``--since``: an ISO 8601 time (UTC when no zone is given) or a duration ago (``2h``, ``30m``)."""
    import datetime as dt

    from ..errors import InputError
    from ..times import duration_seconds, parse_duration, parse_instant

    try:
        return parse_instant(text)
    except ValueError:
        pass
    if duration_seconds(text) is None:
        raise InputError(f"--since '{text}' is neither an ISO 8601 time nor a duration",
                         advice="e.g. --since 2026-11-23T10:00:00Z, --since 2h or --since PT2H")
    return dt.datetime.now(dt.timezone.utc) - parse_duration(text, "--since")  # bounded: no overflow
