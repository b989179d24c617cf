"""kubectl offsets alter"""

import click

from ..output.terminal import echo
from .common import (confirm_on_terminal, flow_options, mm2_settings, optional_target_argument, print_result,
                     require_check_option, require_confirmation_possible, session, target_spec,
                     with_connector_options)
from .fleet import parallel_options, selection_options
from .kubectl_output import kubectl_conventions, mutation_without_json, target_name
from .options import (allow_future_option, alter_input_options, cluster_options, kafka_option, mutation_options,
                      output_option, quiet_option)
from .help import KubectlCommand


@kubectl_conventions(target_name, mutation_without_json)
@click.command("alter", cls=KubectlCommand)
@optional_target_argument
@with_connector_options
@selection_options
@parallel_options
@alter_input_options(
    shift_by_help="Move the offsets of the --topic partitions by N (negative: replay).",
    topic_help="Where --to-offset, --shift-by and the time flags apply (default: every partition the connector "
               "has an offset for).")
@click.option("--to-datetime", metavar="ISO-8601",
              help="Resume at the first record at or after this time (UTC unless it has a zone).")
@allow_future_option
@click.option("--by-duration", metavar="DURATION",
              help="As --to-datetime, at now minus DURATION (30m, 2h, 1d, PT2H).")
@click.option("--to-earliest", is_flag=True, help="Resume at the first record still in each partition.")
@click.option("--to-latest", is_flag=True, help="Resume at the end of each partition (skip the backlog).")
@click.option("--bootstrap-server", "--source-bootstrap-server", "bootstrap_server", metavar="HOST:PORT",
              help="The Kafka cluster the connector reads (MirrorMaker 2: the source), for the time flags and to "
                   "check that new partitions exist (default: the one in its spec, if reachable).")
@kafka_option("Kafka client setting (librdkafka names), e.g. security.protocol=SSL. Repeatable.")
@flow_options
@require_check_option
@cluster_options
@mutation_options
@output_option()
@quiet_option
def alter_command(target, connector, source_cluster, selector, all_, all_namespaces, parallel, skip_invalid, file, sets,
                  skip_records, to_offset, shift_by, topics, to_datetime, allow_future, by_duration, to_earliest, to_latest,
                  bootstrap_server, kafka_options, no_resume, force, require_check, namespace, context, kubeconfig,
                  timeout, yes, dry_run, output, quiet):
    """Change a connector's offsets, safely.

    Backs up the offsets, stops the connector, has Strimzi's operator write the new ones, verifies them and
    restores the connector's state; if anything fails it is left safe and the recover command is printed. 'undo'
    puts the backup back. What each flag stores, and MirrorMaker 2: docs/online.md, docs/mirrormaker2.md.

    \b
    Examples:
      # Preview, then set two partitions (a sink reads record 1200 next)
      kubectl offsets alter my-sink --set orders:0=1200 --set orders:1=900 --dry-run
      kubectl offsets alter my-sink --set orders:0=1200 --set orders:1=900
      # Skip a poison record: resume at 4712
      kubectl offsets alter my-sink --skip-record orders:0:4711
      # Replay the last 100 records of every partition of a topic
      kubectl offsets alter my-sink --shift-by -100 --topic orders
      # Back to a time (the broker's timestamp index says where), or a file from list -o json
      kubectl offsets alter my-sink --to-datetime 2026-11-21T09:00:00Z
      kubectl offsets alter my-sink -f offsets.json
      # A MirrorMaker 2 source connector: replication resumes at record 42
      kubectl offsets alter kmm2/mirror --connector source --set orders:0=41
      # Many connectors at once, one confirmation
      kubectl offsets alter -l team=payments --shift-by -100 --topic orders
    """
    def work():
        from .. import api
        from ..core.inputs import AlterRequest
        from ..core.online.timetravel import TimeTravel
        from ..errors import InputError
        from .fleet import check_target_or_selection

        travel = TimeTravel(to_datetime=to_datetime, by_duration=by_duration, to_earliest=to_earliest,
                            to_latest=to_latest, topics=topics, bootstrap_server=bootstrap_server,
                            kafka_options=kafka_options, allow_future=allow_future)
        if allow_future and not to_datetime:
            raise InputError("--allow-future goes with --to-datetime")
        mm2 = mm2_settings({"source_bootstrap_server": bootstrap_server, "kafka_options": kafka_options,
                            "require_check": require_check})
        if travel.requested:
            if check_target_or_selection(target, connector, selector, all_, all_namespaces, "alter"):
                raise InputError("time travel (--to-datetime, --by-duration, --to-earliest, --to-latest) works on one "
                                 "connector at a time", advice="run it per connector, or use --shift-by/--to-offset "
                                 "with -l")
            return _time_travel(travel, file or sets or skip_records or shift_by is not None
                                or to_offset is not None, mm2)
        request = AlterRequest(file=file, sets=sets, shift_by=shift_by, to_offset=to_offset, topics=topics,
                               skip_records=skip_records)
        request.check_locally()
        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "alter"):
            if bootstrap_server or kafka_options:
                flag = "--bootstrap-server" if bootstrap_server else "--kafka-option"
                raise InputError(f"{flag} goes with the partitions of one connector, not -l/--all/-A",
                                 advice="run it per connector, or leave it out (KafkaTopics are still checked)")
            from ..core.online.fleet import check_request
            from .fleet import FleetFlags, run_fleet_command

            check_request(request)
            run_fleet_command("alter", lambda fleet, cluster, members, options, progress, stop: fleet.plan_alter(
                cluster, members, request, options, parallel=parallel, progress=progress, stop=stop),
                FleetFlags.of_command())
            return
        # After the input's own checks: a typo is the error to fix first, whether or not there is a terminal.
        require_confirmation_possible(yes, dry_run, "alter")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2)
        result = api.alter(kube, target, request, connector=connector, source_cluster=source_cluster,
                           options=options, confirm=confirm_on_terminal, progress=progress,
                           bootstrap_servers=bootstrap_server, kafka_options=kafka_options)
        print_result(result, dry_run, output, kube)

    def _time_travel(travel, other_inputs: bool, mm2):
        from ..core.online import operations
        from ..errors import InputError

        if other_inputs:
            raise InputError("the time-travel flags cannot be combined with -f, --set, --skip-record, --shift-by "
                             "or --to-offset", advice="use one way of saying the new offsets")
        travel.check_combination()
        travel.at_ms()  # a bad or future time is refused before the cluster is asked anything
        require_confirmation_possible(yes, dry_run, "alter")
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2)
        result = operations.alter_by_time(kube, target_spec(target, connector, source_cluster), travel,
                                          options=options, confirm=confirm_on_terminal, progress=progress,
                                          report=print_positions)
        print_result(result, dry_run, output, kube)

    work()


def print_positions(positions) -> None:
    """Where each partition resumes and why, on stderr (stdout carries the result only)."""
    from ..times import iso_ms
    from ..output.render import table

    rows = [[p.topic, p.partition, p.resume_at, iso_ms(p.record_ms) or "-", p.basis] for p in positions]
    echo(table(["TOPIC", "PARTITION", "RESUME AT", "RECORD TIME", "BASIS"], rows), err=True)

