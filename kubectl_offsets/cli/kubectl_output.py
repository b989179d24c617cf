"""kubectl's output conventions, added to a command in one decorator (``kubectl_conventions``): ``-o name``,
``-o jsonpath=TEMPLATE``, ``--no-headers`` and ``-v N``.

The command prints its result through the invocation's :class:`ResultPrinter`, handing it the JSON document its
``-o json`` prints and a renderer of its own formats. ``-o jsonpath=...`` applies the template to that document;
``-o name`` (where the command has no name format of its own) prints ``kind/name`` of its target, as ``kubectl ...
-o name`` does; ``--no-headers`` is passed to the table renderer, which leaves its header line out. The command runs
once, whatever the format: nothing is parsed back from printed text. ``-v 6`` and above log each API request on
stderr as kubectl's round-tripper does: method, URL, status and latency; never headers (the credentials are there)
or bodies.
"""

from __future__ import annotations

import contextlib
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable

import click

from ..output.terminal import echo

JSONPATH_HELP = ("jsonpath=TEMPLATE: kubectl's JSONPath on the json output, this subset: {.field.field}, {.list[N]} "
                 "(negative N counts from the end), {.list[*].field} (values joined by spaces), text outside the "
                 "braces, {'\\n'}. Not supported: range/end, filters [?()], slices, '..'.")


# What every -o help adds (the subset itself is in JSONPATH_HELP, the advice of a refused template, and the docs).
OUTPUT_HELP_TAIL = " jsonpath=TEMPLATE (kubectl's, a subset: docs/online.md#flags)."


class OutputFormat(click.ParamType):
    """The command's own formats, plus ``name`` and ``jsonpath=TEMPLATE`` (also ``jsonpath='{...}'``)."""

    name = "format"

    def __init__(self, formats: tuple[str, ...]):
        self.formats = tuple(dict.fromkeys((*formats, "name")))

    def convert(self, value: Any, param, ctx) -> str:
        text = str(value)
        if text in self.formats:
            return text
        if text.startswith("jsonpath="):
            jsonpath_template(text)  # a template outside the subset fails here, before any request
            return text
        self.fail(f"'{text}' is not one of {', '.join(self.formats)}, jsonpath=TEMPLATE", param, ctx)

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(f) for f in (*self.formats, "jsonpath=") if f.startswith(incomplete)]

    def get_metavar(self, param, ctx=None) -> str:
        return "FORMAT"


def jsonpath_template(output: str) -> str:
    template = output[len("jsonpath="):]
    if len(template) >= 2 and template[0] == template[-1] and template[0] in "'\"":
        template = template[1:-1]  # kubectl strips one pair of quotes a shell left in
    if not template:
        from ..errors import InputError

        raise InputError("-o jsonpath= names no template (kubectl: template format specified but no template given)",
                         advice="e.g. -o jsonpath='{.offsets[*].offset}'")
    jsonpath(template, None)  # parse only: an unsupported template is refused before anything runs
    return template


# An expression: text in braces, where a quoted string may itself hold braces ({"}"} prints a brace).
_EXPRESSION = r"\{((?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^{}'\"])*)\}"
_STEP = r"\.([A-Za-z0-9_\-]+)|\[(-?\d+|\*)\]"  # compiled (and cached) by re at first use: not at --help


def jsonpath(template: str, document: Any) -> str:
    """kubectl's JSONPath, the subset in JSONPATH_HELP. Missing keys print nothing (kubectl's --allow-missing-template-keys
    default), an index past a list's end is an error (as kubectl's "array index out of bounds"); objects and lists
    print as compact JSON. ``document`` None: only parse the template."""
    from ..errors import InputError

    out, position = [], 0
    for match in re.finditer(_EXPRESSION, template):
        out.append(_literal(template[position:match.start()], template))
        out.append(_evaluate(match.group(1).strip(), document, template))
        position = match.end()
    rest = template[position:]
    if "{" in rest or "}" in rest:
        raise InputError(f"jsonpath template '{template}' has an unbalanced brace", advice=JSONPATH_HELP)
    out.append(rest)
    return "".join(out)


