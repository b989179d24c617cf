"""KafkaConnector reconcile and status (strimzi-offsets.md §2.1, §2.9, §2.10).

Preconditions mirror ``KafkaConnectAssemblyOperator#connectorEventHandler`` / ``reconcileConnector``: the
``strimzi.io/cluster`` label must name an existing KafkaConnect in the same namespace, with replicas != 0 and the
``strimzi.io/use-connector-resources: "true"`` annotation; ``strimzi.io/pause-reconciliation: "true"`` only writes a
``ReconciliationPaused`` condition.
"""
from . import conditions
from .conditions import ReconcileError
from .connect_client import ConnectRestError, ConnectUnreachable
from .connector_config import desired_config
from .connector_reconcile import failed_message, maybe_create_or_update
from .offsets import ANNO_OFFSETS, KAFKA_CONNECTOR_KEY, OffsetsTarget, connector_operation, manage_connector_offsets

KIND = "KafkaConnector"
CLUSTER_LABEL = "strimzi.io/cluster"
USE_RESOURCES = "strimzi.io/use-connector-resources"
PAUSE_RECONCILIATION = "strimzi.io/pause-reconciliation"


def is_paused(cr):
    return ((cr["metadata"].get("annotations") or {}).get(PAUSE_RECONCILIATION) or "").lower() == "true"


def uses_connector_resources(connect):
    # Annotations.booleanAnnotation -> Boolean.parseBoolean: "true" in any case.
    return ((connect["metadata"].get("annotations") or {}).get(USE_RESOURCES) or "").lower() == "true"


def reconcile(ctx, namespace, name):
    cr = ctx.kube.get(KIND, namespace, name)
    if cr is None:
        _deleted(ctx, namespace, name)
        return
    if is_paused(cr):
        ctx.decide(cr, "reconciliation paused by annotation")
        _write_status(ctx, cr, _paused_status(cr))
        return
    result, error = None, None
    try:
        _check_preconditions(ctx, cr)
        result = _reconcile_connector(ctx, cr)
    except (ReconcileError, ConnectRestError, ConnectUnreachable) as err:
        error = err
        ctx.decide(cr, f"reconcile failed: {getattr(err, 'reason', type(err).__name__)}: {err}")
    _write_status(ctx, cr, build_status(cr, result, error))


def _check_preconditions(ctx, cr):
    meta = cr["metadata"]
    namespace = meta["namespace"]
    cluster = (meta.get("labels") or {}).get(CLUSTER_LABEL)
    if not cluster:
        raise ReconcileError("InvalidResourceException",
                             f"Resource lacks label '{CLUSTER_LABEL}': No connect cluster in which to create this "
                             f"connector.")
    connect = ctx.kube.get("KafkaConnect", namespace, cluster)
    if connect is None:
        raise ReconcileError("NoSuchResourceException",
                             f"KafkaConnect resource '{cluster}' identified by label '{CLUSTER_LABEL}' does not exist "
                             f"in namespace {namespace}.")
    if (connect.get("spec") or {}).get("replicas") == 0:
        raise ReconcileError("RuntimeException",
                             f"Kafka Connect cluster '{cluster}' in namespace {namespace} has 0 replicas.")
    if cr.get("spec") is None:
        raise ReconcileError("InvalidResourceException", "spec property is required")
    if not uses_connector_resources(connect):
        raise ReconcileError("NoSuchResourceException",
                             f"KafkaConnect {cluster} is not configured with annotation {USE_RESOURCES}")


def _reconcile_connector(ctx, cr):
    name, spec = cr["metadata"]["name"], cr["spec"]
    desired = desired_config(name, spec.get("class"), spec.get("config"), spec.get("tasksMax"), spec.get("version"))
    target = OffsetsTarget(cr, name, spec, KAFKA_CONNECTOR_KEY, (ANNO_OFFSETS,))
    return maybe_create_or_update(
        ctx, cr, name, desired, spec,
        lambda: manage_connector_offsets(ctx, target, lambda: connector_operation(cr)))


def build_status(cr, result, error):
    """``maybeUpdateConnectorStatus``: Ready/NotReady first, then the pass's warnings; on failure connectorStatus
    and topics are dropped for that pass (§2.3, §2.10)."""
    spec = cr.get("spec") or {}
    status = {"observedGeneration": cr["metadata"].get("generation")}
    if error is not None:
        status["conditions"] = [conditions.error_condition(error)]
        if spec.get("tasksMax") is not None:
            status["tasksMax"] = spec["tasksMax"]
        return status
    failed = failed_message(result.connector_status)
    head = conditions.not_ready("Throwable", failed) if failed else conditions.ready()
    status["conditions"] = [head] + list(result.conditions)
    status["connectorStatus"] = result.connector_status
    tasks_max = _actual_task_count(spec, result.connector_status)
    if tasks_max is not None:
        status["tasksMax"] = tasks_max
    status["topics"] = result.topics
    return status


def _actual_task_count(spec, connector_status):
    """``getActualTaskCount``: number of tasks Connect reports, else spec.tasksMax."""
    if connector_status and "tasks" in connector_status:
        return len(connector_status["tasks"])
    return spec.get("tasksMax")


def _paused_status(cr):
    previous = (cr.get("status") or {}).get("observedGeneration", 0)
    return {"observedGeneration": previous, "conditions": [conditions.reconciliation_paused()]}


def _write_status(ctx, cr, status):
    current = cr.get("status")
    if not conditions.status_differs(current, status):
        return
    status = conditions.keep_transition_times(current, status)
    meta = cr["metadata"]
    ctx.kube.replace_status(KIND, meta["namespace"], meta["name"], status)
    ctx.decide(cr, "status written: " + ", ".join(
        f"{c['type']}{'/' + c['reason'] if c.get('reason') else ''}" for c in status.get("conditions") or []))


def _deleted(ctx, namespace, name):
    """A deleted KafkaConnector's connector is deleted from Connect (``reconcileConnector`` with null connector).

    Also when its KafkaConnect is gone: with Strimzi the whole Connect cluster (and so the connector) would be gone,
    and on the shared worker a leftover connector would keep running.  Kept when the KafkaConnect exists without
    connector resources (Strimzi leaves such connectors alone) or when a KafkaConnector of the same name lives in
    another namespace (the shared-worker limitation).
    """
    last = ctx.forget(KIND, namespace, name)
    cluster = ((last or {}).get("metadata", {}).get("labels") or {}).get(CLUSTER_LABEL)
    if not cluster:
        return
    connect = ctx.kube.get("KafkaConnect", namespace, cluster)
    if connect is not None and not uses_connector_resources(connect):
        return
    others, _ = ctx.kube.list(KIND)
    if any(o["metadata"]["name"] == name for o in others):
        ctx.decide(last, "deleted, but a KafkaConnector of that name exists elsewhere: connector kept")
        return
    try:
        ctx.connect.delete(name)
        ctx.decide(last, f"deleted -> DELETE /connectors/{name}")
    except (ConnectRestError, ConnectUnreachable) as err:
        ctx.decide(last, f"deleted, but deleting connector failed: {err}")
