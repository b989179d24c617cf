"""kubectl offsets gitops alter|reset|next: the offsets change as edits to a GitOps repository, in two phases."""

from __future__ import annotations

import click

from ..output.terminal import echo
from ..conventions import DEFAULT_TRIGGER_IMAGE, TRIGGERS, Operation, Trigger
from .common import target_argument, with_connector_options
from .options import allow_future_option, alter_input_options, group, kafka_option, kubeconfig_options, quiet_option
from .help import REPOSITORY, KubectlGroup

# -n narrows where in the repository the resource is looked for.
REPOSITORY_FLAGS = {"--namespace": REPOSITORY}

repo_options = group(
    click.option("--repo", required=True, type=click.Path(exists=True, file_okay=False),
                 help="The repository (or any directory) with the manifests."),
    click.option("--path", "path", type=click.Path(file_okay=False),
                 help="Only below this directory of --repo (the overlay that is applied)."),
    click.option("-n", "--namespace", help="The resource's namespace (narrows the search)."),
)

output_options = group(
    click.option("-o", "--output", type=click.Choice(["files", "diff"]), default="files", metavar="FORMAT",
                 help="files (default): write the change; diff: only print it."),
    click.option("--out", "out_dir", type=click.Path(file_okay=False),
                 help="Write into a copy of the repository there."),
    click.option("--server-dry-run", is_flag=True,
                 help="Have the API server check the changed manifests."),
    kubeconfig_options(),
)

git_options = group(
    click.option("--commit", is_flag=True, help="Commit it on a new branch (your checkout is untouched)."),
    click.option("--branch", metavar="NAME", help="Its name (default: one per target and change, so a rerun updates it)."),
    click.option("--base", "base_ref", default="HEAD", metavar="REF", help="Commit to build on (default HEAD)."),
    click.option("--push", is_flag=True, help="Push the branch to --remote (implies --commit)."),
    click.option("--remote", default="origin", metavar="NAME", help="Default origin."),
    click.option("--pr", "pull_request", is_flag=True,
                 help="Open a pull request (GITHUB_TOKEN) or merge request (GITLAB_TOKEN); implies --push."),
    click.option("--pr-base", "target_branch", metavar="BRANCH",
                 help="The branch it merges into (default: the one checked out)."),
    click.option("--allow-default-branch", is_flag=True,
                 help="Allow --branch to name a protected branch (main, master, the remote's default, a "
                      "checked-out branch, --pr-base): one commit pushed on top of the remote's, without review."),
    click.option("--forge", type=click.Choice(["github", "gitlab"]), metavar="KIND",
                 help="github or gitlab (default: from the remote's host)."),
    click.option("--forge-url", envvar="KUBECTL_OFFSETS_FORGE_URL", metavar="URL",
                 help="API URL of GitHub Enterprise or a GitLab (env KUBECTL_OFFSETS_FORGE_URL)."),
    click.option("--forge-project", metavar="OWNER/REPO", help="Default: from the remote's URL."),
    click.option("--reason", "-m", default="", metavar="TEXT", help="Why: for the commit message and the request."),
)


@click.group("gitops", cls=KubectlGroup)
def gitops_group() -> None:
    """Change offsets as GitOps commits and pull requests.

    Phase 1 (gitops alter, reset or create) commits the connector stopped, with the new offsets; once it is
    synced, 'kubectl offsets trigger' (or a one-shot Job) has Strimzi apply them; phase 2 (gitops next) puts the
    state back. Strimzi's one-shot annotation is never committed, so a sync (Argo CD, Flux) never fires it again.

    \b
    Examples:
      # Phase 1 as a pull request; review and merge it, let Argo CD or Flux sync
      kubectl offsets gitops alter my-sink --repo ./deploy --set orders:0=1200 --pr
      # Apply the offsets on the cluster, then phase 2 as a pull request
      kubectl offsets trigger my-sink -n kafka
      kubectl offsets gitops next my-sink --repo ./deploy --pr
      # Only look at what phase 1 would change
      kubectl offsets gitops reset my-source --repo ./deploy -o diff
    """


