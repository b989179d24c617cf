"""kubectl offsets recover"""

import click

from ..output.terminal import echo
from .common import mm2_settings, session, target_argument, with_connector_options
from .options import cluster_options, dry_run_option, kafka_option, quiet_option, yes_option
from .help import KubectlCommand


@click.command("recover", cls=KubectlCommand)
@target_argument
@with_connector_options
@click.option("--rollback", is_flag=True,
              help="Do not finish: withdraw a pending request and restore the previous state (offsets that were "
                   "already changed stay changed; 'undo' restores the backup).")
@click.option("--force", is_flag=True,
              help="Take over even though the operation's owner was seen recently (its heartbeat is fresh): only "
                   "when you know that process is gone.")
@click.option("--wait", "wait_for_owner", is_flag=True,
              help="While the owner's heartbeat is fresh, wait until its lease runs out (or it finishes), then "
                   "recover.")
@click.option("--bootstrap-server", "bootstrap_server", metavar="HOST:PORT",
              help="MirrorMaker 2 full reset: the cluster that holds the offset-syncs topic, instead of the address "
                   "the interrupted run recorded (e.g. a port-forward that is gone).")
@kafka_option("MirrorMaker 2 full reset: Kafka client setting for the offset-syncs topic's requests (librdkafka "
              "names, e.g. security.protocol=SSL; repeatable).")
@cluster_options
@yes_option("Accepted as on every command that changes things; recover never asks (it finishes or rolls back what "
            "its journal says).")
@dry_run_option("Read the journal and say whether recover would finish or roll back, and what; change nothing.")
@quiet_option
def recover_command(target, connector, source_cluster, rollback, force, wait_for_owner, bootstrap_server,
                    kafka_options, namespace, context, kubeconfig, timeout, yes, dry_run, quiet):
    """Finish or roll back an interrupted operation.

    Reads the journal alter, reset, undo, trigger or delete left on the resource: before the offsets were handed
    to the operator it rolls back; after, it finishes (waits, verifies, restores the state). It refuses while the
    operation's own process may still be working, unless --wait or --force.

    \b
    Examples:
      kubectl offsets recover my-sink -n kafka --dry-run
      kubectl offsets recover my-sink -n kafka
      kubectl offsets recover kmm2/mirror --connector source --rollback
      # Its process, on another machine, was killed a moment ago: wait for its lease, or take over now
      kubectl offsets recover my-sink -n kafka --wait
      kubectl offsets recover my-sink -n kafka --force
    """
    def work():
        from .. import api

        mm2 = mm2_settings({"kafka_options": kafka_options}, offset_syncs_bootstrap=bootstrap_server)
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=True, dry_run=dry_run,
                                          mm2=mm2)
        summary = api.recover(kube, target, connector=connector, source_cluster=source_cluster, rollback=rollback,
                              force=force, wait=wait_for_owner, options=options, progress=progress)
        echo(summary)
        if dry_run:
            click.echo("dry run: nothing was changed", err=True)

    work()
