"""Flags shared by many commands, kubectl style. Each command applies the decorators it needs, so that
``kubectl offsets list NAME -n ns`` works (kubectl users put flags after the command, not before it)."""

from __future__ import annotations

import re
from typing import Any, Callable

import click

from ..model import ClusterConfig

OUTPUT_FORMATS = ("table", "json", "yaml", "csv")


class Duration(click.ParamType):
    """``300``, ``30s``, ``5m``, ``1h``, ``1h30m`` -> seconds, as kubectl's --timeout accepts."""

    name = "duration"
    _PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")

    def convert(self, value: Any, param, ctx) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        text = str(value).strip()
        if re.fullmatch(r"\d+(\.\d+)?", text):
            return float(text)
        parts = self._PART.findall(text)
        if not parts or "".join(n + u for n, u in parts) != text:
            self.fail(f"'{value}' is not a duration (examples: 30s, 5m, 1h30m)", param, ctx)
        scale = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
        return sum(float(n) * scale[u] for n, u in parts)


def _add(*decorators: Callable) -> Callable:
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


cluster_options = _add(
    click.option("-n", "--namespace", help="Namespace of the resource (default: the kubeconfig context's).",
                 shell_complete=_complete("namespace")),
    click.option("--context", help="The kubeconfig context to use.", shell_complete=_complete("context")),
    click.option("--kubeconfig", type=click.Path(dir_okay=False), envvar="KUBECONFIG",
                 help="Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)."),
    click.option("--timeout", type=Duration(), default="5m", show_default=True,
                 help="How long to wait for the operator and Connect at each step."),
)


def output_option(default: str = "table", formats: tuple[str, ...] = OUTPUT_FORMATS):
    return click.option("-o", "--output", type=click.Choice(formats), default=default, show_default=True,
                        help="Output format. json is the {\"offsets\": [...]} document that alter -f accepts.")


quiet_option = click.option("-q", "--quiet", is_flag=True, help="No progress on stderr; only the result on stdout.")

mutation_options = _add(
    click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation (required without a terminal)."),
    click.option("--dry-run", is_flag=True,
                 help="Print the preview and the exact patches and ConfigMap; change nothing."),
)


def cluster_config(namespace: str | None, context: str | None, kubeconfig: str | None) -> ClusterConfig:
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