alter_inputs = alter_input_options(
    shift_by_help="Move the current offsets of the --topic partitions by N (needs --current or --from-cluster).",
    topic_help="Where --to-offset, --shift-by and the time flags apply.")


def phase1_options(current_help: str):
    """What phase 1 of gitops alter and reset takes; --current says what that command uses the offsets for."""
    return group(
        click.option("--current", "before_file", type=click.Path(dir_okay=False), metavar="FILE", help=current_help),
        # The earlier name, kept working for scripts; not shown in --help.
        click.option("--before", "before_alias", type=click.Path(dir_okay=False), hidden=True),
        click.option("--from-cluster", is_flag=True, help="List the current offsets live instead of --current."),
        # Plain values: click would offer an enum's member names.
        click.option("--trigger", type=click.Choice([t.value for t in TRIGGERS]), default=Trigger.COMMAND.value,
                     help="command (default): you run 'kubectl offsets trigger'; job: a Job does; argocd: a "
                          "PostSync hook."),
        click.option("--trigger-image", default=DEFAULT_TRIGGER_IMAGE, metavar="IMAGE",
                     help=f"The Job's image, with sh and kubectl (default {DEFAULT_TRIGGER_IMAGE})."),
        click.option("--force", is_flag=True, help="Allow MirrorMaker 2 checkpoint and heartbeat connectors."),
    )


# The time-travel questions of online alter, resolved from the broker when phase 1 is planned.
time_travel_options = group(
    click.option("--to-datetime", metavar="ISO-8601",
                 help="Resume at the first record at or after this time (resolved now, on --bootstrap-server)."),
    allow_future_option,
    click.option("--by-duration", metavar="DURATION", help="As --to-datetime, at now minus DURATION (2h, PT2H)."),
    click.option("--to-earliest", is_flag=True, help="Resume at the first record still in each partition."),
    click.option("--to-latest", is_flag=True, help="Resume at the end of each partition."),
    click.option("--bootstrap-server", metavar="HOST:PORT",
                 help="For the time flags: the Kafka cluster the connector reads (MirrorMaker 2: the source)."),
    kafka_option("Kafka client setting (librdkafka names), e.g. security.protocol=SSL. Repeatable."),
)


@gitops_group.command("alter", sections=REPOSITORY_FLAGS)
@target_argument
@with_connector_options
@alter_inputs
@time_travel_options
@repo_options
@phase1_options("The current offsets (what list -o json printed), for --shift-by and the preview.")
@output_options
@git_options
@quiet_option
def gitops_alter(target, connector, source_cluster, file, sets, skip_records, to_offset, shift_by, topics,
                 to_datetime=None, allow_future=False, by_duration=None, to_earliest=False, to_latest=False,
                 bootstrap_server=None, kafka_options=(), **kw):
    """Phase 1 of an alter, as repository edits: the connector stopped, with its new offsets.

    \b
    Examples:
      # Show the edits; then make them a pull request
      kubectl offsets gitops alter my-sink --repo ./deploy --set orders:0=1200 -o diff
      kubectl offsets gitops alter my-sink --repo ./deploy --path overlays/prod -f offsets.json --pr
      # A one-shot Job applies the offsets once synced (no trigger command)
      kubectl offsets gitops alter kmm2/mirror --connector source --repo . --set orders:0=41 --trigger job
      # Back to a time, resolved on the broker now
      kubectl offsets gitops alter my-sink --repo . --to-datetime 2026-11-21T09:00:00Z --bootstrap-server kafka:9092
    """
    def work():
        from ..core.inputs import AlterRequest
        from ..core.online.timetravel import TimeTravel

        travel = TimeTravel(to_datetime=to_datetime, by_duration=by_duration, to_earliest=to_earliest,
                            to_latest=to_latest, topics=topics, bootstrap_server=bootstrap_server,
                            kafka_options=tuple(kafka_options or ()), allow_future=allow_future)
        if travel.requested:
            travel.at_ms()  # a bad or future time is refused before the repository or the broker is touched
        if travel.requested:
            from ..core.gitops.time_travel import time_travel_request
            from ..output.progress import StderrProgress

            given = bool(file or sets or skip_records or to_offset is not None or shift_by is not None)
            question = time_travel_request(travel, given, StderrProgress(quiet=kw["quiet"]))
            _phase1(Operation.ALTER, target, connector, source_cluster, question, kw)
            return
        request = AlterRequest(file=file, sets=sets, shift_by=shift_by, to_offset=to_offset, topics=topics,
                               skip_records=skip_records)
        request.check_combination()
        _phase1(Operation.ALTER, target, connector, source_cluster, request, kw)

    work()


