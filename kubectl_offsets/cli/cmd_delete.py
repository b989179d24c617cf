"""kubectl offsets delete"""

import click

from ..output.terminal import echo
from .common import confirm_on_terminal, print_dry_run, require_confirmation_possible, session, target_spec
from .options import cluster_options, complete_target, mutation_options, output_option, quiet_option
from .help import KubectlCommand


@click.command("delete", cls=KubectlCommand)
@click.argument("target", metavar="[kafkaconnector/]NAME", shell_complete=complete_target)
@click.option("--reset-offsets", is_flag=True,
              help="Stop it, back up and reset its offsets first, so a later connector of this name starts clean.")
@cluster_options
@mutation_options
@output_option()
@quiet_option
def delete_command(target, reset_offsets, namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet):
    """Delete a KafkaConnector, and with --reset-offsets the offsets Connect would otherwise keep.

    Connect keeps a deleted connector's offsets (a sink's consumer group, a source's records in the offsets
    topic): a connector created later under the same name silently resumes from them. --reset-offsets stops the
    connector, backs its offsets up (ConfigMap <name>-offsets-backup-<time> and a local copy, kept after the
    delete) and resets them through the alter flow (journaled: an interruption prints the recover command), then
    deletes the KafkaConnector. Without it the offsets are listed (printed, -o json to keep them) and kept.

    \b
    Examples:
      kubectl offsets delete my-sink --reset-offsets -n kafka
      kubectl offsets delete my-source -o json > my-source-offsets.json     # offsets kept in Connect
      kubectl offsets create -f my-sink.yaml --offsets my-sink-offsets.json  # later: start where you want
    """
    def work():
        from ..core.online import lifecycle

        require_confirmation_possible(yes, dry_run, "delete")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run)
        result = lifecycle.delete_connector(kube, target_spec(target, None, None), reset_offsets=reset_offsets,
                                            options=options, confirm=confirm_on_terminal, progress=progress)
        if dry_run:
            if result is not None:
                print_dry_run(result)
            echo(f"then: delete kafkaconnector/{target.split('/')[-1]}; dry run: nothing was changed", err=True)
            return
        _print(result, output)

    work()


def _print(outcome, fmt: str) -> None:
    from ..output.render import render_offsets

    echo(render_offsets(outcome.offsets, fmt, outcome.kind))
    what = (f"offsets reset (backup: configmap/{outcome.backup})" if outcome.reset
            else "offsets kept in Connect (shown above)")
    echo(f"kafkaconnector/{outcome.target.resource_name} deleted; {what}", err=True)
