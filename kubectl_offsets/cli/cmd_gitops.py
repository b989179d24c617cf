"""kubectl offsets gitops alter|reset|next: the offsets change as edits to a GitOps repository, in two phases."""

from __future__ import annotations

import click

from ..output.terminal import echo
from ..conventions import DEFAULT_TRIGGER_IMAGE, TRIGGERS, Operation, Trigger
from .common import target_argument, with_connector_options
from .options import allow_future_option, alter_input_options, group, kafka_option, kubeconfig_options, quiet_option
from .help import KubectlGroup

repo_options = group(
    click.option("--repo", required=True, type=click.Path(exists=True, file_okay=False),
                 help="The repository (or any directory) holding the manifests."),
    click.option("--path", "path", type=click.Path(file_okay=False),
                 help="Search only below this directory (relative to --repo): the overlay or app directory that "
                      "is applied, when the resource is built in several places."),
    click.option("-n", "--namespace", help="The resource's namespace (narrows the search; used in the steps)."),
)

output_options = group(
    click.option("-o", "--output", type=click.Choice(["files", "diff"]), default="files", show_default=True,
                 help="files: write the change; diff: print a unified diff only and write nothing."),
    click.option("--out", "out_dir", type=click.Path(file_okay=False),
                 help="Write into a copy of the repository at this (new or empty) directory instead of in place."),
    click.option("--server-dry-run", is_flag=True,
                 help="Also send the changed manifests (built with kustomize when there is a kustomization) to the "
                      "API server as a server-side dry run; uses --kubeconfig/--context."),
    kubeconfig_options(context_help="kubeconfig context for --server-dry-run / --from-cluster.",
                       kubeconfig_help="kubeconfig for --server-dry-run / --from-cluster.",
                       timeout_help="How long --from-cluster waits for the operator."),
)

git_options = group(
    click.option("--commit", is_flag=True, help="Commit the change on a branch (built in a temporary worktree from "
                                                "--base; your checkout is not touched)."),
    click.option("--branch", help="Branch name (implies --commit). Default: deterministic from target, operation "
                                  "and offsets, so re-running updates the same branch."),
    click.option("--base", "base_ref", default="HEAD", show_default=True, help="Commit to build the change on."),
    click.option("--push", is_flag=True, help="Push the branch to --remote (implies --commit)."),
    click.option("--remote", default="origin", show_default=True),
    click.option("--pr", "pull_request", is_flag=True,
                 help="Open a pull request (GitHub, GITHUB_TOKEN) or merge request (GitLab, GITLAB_TOKEN); implies "
                      "--push. Without a token the compare URL is printed."),
    click.option("--pr-base", "target_branch", help="The branch the request merges into (default: the branch "
                                                       "checked out in --repo; required when HEAD is detached)."),
    click.option("--allow-default-branch", is_flag=True,
                 help="Allow --branch to name the remote's default branch or --pr-base (a direct push that bypasses "
                      "review; only as one commit on top of what the remote has: pull first)."),
    click.option("--forge", type=click.Choice(["github", "gitlab"]), help="Default: from the remote's host."),
    click.option("--forge-url", envvar="KUBECTL_OFFSETS_FORGE_URL",
                 help="API base URL (GitHub Enterprise, self-hosted GitLab, tests). Env: KUBECTL_OFFSETS_FORGE_URL."),
    click.option("--forge-project", help="owner/repo (GitHub) or group/project (GitLab), if not from the remote."),
    click.option("--reason", "-m", default="", help="Why: goes into the commit message and the request body."),
)


@click.group("gitops", cls=KubectlGroup)
def gitops_group() -> None:
    """Change offsets through a GitOps repository (Argo CD, Flux): reviewable, and never re-firing.

    \b
    Phase 1 (gitops alter|reset): spec.state: stopped, alterOffsets + an offsets ConfigMap (alter).
    Trigger, once phase 1 is synced: kubectl offsets trigger TARGET, or the Job of --trigger job|argocd.
    Phase 2 (gitops next): the previous state back, stanza, ConfigMap (unless --keep-record) and Job removed.
    The one-shot strimzi.io/connector-offsets annotation is never written to git. See docs/gitops.md.
    """


alter_inputs = alter_input_options(
    shift_by_help="Move the current offsets by N (with --topic; needs --current FILE or --from-cluster).",
    topic_help="Partitions for --to-offset/--shift-by; without partitions, all the current offsets have.")


phase1_options = group(
    click.option("--current", "before_file", type=click.Path(dir_okay=False), metavar="FILE",
                 help="The current offsets (what 'kubectl offsets list -o json' printed): for --shift-by and the "
                      "before/after table. The same name as lag's and compute's --current."),
    # The earlier name, kept working for scripts; not shown in --help.
    click.option("--before", "before_alias", type=click.Path(dir_okay=False), hidden=True),
    click.option("--from-cluster", is_flag=True, help="List the current offsets live instead of --current."),
    # Plain values: click would offer an enum's member names.
    click.option("--trigger", type=click.Choice([t.value for t in TRIGGERS]), default=Trigger.COMMAND.value,
                 show_default=True,
                 help="command: you run 'kubectl offsets trigger'; job: a one-shot Job in phase 1; argocd: the same "
                      "Job as an Argo CD PostSync hook."),
    click.option("--trigger-image", default=DEFAULT_TRIGGER_IMAGE, show_default=True,
                 help="Image of the trigger Job (needs sh and kubectl). Pin a digest with IMAGE:TAG@sha256:..."),
    click.option("--force", is_flag=True, help="Allow MirrorMaker 2 checkpoint/heartbeat connectors."),
)


