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
@click.option("--max-lag", type=click.IntRange(min=0), metavar="N",
              help="Exit with status 9 when a partition lags more than N records (a cron or CI gate).")
@click.option("--max-age", metavar="DURATION",
              help="Exit with status 9 when a partition's oldest pending record is older than DURATION "
                   "(30s, 5m, 2h, 1d or ISO-8601 PT5M).")
@click.option("--current", metavar="FILE", help="Use these offsets (kubectl offsets list NAME -o json) instead of "
                                                "listing them from the cluster.")
@cluster_options
@output_option()
@quiet_option
def lag_command(**flags):
    """Replication or consumption lag per partition: end offset minus where the connector resumes.

    For a MirrorSourceConnector the stored offset is the last record replicated, so it resumes at stored+1; for a
    sink, at the stored offset. Partitions without a stored offset count from the log start. AGE is the time lag:
    how old the oldest record not yet replicated (or consumed) is, from its timestamp on the source.

    \b
    Examples:
      kubectl offsets lag kafkamirrormaker2/mirror --connector source --bootstrap-server east-kafka:9092 -n kafka
      kubectl offsets lag my-sink --bootstrap-server kafka:9092
      kubectl offsets lag kmm2/mirror --connector source --bootstrap-server east:9092 --current offsets.json -o json
      kubectl offsets lag kmm2/mirror --connector source --bootstrap-server east:9092 --max-lag 1000 --max-age 5m
    """
    guarded(lambda: _run(flags))


def _run(flags: dict[str, Any]) -> None:
    from ..adapters.spark.sources import LiveTopics
    from ..core.compute import lag
    from ..output.progress import StderrProgress

    progress = StderrProgress(quiet=flags["quiet"])
    thresholds = lag.LagThresholds(flags["max_lag"], _seconds(flags["max_age"]))
    kind, current = _offsets(flags, progress)
    source = LiveTopics(flags["bootstrap_server"], tuple(flags["topics"]), flags["kafka_options"])
    rows = lag.lag(kind, current, source, progress=progress)
    progress.done()
    document = lag.lag_document(rows, thresholds)
    click.echo(_render(document, flags["output"]))
    _gate(document)


def _seconds(text: str | None) -> float | None:
    """--max-age: 90s, 5m, 2h, 1d, or ISO-8601 (PT5M); validated before anything is read."""
    import re

    from ..core.compute import times
    from ..errors import InputError

    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*", text.lower())
    if match:
        return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]
    try:
        return times.parse_duration(text).total_seconds()
    except InputError:
        raise InputError(f"--max-age '{text}' is not a duration",
                         advice="for example 90s, 5m, 2h, 1d or ISO-8601 PT5M") from None


def _gate(document: dict[str, Any]) -> None:
    from ..errors import CheckFailedError

    exceeded = document["thresholds"]["exceeded"]
    if exceeded:
        shown = ", ".join(f"{e['topic']}:{e['partition']} ({e['reason']})" for e in exceeded[:10])
        raise CheckFailedError(f"lag over the threshold on {len(exceeded)} partition(s): {shown}",
                               advice="the report above has the figures per partition")


def _offsets(flags: dict[str, Any], progress):
    """(kind, offsets): from --current FILE, or listed through Strimzi."""
    from ..connect import ConnectorKind
    from ..core.compute import positions as compute
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
    rows = [[r["topic"], r["partition"], "-" if r["position"] is None else r["position"], r["end"], r["lag"],
             _age(r["timeLagSeconds"])] for r in document["partitions"]]
    if fmt == "csv":
        from .cmd_compute import _csv_rows

        return _csv_rows(["topic", "partition", "position", "end", "lag", "time-lag-seconds"],
                         [row[:5] + [r["timeLagSeconds"]] for row, r in zip(rows, document["partitions"])])
    return table(["TOPIC", "PARTITION", "POSITION", "END", "LAG", "AGE"], rows) + \
        f"\nTOTAL LAG: {document['totalLag']}; OLDEST PENDING: {_age(document['maxTimeLagSeconds'])}"


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 120:
        return f"{seconds:.1f}s"
    if seconds < 7200:
        return f"{seconds / 60:.1f}m"
    return f"{seconds / 3600:.1f}h"