@gitops_group.command("reset", sections=REPOSITORY_FLAGS)
@target_argument
@with_connector_options
@repo_options
@phase1_options("The current offsets (what list -o json printed), for the preview.")
@output_options
@git_options
@quiet_option
def gitops_reset(target, connector, source_cluster, **kw):
    """Phase 1 of a reset: the connector stopped and its offsets wiped, as repository edits.

    \b
    Examples:
      kubectl offsets gitops reset my-source --repo ./deploy -o diff
      kubectl offsets gitops reset my-source --repo ./deploy --commit --trigger job
    """
    _phase1(Operation.RESET, target, connector, source_cluster, None, kw)


@gitops_group.command("create", sections=REPOSITORY_FLAGS)
@click.option("-f", "--filename", "manifest", required=True, metavar="FILE",
              help="The KafkaConnector to add (YAML or JSON, one resource).")
@click.option("--offsets", "file", metavar="FILE", help="Its offsets: what list -o json|yaml|csv prints.")
@click.option("--set", "sets", multiple=True, metavar="TOPIC:PARTITION=OFFSET", help="Store exactly OFFSET. Repeatable.")
@click.option("--skip-record", "skip_records", multiple=True, metavar="TOPIC:PARTITION:OFFSET",
              help="Start right after that record. Repeatable.")
@click.option("--to-offset", type=int, metavar="N", help="Start at record N (with --topic TOPIC:P1,P2).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC:P1,P2", help="Partitions for --to-offset.")
@click.option("--from-scratch", is_flag=True, help="Reset whatever an earlier connector of this name left (instead "
                                                   "of offsets).")
@click.option("--dir", "directory", default=".", metavar="DIRECTORY",
              help="Where in --repo the new files go (default .); its kustomization.yaml lists them.")
@click.option("--accept-start-window", is_flag=True, help="Accept that an operator before Strimzi 1.2 runs the new "
                                                          "connector briefly before stopping it.")
@click.option("--strimzi-version", metavar="X.Y.Z", help="The cluster's operator version (1.2.0+ creates it stopped).")
@repo_options
@output_options
@git_options
@quiet_option
def gitops_create(manifest, file, sets, skip_records, to_offset, topics, from_scratch, directory, accept_start_window,
                  strimzi_version, **kw):
    """Phase 1 for a new connector that starts at chosen offsets (docs/lifecycle.md).

    Adds the KafkaConnector stopped, with its offsets (or, with --from-scratch, a reset); then, as for gitops
    alter: merge and sync, 'kubectl offsets trigger NAME', and 'gitops next NAME' starts it.

    \b
    Examples:
      kubectl offsets gitops create -f my-sink.yaml --repo ./deploy --dir apps/kafka --set orders:0=1200 \\
          --strimzi-version 1.2.0
      kubectl offsets gitops create -f my-sink.yaml --repo ./deploy --from-scratch --accept-start-window --commit
    """
    def work():
        from ..core.online import lifecycle
        from ..core.gitops import create as gitops_create
        from ..core.inputs import AlterRequest

        document = lifecycle.read_manifest(manifest)
        plain = file or sets or skip_records or to_offset is not None
        alter = AlterRequest(file=file, sets=sets, skip_records=skip_records, to_offset=to_offset, topics=topics) \
            if plain or topics else None
        kw.update(trigger=Trigger.COMMAND)

        def planner(root, scope, base):
            return gitops_create.plan_create(root, scope, gitops_create.CreateRequest(
                document, directory, kw["namespace"], alter, from_scratch, Trigger.COMMAND, base, accept_start_window,
                strimzi_version))

        _run(planner, kw)

    work()


