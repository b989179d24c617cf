"""What the online commands share: target arguments, turning flags into library calls, printing results."""

from __future__ import annotations

import json
import sys

import click

from .options import cluster_config, complete_target

target_argument = click.argument("target", metavar="[kafkaconnector/|kafkamirrormaker2/]NAME",
                                 shell_complete=complete_target)
# list, alter, reset and undo also work on many connectors (-l/--all/-A), where no TARGET is given.
optional_target_argument = click.argument("target", metavar="[[kafkaconnector/|kafkamirrormaker2/]NAME]",
                                          required=False, shell_complete=complete_target)


def _complete_connector(ctx, param, incomplete):
    from .complete import complete_from_cluster

    return complete_from_cluster("mm2-connector", ctx, incomplete)


connector_options = [
    click.option("--connector", help="For kafkamirrormaker2/NAME: the connector, by full generated name "
                 "('east->west.MirrorSourceConnector', quote the '>') or short form: source, checkpoint, heartbeat.",
                 shell_complete=_complete_connector),
    click.option("--source-cluster", help="With a short --connector: the mirror's source cluster alias."),
]


def flow_options(f):
    """--no-resume and --force, shared by the commands that run the step machine (alter, reset, undo)."""
    f = click.option("--force", is_flag=True, help="Allow changing the offsets of MirrorMaker 2 checkpoint/heartbeat "
                     "connectors (stored by Connect, but ignored by their tasks).")(f)
    return click.option("--no-resume", is_flag=True,
                        help="Leave the connector stopped afterwards (it says so).")(f)


def with_connector_options(f):
    for option in reversed(connector_options):
        f = option(f)
    return f


def session(namespace, context, kubeconfig, timeout, quiet, *, yes=False, dry_run=False, resume=True, force=False):
    """The kube client, options and progress for one invocation (imports the library lazily)."""
    from ..core import operations
    from ..model import Options, WaitSettings
    from ..output.progress import StderrProgress

    kube = operations.connect(cluster_config(namespace, context, kubeconfig))
    options = Options(yes=yes, dry_run=dry_run, resume=resume, force=force, wait=WaitSettings(timeout=timeout))
    return kube, options, StderrProgress(quiet=quiet)


def target_spec(target: str, connector: str | None, source_cluster: str | None):
    from ..core.targets import TargetSpec

    return TargetSpec(target, connector=connector, source_cluster=source_cluster)


def require_confirmation_possible(yes: bool, dry_run: bool, operation: str) -> None:
    """Without a terminal there is nobody to ask: refuse before anything is touched."""
    if not yes and not dry_run and not sys.stdin.isatty():
        from ..errors import InputError

        raise InputError(f"{operation} changes the connector's offsets and there is no terminal to confirm on",
                         advice="pass --yes to proceed without confirmation, or --dry-run to only preview")


def confirm_on_terminal(preview) -> bool:
    click.echo(render_preview(preview), err=True)
    return click.confirm(f"{preview.operation} the offsets of '{preview.target.connector_name}'?", default=False,
                         err=True)


def render_preview(preview) -> str:
    from ..output.render import render_changes

    head = f"{preview.operation} {preview.target.display} in namespace {preview.target.namespace}"
    if preview.before is None:
        shown = preview.change.to_json() if preview.change is not None else "all offsets reset"
        return f"{head}\ncurrent offsets unknown (never listed); the change:\n{json.dumps(shown, indent=2)}"
    if preview.change is None:
        head += ": every offset below is reset"
    if not len(preview.before) and not len(preview.change or ()):
        return f"{head}\nthe connector has no offsets"
    note = ("\nlisted while the connector runs: partitions it is reading may move until it is stopped; the backup "
            "is taken, and the change applied, on the offsets listed once it is stopped") \
        if preview.listed_while_running else ""
    return f"{head}\n{render_changes(preview.rows(), preview.kind)}{note}"


def print_dry_run(preview) -> None:
    """The preview, then the exact patches and ConfigMap, as YAML documents on stdout."""
    from ..output.render import to_yaml

    click.echo(render_preview(preview), err=True)
    documents = [f"# {description}\n{to_yaml(body)}" for description, body in preview.patches]
    click.echo("\n---\n".join(documents))
    click.echo("dry run: nothing was changed", err=True)


def print_result(result, dry_run: bool, fmt: str) -> None:
    """What alter, reset and undo print: the dry run's preview and patches, or the outcome."""
    if dry_run:
        print_dry_run(result)
    else:
        print_outcome(result, result.kind, fmt)


def print_outcome(outcome, kind, fmt: str) -> None:
    from ..model import diff
    from ..output.render import render_changes, render_offsets

    if fmt == "table":
        rows = diff(outcome.before, outcome.after)
        click.echo(render_changes(rows, kind) if rows else "No offsets before or after.")
        click.echo(f"backup: configmap/{outcome.backup}; connector is {outcome.final_state}", err=True)
    else:
        click.echo(render_offsets(outcome.after, fmt, kind))
