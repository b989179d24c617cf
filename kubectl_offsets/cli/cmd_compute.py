"""kubectl offsets compute [connect-offsets]

``compute`` is a group that runs itself when no subcommand follows (``invoke_without_command``), so
``kubectl offsets compute --to-datetime ...`` works as written in the issue and ``compute connect-offsets`` sits
beside it. Bodies import the library inside the function: ``--help`` never loads pyspark or confluent_kafka.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .common import with_connector_options
from .exits import guarded
from .options import _add, cluster_options, key_value_pairs, output_option, quiet_option

CONNECT_OFFSETS_TOPIC = "connect-cluster-offsets"  # Strimzi's default offset.storage.topic for a KafkaConnect


source_options = _add(
    click.option("--bootstrap-server", metavar="HOST:PORT", help="Read a live topic from this Kafka cluster."),
    click.option("--topic", "topics", multiple=True, metavar="TOPIC",
                 help="Topic to read (repeatable). With --data: keep only this topic, or name it when the data has "
                      "no topic column."),
    click.option("--kafka-option", "kafka_options", multiple=True, callback=key_value_pairs, metavar="KEY=VALUE",
                 help="Kafka client setting, e.g. security.protocol=SSL (repeatable); passed to Spark's Kafka source "
                      "as kafka.KEY and to the broker requests."),
    click.option("--data", metavar="PATH", help="Read archived topic data instead (file, directory or glob)."),
    click.option("--format", "data_format", type=click.Choice(["parquet", "json", "orc", "avro"]),
                 default="parquet", show_default=True, help="Format of --data."),
    click.option("--column", "columns", multiple=True, callback=key_value_pairs, metavar="NAME=COLUMN",
                 help="Map a Kafka source column (topic, partition, offset, timestamp, key, value, headers) to the "
                      "data's column, e.g. offset=kafka_offset (repeatable)."),
    click.option("--base64", is_flag=True, help="key and value in --data are base64 text (Spark's JSON writer does "
                                                "that to binary columns)."),
    click.option("--master", default="local[*]", show_default=True,
                 help="Spark master: local[N], spark://HOST:PORT, k8s://https://HOST:PORT, ..."),
    click.option("--spark-jars", metavar="DIR", help="Directory with Spark's Kafka source jars (default: "
                                                     "$SPARK_KAFKA_JARS, then the cache directory)."),
    click.option("--spark-conf", "spark_conf", multiple=True, callback=key_value_pairs, metavar="KEY=VALUE",
                 help="Spark setting (repeatable), e.g. spark.executor.memory=4g."),
)


@click.group("compute", invoke_without_command=True)
@source_options
@click.option("--to-datetime", metavar="ISO-8601", help="Resume at the first record at or after this time "
                                                       "(UTC unless the time says otherwise).")
@click.option("--by-duration", metavar="PnDTnHnM", help="Resume at the first record at or after now minus this.")
@click.option("--to-earliest", is_flag=True, help="Resume at each partition's first record.")
@click.option("--to-latest", is_flag=True, help="Resume at each partition's end (skip everything there).")
@click.option("--shift-by", type=int, metavar="N", help="Move the current position by N (negative = replay); "
                                                        "needs --current or --target.")
@click.option("--skip-poison", is_flag=True, help="Resume just past the first poison record at or after the "
                                                  "current position, per partition.")
@click.option("--where", metavar="SQL", help="With --skip-poison: records for which this predicate is true are "
                                             "poison.")
@click.option("--invalid", type=click.Choice(["json"]), help="With --skip-poison: values that are not valid JSON "
                                                             "are poison.")
@click.option("--invalid-against", metavar="SCHEMA_FILE", type=click.Path(dir_okay=False),
              help="With --skip-poison: values that do not match this JSON Schema are poison.")
@click.option("--count-all", is_flag=True,
              help="With --skip-poison on a live topic: read every partition to its end, so that the report counts "
                   "every poison record (by default a partition is read in growing offset windows and no further "
                   "than the window holding its first poison record).")
@click.option("--report", metavar="FILE", help="Write the poison report there (.json, .yaml or .csv by extension).")
@click.option("--report-limit", type=int, default=10_000, show_default=True,
              help="At most this many poison records in the report (all are counted).")
@click.option("--find", "find_sql", metavar="SQL", help="Resume at the first record for which this predicate is "
                                                        "true, per partition (searching the whole partition).")
@click.option("--for", "for_kind", type=click.Choice(["sink", "mirror-source"]),
              help="The connector the offsets are for (default: from --current or --target, else sink).")
@click.option("--source-alias", metavar="ALIAS", help="With --for mirror-source: the source cluster alias.")
@click.option("--current", metavar="FILE", help="The connector's current offsets (kubectl offsets list NAME -o "
                                                "json): --skip-poison scans from there, --shift-by moves them.")
@click.option("--target", metavar="KIND/NAME", help="Read the connector's kind and current offsets from the cluster "
                                                    "(kafkaconnector/NAME or kafkamirrormaker2/NAME --connector ...).")
@with_connector_options
@cluster_options
@click.option("--scan", is_flag=True, help="Scan a live topic with Spark even when the broker's timestamp index "
                                           "would answer.")
@output_option()
@quiet_option
@click.pass_context
def compute_group(ctx, **flags):
    """Compute the offsets a connector should resume at, from topic data (live or archived), with PySpark.

    Prints the {"offsets": [...]} document that 'alter -f' and 'gitops ... -f' take. On a live topic,
    time-based operations ask the broker's timestamp index (no scan); content-based ones (--skip-poison,
    --find) and archived data are scanned with Spark, local by default (--master for a cluster).
    Needs the 'spark' extra (pip install 'kubectl-offsets[spark]') for scans, the 'kafka' extra for live topics.

    \b
    Examples:
      kubectl offsets compute --data ./archive --format parquet --to-datetime 2026-11-21T09:00:00Z -o json
      kubectl offsets compute --bootstrap-server kafka:9092 --topic orders --by-duration PT2H --for sink
      kubectl offsets compute --bootstrap-server kafka:9092 --topic orders --skip-poison --invalid json \\
          --current now.json --report poison.json -o json > skip.json
      kubectl offsets compute --data ./archive --find "get_json_object(value, '$.id') = '4711'" \\
          --for mirror-source --source-alias east
      kubectl offsets compute connect-offsets --bootstrap-server kafka:9092 --connectors my-source
    """
    if ctx.invoked_subcommand is not None:
        return
    guarded(lambda: _run_compute(flags))


def _run_compute(flags: dict[str, Any]) -> None:
    from ..core.compute import poison, positions
    from ..output.progress import StderrProgress
    from ..output.render import render_offsets

    progress = StderrProgress(quiet=flags["quiet"])
    request = _request(flags, progress)
    result = positions.compute(request, spark=_spark_factory(flags), progress=progress)
    progress.done()
    if not flags["quiet"]:
        click.echo(_positions_table(result), err=True)
    if result.poison is not None:
        _emit_report(poison.poison_report(result.poison, request.poison), flags)
    if not len(result.document):
        progress.warn("no partition needs to move: the document is empty (alter -f rejects an empty document)")
    click.echo(render_offsets(result.document, flags["output"], result.kind))


# --- flags -> request -------------------------------------------------------------------------------------------


def _request(flags: dict[str, Any], progress) -> Any:
    from ..core.compute import positions as compute

    operation = _operation(flags)
    kind, alias, current = _connector(flags, progress)
    source = _source(flags, current, kind)
    return compute.ComputeRequest(
        source=source, operation=operation, kind=kind, source_alias=alias, at_ms=_at(flags, operation),
        shift_by=flags["shift_by"], poison=_poison(flags, operation), find=flags["find_sql"], current=current,
        scan=flags["scan"], report_limit=flags["report_limit"], count_all=flags["count_all"])


def _operation(flags: dict[str, Any]):
    from ..core.compute.positions import Operation
    from ..errors import InputError

    chosen = [op for op, on in ((Operation.TO_DATETIME, flags["to_datetime"]),
                                (Operation.BY_DURATION, flags["by_duration"]),
                                (Operation.TO_EARLIEST, flags["to_earliest"]),
                                (Operation.TO_LATEST, flags["to_latest"]),
                                (Operation.SHIFT_BY, flags["shift_by"] is not None),
                                (Operation.SKIP_POISON, flags["skip_poison"]),
                                (Operation.FIND, flags["find_sql"])) if on]
    if len(chosen) != 1:
        raise InputError("choose exactly one of --to-datetime, --by-duration, --to-earliest, --to-latest, --shift-by, "
                         "--skip-poison, --find" + (f" (got {', '.join('--' + o.value for o in chosen)})"
                                                     if chosen else ""),
                         advice="kubectl offsets compute --help")
    criteria_given = flags["where"] or flags["invalid"] or flags["invalid_against"] or flags["report"] \
        or flags["count_all"]
    if criteria_given and chosen[0] is not Operation.SKIP_POISON:
        raise InputError("--where, --invalid, --invalid-against, --report and --count-all go with --skip-poison")
    return chosen[0]


def _at(flags: dict[str, Any], operation) -> int | None:
    from ..core.compute import times
    from ..core.compute.positions import Operation

    if operation is Operation.TO_DATETIME:
        return times.parse_datetime(flags["to_datetime"])
    if operation is Operation.BY_DURATION:
        return times.at_for_duration(flags["by_duration"])
    return None


def _poison(flags: dict[str, Any], operation):
    from ..adapters.spark.jobs import PoisonCriteria
    from ..core.compute.positions import Operation
    from ..errors import InputError

    if operation is not Operation.SKIP_POISON:
        return None
    schema, name = None, "the schema"
    if flags["invalid_against"]:
        schema, name = _read_schema(flags["invalid_against"]), flags["invalid_against"]
    criteria = PoisonCriteria(where=flags["where"], invalid_json=flags["invalid"] == "json", schema=schema,
                              schema_name=name)
    if criteria.empty:
        raise InputError("--skip-poison needs to know what a poison record is",
                         advice="add --where SQL, --invalid json or --invalid-against SCHEMA_FILE")
    return criteria


def _read_schema(path: str) -> dict[str, Any]:
    from ..errors import InputError

    try:
        with open(path) as f:
            schema = json.load(f)
    except OSError as e:
        raise InputError(f"--invalid-against {path}: {e.strerror}") from None
    except ValueError as e:
        raise InputError(f"--invalid-against {path} is not JSON: {e}") from None
    from ..schemas import check_user_schema

    check_user_schema(schema, what=f"--invalid-against {path}")
    return schema


def _connector(flags: dict[str, Any], progress):
    """(kind, source alias, current offsets) from --target, --current and --for/--source-alias."""
    from ..connect import ConnectorKind
    from ..core.compute import positions as compute
    from ..errors import InputError

    if flags["target"] and flags["current"]:
        raise InputError("--target reads the current offsets from the cluster; --current gives them: choose one")
    kind, alias, current = None, None, None
    if flags["target"]:
        kind, alias, current = _from_cluster(flags, progress)
    elif flags["current"]:
        current = _read_current(flags["current"])
        kind, alias = compute.kind_of_document(current), compute.alias_of_document(current)
    if flags["for_kind"]:
        wanted = ConnectorKind(flags["for_kind"])
        if kind is not None and kind is not wanted:
            raise InputError(f"--for {wanted.value}, but the current offsets are a {kind.value} connector's")
        kind = wanted
    if kind is None:
        kind = ConnectorKind.SINK
        progress.step("offsets for a sink connector (--for mirror-source for a MirrorSourceConnector)")
    return kind, flags["source_alias"] or alias, current


def _read_current(path: str):
    from ..core.inputs import ConnectorFacts, read_offsets_file
    from ..connect import ConnectorKind

    return read_offsets_file(path, ConnectorFacts(kind=ConnectorKind.SOURCE))


def _from_cluster(flags: dict[str, Any], progress):
    """The connector's kind and offsets, listed through Strimzi (the online list flow)."""
    from ..core.online import operations
    from ..core.online.targets import TargetSpec
    from ..model import ClusterConfig, Options, WaitSettings

    kube = operations.connect(ClusterConfig(kubeconfig=flags["kubeconfig"], context=flags["context"],
                                            namespace=flags["namespace"]))
    spec = TargetSpec(flags["target"], connector=flags["connector"], source_cluster=flags["source_cluster"])
    listed = operations.list_offsets(kube, spec, options=Options(wait=WaitSettings(timeout=flags["timeout"])),
                                     progress=progress)
    return listed.kind, listed.target.source_alias, listed.offsets


