"""kubectl offsets create"""

import click

from ..output.terminal import echo
from .common import confirm_on_terminal, require_confirmation_possible, session
from .options import (allow_future_option, cluster_options, kafka_option, mutation_options, output_option,
                      quiet_option)
from .help import KubectlCommand


@click.command("create", cls=KubectlCommand)
@click.option("-f", "--filename", "manifest", required=True, metavar="FILE|-",
              help="The KafkaConnector to create (YAML or JSON, one resource).")
@click.option("--offsets", "offsets_file", metavar="FILE",
              help='Its offsets: {"offsets": [...]} JSON or YAML (what list -o json prints), or topic,partition,offset '
                   "CSV (offset = next record to read).")
@click.option("--set", "sets", multiple=True, metavar="TOPIC:PARTITION=OFFSET",
              help="Store exactly OFFSET (a sink's next record to read). Repeatable.")
@click.option("--skip-record", "skip_records", multiple=True, metavar="TOPIC:PARTITION:OFFSET",
              help="Start right after that record. Repeatable.")
@click.option("--to-offset", type=int, metavar="N", help="Start at record N (with --topic TOPIC:P1,P2).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC[:P1,P2]",
              help="Partitions for --to-offset and the time-travel flags (time travel without --topic: every "
                   "partition of the sink's topics).")
@click.option("--to-datetime", metavar="ISO-8601", help="Start at the first record at or after this time (UTC unless "
                                                        "zoned); a partition with no newer record starts at its end.")
@allow_future_option
@click.option("--by-duration", metavar="DURATION", help="As --to-datetime, at now minus this (2h, PT30M, P1D).")
@click.option("--to-earliest", is_flag=True, help="Start at the first record still in each partition.")
@click.option("--to-latest", is_flag=True, help="Start at the end of each partition (only new records).")
@click.option("--bootstrap-server", metavar="HOST:PORT",
              help="For time travel: the Kafka cluster (default: the KafkaConnect spec's, if reachable from here).")
@kafka_option("For time travel: Kafka client setting (librdkafka names), e.g. security.protocol=SSL.")
@click.option("--from-scratch", is_flag=True,
              help="Reset the offsets an earlier connector of the same name left behind (Connect keeps them).")
@click.option("--accept-start-window", is_flag=True,
              help="Strimzi before 1.2 creates the connector running and stops it right after: accept that a few "
                   "records may be processed before the offsets are set.")
@cluster_options
@mutation_options
@output_option()
@quiet_option
def create_command(manifest, offsets_file, sets, skip_records, to_offset, topics, to_datetime, allow_future, by_duration,
                   to_earliest, to_latest, bootstrap_server, kafka_options, from_scratch, accept_start_window,
                   namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet):
    """Create a KafkaConnector that starts at chosen offsets.

    Creates it stopped, shows the offsets an earlier connector of that name left, applies yours through alter,
    then starts it. Before Strimzi 1.2 a new connector runs briefly before it stops: --accept-start-window
    (docs/lifecycle.md).

    \b
    Examples:
      kubectl offsets create -f my-sink.yaml --set orders:0=1200 --set orders:1=900 -n kafka
      kubectl offsets create -f my-sink.yaml --offsets offsets.json
      kubectl offsets create -f my-sink.yaml --to-datetime 2026-11-21T09:00:00Z
      # Only new records; or forget what a connector of that name left
      kubectl offsets create -f my-sink.yaml --to-latest --from-scratch
      kubectl offsets create -f my-source.yaml --from-scratch
    """
    def work():
        from ..core.online import lifecycle

        request_args = dict(offsets_file=offsets_file, sets=sets, skip_records=skip_records, to_offset=to_offset,
                            topics=topics, to_datetime=to_datetime, by_duration=by_duration, to_earliest=to_earliest,
                            to_latest=to_latest, bootstrap_server=bootstrap_server, kafka_options=kafka_options,
                            allow_future=allow_future)
        document = lifecycle.read_manifest(manifest)
        _check_time(to_datetime, allow_future)
        _check_offsets_locally(offsets_file, sets, skip_records, to_offset, topics)
        require_confirmation_possible(yes, dry_run, "create")  # after the input's checks: fix a typo first
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run)
        request = _offsets_request(kube, document, namespace, progress, **request_args)
        result = lifecycle.create_connector(kube, document, request, from_scratch=from_scratch,
                                            accept_start_window=accept_start_window, namespace=namespace,
                                            options=options, confirm=confirm_on_terminal, progress=progress)
        if dry_run:
            _print_plan(result)
        else:
            _print_outcome(result, output)

    work()


