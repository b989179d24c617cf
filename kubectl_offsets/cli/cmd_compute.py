"""kubectl offsets compute [connect-offsets]

``compute`` is a group that runs itself when no subcommand follows (``invoke_without_command``), so
``kubectl offsets compute --to-datetime ...`` works as written in the issue and ``compute connect-offsets`` sits
beside it. Bodies import the library inside the function: ``--help`` never loads pyspark or confluent_kafka.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..output.terminal import echo
from .common import connector_flags, with_connector_options
from .options import (allow_future_option, check_output_path, cluster_options, group, kafka_option, key_value_pairs,
                      output_option, quiet_option)
from .help import DATA, KubectlGroup

source_options = group(
    click.option("--bootstrap-server", metavar="HOST:PORT", help="Read a live topic from this Kafka cluster."),
    click.option("--topic", "topics", multiple=True, metavar="TOPIC",
                 help="Topic to read (with --data: to keep, or the name of data without a topic). Repeatable."),
    kafka_option("Kafka client setting, e.g. security.protocol=SSL. Repeatable."),
    click.option("--data", metavar="PATH", help="Read archived topic data instead (file, directory or glob)."),
    click.option("--format", "data_format", type=click.Choice(["parquet", "json", "orc", "avro"]),
                 default="parquet", metavar="FORMAT", help="parquet (default), json, orc or avro."),
    click.option("--column", "columns", multiple=True, callback=key_value_pairs, metavar="NAME=COLUMN",
                 help="Where the data keeps a Kafka column, e.g. offset=kafka_offset. Repeatable."),
    click.option("--base64", is_flag=True, help="key and value in --data are base64 text."),
    click.option("--master", default="local[*]", metavar="URL",
                 help="Spark master: local[N] (default local[*]), spark://HOST:PORT, k8s://..."),
    click.option("--spark-jars", metavar="DIR", help="Spark's Kafka source jars (default: $SPARK_KAFKA_JARS)."),
    click.option("--spark-conf", "spark_conf", multiple=True, callback=key_value_pairs, metavar="KEY=VALUE",
                 help="Spark setting, e.g. spark.executor.memory=4g. Repeatable."),
)


# Where the topic data comes from, for compute and connect-offsets alike.
DATA_FLAGS = {"--topic": DATA, "--bootstrap-server": DATA, "--kafka-option": DATA}


@click.group("compute", cls=KubectlGroup, invoke_without_command=True, sections=DATA_FLAGS)
@source_options
@click.option("--to-datetime", metavar="ISO-8601", help="Resume at the first record at or after this time (UTC "
                                                       "unless it has a zone).")
@allow_future_option
@click.option("--by-duration", metavar="DURATION", help="As --to-datetime, at now minus DURATION (2h, PT2H).")
@click.option("--to-earliest", is_flag=True, help="Resume at each partition's first record.")
@click.option("--to-latest", is_flag=True, help="Resume at each partition's end.")
@click.option("--shift-by", type=int, metavar="N", help="Move the current position by N (negative: replay).")
@click.option("--skip-poison", is_flag=True, help="Resume just past the first poison record after the current "
                                                  "position.")
@click.option("--where", metavar="SQL", help="With --skip-poison: poison is where this predicate holds.")
@click.option("--invalid", type=click.Choice(["json"]), help="With --skip-poison: poison is a value that is not "
                                                             "JSON.")
@click.option("--invalid-against", metavar="SCHEMA_FILE", type=click.Path(dir_okay=False),
              help="With --skip-poison: poison is a value this JSON Schema refuses.")
@click.option("--count-all", is_flag=True,
              help="With --skip-poison: read every partition to its end, to count every poison record.")
@click.option("--report", metavar="FILE", help="Write the poison report there (.json, .yaml or .csv).")
@click.option("--report-limit", type=int, default=10_000, metavar="N",
              help="Poison records listed in the report at most (default 10000; all are counted).")
@click.option("--find", "find_sql", metavar="SQL", help="Resume at the first record where this predicate holds.")
@click.option("--for", "for_kind", type=click.Choice(["sink", "mirror-source"]), metavar="KIND",
              help="sink or mirror-source: what the offsets are for (default: from --current or --target).")
@click.option("--source-alias", metavar="ALIAS", help="With --for mirror-source: the source cluster's alias.")
@click.option("--current", metavar="FILE", help="The connector's current offsets (list -o json), where "
                                                "--skip-poison and --shift-by start.")
@click.option("--target", metavar="KIND/NAME", help="Read the connector's kind and current offsets from the "
                                                    "cluster.")
@with_connector_options
@cluster_options
@click.option("--scan", is_flag=True, help="Scan a live topic with Spark even for a time question.")
@output_option()
@quiet_option
@click.pass_context
def compute_group(ctx, **flags):
    """Compute offsets from topic data (a time, poison records).

    Prints the offsets document 'alter -f' takes. A time on a live topic is asked of the broker's timestamp
    index; the rest is scanned with Spark (the 'spark' extra), locally unless --master says where. docs/compute.md.

    \b
    Examples:
      # Where each partition of a live topic was two hours ago
      kubectl offsets compute --bootstrap-server kafka:9092 --topic orders --by-duration 2h -o json
      # Past the first record that is not JSON, from where the sink is now
      kubectl offsets compute --bootstrap-server kafka:9092 --topic orders --skip-poison --invalid json \\
          --current now.json --report poison.json -o json > skip.json
      # From an archive, for a MirrorMaker 2 source connector
      kubectl offsets compute --data ./archive --find "get_json_object(value, '$.id') = '4711'" \\
          --for mirror-source --source-alias east
    """
    if ctx.invoked_subcommand is not None:
        return
    _run_compute(flags)


def _run_compute(flags: dict[str, Any]) -> None:
    from ..core.compute import poison, positions
    from ..core.compute.request import ComputeFlags
    from ..output.compute import positions_table, report_table, report_text
    from ..output.progress import StderrProgress
    from ..output.render import render_offsets

    check_output_path(flags["report"], "--report")
    progress = StderrProgress(quiet=flags["quiet"])
    request = ComputeFlags(source=source_flags(flags), connector=connector_flags(flags),
                           **_pick(flags, ComputeFlags, "source", "connector")).request(progress)
    result = positions.compute(request, spark=spark_flags(flags).factory(), progress=progress)
    progress.done()
    if not flags["quiet"]:
        echo(positions_table(result), err=True)
    if result.poison is not None:
        assert request.poison is not None  # a poison result answers a request that asked for one
        report = poison.poison_report(result.poison, request.poison)
        if flags["report"]:
            _write(report_text(report, flags["report"]), flags["report"])
        if not flags["quiet"]:
            echo(report_table(report), err=True)
    if not len(result.document):
        progress.warn("no partition needs to move: the document is empty (alter -f rejects an empty document)")
    echo(render_offsets(result.document, flags["output"], result.kind))


# --- flags -> the typed requests of core/compute/request.py -----------------------------------------------------


def _pick(flags: dict[str, Any], cls: type, *skip: str) -> dict[str, Any]:
    """The flags that are fields of the dataclass ``cls`` (same names), but for ``skip``."""
    import dataclasses

    return {f.name: flags[f.name] for f in dataclasses.fields(cls) if f.name not in skip}


def source_flags(flags: dict[str, Any]):
    from ..core.compute.request import SourceFlags

    return SourceFlags(**_pick(flags, SourceFlags))


def spark_flags(flags: dict[str, Any]):
    from ..core.compute.request import SparkFlags

    return SparkFlags(**_pick(flags, SparkFlags))


def _write(text: str, path: str) -> None:
    from ..errors import InputError

    try:
        with open(path, "w") as f:
            f.write(text + "\n")
    except OSError as e:
        raise InputError(f"--report {path}: {e.strerror}") from None


# --- connect-offsets --------------------------------------------------------------------------------------------


@compute_group.command("connect-offsets", sections=DATA_FLAGS)
@source_options
@click.option("--connectors", metavar="A,B", help="Only these connectors (comma-separated).")
@click.option("--from-beginning", is_flag=True, help="Every record of the topic (the history), not only the "
                                                     "latest offset per partition.")
@output_option(help='Output format. json/yaml: {"connectors": {NAME: {"offsets": [...]}}}; with exactly one name in '
                    '--connectors, that connector\'s {"offsets": [...]} document, which alter -f accepts. csv: '
                    'connector, partition, offset rows.')
@quiet_option
def connect_offsets_command(**flags):
    """Read Connect's offsets topic: every source connector's offsets.

    As Connect's REST API would list them, including connectors that are gone. With one name in --connectors it
    prints that connector's offsets document, which alter -f takes.

    \b
    Examples:
      kubectl offsets compute connect-offsets --bootstrap-server kafka:9092
      kubectl offsets compute connect-offsets --bootstrap-server kafka:9092 --connectors my-source -o json
      kubectl offsets compute connect-offsets --data ./offsets-archive --format json --from-beginning -o csv
    """
    _run_connect_offsets(flags)


def _run_connect_offsets(flags: dict[str, Any]) -> None:
    from ..core.compute import offsets_topic
    from ..core.compute.request import ConnectOffsetsFlags
    from ..output.compute import render_connect, write_history
    from ..output.progress import StderrProgress

    progress = StderrProgress(quiet=flags["quiet"])
    request = ConnectOffsetsFlags(source_flags(flags), flags["connectors"], flags["from_beginning"])
    source = request.resolved_source()
    connectors = request.connector_names()
    spark = spark_flags(flags).factory()
    if request.from_beginning:
        rows = offsets_topic.connect_history(source, spark=spark, connectors=connectors, progress=progress)
        write_history(rows, flags["output"], sys.stdout)
        return
    result = offsets_topic.connect_offsets(source, spark=spark, connectors=connectors, progress=progress)
    progress.done()
    if result.ignored_keys:
        progress.warn(f"{result.ignored_keys} keys are not [\"connector\", {{partition}}] and were ignored, as "
                      f"Connect ignores them")
    echo(render_connect(result, flags["output"], single=len(connectors) == 1))
