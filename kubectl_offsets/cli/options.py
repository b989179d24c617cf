"""Flags shared by many commands, kubectl style. Each command applies the decorators it needs, so that
``kubectl offsets list NAME -n ns`` works (kubectl users put flags after the command, not before it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import click

if TYPE_CHECKING:
    from ..model import ClusterConfig

from .help import CONTEXT_HELP, KUBECONFIG_HELP, NAMESPACE_HELP, TIMEOUT_HELP, GlobalOption

OUTPUT_FORMATS = ("table", "json", "yaml", "csv")


class Duration(click.ParamType):
    """``--timeout``: seconds (``300``) or a duration as every other flag takes one (times.parse_duration: ``30s``,
    ``5m``, ``1h30m``, ``1d``, ``PT2H``), at most times.MAX_DURATION -> seconds."""

    name = "duration"

    def convert(self, value: Any, param, ctx) -> float:
        from ..errors import InputError
        from ..times import parse_duration

        if isinstance(value, (int, float)):
            return float(value)
        flag = f"--{param.name}" if param is not None and param.name else "--timeout"
        try:
            return parse_duration(str(value), flag, bare_seconds=True).total_seconds()
        except InputError as error:
            self.fail(error.message, param, ctx)


def group(*decorators: Callable) -> Callable:
    """Several click decorators as one, applied in the order written (the order --help lists them)."""
    def apply(f: Callable) -> Callable:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f
    return apply


def _complete(kind: str):
    """A shell_complete callback that asks the cluster, imported only when completing."""
    def callback(ctx, param, incomplete):
        from .complete import complete_from_cluster

        return complete_from_cluster(kind, ctx, incomplete)
    return callback


# For positional arguments and --connector, which each command declares itself:
#   click.argument("target", shell_complete=complete_target)   # NAME (a KafkaConnector) or kmm2/NAME
#   click.option("--connector", shell_complete=complete_mm2_connector)  # connectors of the kmm2/NAME on the line
complete_target = _complete("target")
complete_mm2_connector = _complete("mm2-connector")


def kubeconfig_options(context_help: str = CONTEXT_HELP, kubeconfig_help: str = KUBECONFIG_HELP,
                       timeout_help: str = TIMEOUT_HELP) -> Callable:
    """--context, --kubeconfig, --timeout: declared here only (gitops says what it uses them for). With their
    standard help they are global flags, described once in the root help (cli/help.py)."""
    def option(*names: str, help: str, standard: str, **kwargs: Any) -> Callable:
        return click.option(*names, help=help, cls=GlobalOption if help == standard else click.Option, **kwargs)

    return group(
        option("--context", help=context_help, standard=CONTEXT_HELP, shell_complete=_complete("context")),
        option("--kubeconfig", type=click.Path(dir_okay=False), envvar="KUBECONFIG", help=kubeconfig_help,
               standard=KUBECONFIG_HELP),
        option("--timeout", type=Duration(), default="5m", show_default=False,
               help=timeout_help, standard=TIMEOUT_HELP),
    )


def cluster_flags(timeout_help: str = TIMEOUT_HELP) -> Callable:
    """-n, --context, --kubeconfig, --timeout; ``timeout_help`` where the command waits for something else."""
    return group(
        click.option("-n", "--namespace", help=NAMESPACE_HELP, cls=GlobalOption, shell_complete=_complete("namespace")),
        kubeconfig_options(timeout_help=timeout_help),
    )


cluster_options = cluster_flags()


def alter_input_options(shift_by_help: str, topic_help: str) -> Callable:
    """What to change, for online and GitOps alter alike (-f, --set, --skip-record, --to-offset, --shift-by,
    --topic); ``core/inputs.py`` turns them into one change document. Only where the current offsets come from
    (--shift-by) and what --topic also selects differ per command."""
    return group(
        click.option("-f", "--filename", "file", metavar="FILE|-",
                     help="The new offsets as list -o json|yaml|csv prints them (CSV: topic,partition,next-offset); "
                          "- reads stdin."),
        click.option("--set", "sets", multiple=True, metavar="TOPIC:PARTITION=OFFSET",
                     help="Store OFFSET: a sink reads that record next, MirrorMaker 2 resumes after it. "
                          "Repeatable."),
        click.option("--skip-record", "skip_records", multiple=True, metavar="TOPIC:PARTITION:OFFSET",
                     help="Resume right after that (poison) record. Repeatable."),
        click.option("--to-offset", type=int, metavar="N", help="Resume at record N of the --topic partitions."),
        click.option("--shift-by", type=int, metavar="N", help=shift_by_help),
        click.option("--topic", "topics", multiple=True, metavar="TOPIC[:P1,P2]", help=topic_help),
    )


def kafka_option(help: str) -> Callable:
    """--kafka-option KEY=VALUE (repeatable): Kafka client settings for the broker requests."""
    return click.option("--kafka-option", "kafka_options", multiple=True, callback=key_value_pairs,
                        metavar="KEY=VALUE", help=help)


OFFSETS_OUTPUT_HELP = 'table, json (the {"offsets": [...]} document alter -f takes), yaml or csv.'


def output_option(default: str = "table", formats: tuple[str, ...] = OUTPUT_FORMATS, help: str = OFFSETS_OUTPUT_HELP):
    """-o/--output; ``help`` says what this command prints in each format (only offsets documents go to alter -f)."""
    return click.option("-o", "--output", type=click.Choice(formats), default=default, metavar="FORMAT", help=help)


quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress on stderr, only the result on stdout.")

DRY_RUN_MODES = ("none", "client", "server")


def _dry_run_value(ctx, param, value) -> bool:
    """kubectl's --dry-run[=none|client|server]: the command sees a bool (dry run or not); the mode is kept in
    ctx.meta for the commands where the server side applies (see dry_run_mode)."""
    mode = value or "none"
    ctx.meta["kubectl_offsets.dry_run_mode"] = mode
    return mode != "none"


def dry_run_option(help: str) -> Callable:
    """--dry-run, --dry-run=client (the same) or --dry-run=server (the API server judges the writes without storing
    them), as kubectl takes it. Only the '=' form carries a value, so '--dry-run NAME' keeps NAME as the argument
    (normalize_args rewrites a bare --dry-run before click parses)."""
    return click.option("--dry-run", type=click.Choice(DRY_RUN_MODES), is_flag=False, flag_value="client",
                        default="none", callback=_dry_run_value, metavar="[=client|server]", help=help)


def yes_option(help: str = "Do not ask for confirmation (needed without a terminal).") -> Callable:
    return click.option("-y", "--yes", is_flag=True, help=help)


mutation_options = group(
    yes_option(),
    dry_run_option("Change nothing: print the preview and every write a run would make, step by step (waits on "
                   "the operator assumed done); =server also has the API server judge each write."),
)


def check_output_path(path: str | None, flag: str) -> None:
    """A file the command will write: checked before any work (a scan can take hours), so that a typo in the
    directory fails at once, exit 2, instead of after the work is done."""
    if not path or path == "-":
        return
    import os

    from ..errors import InputError

    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"{flag} {path}: is a directory", advice="name a file in it")
    if not os.path.isdir(directory):
        raise InputError(f"{flag} {path}: the directory {directory} does not exist",
                         advice="create it first, or name a file in an existing directory")
    if not os.access(directory, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise InputError(f"{flag} {path}: not writable", advice="name a file you may write")


def cluster_config(namespace: str | None, context: str | None, kubeconfig: str | None) -> ClusterConfig:
    from ..model import ClusterConfig

    return ClusterConfig(kubeconfig=kubeconfig, context=context, namespace=namespace)


def key_value_pairs(ctx, param, values) -> tuple[tuple[str, str], ...]:
    """Repeatable ``key=value`` flags -> pairs, failing early on a missing '='."""
    pairs = []
    for value in values or ():
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"'{value}' is not KEY=VALUE", ctx=ctx, param=param)
        pairs.append((key.strip(), rest))
    return tuple(pairs)


# After every --to-datetime: a time in the future is refused as a likely typo (2062 for 2026), since it would act as
# --to-latest; this says it is meant.
allow_future_option = click.option(
    "--allow-future", is_flag=True,
    help="Accept a --to-datetime in the future (every partition resumes at its end).")
