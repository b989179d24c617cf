"""kubectl offsets backups"""

from __future__ import annotations

import sys

import click

from .common import optional_target_argument
from .fleet import selection_options
from .kubectl_output import kubectl_conventions
from .options import cluster_config, cluster_options, dry_run_option, quiet_option
from .help import KubectlCommand

BACKUP_FORMATS = ("table", "json", "yaml", "name")


@kubectl_conventions(no_json=lambda flags: "--prune" if flags.get("prune") else None)
@click.command("backups", cls=KubectlCommand)
@optional_target_argument
@selection_options
@click.option("--prune", is_flag=True, help="Delete backups instead of listing them: those past --keep N of each "
                                            "connector and/or older than --older-than.")
@click.option("--keep", type=int, metavar="N",
              help="With --prune: keep the newest N backups of each connector. --keep 0 is the only way to delete "
                   "a connector's newest backup (the one undo restores by default).")
@click.option("--older-than", metavar="DURATION",
              help="With --prune: delete only backups older than this (30d, 12h, 1w2d, or ISO-8601 such as P30D). "
                   "Alone, it still keeps each connector's newest backup.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask before deleting (required without a terminal).")
@dry_run_option("With --prune: print what would be deleted; delete nothing (kubectl's forms: --dry-run, "
                "--dry-run=client; =server is client-side here and says so).")
@cluster_options
@click.option("-o", "--output", type=click.Choice(BACKUP_FORMATS), default="table", show_default=True,
              help="Output format. name prints configmap/NAME, one a line.")
@quiet_option
def backups_command(target, selector, all_, all_namespaces, prune, keep, older_than, yes, dry_run, namespace,
                    context, kubeconfig, timeout, output, quiet):
    """List or prune the backups alter, reset and undo took.

    A backup is a ConfigMap labelled kubectl-offsets.io/role=backup; nothing else is listed or deleted. --prune
    never deletes a connector's newest backup (unless --keep 0), shows what it deletes and asks first.

    \b
    Examples:
      kubectl offsets backups -n kafka
      kubectl offsets backups my-sink -o name
      # Keep the newest 3 of each connector; preview deleting those older than 30 days
      kubectl offsets backups --all --prune --keep 3 -n kafka
      kubectl offsets backups -l team=payments --prune --older-than 30d --dry-run
    """
    from ..core.online import backup_catalog, operations
    from ..errors import InputError
    from ..output.backups import backups_document, render_backups
    from .kubectl_output import result_printer

    if not prune and (keep is not None or older_than is not None or dry_run):
        raise InputError("--keep, --older-than and --dry-run only apply with --prune",
                         advice="kubectl offsets backups ... --prune --keep N")
    if prune and not (target or selector or all_ or all_namespaces):
        raise InputError("backups --prune: give a TARGET, -l SELECTOR, --all or -A",
                         advice="say which backups may be pruned; --dry-run shows what would go")
    age = _parse_age(older_than)
    if prune:
        backup_catalog.plan_prune([], keep=keep, older_than=age)  # bad --keep/--older-than before any request
        if not yes and not dry_run and not sys.stdin.isatty():
            raise InputError("backups --prune deletes ConfigMaps and there is no terminal to confirm on",
                             advice="pass --yes to delete without confirmation, or --dry-run to only preview")
    kube = operations.connect(cluster_config(namespace, context, kubeconfig))
    scope = _scope(kube, target, selector, all_, all_namespaces, namespace)
    found = backup_catalog.find(kube, scope)
    if not prune:
        if not found and output in ("table", "name"):
            where = "any namespace" if all_namespaces else f"{namespace or kube.namespace} namespace"
            click.echo(f"No resources found in {where}.", err=True)
            return
        listed = [b.to_json() for b in found]
        result_printer(output).show(lambda: backups_document(listed), lambda fmt, no_headers: render_backups(
            listed, fmt, all_namespaces=all_namespaces, no_headers=no_headers))
        return
    protected = backup_catalog.named_by_journals(kube, scope)
    doomed = backup_catalog.plan_prune(found, keep=keep, older_than=age, protected=protected)
    for name in sorted(n for ns, n in protected if any((b.namespace, b.name) == (ns, n) for b in found)):
        click.echo(f"kept configmap/{name}: an unfinished operation's journal names it (recover needs it)", err=True)
    if not doomed:
        click.echo(f"nothing to prune ({len(found)} backup(s) kept)", err=True)
        return
    if not quiet or not (yes or dry_run):
        click.echo(f"to delete ({len(doomed)} of {len(found)} backup(s)):", err=True)
        click.echo(render_backups([b.to_json() for b in doomed], "table", all_namespaces=True), err=True)
    if dry_run:
        click.echo("\n".join(f"configmap/{b.name} deleted (dry run)" for b in doomed))
        return
    if not yes:
        from .common import confirm_or_cancel

        confirm_or_cancel(f"delete {len(doomed)} backup ConfigMap(s)?", "prune cancelled; nothing was deleted")
    report = backup_catalog.delete(kube, doomed)
    for backup in report.deleted:
        click.echo(f"configmap/{backup.name} deleted")
    for backup in report.gone:
        click.echo(f"configmap/{backup.name} was already gone", err=True)
    if report.changed:
        from ..errors import PreconditionError

        names = ", ".join(f"configmap/{b.name}" for b in report.changed)
        raise PreconditionError(f"{len(report.changed)} backup(s) changed since they were listed and were left alone: "
                                f"{names} ({len(report.deleted)} deleted)",
                                advice="list the backups again and prune again if they should still go")


def _parse_age(older_than):
    if older_than is None:
        return None
    from ..times import parse_duration

    return parse_duration(older_than, "--older-than")


def _scope(kube, target, selector, all_, all_namespaces, namespace):
    from ..core.online import backup_catalog
    from .fleet import check_target_or_selection

    if not target and not (selector or all_ or all_namespaces):
        return backup_catalog.Scope(namespace=namespace)
    if not check_target_or_selection(target, None, selector, all_, all_namespaces, "backups"):
        from .. import strimzi

        return backup_catalog.Scope(namespace=namespace, resources=frozenset({strimzi.parse_target(target)}))
    if not selector:
        return backup_catalog.Scope(namespace=namespace, all_namespaces=all_namespaces)
    from ..core.online import fleet
    from .fleet import selection

    members = fleet.select(kube, selection(namespace, selector, all_, all_namespaces))
    return backup_catalog.Scope(namespace=namespace, all_namespaces=all_namespaces,
                                members=frozenset((m.namespace, m.name, m.connector) for m in members))
