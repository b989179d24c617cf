"""What the online commands share: target arguments, turning flags into library calls, printing results."""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from ..output.terminal import echo, printable
from .kubectl_output import result_printer
from .options import cluster_config, complete_target, kafka_option

target_argument = click.argument("target", metavar="[kafkaconnector/|kafkamirrormaker2/]NAME",
                                 shell_complete=complete_target)
# list, alter, reset and undo also work on many connectors (-l/--all/-A), where no TARGET is given.
optional_target_argument = click.argument("target", metavar="[[kafkaconnector/|kafkamirrormaker2/]NAME]",
                                          required=False, shell_complete=complete_target)


def _complete_connector(ctx, param, incomplete):
    from .complete import complete_from_cluster

    return complete_from_cluster("mm2-connector", ctx, incomplete)


connector_options = [
    click.option("--connector", metavar="NAME", help="kmm2/NAME's connector: source, checkpoint, heartbeat, or its full name "
                 "('east->west.MirrorSourceConnector').",
                 shell_complete=_complete_connector),
    click.option("--source-cluster", metavar="ALIAS", help="With a short --connector: the source cluster's alias."),
]


def flow_options(f):
    """--no-resume and --force, shared by the commands that run the step machine (alter, reset, undo)."""
    f = click.option("--force", is_flag=True, help="Allow MirrorMaker 2 checkpoint and heartbeat connectors (their "
                     "tasks ignore offsets).")(f)
    return click.option("--no-resume", is_flag=True, help="Leave the connector stopped afterwards.")(f)


mm2_broker_options: list[Callable] = [  # click decorators
    click.option("--source-bootstrap-server", "--bootstrap-server", "source_bootstrap_server", metavar="HOST:PORT",
                 help="MirrorMaker 2: the source cluster, to check the new offsets against (default: the "
                      "mirror's, when reachable)."),
    kafka_option("Kafka client setting (librdkafka names), e.g. security.protocol=SSL. Repeatable."),
    click.option("--require-check", is_flag=True,
                 help="MirrorMaker 2: refuse when the source cluster cannot be reached for that check."),
]
require_check_option = mm2_broker_options[-1]  # alter has its own --bootstrap-server/--kafka-option (time travel)


def with_mm2_broker_options(f):
    for option in reversed(mm2_broker_options):
        f = option(f)
    return f


def mm2_settings(flags: dict, **more):
    """The MirrorMaker 2 settings (core.mm2_check.Mm2Settings) from the flags of with_mm2_broker_options."""
    from ..core.online.mm2_check import Mm2Settings

    return Mm2Settings(source_bootstrap=flags.get("source_bootstrap_server"),
                       kafka_options=tuple(flags.get("kafka_options") or ()),
                       require_check=bool(flags.get("require_check")), **more)


def with_connector_options(f):
    for option in reversed(connector_options):
        f = option(f)
    return f


def session(namespace, context, kubeconfig, timeout, quiet, *, yes=False, dry_run=False, resume=True, force=False,
            mm2=None):
    """The kube client, options and progress for one invocation (imports the library lazily)."""
    from ..core.online import operations
    from ..model import Options, WaitSettings
    from ..output.progress import StderrProgress
    from .invocation import dry_run_mode

    kube = operations.connect(cluster_config(namespace, context, kubeconfig))
    server = bool(dry_run) and click.get_current_context(silent=True) is not None and dry_run_mode() == "server"
    options = Options(yes=yes, dry_run=dry_run, dry_run_server=server, resume=resume, force=force,
                      wait=WaitSettings(timeout=timeout), mm2=mm2)
    return kube, options, StderrProgress(quiet=quiet)


def target_spec(target: str, connector: str | None, source_cluster: str | None):
    from ..core.online.targets import TargetSpec

    return TargetSpec(target, connector=connector, source_cluster=source_cluster)


