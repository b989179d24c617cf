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
    """Print a shell completion script (bash, zsh or fish).

    'kubectl offsets <TAB>' goes through kubectl's own completion (kubectl 1.26+), which runs
    kubectl_complete-offsets from your PATH: pip installs it; with krew, link it once (below). 'kubectl-offsets
    <TAB>' needs this command's script. Names come from the current context's cluster, with a 2 s limit.

    \b
    Examples:
      # kubectl offsets <TAB>, with krew
      ln -sf kubectl-offsets "${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-offsets"
      source <(kubectl completion bash)
      # kubectl-offsets <TAB>
      source <(kubectl offsets completion bash)          # in ~/.bashrc
      source <(kubectl offsets completion zsh)           # in ~/.zshrc, after compinit
      kubectl offsets completion fish > ~/.config/fish/completions/kubectl-offsets.fish
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
