"""kubectl offsets undo"""

import click

from .common import (confirm_on_terminal, flow_options, mm2_settings, optional_target_argument, print_result,
                     require_confirmation_possible, session, with_connector_options,
                     with_mm2_broker_options)
from .fleet import parallel_options, selection_options
from .kubectl_output import kubectl_conventions, mutation_without_json, target_name
from .options import cluster_options, mutation_options, output_option, quiet_option
from .help import KubectlCommand


@kubectl_conventions(target_name, mutation_without_json)
@click.command("undo", cls=KubectlCommand)
@optional_target_argument
@with_connector_options
@click.option("--backup", metavar="CONFIGMAP", help="The backup to restore (default: the newest for the connector).")
@click.option("--from-file", "from_file", metavar="FILE",
              help="Restore a local backup file instead (alter, reset and undo keep one per backup under "
                   "$XDG_STATE_HOME/kubectl-offsets/backups/<context>/), or any offsets file alter -f takes.")
@selection_options
@parallel_options
@click.option("--since", metavar="TIME", help="With -l/--all/-A: restore each connector's newest backup taken at or "
              "after TIME (ISO 8601, e.g. 2026-11-23T10:00:00Z, or a duration ago such as 2h) by an alter, reset or "
              "import: the backups a fleet operation took. Undo's own backups are passed over, so running the same "
              "undo again restores the same backups.")
@flow_options
@with_mm2_broker_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def undo_command(target, connector, source_cluster, backup, from_file, selector, all_, all_namespaces, parallel,
                 skip_invalid, since, no_resume, force, namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet,
                 **broker_flags):
    """Put back the offsets of a backup.

    Restores the newest backup that alter, reset or undo took of this connector (or --backup, or a local
    --from-file). Partitions that appeared since are reset. The undo is backed up too, so it can be undone.

    \b
    Examples:
      kubectl offsets undo my-sink -n kafka
      kubectl offsets undo my-sink --backup my-sink-offsets-backup-20261122t101500z
      kubectl offsets undo my-sink --from-file my-sink-my-sink-offsets-backup-20261122t101500z.yaml
      # Everything a fleet reset took since a time
      kubectl offsets undo -l team=payments --since 2026-11-23T10:00:00Z
    """
    def work():
        from .. import api
        from ..errors import InputError
        from .fleet import check_target_or_selection

        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "undo"):
            if backup or from_file:
                flag = "--backup" if backup else "--from-file"
                raise InputError(f"{flag} names one connector's backup; with -l/--all/-A use --since TIME")
            if not since:
                raise InputError("undo -l/--all/-A needs --since TIME", advice="the start time of the fleet operation "
                                 "to undo, e.g. --since 2026-11-23T10:00:00Z or --since 2h")
            from .fleet import FleetFlags, parse_since, run_fleet_command

            start = parse_since(since)
            run_fleet_command("undo", lambda fleet, cluster, members, options, progress, stop: fleet.plan_undo(
                cluster, members, start, options, parallel=parallel, progress=progress, stop=stop),
                FleetFlags.of_command())
            return
        if since:
            raise InputError("--since goes with -l/--all/-A; for one connector use --backup NAME")
        if from_file and from_file != "-":  # standard input can be read once only: undo reads it
            from ..core.inputs import check_offsets_file

            check_offsets_file(from_file)  # before the cluster is asked, as alter -f
        require_confirmation_possible(yes, dry_run, "undo")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2_settings(broker_flags))
        result = api.undo(kube, target, backup=backup, from_file=from_file, connector=connector,
                          source_cluster=source_cluster, options=options, confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output, kube)

    work()
