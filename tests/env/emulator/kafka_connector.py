"""KafkaConnector reconcile and status (§2.1, §2.9, §2.10).

Two entry points, one per cadence (operator.py):
* realistic: ``plan_event`` is ``KafkaConnectAssemblyOperator#connectorEventHandler``: the event's own object (no fresh
  GET), the owning KafkaConnect read fresh, then ``reconcileConnectorAndHandleResult`` under that KafkaConnect's lock
  (dropped after 10 s); the KafkaConnect's reconcile calls ``reconcile_and_handle_result`` for every connector it
  lists (``#reconcileConnectors``).
* fast: ``reconcile`` re-reads the connector and checks every precondition itself.

Preconditions and their NotReady texts: the ``strimzi.io/cluster`` label must name an existing KafkaConnect in the
same namespace (``InvalidResourceException`` / ``noConnectCluster``), with replicas != 0 (``zeroReplicas``) and the
``strimzi.io/use-connector-resources`` annotation (``#reconcileConnector``: ``NoSuchResourceException``).
``strimzi.io/pause-reconciliation`` only writes a ``ReconciliationPaused`` condition.  Boolean annotations are read
with ``Boolean.parseBoolean`` (``Annotations#booleanAnnotation``): "true" in any case, anything else false.
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
ERRORS = (ReconcileError, ConnectRestError, ConnectUnreachable)


def parse_boolean(value):
    """``java.lang.Boolean#parseBoolean``: true only for "true" ignoring case (no trimming)."""
    return isinstance(value, str) and value.lower() == "true"


def is_paused(cr):
    """``Annotations#isReconciliationPausedWithAnnotation``."""
    return parse_boolean((cr["metadata"].get("annotations") or {}).get(PAUSE_RECONCILIATION))


def uses_connector_resources(connect):
    """``AbstractConnectOperator#isUseResources``."""
    return parse_boolean((connect["metadata"].get("annotations") or {}).get(USE_RESOURCES))


def cluster_of(cr):
    return ((cr.get("metadata") or {}).get("labels") or {}).get(CLUSTER_LABEL)


def connect_lock_key(namespace, cluster):
    """The lock a connector event takes: its KafkaConnect's (``Reconciliation(kind(), namespace, connectName)``)."""
    return ("KafkaConnect", namespace, cluster)


def no_label_error():
    return ReconcileError("InvalidResourceException",
                          f"Resource lacks label '{CLUSTER_LABEL}': No connect cluster in which to create this "
                          f"connector.")


def no_connect_error(namespace, cluster):
    """``KafkaConnectAssemblyOperator#noConnectCluster``."""
    return ReconcileError("NoSuchResourceException",
                          f"KafkaConnect resource '{cluster}' identified by label '{CLUSTER_LABEL}' does not exist in "
                          f"namespace {namespace}.")


def zero_replicas_error(namespace, cluster):
    """``KafkaConnectAssemblyOperator#zeroReplicas``."""
    return ReconcileError("RuntimeException",
                          f"Kafka Connect cluster '{cluster}' in namespace {namespace} has 0 replicas.")


# ----------------------------------------------------------------------------------------------- realistic cadence

def plan_event(ctx, action, cr):
    """``connectorEventHandler`` for one ADDED/MODIFIED/DELETED event carrying ``cr``, up to the lock.

    Runs on the watcher's thread, in event order (the KafkaConnect is read fresh here, as Strimzi does before
    asking for the lock).  Returns ``(lock key or None, work)``: the caller asks for the lock at once and runs
    ``work`` under it (or without a lock when the key is None)."""
    meta = cr["metadata"]
    namespace, cluster = meta["namespace"], cluster_of(cr)
    if not cluster:
        return None, lambda: write_status(ctx, cr, build_status(cr, None, no_label_error()))
    connect = ctx.kube.get("KafkaConnect", namespace, cluster)
    if connect is None:
        def no_connect():
            ctx.decide(cr, f"{action}, but Connect cluster {cluster} does not exist")
            if action == "DELETED":
                deleted(ctx, cr)  # with Strimzi the Connect cluster is gone too; on the shared worker, delete it
            else:
                write_status(ctx, cr, build_status(cr, None, no_connect_error(namespace, cluster)))
        return None, no_connect
    return connect_lock_key(namespace, cluster), lambda: _event_under_lock(ctx, action, cr, connect)


