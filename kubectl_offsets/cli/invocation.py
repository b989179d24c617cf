"""What the root command does around every subcommand: the command line as kubectl users write it made into what
click parses, -v=N, and the --dry-run mode a command ran with. It runs on every invocation, --help included, so it
imports nothing of the package (start-up time: tests/unit/test_startup.py) and is imported by root.py and
options.py alike (the root never imports options.py, which needs the completion module, which needs the root)."""

from __future__ import annotations

import click

# kubectl's global flags, which kubectl users also put before the subcommand (kubectl -n kafka get pods): there they
# are moved behind the subcommand, where each command declares them. All of them take a value.
GLOBAL_FLAGS = ("-n", "--namespace", "--context", "--kubeconfig", "--timeout")
VERBOSITY_FLAGS = ("-v", "--v")  # kubectl's -v=N: taken by the root command, wherever it is written


def normalize_args(args: list[str]) -> list[str]:
    """The command line as kubectl users write it, made into what click parses. Arguments after '--' are left
    alone.

    - -n/--namespace, --context, --kubeconfig, --timeout before the subcommand move behind it;
    - -v N / -v=N / --v=N anywhere move in front (the root command takes it, and refuses a value that is not a
      number);
    - a bare --dry-run means --dry-run=client, as for kubectl; written out so that click never takes the next word
      (a connector name) as its value."""
    cut = args.index("--") if "--" in args else len(args)
    head, tail = args[:cut], args[cut:]
    verbosity, head = _take_verbosity(head)
    leading, head = _take_leading_globals(head)
    head = ["--dry-run=client" if arg == "--dry-run" else arg for arg in head]
    return verbosity + head + leading + tail


def _take_verbosity(args: list[str]) -> tuple[list[str], list[str]]:
    taken: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        name, eq, value = arg.partition("=")
        if name in VERBOSITY_FLAGS and eq:
            taken.append(f"--v={value}")
        elif arg in VERBOSITY_FLAGS and index + 1 < len(args) and not args[index + 1].startswith("-"):
            taken.append(f"--v={args[index + 1]}")
            index += 1
        elif arg.startswith("-v") and arg[2:].isdigit():
            taken.append(f"--v={arg[2:]}")
        else:
            rest.append(arg)
        index += 1
    return taken, rest


def _take_leading_globals(args: list[str]) -> tuple[list[str], list[str]]:
    index = 0
    while index < len(args):
        arg = args[index]
        name = arg.partition("=")[0]
        if (name in GLOBAL_FLAGS and "=" in arg) or (arg.startswith("-n") and len(arg) > 2 and arg[1] != "-"):
            index += 1
        elif arg in GLOBAL_FLAGS and index + 1 < len(args):
            index += 2
        else:
            break
    return args[:index], args[index:]


def join_kind_and_name(args: list[str], positionals: list[str]) -> list[str]:
    """kubectl's ``TYPE NAME`` (``kubectl get kafkaconnector my-sink``) as the ``TYPE/NAME`` our commands take.
    ``positionals``: the words of ``args`` that are no flag or flag value, as click's parser found them."""
    from ..strimzi import KIND_ALIASES

    if len(positionals) < 2 or "/" in positionals[0]:
        return args
    kinds = {alias for aliases in KIND_ALIASES.values() for alias in aliases}
    if positionals[0].lower().split(".", 1)[0] not in kinds:
        return args
    for index in range(len(args) - 1):
        if args[index] == positionals[0] and args[index + 1] == positionals[1]:
            return [*args[:index], f"{positionals[0]}/{positionals[1]}", *args[index + 2:]]
    return args


def dry_run_mode() -> str:
    """none, client or server: what --dry-run asked for in the running command."""
    return click.get_current_context().meta.get("kubectl_offsets.dry_run_mode", "none")


_SERVER_DRY_RUN_DONE = "kubectl_offsets.server_dry_run_done"


def server_dry_run_done() -> None:
    """Called where a command really sent its writes to the API server for --dry-run=server."""
    click.get_current_context().meta[_SERVER_DRY_RUN_DONE] = True


def warn_if_server_dry_run_skipped(ctx: click.Context) -> None:
    """--dry-run=server on a command (or form, such as -l) that has no server-side dry run: never silently a
    client-side one."""
    if ctx.meta.get("kubectl_offsets.dry_run_mode") == "server" and not ctx.meta.get(_SERVER_DRY_RUN_DONE):
        click.echo("warning: --dry-run=server is not available for this command (only for alter, reset, undo, "
                   "delete --reset-offsets and trigger on one connector); this was a client-side dry run", err=True)


def set_verbosity(level: int) -> None:
    """kubectl's -v=N on stderr: 4+ the plugin's debug log (6+: each API request, logged by the root command through
    cli/kubectl_output.request_log: method, URL, status and latency, never headers or bodies)."""
    import logging

    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
    # urllib3 logs each retry of a failed connection with its Retry(...) repr: the request log (-v 6) already has
    # one line per request, and the error says why it failed.
    logging.getLogger("urllib3").setLevel(logging.ERROR)
    if level >= 4:
        logging.getLogger("kubectl_offsets").setLevel(logging.DEBUG)