# The time-travel questions of online alter, resolved from the broker when phase 1 is planned.
time_travel_options = group(
    click.option("--to-datetime", metavar="ISO-8601",
                 help="Time travel: resume at the first record at or after this time (UTC unless it has a zone); "
                      "resolved now, from the broker's timestamp index. Needs --bootstrap-server."),
    allow_future_option,
    click.option("--by-duration", metavar="DURATION",
                 help="Time travel: as --to-datetime, at now minus this (30m, 2h, 1d, or ISO-8601 PT30M)."),
    click.option("--to-earliest", is_flag=True, help="Time travel: resume at the first record still in each partition."),
    click.option("--to-latest", is_flag=True, help="Time travel: resume at the end of each partition."),
    click.option("--bootstrap-server", metavar="HOST:PORT",
                 help="For time travel: the Kafka cluster the connector reads (MirrorMaker 2: the source cluster)."),
    kafka_option("For time travel: Kafka client setting (librdkafka names), e.g. security.protocol=SSL."),
)


@gitops_group.command("alter")
@target_argument
@with_connector_options
@alter_inputs
@time_travel_options
@repo_options
@phase1_options
@output_options
@git_options
@quiet_option
def gitops_alter(target, connector, source_cluster, file, sets, skip_records, to_offset, shift_by, topics,
                 to_datetime=None, allow_future=False, by_duration=None, to_earliest=False, to_latest=False,
                 bootstrap_server=None, kafka_options=(), **kw):
    """Phase 1 of an alter: stop the connector and hand Strimzi the new offsets, as repository edits.

    \b
    Examples:
      kubectl offsets gitops alter my-sink --repo ./deploy --set orders:0=1200 -o diff
      kubectl offsets gitops alter my-sink --repo ./deploy --path overlays/prod -f offsets.json --pr
      kubectl offsets gitops alter kmm2/mirror --connector source --repo . --set orders:0=41 --trigger job
      kubectl offsets gitops alter my-sink --repo . --to-datetime 2026-11-21T09:00:00Z --bootstrap-server localhost:9092

    The time-travel flags are resolved when phase 1 is written, as online alter resolves them (the broker's
    timestamp index); the phase-1 ConfigMap holds the resolved offsets, and the commit message and pull request
    say what time was asked and what each partition resolved to. Without --topic they need the current offsets
    (--from-cluster or --current FILE).
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


@gitops_group.command("reset")
@target_argument
@with_connector_options
@repo_options
@phase1_options
@output_options
@git_options
@quiet_option
def gitops_reset(target, connector, source_cluster, **kw):
    """Phase 1 of a reset: stop the connector, as repository edits (no offsets needed).

    \b
    Example:
      kubectl offsets gitops reset my-source --repo ./deploy --commit --trigger job
    """
    _phase1(Operation.RESET, target, connector, source_cluster, None, kw)


@gitops_group.command("create")
@click.option("-f", "--filename", "manifest", required=True, metavar="FILE",
              help="The KafkaConnector to add (YAML or JSON, one resource).")
@click.option("--offsets", "file", metavar="FILE", help='Its offsets: {"offsets": [...]} JSON/YAML or topic,partition,'
                                                        'offset CSV.')
@click.option("--set", "sets", multiple=True, metavar="TOPIC:PARTITION=OFFSET", help="Store exactly OFFSET. Repeatable.")
@click.option("--skip-record", "skip_records", multiple=True, metavar="TOPIC:PARTITION:OFFSET",
              help="Start right after that record. Repeatable.")
@click.option("--to-offset", type=int, metavar="N", help="Start at record N (with --topic TOPIC:P1,P2).")
@click.option("--topic", "topics", multiple=True, metavar="TOPIC:P1,P2", help="Partitions for --to-offset.")
@click.option("--from-scratch", is_flag=True, help="Reset whatever an earlier connector of this name left (instead "
                                                   "of offsets).")
@click.option("--dir", "directory", default=".", show_default=True,
              help="Directory (relative to --repo) for the new files; its kustomization.yaml lists them.")
@click.option("--accept-start-window", is_flag=True, help="Accept that an operator before Strimzi 1.2 runs the new "
                                                          "connector briefly before stopping it.")
@click.option("--strimzi-version", metavar="X.Y.Z", help="The cluster's operator version (1.2.0+ creates it stopped).")
@repo_options
@output_options
@git_options
@quiet_option
def gitops_create(manifest, file, sets, skip_records, to_offset, topics, from_scratch, directory, accept_start_window,
                  strimzi_version, **kw):
    """Phase 1 for a NEW connector that starts at chosen offsets (docs/lifecycle.md).

    Adds the KafkaConnector with state: stopped, alterOffsets and an offsets ConfigMap (or, with --from-scratch,
    a reset), plus the record; then, as for gitops alter: merge and sync, kubectl offsets trigger NAME, and
    gitops next NAME (phase 2) sets the state the file asks for.

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


@gitops_group.command("next")
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
    Example:
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
    _steps(plan, kw)


def _report(plan, kw) -> None:
    from ..core.gitops import output

    if not kw["quiet"]:
        echo(f"==> {output.describe(plan)}", err=True)
        for line in plan.time_travel:
            echo(f"    {line}", err=True)
    for warning in plan.warnings:
        echo(f"warning: {warning}", err=True)


def _steps(plan, kw) -> None:
    from ..core.gitops import output

    if kw["quiet"]:
        return
    echo("next steps:", err=True)
    for i, step in enumerate(output.follow_up(plan, kw["repo"], kw["path"]), 1):
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