def _literal(text: str, template: str) -> str:
    if "{" in text or "}" in text:
        from ..errors import InputError

        raise InputError(f"jsonpath template '{template}' has an unbalanced brace", advice=JSONPATH_HELP)
    return text


def _evaluate(expression: str, document: Any, template: str) -> str:
    from ..errors import InputError

    if len(expression) >= 2 and expression[0] == expression[-1] and expression[0] in "'\"":
        return _string(expression, template)  # {'\n'}, {"\n"}, {' '}
    if document is None:
        document = {}
    if expression in ("", "."):
        return _show(document)
    steps = list(re.finditer(_STEP, expression))
    if not expression.startswith((".", "[")) or "".join(s.group(0) for s in steps) != expression:
        raise InputError(f"jsonpath expression '{{{expression}}}' in '{template}' is outside the supported subset",
                         advice=JSONPATH_HELP)
    values = [document]
    for step in steps:
        key, index = step.group(1), step.group(2)
        found = []
        for value in values:
            if key is not None and isinstance(value, dict) and key in value:
                found.append(value[key])
            elif index == "*" and isinstance(value, list):
                found.extend(value)
            elif index not in (None, "*") and isinstance(value, list):
                if not -len(value) <= int(index) < len(value):
                    raise InputError(f"jsonpath '{template}': array index out of bounds: index {index}, length "
                                     f"{len(value)}")
                found.append(value[int(index)])
        values = found
    return " ".join(_show(v) for v in values)


def _string(literal: str, template: str) -> str:
    """A quoted string in a template, with the escapes kubectl's (Go's) take: \\n, \\t, \\", \\x41, \\u00e9."""
    import ast
    import warnings

    from ..errors import InputError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # Python keeps an unknown escape (\\q) with a warning; Go refuses it
            value = ast.literal_eval(literal)
    except (SyntaxError, ValueError, Warning):
        raise InputError(f"jsonpath template '{template}': {literal} is not a valid string (a bad escape?)",
                         advice="write escapes as \\n, \\t, \\\\ or \\x41") from None
    if not isinstance(value, str):
        raise InputError(f"jsonpath template '{template}': {literal} is not a string")
    return value


