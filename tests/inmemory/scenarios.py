"""Operations on the in-memory cluster, what their result may be, and the invariants the online promise makes after
any fault and the recover the plugin asked for: shared by the step x fault x state matrix, the stateful test and
the fidelity scenarios.

Invariants (``check``), judged by Connect's store and the resource, never by the plugin's own list:
- the offsets are the old ones or the new ones, never lost or half-applied;
- the connector is back in the state it had (or stays STOPPED where the operation says so: trigger, delete);
- no journal and no pending offsets request is left, and the stanza is as the operation found it (or as it asked);
- a journal left behind was announced: a failure that keeps it names the recover command.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from kubectl_offsets import strimzi
from kubectl_offsets.conventions import ANNOTATION_GITOPS, ANNOTATION_JOURNAL
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online import lifecycle, operations, recovery
from kubectl_offsets.core.online.journal import Journal
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import OffsetsError
from kubectl_offsets.model import Options, WaitSettings

from .cluster import Cluster

TIMEOUT = 60.0
OLD = {("orders", 0): 10, ("orders", 1): 20}
STATES = {"running": None, "paused": "paused", "stopped": "stopped"}
CONNECT_STATE = {None: "RUNNING", "paused": "PAUSED", "stopped": "STOPPED"}
OPERATIONS = ("alter", "reset", "undo", "delete", "trigger")


def options(**more: Any) -> Options:
    return Options(yes=True, wait=WaitSettings(timeout=TIMEOUT), **more)


@dataclass
class Scenario:
    """One operation on connector ``name``: ``run()`` does it; afterwards the offsets in Connect are ``old`` or
    ``new``, the connector in ``state`` (a Connect state), or the resource is gone when ``deletes``."""

    name: str
    operation: str
    run: Callable[[], Any]
    old: dict
    new: dict
    spec_state: str | None  # spec.state as it was before, and as it must be after
    deletes: bool = False
    notes: list[str] = field(default_factory=list)
    kind: str = "KafkaConnector"  # the resource the journal lives on
    mm2: Any = None  # Mm2Settings for recover (a full reset's broker settings)
    target: TargetSpec | None = None  # how recover names it (default: the KafkaConnector ``name``)

    @property
    def spec(self) -> TargetSpec:
        return self.target or TargetSpec(self.name)

    @property
    def state(self) -> str:
        return CONNECT_STATE[self.spec_state]


def prepare(cluster: Cluster, operation: str, state: str = "running", name: str = "sink") -> Scenario:
    """The connector and whatever the operation needs (a backup for undo, GitOps phase 1 for trigger)."""
    spec_state = STATES[state]
    kube, spec = cluster.kube, TargetSpec(name)
    if operation == "trigger":
        return _prepare_trigger(cluster, name)
    cluster.add_sink(name, offsets=dict(OLD), state=spec_state)
    if operation == "alter":
        return Scenario(name, operation, lambda: operations.alter_offsets(
            kube, spec, AlterRequest(sets=("orders:0=5",)), options=options()),
            OLD, {**OLD, ("orders", 0): 5}, spec_state)
    if operation == "reset":
        return Scenario(name, operation, lambda: operations.reset_offsets(kube, spec, options=options()), OLD, {},
                        spec_state)
    if operation == "undo":
        operations.alter_offsets(kube, spec, AlterRequest(sets=("orders:0=5", "orders:1=7")), options=options())
        altered = cluster.offsets(name)
        return Scenario(name, operation, lambda: operations.undo(kube, spec, options=options()), altered, dict(OLD),
                        spec_state)
    if operation == "delete":
        return Scenario(name, operation, lambda: lifecycle.delete_connector(
            kube, spec, reset_offsets=True, options=options()), OLD, {}, spec_state, deletes=True)
    raise AssertionError(operation)


def _prepare_trigger(cluster: Cluster, name: str) -> Scenario:
    """GitOps phase 1, synced: stopped, alterOffsets naming phase 1's ConfigMap, the record annotation."""
    cluster.add_sink(name, offsets=dict(OLD), state="stopped")
    configmap = f"{name}-gitops-offsets"
    cluster.api.create("ConfigMap", cluster.namespace, {"apiVersion": "v1", "metadata": {"name": configmap}, "data": {
        "offsets.json": json.dumps({"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0},
                                                 "offset": {"kafka_offset": 3}}]})}})
    record = {"id": "0123456789abcdef", "phase": 1, "operation": "alter", "connector": name, "configMap": configmap,
              "previousState": "running"}
    current = cluster.api.get("KafkaConnector", cluster.namespace, name)
    cluster.api.patch("KafkaConnector", cluster.namespace, name, [
        {"op": "add", "path": "/metadata/annotations", "value": {ANNOTATION_GITOPS: json.dumps(record)}},
        {"op": "add", "path": "/spec/alterOffsets", "value": {"fromConfigMap": {"name": configmap}}},
        {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]}])
    cluster.run_until(cluster.clock.seconds + 5)
    from kubectl_offsets.core.gitops import trigger_command

    return Scenario(name, "trigger", lambda: trigger_command.trigger(cluster.kube, TargetSpec(name), options=options()),
                    dict(OLD), {**OLD, ("orders", 0): 3}, "stopped")


