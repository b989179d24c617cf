"""kubectl-offsets as a library: list, alter, reset and undo the offsets of Kafka Connect and MirrorMaker 2
connectors managed by Strimzi, for one connector or a fleet, and recover an interrupted operation. The command
line is built on these functions; so can an operator, a notebook or a chat assistant.

    from kubectl_offsets import api

    kube = api.connect(namespace="kafka")
    print(api.list_offsets(kube, "my-sink").offsets.to_json())
    outcome = api.alter(kube, "my-sink", api.AlterRequest(sets=("orders:0=1200",)), options=api.Options(yes=True))
    print(outcome.backup, outcome.final_state)     # what undo restores; the connector's state afterwards
    api.undo(kube, "my-sink", backup=outcome.backup, options=api.Options(yes=True))

Every call validates everything it can before its first change, backs up, journals, verifies and puts the connector
back in its state (``Outcome``), or with ``Options(dry_run=True)`` only records what it would write (``Preview``).
Failures raise ``OffsetsError`` subclasses carrying ``message``, ``advice`` and ``next_command`` (the exact recover
or undo command when one is needed). Confirmation is a callback (``confirm(preview) -> bool``); without one, pass
``Options(yes=True)``. Progress goes to a ``Progress`` (``SilentProgress`` by default).

Targets are written as on the command line: ``NAME`` or ``kafkaconnector/NAME`` for a KafkaConnector,
``kafkamirrormaker2/NAME`` with ``connector=`` (``"source"``, ``"checkpoint"`` or a full generated name) for a
MirrorMaker 2 connector.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import TYPE_CHECKING, Callable

from .core.inputs import AlterRequest
from .core.online import fleet as _fleet
from .core.online import operations as _operations
from .core.online import recovery as _recovery
from .core.online.engine import Outcome
from .core.online.fleet import FleetReport, Plan, Selection
from .core.online.operations import ListResult, Preview
from .core.online.targets import TargetSpec
from .errors import InputError, OffsetsError
from .model import ClusterConfig, OffsetsDocument, Options, WaitSettings
from .progress import Progress, SilentProgress

if TYPE_CHECKING:
    from .core.online.operations import Kube  # the cluster client (adapters/kube.py), named through core

__all__ = [
    "connect", "list_offsets", "alter", "reset", "undo", "recover",
    "list_fleet", "plan_alter", "plan_reset", "plan_undo", "execute", "alter_fleet", "reset_fleet", "undo_fleet",
    "AlterRequest", "ClusterConfig", "FleetReport", "ListResult", "OffsetsDocument", "OffsetsError", "Options",
    "Outcome", "Plan", "Preview", "Progress", "Selection", "SilentProgress", "WaitSettings",
]

Confirm = Callable[[Preview], bool]


def connect(*, namespace: str | None = None, context: str | None = None, kubeconfig: str | None = None) -> Kube:
    """A client for the cluster, as kubectl's ``-n``, ``--context`` and ``--kubeconfig`` say (None: as the
    kubeconfig's current context says).

        kube = api.connect(context="prod", namespace="kafka")
    """
    return _operations.connect(ClusterConfig(kubeconfig=kubeconfig, context=context, namespace=namespace))


def _spec(target: str, connector: str | None, source_cluster: str | None) -> TargetSpec:
    return TargetSpec(target, connector=connector, source_cluster=source_cluster)


# --- one connector ----------------------------------------------------------------------------------------------------


def list_offsets(kube: Kube, target: str, *, connector: str | None = None, source_cluster: str | None = None,
                 namespace: str | None = None, options: Options | None = None,
                 progress: Progress | None = None) -> ListResult:
    """The connector's offsets, listed through Strimzi (its ``listOffsets`` mechanism); nothing else changes.

        result = api.list_offsets(kube, "kmm2/mirror", connector="source")
        for entry in result.offsets: print(entry.partition, entry.offset)
    """
    return _operations.list_offsets(kube, _spec(target, connector, source_cluster), namespace=namespace,
                                    options=options, progress=progress)


def alter(kube: Kube, target: str, request: AlterRequest, *, connector: str | None = None,
          source_cluster: str | None = None, namespace: str | None = None, options: Options | None = None,
          confirm: Confirm | None = None, progress: Progress | None = None, bootstrap_servers: str | None = None,
          kafka_options: tuple[tuple[str, str], ...] = ()) -> Outcome | Preview:
    """Change the offsets ``request`` says (a file, ``--set``, ``--shift-by``, ...: ``AlterRequest``), safely:
    stop, back up, hand over to Strimzi, verify, restore the state. ``bootstrap_servers``: check the partitions
    against the brokers first.

        outcome = api.alter(kube, "my-sink", api.AlterRequest(shift_by=-100, topics=("orders",)),
                            options=api.Options(yes=True))
        preview = api.alter(kube, "my-sink", api.AlterRequest(file="offsets.json"), options=api.Options(dry_run=True))
        for description, body in preview.patches: print(description)
    """
    return _operations.alter_offsets(kube, _spec(target, connector, source_cluster), request, namespace=namespace,
                                     options=options, confirm=confirm, progress=progress,
                                     bootstrap_servers=bootstrap_servers, kafka_options=kafka_options)


def reset(kube: Kube, target: str, *, connector: str | None = None, source_cluster: str | None = None,
          namespace: str | None = None, options: Options | None = None, confirm: Confirm | None = None,
          progress: Progress | None = None) -> Outcome | Preview:
    """Wipe the connector's offsets, backed up first (``undo`` puts them back). For a MirrorMaker 2 full reset,
    ``options.mm2`` is an ``Mm2Settings(with_offset_syncs=True, ...)``.

        outcome = api.reset(kube, "my-source", options=api.Options(yes=True))
    """
    return _operations.reset_offsets(kube, _spec(target, connector, source_cluster), namespace=namespace,
                                     options=options, confirm=confirm, progress=progress)


def undo(kube: Kube, target: str, *, backup: str | None = None, from_file: str | None = None,
         connector: str | None = None, source_cluster: str | None = None, namespace: str | None = None,
         options: Options | None = None, confirm: Confirm | None = None,
         progress: Progress | None = None) -> Outcome | Preview:
    """Put back the offsets of a backup: the newest of the connector by default, a ConfigMap by name (``backup``),
    or a local backup file (``from_file``).

        api.undo(kube, "my-sink", backup="my-sink-offsets-backup-20261122t101500z", options=api.Options(yes=True))
    """
    return _operations.undo(kube, _spec(target, connector, source_cluster), backup=backup, from_file=from_file,
                            namespace=namespace, options=options, confirm=confirm, progress=progress)


def recover(kube: Kube, target: str, *, rollback: bool = False, force: bool = False, wait: bool = False,
            connector: str | None = None, source_cluster: str | None = None, namespace: str | None = None,
            options: Options | None = None, progress: Progress | None = None) -> str:
    """Finish (or with ``rollback`` roll back) an interrupted operation from the journal it left on the resource;
    returns a one-line summary. ``force``: take over although its owner's lease still runs; ``wait``: wait it out.

        try:
            api.alter(kube, "my-sink", request, options=api.Options(yes=True))
        except api.OffsetsError as error:
            if error.next_command and "recover" in error.next_command:
                print(api.recover(kube, "my-sink"))
    """
    return _recovery.recover(kube, _spec(target, connector, source_cluster), namespace=namespace, rollback=rollback,
                             force=force, wait=wait, options=options, progress=progress)


# --- a fleet ----------------------------------------------------------------------------------------------------------


def list_fleet(cluster: ClusterConfig, selection: Selection, *, options: Options | None = None, parallel: int = 4,
               progress: Progress | None = None) -> _fleet.FleetDocument:
    """The offsets of every selected connector (``Selection(selector="team=payments")``, ``all_namespaces=True``),
    as the fleet document ``export`` writes.

        document = api.list_fleet(api.ClusterConfig(namespace="kafka"), api.Selection(selector="team=payments"))
    """
    members = _fleet.select(_operations.connect(cluster), selection)
    document, errors = _fleet.list_fleet(cluster, members, options or Options(), parallel=parallel, progress=progress)
    if errors:
        member, error = errors[0]
        raise type(error)(f"{member.where}: {error.message}", advice=error.advice, next_command=error.next_command)
    return document


def plan_alter(cluster: ClusterConfig, selection: Selection, request: AlterRequest, *, options: Options | None = None,
               parallel: int = 4, progress: Progress | None = None, stop: threading.Event | None = None) -> Plan:
    """Every selected connector resolved, checked and previewed for ``request``; nothing changes. ``execute`` runs
    it (``plan.require_valid(skip_invalid)`` first)."""
    members = _fleet.select(_operations.connect(cluster), selection)
    return _fleet.plan_alter(cluster, members, request, options or Options(), parallel=parallel, progress=progress,
                             stop=stop)


def plan_reset(cluster: ClusterConfig, selection: Selection, *, options: Options | None = None, parallel: int = 4,
               progress: Progress | None = None, stop: threading.Event | None = None) -> Plan:
    """As ``plan_alter``, for a reset of every selected connector."""
    members = _fleet.select(_operations.connect(cluster), selection)
    return _fleet.plan_reset(cluster, members, options or Options(), parallel=parallel, progress=progress, stop=stop)


def plan_undo(cluster: ClusterConfig, selection: Selection, since: dt.datetime, *, options: Options | None = None,
              parallel: int = 4, progress: Progress | None = None, stop: threading.Event | None = None) -> Plan:
    """As ``plan_alter``, restoring each connector's newest backup taken at or after ``since`` (what a fleet
    operation started then took)."""
    members = _fleet.select(_operations.connect(cluster), selection)
    return _fleet.plan_undo(cluster, members, since, options or Options(), parallel=parallel, progress=progress,
                            stop=stop)


def execute(cluster: ClusterConfig, plan: Plan, *, options: Options | None = None, parallel: int = 4,
            progress: Progress | None = None, stop: threading.Event | None = None) -> FleetReport:
    """Run a plan, ``parallel`` connectors at a time; each keeps its own backup and journal. The report says per
    connector what happened and the next command (``undo --backup``, or ``recover``).

    Setting ``stop`` (from another thread, or a signal handler of yours) starts no further connector and lets the
    ones under way finish; called from the main thread with Python's own Ctrl-C handling, a Ctrl-C does the same
    (no KeyboardInterrupt), and the report says ``interrupted``. It returns only once no connector is at work."""
    return _fleet.execute(cluster, plan, options or Options(), parallel=parallel, progress=progress, stop=stop)


def _run_plan(cluster: ClusterConfig, plan: Plan, options: Options | None, parallel: int, skip_invalid: bool,
              confirm: Callable[[Plan], bool] | None, progress: Progress | None) -> FleetReport:
    try:
        plan.require_valid(skip_invalid)
        if not (options or Options()).yes and (confirm is None or not confirm(plan)):
            raise InputError("cancelled; nothing was changed")
    except BaseException:
        plan.close()
        raise
    return execute(cluster, plan, options=options, parallel=parallel, progress=progress)


def alter_fleet(cluster: ClusterConfig, selection: Selection, request: AlterRequest, *, options: Options | None = None,
                parallel: int = 4, skip_invalid: bool = False, confirm: Callable[[Plan], bool] | None = None,
                progress: Progress | None = None) -> FleetReport:
    """Plan, confirm once (``confirm(plan)``, or ``Options(yes=True)``), then alter every selected connector.

        report = api.alter_fleet(api.ClusterConfig(namespace="kafka"), api.Selection(selector="team=payments"),
                                 api.AlterRequest(shift_by=-100, topics=("orders",)), options=api.Options(yes=True))
        print(report.counts())
    """
    plan = plan_alter(cluster, selection, request, options=options, parallel=parallel, progress=progress)
    return _run_plan(cluster, plan, options, parallel, skip_invalid, confirm, progress)


def reset_fleet(cluster: ClusterConfig, selection: Selection, *, options: Options | None = None, parallel: int = 4,
                skip_invalid: bool = False, confirm: Callable[[Plan], bool] | None = None,
                progress: Progress | None = None) -> FleetReport:
    """As ``alter_fleet``, resetting every selected connector."""
    plan = plan_reset(cluster, selection, options=options, parallel=parallel, progress=progress)
    return _run_plan(cluster, plan, options, parallel, skip_invalid, confirm, progress)


def undo_fleet(cluster: ClusterConfig, selection: Selection, since: dt.datetime, *, options: Options | None = None,
               parallel: int = 4, skip_invalid: bool = False, confirm: Callable[[Plan], bool] | None = None,
               progress: Progress | None = None) -> FleetReport:
    """As ``alter_fleet``, restoring the backups a fleet operation started at ``since`` took."""
    plan = plan_undo(cluster, selection, since, options=options, parallel=parallel, progress=progress)
    return _run_plan(cluster, plan, options, parallel, skip_invalid, confirm, progress)
