"""kubectl offsets lag

MirrorMaker 2 has no consumer group on the source cluster, so the usual consumer-lag metric does not exist for a
MirrorSourceConnector; this computes it from the connector's stored offsets and the source topics' end offsets.
The same works for sink connectors (their consumer group offsets, as Connect lists them).
"""

from __future__ import annotations

from typing import Any

import click

from ..output.terminal import echo
from .common import connector_flags, target_argument, with_connector_options
from .options import cluster_options, kafka_option, output_option, quiet_option
from .help import KubectlCommand


@click.command("lag", cls=KubectlCommand)
@target_argument
@with_connector_options
@click.option("--bootstrap-server", required=True, metavar="HOST:PORT",
              help="The cluster the connector reads: the SOURCE cluster for MirrorMaker 2.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Also measure this topic's partitions that have no stored offset yet (repeatable).")
@kafka_option("Kafka client setting (librdkafka names), e.g. security.protocol=SSL (repeatable).")
@click.option("--max-lag", type=click.IntRange(min=0), metavar="N",
              help="Exit with status 9 when a partition lags more than N records (a cron or CI gate).")
@click.option("--max-age", metavar="DURATION",
              help="Exit with status 9 when a partition's oldest pending record is older than DURATION "
                   "(30s, 5m, 2h, 1d or ISO-8601 PT5M).")
@click.option("--current", metavar="FILE", help="Use these offsets (what kubectl offsets list NAME -o json, -o yaml "
                                                "or -o csv prints) instead of listing them from the cluster.")
@cluster_options
@output_option(help="Output format. json/yaml: the lag report (per partition, totals, thresholds; schema "
                    "lag.schema.json); csv: one row per partition (topic, partition, position, end, lag, "
                    "time-lag-seconds).")
@quiet_option
def lag_command(**flags):
    """Show how far a connector is behind, per partition.

    The lag in records (end offset minus where the connector resumes) and in time (the age of the oldest record
    not yet read). --max-lag and --max-age exit 9 when exceeded, for cron jobs and pipelines.

    \b
    Examples:
      kubectl offsets lag my-sink --bootstrap-server kafka:9092 -n kafka
      kubectl offsets lag kmm2/mirror --connector source --bootstrap-server east:9092 -n kafka
      # A gate: exit 9 past 1000 records or 5 minutes
      kubectl offsets lag kmm2/mirror --connector source --bootstrap-server east:9092 --max-lag 1000 --max-age 5m
    """
    _run(flags)


def _run(flags: dict[str, Any]) -> None:
    from ..core.compute import lag
    from ..core.compute.request import LagFlags, gate
    from ..output.compute import render_lag
    from ..output.progress import StderrProgress

    progress = StderrProgress(quiet=flags["quiet"])
    request = LagFlags(connector_flags(flags), flags["bootstrap_server"], tuple(flags["topics"]),
                       flags["kafka_options"], flags["max_lag"], flags["max_age"])
    thresholds = lag.LagThresholds(flags["max_lag"], request.max_age_seconds())
    kind, current = request.offsets(progress)
    rows = lag.lag(kind, current, request.source(), progress=progress)
    progress.done()
    document = lag.lag_document(rows, thresholds)
    echo(render_lag(document, flags["output"]))
    gate(document)
