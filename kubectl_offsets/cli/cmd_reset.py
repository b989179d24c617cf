"""kubectl offsets reset"""

import click

from .common import (confirm_on_terminal, flow_options, print_result,
                     require_confirmation_possible, session, target_argument, target_spec, with_connector_options)
from .exits import guarded
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("reset")
@target_argument
@with_connector_options
@flow_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def reset_command(target, connector, source_cluster, no_resume, force, namespace, context, kubeconfig, timeout, yes,
                  dry_run, output, quiet):
    """Wipe a connector's offsets, so it starts from scratch.

    A sink then follows its consumer's auto.offset.reset; a source connector re-reads its source from the start
    (a MirrorSourceConnector re-replicates whole topics). The current offsets are backed up first;
    'kubectl offsets undo' puts them back.

    \b
    Examples:
      kubectl offsets reset my-source -n kafka
      kubectl offsets reset kmm2/mirror --connector source --dry-run
    """
    def work():
        from ..core import operations

        require_confirmation_possible(yes, dry_run, "reset")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force)
        result = operations.reset_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                          confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