# --- recover as the plugin said ------------------------------------------------------------------------------------


def journal_of(cluster: Cluster, name: str, kind: str = "KafkaConnector") -> Journal | None:
    resource = cluster.resource(name, kind)
    text = ((resource or {}).get("metadata", {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    return Journal.from_annotation(text) if text else None


def recover_as_told(cluster: Cluster, scenario: Scenario, failure: BaseException | None, *, attempts: int = 3) -> list[str]:
    """What a user does next. After a kill nothing was printed: the next command they run refuses and names
    recover (with --force while the dead process's lease runs: they wait it out instead). After an error, the
    command it names. Returns the commands run."""
    ran: list[str] = []
    cluster.disarm()
    if not cluster.operator.running:
        cluster.operator_back()  # the operator was down: recover needs it back (as the advice says)
    for _ in range(attempts):
        journal = journal_of(cluster, scenario.name, scenario.kind)
        if isinstance(failure, OffsetsError):
            command = failure.next_command
            if journal is not None:
                assert command and "recover" in command, (
                    f"the journal is kept but the error names no recover command: {failure.message} / {command}")
            if command is None or "recover" not in command:
                return ran
        elif journal is None:
            return ran
        else:
            lease = journal.lease_left(cluster.clock.now())
            cluster.clock.sleep(lease + 1)  # wait out the dead owner's lease rather than --force
            command = journal.recover_command(cluster.namespace)
        ran.append(command)
        try:
            recovery.recover(cluster.kube, scenario.spec, rollback="--rollback" in command,
                             force="--force" in command, options=options(mm2=scenario.mm2))
            return ran
        except OffsetsError as error:
            failure = error
    raise AssertionError(f"still not recovered after {ran}: {failure}")


# --- the invariants ------------------------------------------------------------------------------------------------


def check(cluster: Cluster, scenario: Scenario) -> str:
    """Assert the invariants; returns which outcome it was: 'old' or 'new' offsets, or 'deleted'."""
    # Past the operator's periodic pass: a state change asked while Connect was still applying the previous one is
    # only seen (and applied) by the next pass, with Strimzi as here (its reconcile reads a stale state and does
    # nothing); the plugin may already have reported it done from that stale status.
    cluster.run_until(cluster.clock.seconds + cluster.operator.interval + 10)
    resource = cluster.resource(scenario.name)
    if resource is None:
        assert scenario.deletes, "the resource is gone"
        # Offsets reset before the delete: a connector created later under this name starts clean. (The emulator
        # leaves a Connect connector whose DELETED event it missed, being down then; Strimzi's KafkaConnect
        # reconcile would delete it.)
        if scenario.name in cluster.worker.connectors:
            assert cluster.offsets(scenario.name) == {}, "deleted without its offsets reset"
        return "deleted"
    annotations = resource["metadata"].get("annotations") or {}
    assert ANNOTATION_JOURNAL not in annotations, f"a journal is left: {annotations[ANNOTATION_JOURNAL]}"
    pending = {k: v for k, v in annotations.items() if k in (strimzi.ANNOTATION_CONNECTOR_OFFSETS,
                                                             strimzi.ANNOTATION_MIRRORMAKER_CONNECTOR)}
    assert not pending, f"an offsets request is left pending: {pending}"
    offsets = cluster.offsets(scenario.name)
    assert offsets in (scenario.old, scenario.new), f"offsets {offsets} are neither the old {scenario.old} nor " \
                                                    f"the new {scenario.new}"
    spec = resource["spec"]
    assert spec.get("state") == scenario.spec_state, f"spec.state {spec.get('state')} is not {scenario.spec_state}"
    assert "listOffsets" not in spec, "the listOffsets stanza the operation added is left"
    if scenario.operation != "trigger":
        assert "alterOffsets" not in spec, "the alterOffsets stanza the operation added is left"
    assert cluster.connect_state(scenario.name) == scenario.state, \
        f"Connect reports {cluster.connect_state(scenario.name)}, not {scenario.state}"
    return "new" if offsets == scenario.new and offsets != scenario.old else "old"
