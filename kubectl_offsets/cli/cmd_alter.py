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


@kubectl_conventions(target_name, mutation_without_json)
@click.command("alter")
@optional_target_argument
@with_connector_options
@selection_options
@parallel_options
@alter_input_options(
    shift_by_help="Move the current offsets by N; negative replays (with --topic).",
    topic_help="Partitions for --to-offset/--shift-by (without partitions: all the connector has offsets for) and "
               "for the time-travel flags (without partitions: all of the topic's; without --topic: every partition "
               "the connector has offsets for).")
@click.option("--to-datetime", metavar="ISO-8601",
              help="Time travel: resume at the first record at or after this time (UTC unless the time has a zone); "
                   "a partition with no newer record resumes at its end.")
@allow_future_option
@click.option("--by-duration", metavar="DURATION",
              help="Time travel: as --to-datetime, at now minus this (30m, 2h, 1d, or ISO-8601 PT30M, P1D).")
@click.option("--to-earliest", is_flag=True, help="Time travel: resume at the first record still in each partition.")
@click.option("--to-latest", is_flag=True, help="Time travel: resume at the end of each partition (skip everything).")
@click.option("--bootstrap-server", "--source-bootstrap-server", "bootstrap_server", metavar="HOST:PORT",
              help="The Kafka cluster the connector reads (the SOURCE cluster for MirrorMaker 2). For time travel and "
                   "the MirrorMaker 2 pre-flight: default, the address in the KafkaConnect / KafkaMirrorMaker2 spec, if "
                   "reachable from here. Otherwise: check there, before any change, that the partitions exist "
                   "(without it, Strimzi KafkaTopic resources are used when present, and other partitions the "
                   "connector has no offset for need confirmation).")
@kafka_option("Kafka client setting for --bootstrap-server (librdkafka names), e.g. security.protocol=SSL.")
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

    Lists and backs up the current offsets, stops the connector, hands the new offsets to the operator
    (alterOffsets + strimzi.io/connector-offsets=alter), waits, verifies by listing again and restores the
    previous state (running or paused). If anything fails midway the connector is made safe and the exact
    'kubectl offsets recover' command is printed; 'kubectl offsets undo' restores the backup.

    \b
    Examples:
      kubectl offsets alter my-sink --set orders:0=1200 --set orders:1=900
      kubectl offsets alter my-sink --skip-record orders:0:4711        # sink resumes at 4712
      kubectl offsets alter my-sink --shift-by -100 --topic orders      # replay 100 records per partition
      kubectl offsets alter my-sink -f offsets.json --dry-run
      kubectl offsets alter my-sink --set orders:7=0 --bootstrap-server my-cluster-kafka-bootstrap:9092  # checked
      kubectl offsets alter kmm2/mirror --connector source --set orders:0=41   # MM2 resumes at 42
      kubectl offsets alter -l team=payments --shift-by -100 --topic orders   # many connectors at once
      kubectl offsets alter my-sink --to-datetime 2026-11-21T09:00:00Z       # every partition it has offsets for
      kubectl offsets alter my-sink --by-duration PT2H --topic orders:0,1 --bootstrap-server localhost:9092
      kubectl offsets alter my-sink --to-latest --topic orders                # skip the backlog

    \b
    Time travel (--to-datetime, --by-duration, --to-earliest, --to-latest) asks the broker's timestamp index, one
    request per broker, no scan. The broker is --bootstrap-server, or the address in the KafkaConnect spec (the
    mirror's source cluster for MirrorMaker 2) when reachable from here; otherwise nothing changes and the error
    says how to pass one (kubectl port-forward). The preview shows where each partition resumes and, for a time,
    the timestamp of that record.

    \b
    MirrorMaker 2 (kafkamirrormaker2/NAME --connector source|'east->west.MirrorSourceConnector'):
    a MirrorSourceConnector stores the LAST record it replicated and continues after it, so
      --set orders:0=41                stores 41: replication resumes at source record 42
      --skip-record orders:0:41        stores 41: record 41 is never copied to the target
      --to-offset 42 --topic orders:0  stores 41; --to-offset 0 stores no offset (copy from the start)
    The partitions get "cluster": <source alias> automatically; a -f file must name it. Going back copies the
    records to the target topic again. Checkpoint and heartbeat offsets are never read by their tasks (--force).
    Before anything changes, each resulting source offset is checked against its source partition (gap, ahead,
    missing: warnings in the preview); --require-check refuses when the source cluster cannot be reached.
    """
    def work():
        from ..core.online import operations
        from ..core.inputs import AlterRequest
        from ..core.online.timetravel import TimeTravel
        from ..errors import InputError
        from .fleet import check_target_or_selection

        require_confirmation_possible(yes, dry_run, "alter")
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
            from .fleet import run_fleet_command

            check_request(request)
            run_fleet_command("alter", lambda fleet, cluster, members, options, progress, stop: fleet.plan_alter(
                cluster, members, request, options, parallel=parallel, progress=progress, stop=stop),
                namespace, context, kubeconfig, timeout, quiet, yes, dry_run, no_resume, force, selector, all_,
                all_namespaces, parallel, skip_invalid, require_check=require_check)
            return
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2)
        result = operations.alter_offsets(kube, target_spec(target, connector, source_cluster), request,
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

