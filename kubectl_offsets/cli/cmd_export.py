"""kubectl offsets export"""

import click

from .options import cluster_options, quiet_option
from .help import KubectlCommand


@click.command("export", cls=KubectlCommand)
@click.option("-l", "--selector", metavar="SELECTOR", help="Only the resources matching this label selector.")
@click.option("-A", "--all-namespaces", is_flag=True, help="Every namespace (default: the one of -n or the context).")
@cluster_options
@click.option("-o", "--output", type=click.Choice(("json", "yaml")), default="json", show_default=True,
              help="The fleet document's format (both are accepted by import -f).")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Write the document to FILE instead of standard output.")
@quiet_option
def export_command(selector, all_namespaces, namespace, context, kubeconfig, timeout, output, out, quiet):
    """Write every selected connector's offsets to one file.

    Lists every connector of the namespace (or -A, or -l) as 'list' does and records where they come from;
    'kubectl offsets import -f FILE' applies the file here or on another cluster (docs/fleet.md).

    \b
    Examples:
      kubectl offsets export -n kafka --out offsets-kafka.json
      kubectl offsets export -A -l team=payments -o yaml > payments.yaml
    """
    def work():
        from .cmd_list import _list_fleet

        _list_fleet(namespace, context, kubeconfig, timeout, quiet, output, selector, not all_namespaces,
                    all_namespaces, out=out, record_source=True)

    work()
