"""kubectl offsets alter"""

import click

from .common import (confirm_on_terminal, flow_options, mm2_settings, print_result, require_confirmation_possible,
                     session, target_argument, target_spec, with_connector_options, with_mm2_broker_options)
from .exits import guarded
from .options import cluster_options, mutation_options, output_option, quiet_option


@click.command("alter")
@target_argument
@with_connector_options
@click.option("-f", "--filename", "file", metavar="FILE|-",
              help='Offsets as {"offsets": [...]} JSON or YAML (what list -o json prints), or topic,partition,offset '
                   'CSV as kafka-consumer-groups --export writes it (offset = next record to read).')
@click.option("--set", "sets", multiple=True, metavar="TOPIC:PARTITION=OFFSET",
              help="Store exactly OFFSET, in Connect's meaning: a sink's next record to read; a "
                   "MirrorSourceConnector's last replicated record (it resumes at OFFSET+1). Repeatable.")
@click.option("--skip-record", "skip_records", multiple=True, metavar="TOPIC:PARTITION:OFFSET",
              help="Resume right after that record (skips one poison record). Stores OFFSET+1 for a sink, OFFSET "
                   "for a MirrorSourceConnector. Repeatable.")
@click.option("--to-offset", type=int, metavar="N", help="Resume reading at record N (with --topic).")
@click.option("--shift-by", type=int, metavar="N", help="Move the current offsets by N; negative replays (with --topic).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC[:P1,P2]",
              help="Partitions for --to-offset/--shift-by; without partitions, all the connector has offsets for.")
@flow_options
@with_mm2_broker_options
@cluster_options
@mutation_options
@output_option()
@quiet_option
def alter_command(target, connector, source_cluster, file, sets, skip_records, to_offset, shift_by, topics,
                  no_resume, force, namespace, context, kubeconfig, timeout, yes, dry_run, output, quiet,
                  **broker_flags):
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
      kubectl offsets alter kmm2/mirror --connector source --set orders:0=41   # MM2 resumes at 42

    \b
    MirrorMaker 2 (kafkamirrormaker2/NAME --connector source|'east->west.MirrorSourceConnector'):
    a MirrorSourceConnector stores the LAST record it replicated and continues after it, so
      --set orders:0=41                stores 41: replication resumes at source record 42
      --skip-record orders:0:41        stores 41: record 41 is never copied to the target
      --to-offset 42 --topic orders:0  stores 41; --to-offset 0 stores no offset (copy from the start)
    The partitions get "cluster": <source alias> automatically; a -f file must name it. Going back copies the
    records to the target topic again. Checkpoint and heartbeat offsets are never read by their tasks (--force).
    """
    def work():
        from ..core import operations
        from ..core.inputs import AlterRequest

        require_confirmation_possible(yes, dry_run, "alter")
        request = AlterRequest(file=file, sets=sets, shift_by=shift_by, to_offset=to_offset, topics=topics,
                               skip_records=skip_records)
        request.check_combination()
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                          resume=not no_resume, force=force, mm2=mm2_settings(broker_flags))
        result = operations.alter_offsets(kube, target_spec(target, connector, source_cluster), request,
                                          options=options, confirm=confirm_on_terminal, progress=progress)
        print_result(result, dry_run, output)

    guarded(work)
