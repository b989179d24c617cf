"""Shell completion: kubectl's plugin completion protocol, and the cluster look-ups behind names.

Two ways in, one engine (click's own completion resolution, so what is offered always matches what parses):

- ``kubectl offsets <TAB>``: kubectl 1.26+ runs ``kubectl_complete-offsets ARG... TO_COMPLETE`` from PATH and reads
  Cobra's reply: one candidate per line (``value<TAB>description``), then ``:<directive>`` as the last line.
  kubectl passes the words after ``offsets`` as they are, with no ``__complete`` in front (kubectl's
  ``pluginCompletion``); Cobra programs wrapped by a shim script do get ``__complete`` first, so a leading
  ``__complete``/``__completeNoDesc`` is accepted and dropped too.
- ``kubectl-offsets <TAB>`` after ``source <(kubectl offsets completion bash)``: click's scripts and env var.

Both end in :func:`complete_from_cluster` for names that live in the cluster. It must never make the shell
wait or print noise: a short deadline, and any failure means "no candidates" (nothing on stderr, which kubectl
passes straight to the terminal).
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import logging
import os
import shlex
import warnings
from typing import Any, Callable, Iterable

import click
from click.shell_completion import CompletionItem, ShellComplete

# Cobra's ShellCompDirective bits (spf13/cobra completions.go).
DIRECTIVE_DEFAULT = 0  # let the shell complete file names when there is no candidate
DIRECTIVE_NO_FILE_COMP = 4
DIRECTIVE_FILTER_DIRS = 16

COBRA_REQUESTS = ("__complete", "__completeNoDesc")
COMPLETE_VAR = "_KUBECTL_OFFSETS_COMPLETE"  # click's variable for the kubectl-offsets scripts
# Seconds a cluster look-up may take before completion gives up; the shell is blocked meanwhile.
TIMEOUT_ENV = "KUBECTL_OFFSETS_COMPLETION_TIMEOUT"
DEFAULT_TIMEOUT = 2.0


# --- kubectl's plugin completion protocol ------------------------------------------------------------------------


def run_plugin_completion(argv: list[str], out: Callable[[str], None] | None = None) -> int:
    """Answer one completion request from kubectl; always exit 0 so kubectl reads what we printed.

    A bug here must not spill a traceback into the user's prompt: anything unexpected prints nothing, and
    kubectl then falls back to its default (file names), exactly as if we were not installed.
    """
    write = out or _stdout
    try:
        args, incomplete, descriptions = parse_request(argv)
        write(format_reply(completions(args, incomplete), descriptions))
    except Exception:  # noqa: BLE001 - completion must stay silent, whatever broke
        pass
    return 0


def parse_request(argv: list[str]) -> tuple[list[str], str, bool]:
    """``[__complete] ARG... TO_COMPLETE`` -> (complete args, the word being completed, with descriptions?)."""
    words = list(argv)
    descriptions = True
    if words and words[0] in COBRA_REQUESTS:
        descriptions = words.pop(0) == "__complete"
    if not words:
        return [], "", descriptions
    return words[:-1], words[-1], descriptions


def completions(args: list[str], incomplete: str) -> list[CompletionItem]:
    """What click would offer for ``kubectl offsets ARGS INCOMPLETE`` (subcommands, flags, values)."""
    from .root import PROG, root

    token = _request_words.set(list(args))
    try:
        return ShellComplete(root, {}, PROG, COMPLETE_VAR).get_completions(list(args), incomplete)
    finally:
        _request_words.reset(token)


def format_reply(items: Iterable[CompletionItem], descriptions: bool = True) -> str:
    """Cobra's reply: candidate lines, then ``:<directive>``.

    click marks "complete a path here" with items of type file/dir instead of candidates; Cobra says the same
    with the directive and no candidates, so the shell's own file completion takes over.
    """
    items = list(items)
    plain = [item for item in items if item.type == "plain"]
    kinds = {item.type for item in items}
    if plain:
        directive = DIRECTIVE_NO_FILE_COMP
    elif "dir" in kinds:
        directive = DIRECTIVE_FILTER_DIRS
    elif "file" in kinds:
        directive = DIRECTIVE_DEFAULT
    else:
        directive = DIRECTIVE_NO_FILE_COMP  # nothing to offer, and file names would be wrong
    lines = [_candidate_line(item, descriptions) for item in plain]
    return "\n".join([*lines, f":{directive}"]) + "\n"


def _candidate_line(item: CompletionItem, descriptions: bool) -> str:
    value = str(item.value).replace("\n", " ").replace("\t", " ")
    if not descriptions or not item.help:
        return value
    # One short line: shells show the description next to the candidate, and Cobra splits on the first tab.
    summary = " ".join(str(item.help).split())
    return f"{value}\t{summary[:80]}"


def _stdout(text: str) -> None:
    click.echo(text, nl=False)


# --- names from the cluster ---------------------------------------------------------------------------------------


def complete_from_cluster(kind: str, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
    """Candidates of ``kind`` that start with ``incomplete``; [] on any failure or after the deadline.

    kinds: ``namespace``, ``context``, ``target`` (KafkaConnector names and ``kmm2/NAME``), ``kafkaconnector``,
    ``kafkamirrormaker2``, ``mm2-connector`` (the connectors of the KafkaMirrorMaker2 named on the line).
    """
    from ..core.online import names as cluster_names
    from ..deadline import within

    lookup = cluster_names.LOOKUPS.get(kind)
    if lookup is None:
        return []
    line = cluster_names.LineWords(typed_params(ctx), words=line_words(), timeout=completion_timeout())
    try:
        # Loading the client library is CPU work of a known size (about a second), not a wait on the cluster:
        # it happens before the clock starts, so the deadline only bounds kubeconfig credentials and API calls.
        cluster_names.load_client()
        with _quiet():
            names = within(line.timeout, lambda: lookup(line, incomplete))
    except Exception:  # noqa: BLE001 - unreachable, forbidden, slow, not installed: nothing to offer
        return []
    return [CompletionItem(name, help=help_) for name, help_ in names if name.startswith(incomplete)]


@contextlib.contextmanager
def _quiet():
    """The shell shows our stderr in the middle of the user's command line: swallow the client library's
    warnings (urllib3's InsecureRequestWarning for insecure-skip-tls-verify) and log lines while looking up."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        logging.disable(logging.CRITICAL)
        try:
            yield
        finally:
            logging.disable(logging.NOTSET)


def completion_timeout() -> float:
    try:
        return max(0.1, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT)))
    except ValueError:
        return DEFAULT_TIMEOUT


# The words of the line being completed. click's context lacks the positional arguments when an option value is
# being completed (``list kmm2/mirror --connector <TAB>``: parsing stops at the option without a value before
# arguments are assigned), and --connector needs the TARGET, so the look-ups may also read the raw words.
_request_words: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("request_words", default=None)


def line_words() -> list[str]:
    """The raw words: from the kubectl request, else from click's scripts (they export COMP_WORDS)."""
    words = _request_words.get()
    if words is not None:
        return words
    try:
        return shlex.split(os.environ.get("COMP_WORDS", ""))
    except ValueError:  # an unbalanced quote in the middle of typing
        return os.environ.get("COMP_WORDS", "").split()


def typed_params(ctx: click.Context | None) -> dict[str, Any]:
    """The parameters already on the line (``-n``, ``--context``, ``--kubeconfig``, TARGET, ...), gathered from the
    command's context and its parents; the innermost command's value wins."""
    chain = []
    while ctx is not None:
        chain.append(ctx)
        ctx = ctx.parent
    params: dict[str, Any] = {}
    for each in reversed(chain):
        params.update({k: v for k, v in each.params.items() if v is not None})
    return params
