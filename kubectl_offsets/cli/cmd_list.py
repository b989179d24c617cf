"""kubectl offsets list"""

import click

from .common import session, target_argument, target_spec, with_connector_options
from .exits import guarded
from .options import cluster_options, output_option, quiet_option


@click.command("list")
@target_argument
@with_connector_options
@cluster_options
@output_option()
@quiet_option
def list_command(target, connector, source_cluster, namespace, context, kubeconfig, timeout, output, quiet):
    """Show a connector's offsets, as Strimzi lists them.

    Makes sure the connector's listOffsets stanza names a ConfigMap (default NAME-offsets), asks the operator
    with the strimzi.io/connector-offsets=list annotation, waits until it is done and prints the result.
    -o json prints the {"offsets": [...]} document that alter -f accepts.

    \b
    Examples:
      kubectl offsets list my-sink -n kafka
      kubectl offsets list kafkamirrormaker2/mirror --connector source -o json > offsets.json
      kubectl offsets list kmm2/mirror --connector 'east->west.MirrorSourceConnector' -o csv
    """
    def work():
        from ..core import operations
        from ..output.render import render_offsets

        kube, options, progress = session(namespace, context, kubeconfig, timeout, quiet)
        result = operations.list_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                         progress=progress)
        click.echo(render_offsets(result.offsets, output, result.kind))

    guarded(work)
