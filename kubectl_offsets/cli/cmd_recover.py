"""kubectl offsets recover"""

import click

from ..output.terminal import echo
from .common import mm2_settings, session, target_argument, target_spec, with_connector_options
from .options import cluster_options, quiet_option


@click.command("recover")
@target_argument
@with_connector_options
@click.option("--rollback", is_flag=True,
              help="Do not finish: withdraw a pending request and restore the previous state (offsets that were "
                   "already changed stay changed; 'undo' restores the backup).")
@click.option("--force", is_flag=True,
              help="Take over even though the operation's owner was seen recently (its heartbeat is fresh): only "
                   "when you know that process is gone.")
@click.option("--kafka-option", "kafka_options", multiple=True, metavar="KEY=VALUE",
              help="MirrorMaker 2 full reset: Kafka client setting for the offset-syncs truncation (repeatable).")
@cluster_options
@quiet_option
def recover_command(target, connector, source_cluster, rollback, force, kafka_options, namespace, context, kubeconfig,
                    timeout, quiet):
    """Finish or roll back an interrupted alter, reset or undo, from the journal it left on the resource.

    Before the offsets were handed to the operator, recover rolls back (previous state restored, offsets
    untouched). After that, it finishes: waits for the operator, verifies, restores the previous state (or leaves
    the connector stopped if the operation was run with --no-resume). While the operation's own process may still
    be working (its heartbeat is fresh), recover refuses unless --force.

    \b
    Examples:
      kubectl offsets recover my-sink -n kafka
      kubectl offsets recover kmm2/mirror --connector source --rollback
      kubectl offsets recover my-sink -n kafka --force    # its process was killed a moment ago
    """
    def work():
        from ..core.online import operations

        from .options import key_value_pairs

        flags = {"kafka_options": key_value_pairs(None, None, kafka_options)}
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, mm2=mm2_settings(flags))
        summary = operations.recover(kube, target_spec(target, connector, source_cluster), rollback=rollback,
                                     force=force, options=options, progress=progress)
        echo(summary)

    work()