def _source(flags: dict[str, Any], current, kind):
    from ..adapters.spark.sources import Archive, LiveTopics
    from ..connect import topic_partition_of
    from ..errors import InputError

    if bool(flags["bootstrap_server"]) == bool(flags["data"]):
        raise InputError("give either --bootstrap-server (a live topic) or --data PATH (archived data)")
    if flags["data"]:
        return Archive(flags["data"], flags["data_format"], dict(flags["columns"]), tuple(flags["topics"]),
                       flags["base64"])
    if flags["columns"] or flags["base64"]:
        raise InputError("--column and --base64 describe --data; a live topic has the Kafka source's columns")
    topics = tuple(flags["topics"]) or tuple(sorted({tp[0] for e in current or ()
                                                      if (tp := topic_partition_of(kind, e.partition))}))
    if not topics:
        known = " (the connector has no offsets yet to take them from)" if current is not None else ""
        raise InputError(f"which topic?{known}", advice="give --topic TOPIC (repeatable)")
    return LiveTopics(flags["bootstrap_server"], topics, flags["kafka_options"])


def _spark_factory(flags: dict[str, Any]):
    def make(needs_kafka: bool):
        from ..adapters.spark.session import SparkSettings, build_session

        return build_session(SparkSettings(master=flags["master"], jars_dir=flags["spark_jars"],
                                           needs_kafka=needs_kafka, conf=flags["spark_conf"]))
    return make


