"""``kubectl offsets completion bash|zsh|fish``: the shell script that completes ``kubectl-offsets``."""

from __future__ import annotations

import click

from .help import KubectlCommand

SHELLS = ("bash", "zsh", "fish")
# The name the scripts complete: the executable on PATH. ``kubectl offsets`` itself is completed by kubectl's
# own script through ``kubectl_complete-offsets`` (see the help below).
EXECUTABLE = "kubectl-offsets"


@click.command("completion", cls=KubectlCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("shell", type=click.Choice(SHELLS))
def completion_command(shell: str) -> None:
    """Print a shell completion script for SHELL (bash, zsh or fish).

    \b
    `kubectl offsets <TAB>` (through kubectl, 1.26 or newer):
      kubectl's own completion calls the executable `kubectl_complete-offsets` from your PATH. pip installs it;
      with krew, link it once next to the plugin:
        ln -sf kubectl-offsets "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-offsets"
      and load kubectl's completion as usual, e.g.  source <(kubectl completion bash)

    \b
    `kubectl-offsets <TAB>` (the executable called directly): load this command's script.
      bash:  source <(kubectl offsets completion bash)          # add to ~/.bashrc
      zsh:   source <(kubectl offsets completion zsh)           # add to ~/.zshrc, after compinit
      fish:  kubectl offsets completion fish > ~/.config/fish/completions/kubectl-offsets.fish

    \b
    Names of namespaces, contexts, KafkaConnectors, KafkaMirrorMaker2s and their connectors come from the
    cluster of the current context (or the --context/-n already typed), with a 2 s limit.
    """
    click.echo(script(shell), nl=False)


def script(shell: str) -> str:
    """click's completion script for ``kubectl-offsets`` in ``shell``."""
    from click.shell_completion import get_completion_class

    from .complete import COMPLETE_VAR
    from .root import root

    cls = get_completion_class(shell)
    assert cls is not None, shell  # shell is one of click.Choice(SHELLS)
    return cls(root, {}, EXECUTABLE, COMPLETE_VAR).source()
