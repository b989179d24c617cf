"""kubectl offsets list"""

import click

from ..output.terminal import echo
from .common import optional_target_argument, session, with_connector_options
from .connectors_table import overview_options
from .kubectl_output import kubectl_conventions, result_printer, target_name
from .fleet import selection_options
from .options import cluster_options, output_option, quiet_option
from .help import KubectlCommand


@kubectl_conventions(target_name)
@click.command("list", cls=KubectlCommand)
@optional_target_argument
@with_connector_options
@selection_options
@cluster_options
@overview_options
@output_option()
@quiet_option
def list_command(target, connector, source_cluster, selector, all_, all_namespaces, namespace, context, kubeconfig,
                 timeout, output, quiet, lag=False, lag_bootstrap_server=None, kafka_options=()):
    """Show a connector's offsets (or every connector's state).

    With TARGET, has Strimzi's operator list the connector's offsets; -o json prints the document alter -f takes.
    Without it, every connector of the namespace with its state and tasks, from the resources' status (--lag adds
    each partition's lag, as kafka-consumer-groups --describe).

    \b
    Examples:
      # One connector's offsets, and as a file alter -f takes
      kubectl offsets list my-sink -n kafka
      kubectl offsets list kmm2/mirror --connector source -o json > offsets.json
      # Every connector: its state and tasks; then with each partition's lag
      kubectl offsets list -n kafka
      kubectl offsets list -n kafka --lag --bootstrap-server kafka:9092
      # Every connector's offsets, or those with a label in every namespace
      kubectl offsets list --all -n kafka
      kubectl offsets list -l team=payments -A -o csv
    """
    def work():
        from .fleet import check_target_or_selection, fleet_requested

        if not target and not connector and not fleet_requested(selector, all_, all_namespaces):
            from .connectors_table import list_connectors

            list_connectors(namespace, context, kubeconfig, timeout, quiet, output, lag=lag,
                            bootstrap_server=lag_bootstrap_server, kafka_options=kafka_options)
            return
        if lag:
            from ..errors import InputError

            raise InputError("--lag applies to list without TARGET (every connector of the namespace)",
                             advice="for one connector's lag: kubectl offsets lag TARGET --bootstrap-server HOST:PORT")

        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "list"):
            _list_fleet(namespace, context, kubeconfig, timeout, quiet, output, selector, all_, all_namespaces)
            return
        from .. import api
        from ..output.render import render_offsets

        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet)
        result = api.list_offsets(kube, target, connector=connector, source_cluster=source_cluster, options=options,
                                  progress=progress)
        result_printer(output).show(result.offsets.to_json, lambda fmt, no_headers: render_offsets(
            result.offsets, fmt, result.kind, no_headers=no_headers))

    work()


def _list_fleet(namespace, context, kubeconfig, timeout, quiet, output, selector, all_, all_namespaces,
                out=None, record_source=False):
    """The fleet form of list, shared with export (which records where the offsets come from). Ctrl-C/SIGTERM
    while listing: the lists under way finish, nothing is printed or written, exit 130. ``out`` is written whole
    or not at all (a previous file there stays as it was)."""
    import threading

    from ..core.online import fleet
    from ..output.fleet import render_fleet
    from .exits import signals_set
    from .fleet import (cluster_and_members, entry_rows, exit_if_unlisted, no_resources_found, selection,
                        warn_unlisted)

    sel = selection(namespace, selector, all_, all_namespaces)
    # list answers an empty selection as kubectl get does; export refuses it, to a file or to stdout (docs/fleet.md)
    cluster, kube, members = cluster_and_members(namespace, context, kubeconfig, sel, empty_ok=not record_source)
    if not members:  # as kubectl get: a message on stderr, exit 0 (json/yaml/csv still print the empty document)
        click.echo(no_resources_found(kube, sel), err=True)
        if output == "table":
            return
    _, options, progress = session(namespace, context, kubeconfig, timeout, quiet)
    stop = threading.Event()
    with signals_set(stop):
        document, errors = fleet.list_fleet(cluster, members, options, progress=progress, stop=stop)
    if record_source:
        document.source = fleet.export_source(kube, cluster, sel)
    if out:
        written = out
        if errors:  # never replace a complete export with a partial one: the partial goes beside it, marked
            written = f"{out}.partial"
            document.source = {**(document.source or {}), "incomplete": [member.where for member, _ in errors]}
        fleet.write_fleet_file(written, render_fleet(document.to_json(), entry_rows(document), output) + "\n")
        echo(f"wrote the offsets of {len(document.entries)} connector(s) to {written}"
             + (f"; {len(errors)} could not be listed (source.incomplete names them), so {out} was left as it was"
                if errors else ""), err=True)
    else:
        result_printer(output).show(document.to_json, lambda fmt, no_headers: render_fleet(
            document.to_json(), entry_rows(document), fmt, no_headers=no_headers))
    warn_unlisted(errors)
    exit_if_unlisted(errors)