# --- output -----------------------------------------------------------------------------------------------------


def _positions_table(result) -> str:
    from ..core.compute.times import iso_ms
    from ..output.render import table

    if not result.positions:
        return f"({result.method}) no partition to move"
    rows = [[p.topic, p.partition, p.resume_at, iso_ms(p.ts_ms) or "", p.basis] for p in result.positions]
    return f"({result.method})\n" + table(["TOPIC", "PARTITION", "RESUME AT", "RECORD TIME", "WHY"], rows)


def _emit_report(report: dict[str, Any], flags: dict[str, Any]) -> None:
    if flags["report"]:
        _write_report(report, flags["report"])
    if not flags["quiet"]:
        click.echo(_report_table(report), err=True)


def _report_table(report: dict[str, Any]) -> str:
    from ..output.render import table

    if not report["records"]:
        return "No poison records found."
    rows = [[r["topic"], r["partition"], r["offset"], r["timestamp"] or "", r["reason"]] for r in report["records"]]
    more = f"\n... {report['total'] - len(rows)} more (raise --report-limit)" if report["truncated"] else ""
    if not report.get("complete", True):
        more += ("\nPartitions with poison were read only up to the window holding their first poison record "
                 "(scannedUntil in --report); --count-all reads them to the end.")
    return table(["TOPIC", "PARTITION", "OFFSET", "TIMESTAMP", "REASON"], rows) + more


