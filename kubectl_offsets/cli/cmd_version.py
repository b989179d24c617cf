"""``kubectl offsets version``: this plugin's version and, with a cluster, what the plugin will talk to."""

from __future__ import annotations

import json

import click

from ..output.terminal import echo
from .options import cluster_config, cluster_flags
from .help import KubectlCommand

FORMATS = ("text", "json", "yaml")
REQUEST_TIMEOUT = 10.0  # seconds per API call: `version` is a quick look, not an operation


@click.command("version", cls=KubectlCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--client", is_flag=True, help="Only the plugin's own version; do not contact the cluster.")
@click.option("--connect-url", metavar="URL",
              help="Ask Kafka Connect's REST API at URL (e.g. a kubectl port-forward) instead of each "
                   "KafkaConnect's status.url, which is usually cluster-internal.")
@click.option("-o", "--output", type=click.Choice(FORMATS), default="text", metavar="FORMAT",
              help="text (default), json or yaml.")
@cluster_flags(timeout_help=f"How long to wait for each answer of the cluster (default, and at most, "
                            f"{REQUEST_TIMEOUT:.0f}s).")
def version_command(client: bool, connect_url: str | None, output: str, namespace: str | None,
                    context: str | None, kubeconfig: str | None, timeout: float) -> None:
    """Print the plugin, Strimzi API and Kafka Connect versions.

    The Kafka Connect version comes from each KafkaConnect's REST API (status.url), which is usually reachable only
    inside the cluster: --connect-url asks a port-forward instead.

    \b
    Examples:
      kubectl offsets version --client
      kubectl offsets version -n kafka
      kubectl port-forward -n kafka svc/my-connect-connect-api 8083 &
      kubectl offsets version -n kafka --connect-url http://localhost:8083
    """
    from ..core.online import versions

    if client:
        _print(versions.client_report(), output)
        return
    _check_url(connect_url)
    config = cluster_config(namespace, context, kubeconfig)

    def work() -> None:
        if output == "text":
            # First, as `kubectl version` prints its client line: still useful when the cluster is unreachable.
            echo(_plugin_line(versions.client_report()))
        report = versions.cluster_report(config, connect_url=connect_url,
                                         request_timeout=min(timeout, REQUEST_TIMEOUT))
        if output == "text":
            echo("\n".join(cluster_lines(report)))
        else:
            _print(report, output)

    work()


def _check_url(url: str | None) -> None:
    """--connect-url is Kafka Connect's REST address, as a port-forward gives it: checked before the cluster is
    asked, so that a typo is not reported as a Connect that does not answer."""
    if url is None:
        return
    from urllib.parse import urlsplit

    from ..errors import InputError

    parts = urlsplit(url)
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        raise InputError(f"--connect-url '{url}' is not an http(s) URL",
                         advice="give Kafka Connect's REST address, e.g. http://localhost:8083 after "
                                "kubectl port-forward svc/NAME-connect-api 8083")


def _print(report, output: str) -> None:
    if output == "json":
        echo(json.dumps(report.to_json(), indent=2))
    elif output == "yaml":
        from ..output.render import to_yaml

        echo(to_yaml(report.to_json()))
    else:
        echo("\n".join([_plugin_line(report), *cluster_lines(report)]))


def cluster_lines(report) -> list[str]:
    if report.strimzi is None:
        return []
    return [_strimzi_line(report.strimzi), *_connect_lines(report)]


def _strimzi_line(api) -> str:
    if not api.served:
        return "Strimzi API: not served (no kafka.strimzi.io API group: is Strimzi installed?)"
    used = ", ".join(f"{kind} {version or 'not served'}" for kind, version in api.used.items())
    return f"Strimzi API: kafka.strimzi.io {', '.join(api.served)} (read as: {used})"


def _connect_lines(report) -> list[str]:
    if not report.connect:
        return [f"Kafka Connect Version: unknown (no KafkaConnect in namespace {report.namespace})"]
    lines = []
    for connect in report.connect:
        where = f"kafkaconnect/{connect.name}" if connect.name else "--connect-url"
        if connect.version:
            lines.append(f"Kafka Connect Version: {connect.version} ({where}, {connect.url})")
        else:
            lines.append(f"Kafka Connect Version: unknown ({where}: {connect.reason})")
    return lines


def _plugin_line(report) -> str:
    plugin = report.plugin
    return f"Plugin Version: {plugin.version} ({plugin.packaging}, Python {plugin.python})"
