"""kubectl offsets list"""

import click

from ..output.terminal import echo
from .common import optional_target_argument, session, target_spec, with_connector_options
from .fleet import selection_options
from .options import cluster_options, output_option, quiet_option


@click.command("list")
@optional_target_argument
@with_connector_options
@selection_options
@cluster_options
@output_option()
@quiet_option
def list_command(target, connector, source_cluster, selector, all_, all_namespaces, namespace, context, kubeconfig,
                 timeout, output, quiet):
    """Show a connector's offsets, as Strimzi lists them; or many connectors' with -l, --all or -A.

    Makes sure the connector's listOffsets stanza names a ConfigMap (default NAME-offsets), asks the operator
    with the strimzi.io/connector-offsets=list annotation, waits until it is done and prints the result.
    -o json prints the {"offsets": [...]} document that alter -f accepts; for many connectors, the fleet
    document ({"connectors": [...]}) that import -f accepts.

    \b
    Examples:
      kubectl offsets list my-sink -n kafka
      kubectl offsets list kafkamirrormaker2/mirror --connector source -o json > offsets.json
      kubectl offsets list kmm2/mirror --connector 'east->west.MirrorSourceConnector' -o csv
      kubectl offsets list --all -n kafka                 # every connector in the namespace
      kubectl offsets list -l team=payments -A -o csv     # by label, in every namespace
    """
    def work():
        from .fleet import check_target_or_selection

        if check_target_or_selection(target, connector, selector, all_, all_namespaces, "list"):
            _list_fleet(namespace, context, kubeconfig, timeout, quiet, output, selector, all_, all_namespaces)
            return
        from ..core.online import operations
        from ..output.render import render_offsets

        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet)
        result = operations.list_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                         progress=progress)
        echo(render_offsets(result.offsets, output, result.kind))

    work()


def _list_fleet(namespace, context, kubeconfig, timeout, quiet, output, selector, all_, all_namespaces,
                out=None, record_source=False):
    """The fleet form of list, shared with export (which records where the offsets come from). Ctrl-C/SIGTERM
    while listing: the lists under way finish, nothing is printed or written, exit 130. ``out`` is written whole
    or not at all (a previous file there stays as it was)."""
    import sys
    import threading

    from ..core.online import fleet
    from ..errors import ExitStatus
    from ..output.fleet import render_fleet
    from .exits import signals_set
    from .fleet import cluster_and_members, entry_rows, no_resources_found, selection, warn_unlisted

    sel = selection(namespace, selector, all_, all_namespaces)
    cluster, kube, members = cluster_and_members(namespace, context, kubeconfig, sel, empty_ok=not out)
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
    text = render_fleet(document.to_json(), entry_rows(document), output)
    if out:
        fleet.write_fleet_file(out, text + "\n")
        echo(f"wrote the offsets of {len(document.entries)} connector(s) to {out}", err=True)
    else:
        echo(text)
    warn_unlisted(errors)
    if errors:
        sys.exit(int(ExitStatus.ERROR) if len(errors) > 1 else int(errors[0][1].exit_status))