def _show(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def request_logger(verbosity: int, write: Callable[[str], None]) -> Callable[[str, str, Any, float], None] | None:
    """From -v 6 on (as kubectl): one line per API request, ``GET URL 200 OK in 12 milliseconds``."""
    if verbosity < 6:
        return None

    def log(method: str, url: str, status: Any, seconds: float) -> None:
        shown = f"{status} {_REASONS.get(status, '')}".rstrip() if isinstance(status, int) else str(status)
        write(f"{method} {url} {shown} in {round(seconds * 1000)} milliseconds")
    return log


_REASONS = {200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 409: "Conflict", 410: "Gone", 422: "Unprocessable Entity", 429: "Too Many Requests",
            500: "Internal Server Error", 503: "Service Unavailable"}


NameOf = Callable[[dict[str, Any], Any], list[str]]
Renderer = Callable[[str, bool], str]  # (format, no_headers) -> the text of the command's own format
_PRINTER = "kubectl_offsets.result_printer"


@dataclass(frozen=True)
class ResultPrinter:
    """How the running command prints its result on stdout: -o and --no-headers, decided once per invocation.
    ``names``: -o name from the JSON document (None where name is the command's own format, or not available)."""

    output: str = "table"
    no_headers: bool = False
    names: Callable[[Any], list[str]] | None = None

    def show(self, document: Callable[[], Any], render: Renderer) -> None:
        """Print the result. ``document``: the JSON document -o json prints (built only for -o name/jsonpath);
        ``render(format, no_headers)``: the command's own formats."""
        if self.output == "name" and self.names is not None:
            names = self.names(document())
            if names:
                echo("\n".join(names))
            return
        if self.output.startswith("jsonpath="):
            echo(jsonpath(jsonpath_template(self.output), document()), nl=False)
            return
        echo(render(self.output, self.no_headers))


def result_printer(output: str) -> ResultPrinter:
    """The invocation's printer (set by kubectl_conventions), or a plain one for ``output`` where there is none (a
    command without the conventions, or a library call outside click)."""
    ctx = click.get_current_context(silent=True)
    printer = ctx.meta.get(_PRINTER) if ctx is not None else None
    return printer if printer is not None else ResultPrinter(output)


def kubectl_conventions(name_of: NameOf | None = None,
                        no_json: Callable[[dict[str, Any]], str | None] | None = None) -> Callable:
    """Decorate a click command (outermost): its -o accepts name and jsonpath=..., and it gains --no-headers (-v is
    the root command's, for every command: request_log). ``name_of(kwargs, json_document)``: the ``kind/name``
    lines for -o name when the command has no name format of its own. ``no_json(kwargs)``: why this invocation
    prints no JSON result (None: it does), so that -o jsonpath is refused before the command runs rather than after
    it changed something."""

    def apply(command: click.Command) -> click.Command:
        output = next(p for p in command.params if p.name == "output")
        own = tuple(getattr(output.type, "choices", ()))
        output.type = OutputFormat(own)
        output.help = (output.help or "") + (" Also" if "name" in own else " Also name,") + OUTPUT_HELP_TAIL
        command.params += [
            click.Option(["--no-headers"], is_flag=True, help="Print tables without their header line."),
        ]
        callback = command.callback
        assert callback is not None  # every command has one

        @functools.wraps(callback)
        def run(*args, no_headers: bool = False, **kwargs):
            fmt = kwargs.get("output") or "table"
            names = None
            if fmt == "name" and "name" not in own:
                if name_of is None:
                    raise click.UsageError("-o name is not available for this command")
                names = functools.partial(name_of, kwargs)
            if fmt.startswith("jsonpath="):
                reason = no_json(kwargs) if no_json else None
                if reason:
                    from ..errors import InputError

                    raise InputError(f"-o jsonpath=... needs a JSON result, and {reason} prints none",
                                     advice="use -o table, or leave out the flag named")
            click.get_current_context().meta[_PRINTER] = ResultPrinter(fmt, no_headers, names)
            callback(*args, **kwargs)

        command.callback = run
        return command
    return apply


@contextlib.contextmanager
def request_log(verbosity: int):
    """-v N for the duration of the command only (the CLI also runs in-process: tests, embedding)."""
    log = request_logger(verbosity, lambda line: click.echo(line, err=True))
    if log is None:
        yield
        return
    from ..core.online import operations

    operations.log_requests(log)
    try:
        yield
    finally:
        operations.log_requests(None)


def target_name(kwargs: dict[str, Any], document: Any) -> list[str]:
    """-o name of list/alter/reset/undo: the resource as kubectl names it (kafkaconnector/NAME,
    kafkamirrormaker2/NAME), from TARGET or, for many connectors, from the fleet document; once per resource."""
    from .. import strimzi

    target = kwargs.get("target")
    if target:
        kind, name = strimzi.parse_target(target)
        return [f"{strimzi.PLURALS[kind][:-1]}/{name}"]
    entries = document.get("connectors", []) if isinstance(document, dict) else []
    return list(dict.fromkeys(f"{strimzi.PLURALS[e['kind']][:-1]}/{e['name'].split('/')[-1]}" for e in entries
                              if e.get("kind") in strimzi.PLURALS))


def mutation_without_json(kwargs: dict[str, Any]) -> str | None:
    """alter/reset/undo: a dry run prints YAML patches and many connectors a summary table; neither is JSON."""
    if kwargs.get("dry_run"):
        return "--dry-run"
    if kwargs.get("selector") or kwargs.get("all_") or kwargs.get("all_namespaces"):
        return "a run over many connectors (-l/--all/-A)"
    return None