@gitops_group.command("next", sections=REPOSITORY_FLAGS)
@target_argument
@with_connector_options
@repo_options
@click.option("--keep-record", is_flag=True, help="Keep the offsets ConfigMap in the repository as a record.")
@output_options
@git_options
@quiet_option
def gitops_next(target, connector, source_cluster, keep_record, **kw):
    """Phase 2: restore the previous state and remove what phase 1 added.

    Also the way to abandon a phase 1 that was never triggered: nothing fired, so putting the state back is all.

    \b
    Examples:
      kubectl offsets gitops next my-sink --repo ./deploy -o diff
      kubectl offsets gitops next my-sink --repo ./deploy --pr
    """
    def work():
        from ..core.gitops import phases
        from ..core.gitops.plan import GitopsRequest

        request = GitopsRequest(Operation.ALTER, target, kw["namespace"], connector, source_cluster, repo_arg=kw["repo"])
        _run(lambda root, scope, base: phases.plan_phase2(root, scope, request, keep_record), kw)

    work()


def _phase1(operation, target, connector, source_cluster, alter_request, kw) -> None:
    from ..core.gitops import phases
    from ..core.gitops.plan import GitopsRequest

    current = _current(target, connector, source_cluster, kw)

    def planner(root, scope, base):
        request = GitopsRequest(operation, target, kw["namespace"], connector, source_cluster, alter_request,
                                       current, kw["trigger"], kw["trigger_image"], base, kw["force"],
                                       repo_arg=kw["repo"])
        return phases.plan_phase1(root, scope, request)

    _run(planner, kw)


def _current(target, connector, source_cluster, kw):
    """The current offsets from --current FILE (or its old name --before) or, with --from-cluster, listed live."""
    from ..errors import InputError

    kw["before_file"] = kw["before_file"] or kw.pop("before_alias", None)
    if kw["before_file"] and kw["from_cluster"]:
        raise InputError("--current and --from-cluster cannot be combined")
    if kw["before_file"]:
        from ..connect import ConnectorKind
        from ..core.inputs import ConnectorFacts, read_offsets_file

        return read_offsets_file(kw["before_file"], ConnectorFacts(kind=ConnectorKind.SOURCE))
    if kw["from_cluster"]:
        from ..core.online import operations
        from .common import session, target_spec

        kube, options, progress = session(kw["namespace"], kw["context"], kw["kubeconfig"], kw["timeout"],
                                          kw["quiet"])
        return operations.list_offsets(kube, target_spec(target, connector, source_cluster), options=options,
                                       progress=progress).offsets
    return None


def _run(planner, kw) -> None:
    """Plan (in place, or in a worktree for git), validate, then print or write, then commit/push/PR."""
    from pathlib import Path

    from ..core.gitops.publish import cleanup_on_termination

    with cleanup_on_termination():  # SIGTERM/SIGHUP run the cleanup of scratch copies and worktrees too
        _run_in(planner, kw, Path(kw["repo"]).resolve())


def _run_in(planner, kw, root) -> None:
    from ..core.gitops.publish import repository_at

    from ..errors import InputError

    scope_rel = kw["path"]
    wants_git = kw["commit"] or kw["branch"] or kw["push"] or kw["pull_request"]
    if wants_git and (kw["output"] == "diff" or kw["out_dir"]):  # conflicting flags: bad input, before anything
        raise InputError("-o diff and --out write no commit, so they cannot go with --commit/--branch/--push/--pr",
                         advice="use them without the git flags, or drop them")
    git = repository_at(root)
    if wants_git:
        _publish(git, root, scope_rel, planner, kw)
        return
    base = git.rev("HEAD") if git is not None and _has_commits(git) else ""
    plan = planner(root, root / scope_rel if scope_rel else None, base)
    _finish_offline(plan, root, kw)