def require_confirmation_possible(yes: bool, dry_run: bool, operation: str,
                                  does: str = "changes the connector's offsets") -> None:
    """Without a terminal there is nobody to ask: refuse before anything is touched."""
    if not yes and not dry_run and not sys.stdin.isatty():
        from ..errors import InputError

        raise InputError(f"{operation} {does} and there is no terminal to confirm on",
                         advice="pass --yes to proceed without confirmation, or --dry-run to only preview")


def confirm_on_terminal(preview, question: str | None = None) -> bool:
    """Ctrl-C or Ctrl-D at the prompt is a "no": the operation is cancelled and says what that left (create deletes
    the connector it created for the preview), instead of click's bare "Aborted!". ``question``: what to ask, when
    it is not "<operation> the offsets of NAME?"."""
    echo(render_preview(preview), err=True)
    question = question or f"{preview.operation} the offsets of '{preview.target.connector_name}'?"
    try:
        return click.confirm(printable(question), default=False, err=True)
    except click.Abort:
        click.echo("", err=True)
        return False


def confirm_or_cancel(question: str, cancelled: str) -> None:
    """Ask y/N on stderr and return on a yes. Anything else says ``cancelled`` and exits: "no" and Ctrl-D as a
    refusal (exit 2), Ctrl-C as an interruption (exit 130), as a shell's Ctrl-C; never click's bare "Aborted!"."""
    from ..errors import InputError, InterruptedOperationError

    try:
        if click.confirm(printable(question), default=False, err=True):
            return
    except click.Abort as abort:
        click.echo("", err=True)
        if isinstance(abort.__context__, KeyboardInterrupt):  # click raises Abort from Ctrl-C and Ctrl-D alike
            raise InterruptedOperationError(cancelled) from None
    raise InputError(cancelled)


def render_preview(preview) -> str:
    text = _preview_body(preview)
    return f"{text}\nWARNING: {preview.unverified_note()}" if preview.unverified else text


def _preview_body(preview) -> str:
    from ..output.render import render_changes

    head = f"{preview.operation} {preview.target.display} in namespace {preview.target.namespace}"
    head += _mm2_lines(preview)
    if preview.before is None:
        shown = preview.change.to_json() if preview.change is not None else "all offsets reset"
        import json

        return f"{head}\ncurrent offsets unknown (never listed); the change:\n{json.dumps(shown, indent=2)}"
    if preview.change is None:
        head += ": every offset below is reset"
    if not len(preview.before) and not len(preview.change or ()):
        return f"{head}\nthe connector has no offsets"
    note = ("\nlisted while the connector runs: partitions it is reading may move until it is stopped; the backup "
            "is taken, and the change applied, on the offsets listed once it is stopped") \
        if preview.listed_while_running else ""
    return f"{head}\n{render_changes(preview.rows(), preview.kind)}{note}"


def _mm2_lines(preview) -> str:
    """The MirrorMaker 2 pre-flight's verdict and a full reset's steps, for the preview (warnings go to stderr as
    they are found)."""
    lines = []
    check = getattr(preview, "check", None)
    if check is not None and check.skipped is None:
        verdict = f"{len(check.problems)} problem(s), see the warnings" if check.problems else "all ok"
        lines.append(f"pre-flight: {len(check.partitions)} source partition(s) checked against {check.bootstrap}: "
                     f"{verdict}")
    steps = getattr(preview, "extra_steps", None) or []
    if steps:
        lines.append("full reset, in this order:")
        lines += [f"  {number}. {step}" for number, step in enumerate(steps, 1)]
    return "".join(f"\n{line}" for line in lines)


# What a dry run assumes instead of asking (--dry-run's help and docs/online.md say the same).
DRY_RUN_ASSUMES = ("the writes are the ones the same engine makes for a real run; from the first wait on, the "
                   "operator and Connect are assumed to do what they are asked (stop, list, change, resume)")