def _write_report(report: dict[str, Any], path: str) -> None:
    from ..errors import InputError
    from ..output.render import to_yaml

    if path.endswith((".yaml", ".yml")):
        text = to_yaml(report)
    elif path.endswith(".csv"):
        text = _report_csv(report)
    else:
        text = json.dumps(report, indent=2)
    try:
        with open(path, "w") as f:
            f.write(text + "\n")
    except OSError as e:
        raise InputError(f"--report {path}: {e.strerror}") from None


def _report_csv(report: dict[str, Any]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["topic", "partition", "offset", "timestamp", "reason"])
    for r in report["records"]:
        writer.writerow([r["topic"], r["partition"], r["offset"], r["timestamp"] or "", r["reason"]])
    return out.getvalue().rstrip("\n")


# --- connect-offsets --------------------------------------------------------------------------------------------


@compute_group.command("connect-offsets")
@source_options
@click.option("--connectors", metavar="A,B", help="Only these connectors (comma-separated).")
@click.option("--from-beginning", is_flag=True, help="Every record of the topic (the history), not only the "
                                                     "latest offset per partition.")
@output_option()
@quiet_option
def connect_offsets_command(**flags):
    """Read Connect's offsets topic: the latest offsets per source connector, as GET /connectors/NAME/offsets
    would list them, including connectors that are gone (the export KIP-199 proposed).

    Live: --bootstrap-server (topic connect-cluster-offsets unless --topic; MirrorMaker 2 clusters use
    mirrormaker2-cluster-offsets). Archived: --data. With exactly one connector in --connectors the output is
    that connector's {"offsets": [...]} document, ready for 'alter -f'; otherwise {"connectors": {NAME: ...}}.

    \b
    Examples:
      kubectl offsets compute connect-offsets --bootstrap-server kafka:9092
      kubectl offsets compute connect-offsets --bootstrap-server kafka:9092 --connectors my-source -o json
      kubectl offsets compute connect-offsets --data ./offsets-archive --format json --from-beginning -o csv
    """
    guarded(lambda: _run_connect_offsets(flags))


