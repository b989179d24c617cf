"""`kubectl offsets list` without a TARGET (and without -l/--all/-A): the connectors of the namespace from their
resources' status, optionally with per-partition lag. Its flags are declared here and applied by cmd_list."""

from __future__ import annotations

import click

from .options import group, kafka_option

overview_options = group(
    click.option("--lag", is_flag=True,
                 help="Without TARGET: each partition's offset, log-end offset and lag, as kafka-consumer-groups "
                      "--describe (lists every connector's offsets)."),
    click.option("--bootstrap-server", "lag_bootstrap_server", metavar="HOST:PORT",
                 help="With --lag: the Kafka cluster the connectors read (MirrorMaker 2: the source)."),
    kafka_option("Kafka client setting (librdkafka names), e.g. security.protocol=SSL. Repeatable."),
)


def list_connectors(namespace, context, kubeconfig, timeout, quiet, output, *, lag: bool,
                    bootstrap_server: str | None, kafka_options) -> None:
    from ..core.online import connectors, fleet, operations
    from ..errors import InputError
    from ..output.connectors import connectors_document, render_connectors
    from .fleet import exit_if_unlisted
    from .kubectl_output import result_printer
    from .options import cluster_config

    if output == "csv":
        raise InputError("list without TARGET prints -o table, json, yaml or name; csv is for offsets",
                         advice="kubectl offsets list --all -o csv prints every connector's offsets as CSV")
    if lag and not bootstrap_server:
        raise InputError("--lag needs --bootstrap-server HOST:PORT (the Kafka cluster the connectors read)",
                         advice="kubectl offsets list --lag --bootstrap-server kafka:9092 -n NAMESPACE")
    kube = operations.connect(cluster_config(namespace, context, kubeconfig))
    selection = fleet.Selection(namespace=namespace)
    rows = connectors.overview(kube, selection)
    if not rows:  # as kubectl get: the message on stderr, exit 0, and for json/yaml the empty document
        click.echo(f"No resources found in {namespace or kube.namespace} namespace.", err=True)
        if output in ("json", "yaml") or output.startswith("jsonpath="):
            result_printer(output).show(lambda: connectors_document([], None),
                                        lambda fmt, no_headers: render_connectors([], fmt, lag=None))
        return
    partitions, unlisted = None, []
    if lag:
        lagging, unlisted = _lag(namespace, context, kubeconfig, timeout, quiet, rows, bootstrap_server,
                                 kafka_options)
        partitions = [p.to_json() for p in lagging]
    found = [r.to_json() for r in rows]
    result_printer(output).show(lambda: connectors_document(found, partitions), lambda fmt, no_headers: render_connectors(
        found, fmt, lag=partitions, no_headers=no_headers))
    exit_if_unlisted(unlisted)  # warned about before the table; the table is not the whole answer


def _lag(namespace, context, kubeconfig, timeout, quiet, rows, bootstrap_server, kafka_options):
    from ..core.compute import connectors_lag
    from ..core.online import fleet
    from .common import session
    from .fleet import warn_unlisted
    from .options import cluster_config

    _, options, progress = session(namespace, context, kubeconfig, timeout, quiet)
    document, errors = fleet.list_fleet(cluster_config(namespace, context, kubeconfig), [r.member for r in rows],
                                        options, progress=progress)
    warn_unlisted(errors)
    found = connectors_lag.lag_rows(document, bootstrap_server, tuple(kafka_options or ()), progress=progress)
    progress.done()
    return found, errors
