"""kubectl offsets lag

MirrorMaker 2 has no consumer group on the source cluster, so the usual consumer-lag metric does not exist for a
MirrorSourceConnector; this computes it from the connector's stored offsets and the source topics' end offsets.
The same works for sink connectors (their consumer group offsets, as Connect lists them).
"""

from __future__ import annotations

import json
from typing import Any

import click

from .common import target_argument, with_connector_options
from .exits import guarded
from .options import cluster_options, key_value_pairs, output_option, quiet_option


@click.command("lag")
@target_argument
@with_connector_options
@click.option("--bootstrap-server", required=True, metavar="HOST:PORT",
              help="The cluster the connector reads: the SOURCE cluster for MirrorMaker 2.")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC",
              help="Also measure this topic's partitions that have no stored offset yet (repeatable).")
@click.option("--kafka-option", "kafka_options", multiple=True, callback=key_value_pairs, metavar="KEY=VALUE",
              help="Kafka client setting (librdkafka names), e.g. security.protocol=SSL (repeatable).")
@click.option("--current", metavar="FILE", help="Use these offsets (kubectl offsets list NAME -o json) instead of "
                                                "listing them from the cluster.")
@cluster_options
@output_option()
@quiet_option
def lag_command(**flags):
    """Replication or consumption lag per partition: end offset minus where the connector resumes.

    For a MirrorSourceConnector the stored offset is the last record replicated, so it resumes at stored+1; for a
    sink, at the stored offset. Partitions without a stored offset count from the log start.

    \b
    Examples:
      kubectl offsets lag kafkamirrormaker2/mirror --connector source --bootstrap-server east-kafka:9092 -n kafka
      kubectl offsets lag my-sink --bootstrap-server kafka:9092
      kubectl offsets lag kmm2/mirror --connector source --bootstrap-server east:9092 --current offsets.json -o json
    """
    guarded(lambda: _run(flags))


def _run(flags: dict[str, Any]) -> None:
    from ..adapters.spark.sources import LiveTopics
    from ..core import compute
    from ..output.progress import StderrProgress

    progress = StderrProgress(quiet=flags["quiet"])
    kind, current = _offsets(flags, progress)
    source = LiveTopics(flags["bootstrap_server"], tuple(flags["topics"]), flags["kafka_options"])
    rows = compute.lag(kind, current, source, progress=progress)
    progress.done()
    click.echo(_render(compute.lag_document(rows), flags["output"]))


def _offsets(flags: dict[str, Any], progress):
    """(kind, offsets): from --current FILE, or listed through Strimzi."""
    from ..connect import ConnectorKind
    from ..core import compute
    from ..errors import InputError

    if flags["current"]:
        from .cmd_compute import _read_current

        current = _read_current(flags["current"])
        kind = compute.kind_of_document(current) or _kind_from_target(flags["target"])
    else:
        from .cmd_compute import _from_cluster

        kind, _, current = _from_cluster(flags, progress)
    if kind not in (ConnectorKind.SINK, ConnectorKind.MIRROR_SOURCE):
        raise InputError(f"lag is measured for sink and MirrorSource connectors, not for {kind.value} connectors")
    return kind, current


def _kind_from_target(target: str):
    """An empty --current document does not say its kind: MirrorMaker 2 targets are mirror-source, others sink."""
    from .. import strimzi
    from ..connect import ConnectorKind

    kind, _ = strimzi.parse_target(target)
    return ConnectorKind.MIRROR_SOURCE if kind == strimzi.KIND_MM2 else ConnectorKind.SINK


def _render(document: dict[str, Any], fmt: str) -> str:
    from ..output.render import table, to_yaml

    if fmt == "json":
        return json.dumps(document, indent=2)
    if fmt == "yaml":
        return to_yaml(document)
    rows = [[r["topic"], r["partition"], "-" if r["position"] is None else r["position"], r["end"], r["lag"]]
            for r in document["partitions"]]
    if fmt == "csv":
        from .cmd_compute import _csv_rows

        return _csv_rows(["topic", "partition", "position", "end", "lag"], rows)
    return table(["TOPIC", "PARTITION", "POSITION", "END", "LAG"], rows) + f"\nTOTAL LAG: {document['totalLag']}"
