"""kubectl offsets reset"""

import click

from .common import (confirm_on_terminal, flow_options, mm2_settings, optional_target_argument, print_result,
                     require_confirmation_possible, session, with_connector_options,
                     with_mm2_broker_options)
from .fleet import parallel_options, selection_options
from .kubectl_output import kubectl_conventions, mutation_without_json, target_name
from .options import cluster_options, mutation_options, output_option, quiet_option
from .help import KubectlCommand


@kubectl_conventions(target_name, mutation_without_json)
@click.command("reset", cls=KubectlCommand)
@optional_target_argument
@with_connector_options
@selection_options
@parallel_options
@flow_options
@click.option("--with-offset-syncs", is_flag=True,
              help="MirrorMaker 2 full reset: also stop and reset the mirror's checkpoint connector and truncate its "
                   "offset-syncs topic (DeleteRecords; the topic is kept), then resume both.")
@click.option("--allow-shared-offset-syncs", is_flag=True,
              help="With --with-offset-syncs: truncate even though other mirrors use the same offset-syncs topic "
                   "(they are named in the refusal).")
@click.option("--target-bootstrap-server", metavar="HOST:PORT",
              help="With --with-offset-syncs and offset-syncs.topic.location=target: the TARGET cluster.")
@with_mm2_broker_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def reset_command(target, connector, source_cluster, selector, all_, all_namespaces, parallel, skip_invalid, no_resume,
                  force, with_offset_syncs, allow_shared_offset_syncs, target_bootstrap_server, namespace, context,
                  kubeconfig, timeout, yes, dry_run, output, quiet, **broker_flags):
    """Wipe a connector's offsets, so it starts from scratch.

    A sink then follows its consumer's auto.offset.reset; a source connector reads its source from the start. The
    offsets are backed up first ('undo' puts them back). For MirrorMaker 2, --with-offset-syncs also resets the
    checkpoint connector and truncates the offset-syncs topic (docs/mirrormaker2.md).

    \b
    Examples:
      kubectl offsets reset my-source -n kafka --dry-run
      kubectl offsets reset my-source -n kafka
      # MirrorMaker 2: the source connector only, or the full reset
      kubectl offsets reset kmm2/mirror --connector source
      kubectl offsets reset kmm2/mirror --connector source --with-offset-syncs --source-bootstrap-server east:9092
      # Many connectors, one confirmation
      kubectl offsets reset -l team=payments -n kafka --parallel 8
    """
    def work():
        from .. import api
        from .fleet import check_target_or_selection

        if (allow_shared_offset_syncs or target_bootstrap_server) and not with_offset_syncs:
            from ..errors import InputError

            raise InputError("--allow-shared-offset-syncs and --target-bootstrap-server go with --with-offset-syncs")
        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "reset"):
            if with_offset_syncs:
                from ..errors import InputError

                raise InputError("--with-offset-syncs is the full reset of one mirror; it does not combine with "
                                 "-l/--all/-A", advice="name the mirror: reset kmm2/NAME --connector source "
                                 "--with-offset-syncs")
            from .fleet import FleetFlags, run_fleet_command

            run_fleet_command("reset", lambda fleet, cluster, members, options, progress, stop: fleet.plan_reset(
                cluster, members, options, parallel=parallel, progress=progress, stop=stop),
                FleetFlags.of_command())
            return
        require_confirmation_possible(yes, dry_run, "reset")
        settings = mm2_settings(broker_flags, with_offset_syncs=with_offset_syncs, target_bootstrap=
                                target_bootstrap_server, allow_shared_offset_syncs=allow_shared_offset_syncs)
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=settings)
        result = api.reset(kube, target, connector=connector, source_cluster=source_cluster, options=options,
                           confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output, kube)

    work()
