"""kubectl offsets import"""

import click

from .common import flow_options, require_confirmation_possible, session
from .fleet import parallel_options
from .options import cluster_options, mutation_options, quiet_option
from .help import KubectlCommand


@click.command("import", cls=KubectlCommand)
@click.option("-f", "--filename", "file", required=True, metavar="FILE",
              help="A fleet document, as 'kubectl offsets export' (or 'list --all -o json') writes it.")
@click.option("--map-namespace", "map_namespace", multiple=True, metavar="OLD=NEW",
              help="Apply the entries recorded in namespace OLD to the connectors in NEW. Repeatable.")
@click.option("--only", multiple=True, metavar="NAME",
              help="Only the entries of this resource or connector name. Repeatable.")
@click.option("--strict", is_flag=True, help="Fail (change nothing) when an entry's connector does not exist "
              "(default: list it and skip it).")
@parallel_options
@flow_options
@cluster_options
@mutation_options
@quiet_option
def import_command(file, map_namespace, only, strict, parallel, skip_invalid, no_resume, force, namespace, context,
                   kubeconfig, timeout, yes, dry_run, quiet):
    """Apply an export's offsets to the connectors it names.

    Each connector goes through alter (backup, stop, alter, verify, resume) and ends as exported: partitions it
    did not have are reset. Entries go to --map-namespace's namespace, else -n's, else the recorded one. All are
    checked and previewed first, then one confirmation.

    \b
    Examples:
      kubectl offsets import -f offsets-kafka.json --dry-run
      kubectl offsets import -f offsets-kafka.json --map-namespace kafka=kafka-new --yes --parallel 8
      kubectl offsets import -f offsets-kafka.json -n kafka-dr --only orders-sink
    """
    def work():
        from ..core.online import fleet
        from .fleet import run_plan
        from .options import cluster_config

        document = fleet.read_fleet_file(file)
        missing = (document.source or {}).get("incomplete")
        if missing:
            from ..output.terminal import echo

            echo(f"warning: {file} is an incomplete export; these connectors are not in it: {', '.join(missing)}",
                 err=True)
        mapping = fleet.ImportMapping(namespace=namespace, namespaces=fleet.parse_namespace_map(map_namespace),
                                      only=tuple(only))
        fleet.place_entries(document, mapping)  # collisions and mappings that match nothing: before any cluster
        require_confirmation_possible(yes, dry_run, "import")  # after the input's checks: fix a typo first
        cluster = cluster_config(namespace, context, kubeconfig)
        _, options, progress = session(namespace, context, kubeconfig, timeout, quiet, yes=yes, dry_run=dry_run,
                                       resume=not no_resume, force=force)
        run_plan(lambda stop: fleet.plan_import(cluster, document, mapping, options, strict=strict, parallel=parallel,
                                                progress=progress, stop=stop), cluster, options, parallel, skip_invalid,
                 "import", progress)

    work()
