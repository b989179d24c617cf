"""kubectl's help layout for every command: the one-line summary and a short description, the examples, the options
in sections (what to change, which connectors, Kafka, safety, output, ...), then the usage line; the flags every
command shares (-n, --context, --kubeconfig, --timeout, -v) and the exit codes are written once, in the root help.

A command opts in with ``cls=KubectlCommand`` (``cls=KubectlGroup`` for a group, whose subcommands follow). Which
section a flag goes to is said once here, by its long name (``SECTION_OF``), so a command file only writes its
docstring. The root imports this module on every start: it imports click only.
"""

from __future__ import annotations

from typing import Iterable

import click

CHANGE = "What to change"
SELECT = "Which connectors"
KAFKA = "Kafka"
SAFETY = "Safety"
OUTPUT = "Output"
CLUSTER = "Cluster"
REPOSITORY = "Repository"
GIT = "Git and pull requests"
DATA = "Topic data"
SPARK = "Spark"
OTHER = "Options"

# The order sections are printed in (a command shows only those it has options in).
ORDER = (CHANGE, SELECT, DATA, KAFKA, REPOSITORY, SAFETY, OUTPUT, GIT, SPARK, CLUSTER, OTHER)

SECTION_OF = {
    **dict.fromkeys(("--filename", "--set", "--skip-record", "--to-offset", "--shift-by", "--topic", "--to-datetime",
                     "--allow-future", "--by-duration", "--to-earliest", "--to-latest", "--with-offset-syncs",
                     "--allow-shared-offset-syncs", "--backup", "--from-file", "--since", "--offsets",
                     "--from-scratch", "--accept-start-window", "--current", "--from-cluster", "--skip-poison",
                     "--where", "--invalid", "--invalid-against", "--count-all", "--find", "--for", "--source-alias",
                     "--target", "--scan", "--rollback", "--reset-offsets", "--keep-record", "--prune", "--keep",
                     "--older-than", "--map-namespace", "--only", "--strict", "--max-lag", "--max-age",
                     "--connectors", "--from-beginning"), CHANGE),
    **dict.fromkeys(("--connector", "--source-cluster", "--selector", "--all", "--all-namespaces",
                     "--skip-invalid"), SELECT),
    **dict.fromkeys(("--bootstrap-server", "--source-bootstrap-server", "--target-bootstrap-server",
                     "--kafka-option", "--require-check"), KAFKA),
    **dict.fromkeys(("--data", "--format", "--column", "--base64"), DATA),
    **dict.fromkeys(("--master", "--spark-jars", "--spark-conf"), SPARK),
    **dict.fromkeys(("--yes", "--dry-run", "--no-resume", "--force", "--parallel", "--wait", "--server-dry-run",
                     "--trigger", "--trigger-image", "--strimzi-version"), SAFETY),
    **dict.fromkeys(("--output", "--no-headers", "--quiet", "--lag", "--out", "--report", "--report-limit", "--client",
                     "--connect-url"), OUTPUT),
    **dict.fromkeys(("--repo", "--path", "--dir"), REPOSITORY),
    **dict.fromkeys(("--commit", "--branch", "--base", "--push", "--remote", "--pr", "--pr-base",
                     "--allow-default-branch", "--forge", "--forge-url", "--forge-project", "--reason"), GIT),
    **dict.fromkeys(("--namespace", "--context", "--kubeconfig", "--timeout"), CLUSTER),
}

# The flags every command that talks to the cluster takes, before or after the subcommand (cli/invocation.py moves
# them): their help, written once, for the root help and for the options themselves (cli/options.py).
NAMESPACE_HELP = "Namespace of the resource (default: the kubeconfig context's)."
CONTEXT_HELP = "The kubeconfig context to use."
KUBECONFIG_HELP = "Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)."
TIMEOUT_HELP = "How long to wait for the operator and Connect at each step (30s, 5m, 1h; default 5m)."
VERBOSITY_HELP = ("Log verbosity, as kubectl's -v=N: 4 and up logs the plugin's own debug lines on stderr, 6 and up "
                  "also every API request.")
GLOBAL_FLAGS = (("-n, --namespace NAME", NAMESPACE_HELP), ("--context NAME", CONTEXT_HELP),
                ("--kubeconfig FILE", KUBECONFIG_HELP), ("--timeout DURATION", TIMEOUT_HELP),
                ("-v, --v N", VERBOSITY_HELP))
GLOBAL_FOOTER = "Global flags (-n, --context, --kubeconfig, --timeout, -v) and exit codes: kubectl offsets --help"

