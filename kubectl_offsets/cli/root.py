"""The root command group. Subcommands are loaded by name, on demand (see ``COMMANDS``): ``kubectl offsets --help``
and ``kubectl offsets <TAB>`` list them from ``SUMMARIES`` and import none of their modules."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from typing import Iterator

import click

from .. import __version__
from .help import VERBOSITY_HELP, GlobalOption

PROG = "kubectl offsets"

# name -> "module:attribute" below kubectl_offsets.cli; the order is the order in --help.
COMMANDS = {
    "list": "cmd_list:list_command",
    "alter": "cmd_alter:alter_command",
    "reset": "cmd_reset:reset_command",
    "undo": "cmd_undo:undo_command",
    "backups": "cmd_backups:backups_command",
    "export": "cmd_export:export_command",
    "import": "cmd_import:import_command",
    "recover": "cmd_recover:recover_command",
    "create": "cmd_create:create_command",
    "delete": "cmd_delete:delete_command",
    "trigger": "cmd_trigger:trigger_command",
    "gitops": "cmd_gitops:gitops_group",
    "compute": "cmd_compute:compute_group",
    "lag": "cmd_lag:lag_command",
    "check": "cmd_check:check_command",
    "completion": "cmd_completion:completion_command",
    "version": "cmd_version:version_command",
}

# name -> the first paragraph of that command's help: what the root help and subcommand completion show. Written
# here so that neither imports the 16 command modules (and what they import), which was most of what --help cost.
# tests/unit/test_startup.py checks each against its command's own help, so they cannot drift apart.
SUMMARIES = {
    "list": "Show a connector's offsets (or every connector's state).",
    "alter": "Change a connector's offsets, safely.",
    "reset": "Wipe a connector's offsets, so it starts from scratch.",
    "undo": "Put back the offsets of a backup.",
    "backups": "List or prune the backups alter, reset and undo took.",
    "export": "Write every selected connector's offsets to one file.",
    "import": "Apply an export's offsets to the connectors it names.",
    "recover": "Finish or roll back an interrupted operation.",
    "create": "Create a KafkaConnector that starts at chosen offsets.",
    "delete": "Delete a KafkaConnector, and its offsets if asked.",
    "trigger": "Fire GitOps phase 1 once it is synced.",
    "gitops": "Change offsets as GitOps commits and pull requests.",
    "compute": "Compute offsets from topic data (a time, poison records).",
    "lag": "Show how far a connector is behind, per partition.",
    "check": "Check a MirrorMaker 2 mirror's stored source offsets.",
    "completion": "Print a shell completion script (bash, zsh or fish).",
    "version": "Print the plugin, Strimzi API and Kafka Connect versions.",
}


class LazyGroup(click.Group):
    """Import a subcommand's module only when that subcommand runs or shows its own help."""

    def list_commands(self, ctx):
        return [name for name in COMMANDS if self._available(name)]

    def format_commands(self, ctx, formatter):
        """click's own layout (the same limit and shortening as ``Command.get_short_help_str``), from SUMMARIES."""
        names = self.list_commands(ctx)
        if names:
            limit = formatter.width - 6 - max(len(name) for name in names)
            with formatter.section("Commands"):
                formatter.write_dl([(name, self._short_help(name, limit)) for name in names])

    def shell_complete(self, ctx, incomplete):
        """Subcommand names with their summaries (what click's Group offers, without loading each command), then
        the root's own options."""
        from click.shell_completion import CompletionItem

        commands = [CompletionItem(name, help=self._short_help(name))
                    for name in self.list_commands(ctx) if name.startswith(incomplete)]
        return commands + click.Command.shell_complete(self, ctx, incomplete)

    def get_command(self, ctx, name):
        if name not in COMMANDS or not self._available(name):
            return None
        module, attribute = COMMANDS[name].split(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), attribute)

    def parse_args(self, ctx, args):
        from .invocation import normalize_args  # kubectl's flag forms, for every subcommand below

        try:
            return super().parse_args(ctx, normalize_args(args))
        except click.exceptions.NoArgsIsHelpError:
            raise
        except click.UsageError as error:  # a bad root flag: the same one-line style as everywhere
            from .exits import report_usage

            sys.exit(report_usage(error))

    def format_help(self, ctx, formatter):
        """kubectl's layout (cli/help.py): what it does and examples, the commands, the global flags every command
        takes, the root's own options, usage, and the exit codes (written here once, for every command)."""
        from .help import write_global_flags, write_sections, write_usage

        self.format_help_text(ctx, formatter)
        self.format_commands(ctx, formatter)
        write_global_flags(formatter)
        write_sections(self.get_params(ctx), ctx, formatter, footer=False)
        write_usage(self, ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_epilog(self, ctx, formatter):
        """The exit codes, built when --help asks for them: importing cli.exits (and errors) at start-up would load
        modules that the root --help does not otherwise need."""
        from .exits import exit_codes_epilog

        if not self.epilog:
            self.epilog = exit_codes_epilog()
        super().format_epilog(ctx, formatter)

    def invoke(self, ctx):
        """Every subcommand runs here: errors become exit codes in this one place (cli/exits.py)."""
        from .exits import exit_on_error

        from .invocation import warn_if_server_dry_run_skipped

        with exit_on_error(), _request_log(ctx.params.get("verbosity") or 0):
            result = super().invoke(ctx)
            warn_if_server_dry_run_skipped(ctx)
            return result

    @staticmethod
    def _short_help(name: str, limit: int = 45) -> str:
        """SUMMARIES[name] shortened by click's own rule (first sentence, or words up to ``limit``)."""
        return click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)

    @staticmethod
    def _available(name: str) -> bool:
        # Commands land one issue at a time; a name whose module is not there yet is simply not offered.
        module = COMMANDS[name].split(":")[0]
        return importlib.util.find_spec(f"{__package__}.{module}") is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
