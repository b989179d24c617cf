"""KafkaMirrorMaker2 reconcile: its connectors, their offsets, and the MM2 status (§1.3, §2.2,
§2.3, §2.10).

Every generated connector goes through the shared ``maybeCreateOrUpdateConnector``; the offsets annotation pair is
evaluated per connector (so a missing half yields one ``ManageOffsets`` Warning per connector).  ``status.connectors``
holds each connector's verbatim ``GET /status`` sorted by ``name``.  Connectors that left the spec are deleted from
Connect, found through the previous ``status.connectors`` (Strimzi lists its own dedicated Connect cluster instead).
"""
import time

from . import conditions, mm2
from .conditions import ReconcileError
from .connect_client import ConnectRestError, ConnectUnreachable
from .connector_config import desired_config
from .connector_reconcile import failed_message, maybe_create_or_update
from .kafka_connector import is_paused
from .offsets import ANNO_MM2_CONNECTOR, ANNO_OFFSETS, OffsetsTarget, manage_connector_offsets, mm2_operation

KIND = "KafkaMirrorMaker2"
ERRORS = (ReconcileError, ConnectRestError, ConnectUnreachable)


def reconcile(ctx, namespace, name):
    """Fast cadence: read fresh and reconcile at once."""
    cr = ctx.kube.get(KIND, namespace, name)
    if cr is None:
        _deleted(ctx, namespace, name)
        return
    _reconcile(ctx, cr, readiness_seconds=0.0)


def lock_key(namespace, name):
    return (KIND, namespace, name)


def reconcile_under_lock(ctx, ticket, trigger):
    """Realistic cadence: ``AbstractOperator#reconcile``: the MM2's own lock (dropped after 10 s), a fresh GET, then
    ``KafkaMirrorMaker2AssemblyOperator#createOrUpdate``, whose connectors come only after the pods are ready."""
    _, namespace, name = ticket.key
    with ctx.locks.hold(ticket, f"{KIND} {trigger} reconcile") as acquired:
        if not acquired:
            return
        cr = ctx.kube.get(KIND, namespace, name)
        if cr is None:
            _deleted(ctx, namespace, name)
            return
        _reconcile(ctx, cr, readiness_seconds=ctx.mm2_readiness_seconds)


def _reconcile(ctx, cr, readiness_seconds):
    if is_paused(cr):
        ctx.decide(cr, "reconciliation paused by annotation")
        _write_status(ctx, cr, _paused_status(cr))
        return
    spec = cr.get("spec") or {}
    if spec.get("replicas") == 0:
        # createOrUpdate: an MM2 scaled to zero skips its connectors entirely; the status is Ready, without url
        # or connectors (§2.9).
        ctx.decide(cr, "replicas 0: connectors skipped")
        _write_status(ctx, cr, _status(cr, [], [], None))
        return
    try:
        connectors = mm2.generate(cr, ctx.profile)
    except ReconcileError as err:
        ctx.decide(cr, f"invalid spec: {err}")
        _write_status(ctx, cr, _status(cr, [], [], err))
        return
    if readiness_seconds > 0:
        # reconcilePodSet waits for the pods to be ready (up to STRIMZI_OPERATION_TIMEOUT_MS) before the connectors.
        ctx.decide(cr, f"waiting {readiness_seconds:g}s for the MirrorMaker 2 pods to be ready")
        time.sleep(readiness_seconds)
    statuses, warnings, error = _reconcile_connectors(ctx, cr, connectors)
    _delete_removed(ctx, cr, {c.name for c in connectors})
    _write_status(ctx, cr, _status(cr, statuses, warnings, error))


def _reconcile_connectors(ctx, cr, connectors):
    statuses, warnings, first_error = [], [], None
    for connector in connectors:
        try:
            result = _reconcile_one(ctx, cr, connector)
        except ERRORS as err:
            ctx.decide(cr, f"connector {connector.name}: reconcile failed: "
                           f"{getattr(err, 'reason', type(err).__name__)}: {err}")
            first_error = first_error or err
            continue
        statuses.append(result.connector_status)
        warnings.extend(result.conditions)
    return statuses, warnings, first_error


def _reconcile_one(ctx, cr, connector):
    spec = connector.spec
    desired = desired_config(connector.name, connector.connector_class, connector.config, spec.get("tasksMax"),
                             spec.get("version"))
    target = OffsetsTarget(cr, connector.name, spec, mm2.configmap_key(connector.name),
                           (ANNO_OFFSETS, ANNO_MM2_CONNECTOR))
    return maybe_create_or_update(
        ctx, cr, connector.name, desired, spec,
        lambda: manage_connector_offsets(ctx, target, lambda: mm2_operation(cr, connector.name)))


def _status(cr, statuses, warnings, error):
    meta = cr["metadata"]
    name, namespace = meta["name"], meta["namespace"]
    if error is not None:
        head = conditions.error_condition(error)
    elif any(failed_message(s) for s in statuses):
        head = conditions.not_ready("RuntimeException", "One or more connectors are in FAILED state")
    else:
        head = conditions.ready()
    status = {
        "conditions": [head] + list(warnings),
        "observedGeneration": meta.get("generation"),
        "connectors": sorted(statuses, key=lambda s: s.get("name") or ""),
        "labelSelector": f"strimzi.io/cluster={name},strimzi.io/name={name}-mirrormaker2,"
                         f"strimzi.io/kind={KIND}",
    }
    replicas = (cr.get("spec") or {}).get("replicas")
    if replicas != 0:
        status["url"] = f"http://{name}-mirrormaker2-api.{namespace}.svc:8083"
    if replicas is not None:
        status["replicas"] = replicas
    return status


def _paused_status(cr):
    previous = (cr.get("status") or {}).get("observedGeneration", 0)
    return {"observedGeneration": previous, "conditions": [conditions.reconciliation_paused()]}


def _write_status(ctx, cr, status):
    """Written only when it differs from the stored status, lastTransitionTime ignored (``StatusDiff``)."""
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
        f"{c['type']}{'/' + c['reason'] if c.get('reason') else ''}" for c in status["conditions"]))


def _previous_connectors(cr):
    return {s.get("name") for s in ((cr or {}).get("status") or {}).get("connectors") or [] if s.get("name")}


def _delete_removed(ctx, cr, desired_names):
    for name in sorted(_previous_connectors(cr) - desired_names):
        _delete_connector(ctx, cr, name)


def _generated_names(ctx, cr):
    try:
        return {c.name for c in mm2.generate(cr, ctx.profile)} if cr else set()
    except ReconcileError:
        return set()


def _deleted(ctx, namespace, name):
    """Delete the MM2's connectors: those its last status listed plus those its last spec generates (a connector
    whose reconcile failed is missing from status.connectors)."""
    last = ctx.forget(KIND, namespace, name)
    for connector in sorted(_previous_connectors(last) | _generated_names(ctx, last)):
        _delete_connector(ctx, last, connector)


def _delete_connector(ctx, cr, name):
    try:
        ctx.connect.delete(name)
        ctx.decide(cr, f"connector {name} no longer desired -> DELETE /connectors/{name}")
    except (ConnectRestError, ConnectUnreachable) as err:
        ctx.decide(cr, f"deleting connector {name} failed: {err}")
