"""kubectl offsets trigger: fire the operation of a synced GitOps phase 1, once."""

import click

from ..output.terminal import echo
from .common import session, target_argument, target_spec, with_connector_options
from .options import cluster_options, dry_run_option, quiet_option, yes_option
from .help import KubectlCommand


@click.command("trigger", cls=KubectlCommand)
@target_argument
@with_connector_options
@click.option("--force", is_flag=True, help="Fire again even though this operation's marker says it was fired.")
@cluster_options
@yes_option("Accepted as on every command that changes things; trigger never asks (it fires what the reviewed "
            "phase 1 committed).")
@dry_run_option("Check everything trigger checks (the record, spec.state, the ConfigMap, RBAC), say what it would "
                "fire and print the writes it would make; change nothing.")
@quiet_option
def trigger_command(target, connector, source_cluster, force, namespace, context, kubeconfig, timeout, yes, dry_run,
                    quiet):
    """Fire GitOps phase 1 once it is synced.

    Reads what to do from the record phase 1 put on the resource (without one it refuses), waits for the connector
    to stop, backs up and has the operator apply the offsets as alter does, once: running it again does nothing.
    Then run 'kubectl offsets gitops next'.

    \b
    Examples:
      kubectl offsets trigger my-sink -n kafka --dry-run
      kubectl offsets trigger my-sink -n kafka
      kubectl offsets trigger kmm2/mirror --connector source -n kafka
    """
    def work():
        from ..core.gitops import trigger_command
        from ..output.render import render_offsets

        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=True, dry_run=dry_run)
        result = trigger_command.trigger(kube, target_spec(target, connector, source_cluster), options=options,
                                        progress=progress, force=force)
        if dry_run and not result.already:
            count = len(result.change.entries) if result.change is not None else 0
            setting = f", setting {count} offset{'s' if count != 1 else ''} from configmap/{result.configmap}" \
                if result.change is not None else ""
            echo(f"dry run: trigger would fire the {result.action} of operation {result.operation_id} on "
                 f"{result.target.display}{setting}")
            _print_writes(result)
            click.echo("dry run: nothing was changed", err=True)
        elif result.already:
            echo(f"operation {result.operation_id} was already triggered on {result.target.display}; "
                       "nothing done", err=True)
        else:
            assert result.after is not None and result.kind is not None  # a fired trigger sets both
            echo(render_offsets(result.after, "table", result.kind))
            echo(f"{result.action} done on {result.target.display}; backup: configmap/{result.backup}; the "
                       "connector stays stopped until GitOps phase 2 (kubectl offsets gitops next) is merged", err=True)

    work()


def _print_writes(result) -> None:
    """The writes the engine recorded for the dry run, as alter --dry-run shows them: YAML documents on stdout."""
    from ..output.render import to_yaml
    from .invocation import server_dry_run_done

    echo("\n---\n".join(f"# {description}\n{to_yaml(body)}" for description, body in result.writes))
    if result.server_judged is not None:
        server_dry_run_done()
        echo(f"server-side dry run: the API server accepted {result.server_judged} write(s)", err=True)