@click.option("--v", "-v", "verbosity", type=click.IntRange(min=0), default=0, metavar="N", cls=GlobalOption,
              help=VERBOSITY_HELP)
def root(verbosity: int) -> None:
    """List, alter and reset the offsets of Strimzi-managed Kafka Connect and MirrorMaker 2 connectors.

    \b
    Examples:
      # Where a connector is, and a change previewed, applied and undone
      kubectl offsets list my-sink -n kafka
      kubectl offsets alter my-sink --set orders:0=1200 -n kafka --dry-run
      kubectl offsets alter my-sink --set orders:0=1200 -n kafka
      kubectl offsets undo my-sink -n kafka
      # Skip one poison record; a MirrorMaker 2 connector; back to a time; wipe
      kubectl offsets alter my-sink --skip-record orders:0:4711 -n kafka
      kubectl offsets alter kmm2/mirror --connector source --set orders:0=41 -n kafka
      kubectl offsets alter my-sink --to-datetime 2026-11-21T09:00:00Z -n kafka
      kubectl offsets reset my-source -n kafka
      # The same change as a reviewed pull request (GitOps)
      kubectl offsets gitops alter my-sink --repo ./deploy --set orders:0=1200 --pr

    Each command's own help: kubectl offsets COMMAND --help.
    """
    if verbosity:
        from .invocation import set_verbosity

        set_verbosity(verbosity)



@contextlib.contextmanager
def _request_log(verbosity: int) -> Iterator[None]:
    """-v 6 and up: every API request on stderr, for this invocation only (cli/kubectl_output.py)."""
    if verbosity < 6:
        yield
        return
    from .kubectl_output import request_log

    with request_log(verbosity):
        yield


def run(argv: list[str]) -> int:
    """Run the CLI; returns the exit status instead of raising SystemExit (handy for tests and embedding)."""
    try:
        # complete_var: click would derive "_KUBECTL OFFSETS_COMPLETE" (with a space) from PROG; the scripts of
        # `kubectl offsets completion` set this one.
        root.main(args=argv, prog_name=PROG, complete_var="_KUBECTL_OFFSETS_COMPLETE", standalone_mode=True)
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
