"""kubectl offsets check"""

from __future__ import annotations

import json

import click

from ..output.terminal import echo
from .common import mm2_settings, session, target_argument, with_connector_options, with_mm2_broker_options
from .options import cluster_options, output_option, quiet_option
from .help import KubectlCommand


@click.command("check", cls=KubectlCommand)
@target_argument
@with_connector_options
@with_mm2_broker_options
@cluster_options
@output_option(help="Output format. json/yaml: the check report (per source partition: stored offset, log start and "
                    "end, verdict); csv: one row per partition.")
@quiet_option
def check_command(target, connector, source_cluster, namespace, context, kubeconfig, timeout, output, quiet,
                  **broker_flags):
    """Check a MirrorMaker 2 mirror's stored source offsets.

    Each source partition is ok, gap (records never replicated are gone), ahead (the topic was recreated or
    truncated) or missing; exit 9 when any is not ok. The source cluster must be reachable.

    \b
    Examples:
      kubectl offsets check kmm2/mirror -n kafka --source-bootstrap-server localhost:9092
      kubectl offsets check kmm2/mirror --connector source -o json
    """
    def work():
        from ..core.online import operations
        from ..errors import CheckFailedError

        broker_flags["require_check"] = True  # check has nothing to do without the broker
        settings = mm2_settings(broker_flags)
        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet, mm2=settings)
        document = operations.check_resource(kube, target, connector, source_cluster, options=options,
                                            progress=progress)
        progress.done()
        echo(_render(document, output))
        if not document["ok"]:
            bad = sum(c["problems"] for c in document["connectors"])
            raise CheckFailedError(f"{bad} source partition(s) of kafkamirrormaker2/{document['resource']} are not "
                                   "ok (gap, ahead or missing)",
                                   advice="see the report; 'kubectl offsets alter' (e.g. --to-offset) or 'reset' "
                                          "moves a connector to where the topic really is")

    work()


def _render(document: dict, fmt: str) -> str:
    from ..output.render import csv_rows, table, to_yaml

    if fmt == "json":
        return json.dumps(document, indent=2)
    if fmt == "yaml":
        return to_yaml(document)
    rows = [[c["connector"], p["topic"], p["partition"], p["stored"], _dash(p["logStart"]), _dash(p["logEnd"]),
             p["status"]] for c in document["connectors"] for p in c["partitions"]]
    headers = ["CONNECTOR", "TOPIC", "PARTITION", "STORED", "LOG-START", "LOG-END", "STATUS"]
    if fmt == "csv":
        return csv_rows([h.lower() for h in headers], rows)
    return table(headers, rows) if rows else "No stored source offsets to check."


def _dash(value):
    return "-" if value is None else value
