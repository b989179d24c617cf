"""kubectl offsets undo"""

import click

from .common import (confirm_on_terminal, flow_options, print_result,
                     require_confirmation_possible, session, target_argument, target_spec, with_connector_options)
from .exits import guarded
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("undo")
@target_argument
@with_connector_options
@click.option("--backup", metavar="CONFIGMAP", help="The backup to restore (default: the newest for the connector).")
@click.option("--from-file", "from_file", metavar="FILE",
              help="Restore a local backup file instead (alter, reset and undo keep one per backup under "
                   "$XDG_STATE_HOME/kubectl-offsets/backups/<context>/), or any offsets file alter -f takes.")
@flow_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def undo_command(target, connector, source_cluster, backup, from_file, no_resume, force, namespace, context,
                 kubeconfig, timeout, yes, dry_run, output, quiet):
    """Put back the offsets of a backup taken by alter, reset or undo.

    Partitions in the backup get their offsets back; partitions that appeared since are reset. The offsets
    before the undo are backed up too, so an undo can be undone. A backup of another connector is refused.

    \b
    Examples:
      kubectl offsets undo my-sink -n kafka
      kubectl offsets undo my-sink --backup my-sink-offsets-backup-20261122t101500z
      kubectl offsets undo my-sink -n kafka --from-file my-sink-my-sink-offsets-backup-20261122t101500z.yaml
    """
    def work():
        from ..core import operations

        require_confirmation_possible(yes, dry_run, "undo")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force)
        result = operations.undo(kube, target_spec(target, connector, source_cluster), backup=backup,
                                 from_file=from_file, options=options, confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
