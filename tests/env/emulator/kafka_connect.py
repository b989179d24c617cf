"""KafkaConnect: no pods are deployed (every KafkaConnect maps to the one shared Connect worker), but the status a
client may look at is kept (Ready, observedGeneration, url, replicas), and a KafkaConnect event or periodic reconcile
also reconciles its KafkaConnectors (``KafkaConnectAssemblyOperator#createOrUpdate`` -> ``#reconcileConnectors``).

Realistic cadence (``reconcile_under_lock``): ``AbstractOperator#reconcile`` takes the KafkaConnect's lock (the same
one connector events need, locks.py) and GETs the resource fresh; the build / rolling-update / readiness phase is
simulated by the ``connect_busy_seconds`` fault knob (0 by default), during which connector events wait for the lock
and are dropped after 10 s; then every KafkaConnector listed by label is reconciled concurrently (``Future.join``) from
the listed objects.  ``replicas: 0`` marks every connector NotReady instead (``zeroReplicas``); a deleted KafkaConnect
marks them ``noConnectCluster`` (``#updateConnectorsThatConnectClusterWasDeleted``).  Strimzi's deletion of Connect
connectors that have no KafkaConnector is not done (the worker is shared by every KafkaConnect here).
"""
import time
from concurrent.futures import ThreadPoolExecutor

from . import conditions, kafka_connector

KIND = "KafkaConnect"


def reconcile(ctx, namespace, name):
    """Fast cadence: write the status; return the keys of the selected KafkaConnectors for the caller to queue."""
    connect = ctx.kube.get(KIND, namespace, name)
    selected = _connectors(ctx, namespace, name)
    keys = [("KafkaConnector", namespace, c["metadata"]["name"]) for c in selected]
    if connect is not None:
        _write_status(ctx, connect, _status(connect))
    return keys


def lock_key(namespace, name):
    return (KIND, namespace, name)


def reconcile_under_lock(ctx, ticket, trigger):
    """Realistic cadence: the whole KafkaConnect reconcile under its lock (dropped if not acquired in 10 s);
    ``ticket`` is the place in the lock's queue, taken when the event arrived."""
    _, namespace, name = ticket.key
    with ctx.locks.hold(ticket, f"{KIND} {trigger} reconcile") as acquired:
        if acquired:
            _reconcile(ctx, namespace, name)


def _reconcile(ctx, namespace, name):
    connect = ctx.kube.get(KIND, namespace, name)
    connectors = _connectors(ctx, namespace, name)
    if connect is None:
        for cr in connectors:
            kafka_connector.write_status(ctx, cr, kafka_connector.build_status(
                cr, None, kafka_connector.no_connect_error(namespace, name)))
        return
    busy = ctx.faults.connect_busy_seconds
    if busy > 0:
        ctx.decide(connect, f"fault: building/rolling for {busy:g}s while holding the lock")
        time.sleep(busy)
    if kafka_connector.uses_connector_resources(connect):
        _reconcile_connectors(ctx, connect, connectors)
    _write_status(ctx, connect, _status(connect))


def _reconcile_connectors(ctx, connect, connectors):
    namespace, name = connect["metadata"]["namespace"], connect["metadata"]["name"]
    if (connect.get("spec") or {}).get("replicas") == 0:
        error = kafka_connector.zero_replicas_error(namespace, name)
        for cr in connectors:
            if kafka_connector.is_paused(cr):
                kafka_connector.reconcile_and_handle_result(ctx, cr, True)  # writes ReconciliationPaused only
            else:
                kafka_connector.write_status(ctx, cr, kafka_connector.build_status(cr, None, error))
        return
    if not connectors:
        return
    with ThreadPoolExecutor(max_workers=min(8, len(connectors)), thread_name_prefix="connectors") as pool:
        for future in [pool.submit(kafka_connector.reconcile_and_handle_result, ctx, cr, True) for cr in connectors]:
            future.result()


def _connectors(ctx, namespace, name):
    selected, _ = ctx.kube.list("KafkaConnector", namespace, label_selector=f"strimzi.io/cluster={name}")
    return selected


def _write_status(ctx, connect, status):
    meta = connect["metadata"]
    current = connect.get("status")
    if conditions.status_differs(current, status):
        status = conditions.keep_transition_times(current, status)
        ctx.kube.replace_status(KIND, meta["namespace"], meta["name"], status)
        ctx.decide(connect, "status written: Ready")


def _status(connect):
    meta, spec = connect["metadata"], connect.get("spec") or {}
    status = {
        "conditions": [conditions.ready()],
        "observedGeneration": meta.get("generation"),
        "labelSelector": f"strimzi.io/cluster={meta['name']},strimzi.io/name={meta['name']}-connect,"
                         f"strimzi.io/kind={KIND}",
    }
    if spec.get("replicas") != 0:  # createOrUpdate: no url while scaled to zero
        status["url"] = f"http://{meta['name']}-connect-api.{meta['namespace']}.svc:8083"
    if spec.get("replicas") is not None:
        status["replicas"] = spec["replicas"]
    return status