def _offsets_request(kube, document, namespace, progress, *, offsets_file, sets, skip_records, to_offset, topics,
                     to_datetime, by_duration, to_earliest, to_latest, bootstrap_server, kafka_options, allow_future):
    """The change the user asked for: an AlterRequest, a time-travel request, or None (only --from-scratch)."""
    from ..core.online import lifecycle, timetravel
    from ..core.inputs import AlterRequest
    from ..errors import InputError
    from .cmd_alter import print_positions

    travel = timetravel.TimeTravel(to_datetime=to_datetime, by_duration=by_duration, to_earliest=to_earliest,
                                   to_latest=to_latest, topics=topics, bootstrap_server=bootstrap_server,
                                   kafka_options=kafka_options, allow_future=allow_future)
    plain = offsets_file or sets or skip_records or to_offset is not None
    if travel.requested:
        if plain:
            raise InputError("the time-travel flags cannot be combined with --offsets, --set, --skip-record or "
                             "--to-offset", advice="use one way of saying the offsets")
        travel = lifecycle.travel_with_default_topics(travel, document)
        travel.check_combination()
        at_ms = travel.at_ms()  # a bad time is refused before the broker is asked
        ns = document.namespace(namespace, kube.namespace)
        broker = timetravel.open_broker_for_connect(kube, lifecycle.connect_name(document), ns, travel, progress)
        return timetravel.TimeTravelRequest(travel, broker, at_ms, print_positions)
    if bootstrap_server or kafka_options:
        raise InputError("--bootstrap-server and --kafka-option only apply to the time-travel flags")
    if not plain:
        if topics:
            raise InputError("--topic only selects partitions for --to-offset and the time-travel flags")
        return None
    return AlterRequest(file=offsets_file, sets=sets, skip_records=skip_records, to_offset=to_offset, topics=topics)


def _check_offsets_locally(offsets_file, sets, skip_records, to_offset, topics) -> None:
    """The offsets file and flags are checked before the cluster is asked, as alter's are (the time-travel flags
    have _check_time)."""
    from ..core.inputs import AlterRequest

    if offsets_file or sets or skip_records or to_offset is not None:
        AlterRequest(file=offsets_file, sets=sets, skip_records=skip_records, to_offset=to_offset,
                     topics=topics).check_locally()


def _check_time(to_datetime, allow_future: bool) -> None:
    """A bad or future --to-datetime is refused before the cluster is asked anything."""
    from ..errors import InputError
    from ..times import parse_datetime

    if allow_future and not to_datetime:
        raise InputError("--allow-future goes with --to-datetime")
    if to_datetime:
        parse_datetime(to_datetime, allow_future=allow_future)


def _print_plan(plan) -> None:
    from ..output.render import to_yaml

    change = plan.change.to_json() if plan.change is not None else "(none: only --from-scratch)"
    echo(f"create kafkaconnector/{plan.target.resource_name} in namespace {plan.target.namespace}, stopped; "
               f"operator: {plan.operator.describe()}\nthe offsets to apply:\n{to_yaml(change) if plan.change else change}"
               "\nleftover offsets of an earlier connector of this name can only be listed once it exists",
               err=True)
    echo(f"# create kafkaconnector/{plan.target.resource_name}\n{to_yaml(plan.created_body)}")
    echo("dry run: nothing was changed", err=True)


def _print_outcome(outcome, fmt: str) -> None:
    from ..model import diff
    from ..output.render import render_changes, render_offsets

    if fmt == "table":
        rows = diff(outcome.leftovers, outcome.after)
        echo(render_changes(rows, outcome.kind) if rows else "No offsets (it starts as its consumer/source "
                                                                    "does by default).")
    else:
        echo(render_offsets(outcome.after, fmt, outcome.kind))
    leftovers = f"{len(outcome.leftovers)} leftover offsets" if len(outcome.leftovers) else "no leftover offsets"
    backup = f"; backup of the leftovers: configmap/{outcome.backup}" if outcome.backup else ""
    echo(f"kafkaconnector/{outcome.target.resource_name} created ({leftovers}{backup}); connector is "
               f"{outcome.final_state}", err=True)