def _has_commits(git) -> bool:
    try:
        git.rev("HEAD")
        return True
    except Exception:  # noqa: BLE001 - an empty repository
        return False


def _finish_offline(plan, root, kw) -> None:
    from pathlib import Path

    from ..core.gitops import output

    _report(plan, kw)
    if plan.already:
        echo("the repository already holds this phase; nothing to change", err=True)
        return
    _check(plan, root, kw)
    if kw["output"] == "diff":
        click.echo(output.unified_diff(plan), nl=False)  # a patch: byte for byte, for git apply
        return
    written = output.write(plan, root, Path(kw["out_dir"]) if kw["out_dir"] else None)
    for rel in written:
        echo(rel)
    _steps(plan, kw)


def _publish(git, root, scope_rel, planner, kw) -> None:
    from ..core.gitops import publish
    from ..errors import PreconditionError

    if git is None:
        raise PreconditionError(f"{root} is not in a git repository", advice="drop --commit/--branch/--push/--pr")
    rel = root.relative_to(git.root)

    def in_worktree(work, base):
        plan = planner(work / rel, (work / rel / scope_rel) if scope_rel else None, base)
        _report(plan, kw)
        _check(plan, work / rel, kw)
        return plan

    request = publish.PublishRequest(
        branch=kw["branch"], base_ref=kw["base_ref"], push=kw["push"], remote=kw["remote"],
        pull_request=kw["pull_request"], target_branch=kw["target_branch"], forge=kw["forge"],
        forge_url=kw["forge_url"], forge_project=kw["forge_project"], reason=kw["reason"],
        repo_in_git=rel.as_posix() or ".", path_arg=kw["path"], allow_default_branch=kw["allow_default_branch"])
    plan, result = publish.publish(git, scope_rel, in_worktree, request)
    echo(f"branch {result.branch} at {result.commit[:12]}"
               + ("" if result.created_commit else " (unchanged: same input as before)"))
    if result.pushed or kw["push"]:
        echo(f"pushed to {kw['remote']}" + ("" if result.pushed else " (already up to date)"))
    if result.pr_url:
        echo(("opened " if result.pr_created else "already open: ") + result.pr_url)
    for note in result.notes:
        echo(note, err=True)
    pushed = kw["push"] or kw["pull_request"]
    _steps(plan, kw, f"{result.branch} on {kw['remote']}" if result.direct and pushed else None)


def _report(plan, kw) -> None:
    from ..core.gitops import output

    if not kw["quiet"]:
        echo(f"==> {output.describe(plan)}", err=True)
        for line in plan.time_travel:
            echo(f"    {line}", err=True)
    for warning in plan.warnings:
        echo(f"warning: {warning}", err=True)


def _steps(plan, kw, landed: str | None = None) -> None:
    from ..core.gitops import output

    if kw["quiet"]:
        return
    echo("next steps:", err=True)
    for i, step in enumerate(output.follow_up(plan, kw["repo"], kw["path"], landed), 1):
        echo(f"  {i}. {step}", err=True)


def _check(plan, root, kw) -> None:
    """The built result against the schemas, and with --server-dry-run against the API server; before writing."""
    from ..core.gitops import validation

    for warning in validation.check_built(plan, root):
        echo(f"warning: {warning}", err=True)
    if kw["server_dry_run"]:
        _server_dry_run(plan, root, kw)


def _server_dry_run(plan, root, kw) -> None:
    from ..core.gitops import validation

    namespace = kw["namespace"] or plan.target.namespace or None
    checked = validation.server_dry_run(plan, root, namespace, kw["kubeconfig"], kw["context"])
    if not kw["quiet"]:
        echo(f"==> server-side dry run accepted {checked} manifest(s)", err=True)
