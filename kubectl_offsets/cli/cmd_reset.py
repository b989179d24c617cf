"""kubectl offsets reset"""

import click

from .common import (confirm_on_terminal, flow_options, mm2_settings, print_result, require_confirmation_possible,
                     session, target_argument, target_spec, with_connector_options, with_mm2_broker_options)
from .exits import guarded
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("reset")
@target_argument
@with_connector_options
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
def reset_command(target, connector, source_cluster, no_resume, force, with_offset_syncs, allow_shared_offset_syncs,
                  target_bootstrap_server, namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet,
                  **broker_flags):
    """Wipe a connector's offsets, so it starts from scratch.

    A sink then follows its consumer's auto.offset.reset; a source connector re-reads its source from the start
    (a MirrorSourceConnector re-replicates whole topics). The current offsets are backed up first;
    'kubectl offsets undo' puts them back.

    For MirrorMaker 2 this resets the Connect offsets only: the offset-syncs topic keeps the old syncs that the
    checkpoint connector translates consumer groups with. --with-offset-syncs is the full reset: source and
    checkpoint stopped, both reset, the offset-syncs topic truncated, both resumed, journalled for 'recover'.

    \b
    Examples:
      kubectl offsets reset my-source -n kafka
      kubectl offsets reset kmm2/mirror --connector source --dry-run
      kubectl offsets reset kmm2/mirror --connector source --with-offset-syncs --dry-run
      kubectl offsets reset kmm2/mirror --connector source --with-offset-syncs --source-bootstrap-server east:9092
    """
    def work():
        from ..core import operations

        require_confirmation_possible(yes, dry_run, "reset")
        if (allow_shared_offset_syncs or target_bootstrap_server) and not with_offset_syncs:
            from ..errors import InputError

            raise InputError("--allow-shared-offset-syncs and --target-bootstrap-server go with --with-offset-syncs")
        settings = mm2_settings(broker_flags, with_offset_syncs=with_offset_syncs, target_bootstrap=
                                target_bootstrap_server, allow_shared_offset_syncs=allow_shared_offset_syncs)
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=settings)
        result = operations.reset_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                          confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
