"""kubectl offsets undo"""

import click

from .common import (confirm_on_terminal, flow_options, mm2_settings, print_result, require_confirmation_possible,
                     session, target_argument, target_spec, with_connector_options, with_mm2_broker_options)
from .exits import guarded
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("undo")
@target_argument
@with_connector_options
@click.option("--backup", metavar="CONFIGMAP", help="The backup to restore (default: the newest for the connector).")
@flow_options
@with_mm2_broker_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def undo_command(target, connector, source_cluster, backup, no_resume, force, namespace, context, kubeconfig, timeout,
                 yes, dry_run, output, quiet, **broker_flags):
    """Put back the offsets of a backup taken by alter, reset or undo.

    Partitions in the backup get their offsets back; partitions that appeared since are reset. The offsets
    before the undo are backed up too, so an undo can be undone.

    \b
    Examples:
      kubectl offsets undo my-sink -n kafka
      kubectl offsets undo my-sink --backup my-sink-offsets-backup-20261122t101500z
    """
    def work():
        from ..core import operations

        require_confirmation_possible(yes, dry_run, "undo")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2_settings(broker_flags))
        result = operations.undo(kube, target_spec(target, connector, source_cluster), backup=backup, options=options,
                                 confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