def _event_under_lock(ctx, action, cr, connect):
    namespace, cluster = connect["metadata"]["namespace"], connect["metadata"]["name"]
    if (connect.get("spec") or {}).get("replicas") == 0 and not is_paused(cr):
        write_status(ctx, cr, build_status(cr, None, zero_replicas_error(namespace, cluster)))
    elif action == "DELETED":
        deleted(ctx, cr)
    else:
        reconcile_and_handle_result(ctx, cr, uses_connector_resources(connect))


def reconcile_and_handle_result(ctx, cr, use_resources):
    """``#reconcileConnectorAndHandleResult`` + ``#reconcileConnector`` + ``#maybeUpdateConnectorStatus``, with
    ``cr`` as the caller has it (the event's object, or the KafkaConnect reconcile's list)."""
    if is_paused(cr):
        ctx.decide(cr, "reconciliation paused by annotation")
        write_status(ctx, cr, _paused_status(cr))
        return
    result, error = None, None
    try:
        if not use_resources:
            raise ReconcileError("NoSuchResourceException",
                                 f"KafkaConnect {cluster_of(cr)} is not configured with annotation {USE_RESOURCES}")
        if cr.get("spec") is None:
            raise ReconcileError("InvalidResourceException", "spec property is required")
        result = _reconcile_connector(ctx, cr)
    except ERRORS as err:
        error = err
        ctx.decide(cr, f"reconcile failed: {getattr(err, 'reason', type(err).__name__)}: {err}")
    write_status(ctx, cr, build_status(cr, result, error))


# ----------------------------------------------------------------------------------------------- fast cadence

def reconcile(ctx, namespace, name):
    cr = ctx.kube.get(KIND, namespace, name)
    if cr is None:
        deleted(ctx, ctx.forget(KIND, namespace, name))
        return
    if is_paused(cr):
        ctx.decide(cr, "reconciliation paused by annotation")
        write_status(ctx, cr, _paused_status(cr))
        return
    result, error = None, None
    try:
        _check_preconditions(ctx, cr)
        result = _reconcile_connector(ctx, cr)
    except ERRORS as err:
        error = err
        ctx.decide(cr, f"reconcile failed: {getattr(err, 'reason', type(err).__name__)}: {err}")
    write_status(ctx, cr, build_status(cr, result, error))


def _check_preconditions(ctx, cr):
    meta = cr["metadata"]
    namespace = meta["namespace"]
    cluster = cluster_of(cr)
    if not cluster:
        raise no_label_error()
    connect = ctx.kube.get("KafkaConnect", namespace, cluster)
    if connect is None:
        raise no_connect_error(namespace, cluster)
    if (connect.get("spec") or {}).get("replicas") == 0:
        raise zero_replicas_error(namespace, cluster)
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


def write_status(ctx, cr, status):
    """``AbstractConnectOperator#maybeUpdateStatusCommon``: GET the resource fresh and write the status only when it
    differs from the stored one (``StatusDiff`` ignores lastTransitionTime); no write = no event = no retry."""
    meta = cr["metadata"]
    fresh = ctx.kube.get(KIND, meta["namespace"], meta["name"])
    if fresh is None:
        return
    current = fresh.get("status")
    if not conditions.status_differs(current, status):
        return
    status = conditions.keep_transition_times(current, status)
    ctx.kube.replace_status(KIND, meta["namespace"], meta["name"], status)
    ctx.decide(cr, "status written: " + ", ".join(
        f"{c['type']}{'/' + c['reason'] if c.get('reason') else ''}" for c in status.get("conditions") or []))


def deleted(ctx, last):
    """A deleted KafkaConnector's connector is deleted from Connect (``reconcileConnector`` with null connector).
    ``last`` is the object the DELETED event carried (or the last one seen).

    Also when its KafkaConnect is gone: with Strimzi the whole Connect cluster (and so the connector) would be gone,
    and on the shared worker a leftover connector would keep running.  Kept when the KafkaConnect exists without
    connector resources (Strimzi leaves such connectors alone) or when a KafkaConnector of the same name lives in
    another namespace (the shared-worker limitation).
    """
    cluster = cluster_of(last or {})
    if not cluster:
        return
    namespace, name = last["metadata"]["namespace"], last["metadata"]["name"]
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