def _run_connect_offsets(flags: dict[str, Any]) -> None:
    from ..adapters.spark.sources import LiveTopics
    from ..core.compute import offsets_topic as compute
    from ..output.progress import StderrProgress

    progress = StderrProgress(quiet=flags["quiet"])
    if flags["bootstrap_server"] and not flags["topics"]:
        flags["topics"] = (CONNECT_OFFSETS_TOPIC,)
    source = _source(flags, None, None)
    connectors = tuple(c.strip() for c in (flags["connectors"] or "").split(",") if c.strip())
    if isinstance(source, LiveTopics):
        _check_live_topic(source)
    if flags["from_beginning"]:
        rows = compute.connect_history(source, spark=_spark_factory(flags), connectors=connectors, progress=progress)
        _print_history(rows, flags["output"])
        return
    result = compute.connect_offsets(source, spark=_spark_factory(flags), connectors=connectors, progress=progress)
    progress.done()
    if result.ignored_keys:
        progress.warn(f"{result.ignored_keys} keys are not [\"connector\", {{partition}}] and were ignored, as "
                      f"Connect ignores them")
    click.echo(_render_connect(result, flags["output"], single=len(connectors) == 1))


def _check_live_topic(source) -> None:
    """The broker answers and the topic exists, before Spark starts (its own errors are far less clear)."""
    from ..adapters.kafka import Broker

    Broker(source.bootstrap_servers, source.kafka_options).partitions(source.topics)


def _render_connect(result, fmt: str, *, single: bool) -> str:
    from .. import schemas
    from ..output.render import render_offsets, table, to_yaml

    if single and fmt in ("json", "yaml"):
        (document,) = result.connectors.values()
        return render_offsets(document, fmt)
    data = result.to_json()
    schemas.validate("connect-offsets", data, what="the connect-offsets export")
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "yaml":
        return to_yaml(data)
    rows = [[name, _compact(e.partition), _compact(e.offset)] for name, doc in sorted(result.connectors.items())
            for e in doc]
    if fmt == "csv":
        return _csv_rows(["connector", "partition", "offset"], rows)
    return table(["CONNECTOR", "PARTITION", "OFFSET"], rows) if rows else "No offsets."


def _compact(value: Any) -> str:
    return json.dumps(None if value is None else dict(value), sort_keys=True, separators=(",", ":"))


def _csv_rows(headers: list[str], rows: list[list[Any]]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    return out.getvalue().rstrip("\n")


def _print_history(rows, fmt: str) -> None:
    """Streamed: a row is printed as soon as Spark hands it over, so a long history needs no driver memory."""
    from ..output.render import to_yaml

    if fmt == "yaml":
        click.echo(to_yaml({"history": list(rows)}))
        return
    if fmt == "json":
        sys.stdout.write('{"history": [')
        for i, row in enumerate(rows):
            sys.stdout.write(("," if i else "") + "\n  " + json.dumps(row))
        sys.stdout.write("\n]}\n")
        return
    header = ["connector", "partition", "offset", "topicPartition", "topicOffset", "timestamp"]
    sep = "," if fmt == "csv" else "   "
    click.echo(sep.join(header if fmt == "csv" else [h.upper() for h in header]))
    for row in rows:
        cells = [row["connector"], _compact(row["partition"]), _compact(row["offset"]), row["topicPartition"],
                 row["topicOffset"], row["timestamp"] or ""]
        click.echo(_csv_rows([], [cells]).lstrip("\n") if fmt == "csv" else sep.join(map(str, cells)))