def print_dry_run(preview, fmt: str = "table", kube=None) -> None:
    """The preview on stderr; on stdout the writes the engine recorded, in the format asked: YAML documents for the
    table form, one document (mode, before, change, writes) for json/yaml, the offsets after for csv. With
    --dry-run=server the API server judged each of them (nothing is stored). Then, on stderr, where BEFORE came
    from and what the dry run assumed."""
    from .invocation import dry_run_mode, server_dry_run_done

    mode = dry_run_mode() if click.get_current_context(silent=True) else "client"
    echo(render_preview(preview), err=True)
    judged = getattr(preview, "server_judged", None)
    if judged is not None:
        server_dry_run_done()
        echo(f"server-side dry run: the API server accepted {judged} write(s)", err=True)
    shown_mode = "client" if mode == "none" else mode
    result_printer(fmt).show(lambda: dry_run_document(preview, shown_mode),
                             lambda output, no_headers: render_dry_run(preview, output, shown_mode))
    listed_at = getattr(preview, "listed_at", None)
    if preview.before is not None:
        age = _age(listed_at) if listed_at else None
        when = f", written {listed_at}" + (f" ({age} ago)" if age else "") if listed_at else ""
        echo(f"BEFORE is the connector's last list{when}, not listed anew; a real run lists again and "
                   "computes the change from that", err=True)
    echo(f"assumed: {DRY_RUN_ASSUMES}", err=True)
    echo("dry run: nothing was changed", err=True)


def _age(rfc3339: str) -> str | None:
    import datetime as dt

    from ..times import parse_instant

    try:
        written = parse_instant(rfc3339)
    except ValueError:  # the API server writes RFC 3339; anything else is shown as it is, without an age
        return None
    seconds = max(0, int((dt.datetime.now(dt.timezone.utc) - written).total_seconds()))
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{seconds % 60:02d}s"


def render_dry_run(preview, fmt: str, mode: str) -> str:
    from ..model import OffsetsDocument
    from ..output.render import render_offsets, to_yaml

    if fmt == "csv":
        after = preview.after if preview.before is not None else preview.change
        return render_offsets(after or OffsetsDocument(), "csv", preview.kind)
    if fmt in ("json", "yaml"):
        document = dry_run_document(preview, mode)
        import json

        return json.dumps(document, indent=2) if fmt == "json" else to_yaml(document)
    return "\n---\n".join(f"# {description}\n{to_yaml(body)}" for description, body in preview.patches)


def dry_run_document(preview, mode: str) -> dict[str, Any]:
    """What a dry run prints for -o json/yaml: its mode, the offsets before, the change and the writes."""
    return {"dryRun": mode, "operation": preview.operation, "target": preview.target.display,
            "namespace": preview.target.namespace,
            "before": None if preview.before is None else preview.before.to_json(),
            "change": None if preview.change is None else preview.change.to_json(),
            "writes": [{"description": description, "body": body} for description, body in preview.patches]}


def print_result(result, dry_run: bool, fmt: str, kube=None) -> None:
    """What alter, reset and undo print: the dry run's preview and writes, or the outcome (kube: for
    --dry-run=server)."""
    if dry_run:
        print_dry_run(result, fmt, kube)
    else:
        print_outcome(result, result.kind, fmt)


def print_outcome(outcome, kind, fmt: str) -> None:
    from ..model import diff
    from ..output.render import render_changes, render_offsets

    def render(output: str, no_headers: bool) -> str:
        if output != "table":
            return render_offsets(outcome.after, output, kind)
        rows = diff(outcome.before, outcome.after)
        return render_changes(rows, kind, no_headers=no_headers) if rows else "No offsets before or after."

    result_printer(fmt).show(outcome.after.to_json, render)
    # In every format (stdout keeps the document alter -f accepts): the backup is what undo restores.
    echo(f"backup: configmap/{outcome.backup}; connector is {outcome.final_state}", err=True)


def connector_flags(flags: dict[str, Any]) -> Any:
    """--target/--current/--connector/--source-cluster and the kubectl flags (compute and lag)."""
    from ..core.compute.request import ConnectorFlags

    return ConnectorFlags(target=flags["target"], current=flags["current"], connector=flags["connector"],
                          source_cluster=flags["source_cluster"], timeout=flags["timeout"],
                          cluster=cluster_config(flags["namespace"], flags["context"], flags["kubeconfig"]))
