"""kubectl offsets reset"""

import click

from .common import (confirm_on_terminal, flow_options, optional_target_argument, print_result,
                     require_confirmation_possible, session, target_spec, with_connector_options)
from .exits import guarded
from .fleet import parallel_options, selection_options
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("reset")
@optional_target_argument
@with_connector_options
@selection_options
@parallel_options
@flow_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def reset_command(target, connector, source_cluster, selector, all_, all_namespaces, parallel, skip_invalid, no_resume,
                  force, namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet):
    """Wipe a connector's offsets, so it starts from scratch.

    A sink then follows its consumer's auto.offset.reset; a source connector re-reads its source from the start
    (a MirrorSourceConnector re-replicates whole topics). The current offsets are backed up first;
    'kubectl offsets undo' puts them back.

    \b
    Examples:
      kubectl offsets reset my-source -n kafka
      kubectl offsets reset kmm2/mirror --connector source --dry-run
      kubectl offsets reset -l team=payments -n kafka --parallel 8   # many connectors, one confirmation

    With -l/--all/-A every selected connector is checked and previewed first, then one confirmation; each keeps
    its own backup and journal ('undo -l ... --since TIME' puts them all back).
    """
    def work():
        from ..core import operations
        from .fleet import check_target_or_selection

        require_confirmation_possible(yes, dry_run, "reset")
        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "reset"):
            from .fleet import run_fleet_command

            run_fleet_command("reset", lambda fleet, cluster, members, options, progress: fleet.plan_reset(
                cluster, members, options, parallel=parallel, progress=progress),
                namespace, context, kubeconfig, timeout, quiet, yes, dry_run, no_resume, force, selector, all_,
                all_namespaces, parallel, skip_invalid)
            return
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force)
        result = operations.reset_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                          confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