# The first column's widest entry; a longer flag gets a line of its own (as click does) so that the help beside the
# others keeps room on an 80-column terminal.
FLAG_COLUMN = 22


class GlobalOption(click.Option):
    """A global flag with its standard help: listed once in the root help, not again in each command's."""


class KubectlCommand(click.Command):
    """kubectl's help order: what the command does and examples, the options in sections, then usage.
    ``sections``: {long flag: section} where this command files a flag elsewhere than SECTION_OF does."""

    def __init__(self, *args, sections: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.sections = sections or {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """A command that takes a TARGET also takes it as kubectl's ``TYPE NAME``."""
        if any(isinstance(p, click.Argument) and p.name == "target" for p in self.params):
            from .invocation import join_kind_and_name

            try:
                values, rest, _ = self.make_parser(ctx).parse_args(list(args))
            except click.UsageError:
                pass  # click reports it below, in the parse that counts
            else:
                if values.get("target") and rest:
                    args = join_kind_and_name(args, [values["target"], *rest])
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_help_text(ctx, formatter)
        self.format_options(ctx, formatter)
        write_usage(self, ctx, formatter)
        self.format_epilog(ctx, formatter)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        write_sections(self.get_params(ctx), ctx, formatter, sections=self.sections)


class KubectlGroup(click.Group):
    """A group in the same layout; its subcommands (and subgroups) are KubectlCommands."""

    command_class = KubectlCommand
    group_class = type

    def __init__(self, *args, sections: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.sections = sections or {}

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_help_text(ctx, formatter)
        self.format_commands(ctx, formatter)
        write_sections(self.get_params(ctx), ctx, formatter, sections=self.sections)
        write_usage(self, ctx, formatter)
        self.format_epilog(ctx, formatter)


def write_sections(params: Iterable[click.Parameter], ctx: click.Context, formatter: click.HelpFormatter,
                   footer: bool = True, sections: dict[str, str] | None = None) -> None:
    """The options in their sections, then (``footer``) where the global flags and the exit codes are."""
    found: dict[str, list[tuple[str, str]]] = {}
    for param in params:
        if not isinstance(param, click.Option) or param.hidden or "--help" in param.opts:
            continue
        if isinstance(param, GlobalOption):
            continue
        record = param.get_help_record(ctx)
        if record is not None:
            found.setdefault(section_of(param, sections or {}), []).append(record)
    width = column_width(row for rows in found.values() for row in rows)
    for title in sorted(found, key=ORDER.index):
        with formatter.section(title):
            write_rows(formatter, found[title], width)
    if footer:
        formatter.write_paragraph()
        formatter.write_text(GLOBAL_FOOTER)


def column_width(rows: Iterable[tuple[str, str]]) -> int:
    """One first-column width for every section, so that the help texts line up down the page."""
    return min(max((len(flags) for flags, _ in rows), default=0), FLAG_COLUMN)


def write_rows(formatter: click.HelpFormatter, rows: list[tuple[str, str]], width: int) -> None:
    """click's definition list with a fixed first column: flags wider than it get a line of their own."""
    from click.formatting import wrap_text

    text_width = max(formatter.width - formatter.current_indent - width - 2, 20)
    for flags, text in rows:
        lines = wrap_text(text, text_width, preserve_paragraphs=True).splitlines() or [""]
        if len(flags) > width:
            formatter.write(f"{'':>{formatter.current_indent}}{flags}\n")
        else:
            formatter.write(f"{'':>{formatter.current_indent}}{flags:<{width}}  {lines.pop(0)}\n")
        for line in lines:
            formatter.write(f"{'':>{formatter.current_indent + width + 2}}{line}\n")


def section_of(option: click.Option, overrides: dict[str, str]) -> str:
    long_names = [name for name in (*option.opts, *option.secondary_opts) if name.startswith("--")]
    table = {**SECTION_OF, **overrides}
    return next((table[name] for name in long_names if name in table), OTHER)


def write_usage(command: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
    """``Usage:`` last, on a line of its own, as kubectl prints it."""
    formatter.write_paragraph()
    formatter.write_text("Usage:")
    formatter.write(f"  {' '.join([ctx.command_path, *command.collect_usage_pieces(ctx)])}\n")


def write_global_flags(formatter: click.HelpFormatter) -> None:
    """The root help's section of the flags every command takes."""
    with formatter.section("Global flags (before or after the command, as in kubectl)"):
        write_rows(formatter, list(GLOBAL_FLAGS), column_width(GLOBAL_FLAGS))
