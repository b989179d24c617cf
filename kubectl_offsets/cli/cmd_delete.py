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
    """Delete a KafkaConnector, and its offsets if asked.

    Connect keeps a deleted connector's offsets, and a new connector of that name resumes from them.
    --reset-offsets backs them up and resets them before the delete; without it they are printed and kept.

    \b
    Examples:
      kubectl offsets delete my-sink --reset-offsets -n kafka
      # Keep the offsets in a file, to start a new connector there later
      kubectl offsets delete my-source -o json > my-source-offsets.json
      kubectl offsets create -f my-source.yaml --offsets my-source-offsets.json
    """
    def work():
        from ..core.online import lifecycle

        name = target.split("/")[-1]
        require_confirmation_possible(yes, dry_run, "delete", "deletes the connector" + (
            " and resets its offsets" if reset_offsets else ""))
        question = (f"reset the offsets of '{name}', then delete kafkaconnector/{name}?" if reset_offsets
                    else f"delete kafkaconnector/{name} (its offsets stay in Connect)?")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run)
        result = lifecycle.delete_connector(kube, target_spec(target, None, None), reset_offsets=reset_offsets,
                                            options=options, confirm=lambda preview: confirm_on_terminal(
                                                preview, question), progress=progress)
        if dry_run:
            if result is not None:  # the reset and the delete, as recorded
                print_dry_run(result, kube=kube)
            else:
                echo(f"delete kafkaconnector/{name}; dry run: nothing was changed", err=True)
            return
        _print(result, output)

    work()


def _print(outcome, fmt: str) -> None:
    from ..output.render import render_offsets

    echo(render_offsets(outcome.offsets, fmt, outcome.kind))
    what = (f"offsets reset (backup: configmap/{outcome.backup})" if outcome.reset
            else "offsets kept in Connect (shown above)")
    echo(f"kafkaconnector/{outcome.target.resource_name} deleted; {what}", err=True)
