"""``AbstractConnectOperator#maybeCreateOrUpdateConnector``, shared by KafkaConnector and KafkaMirrorMaker2.

Order of REST calls per connector (§2.1):
1. ``GET /config`` (409 retried with back-off);
2. 404 -> create: 1.2.0+ ``POST /connectors`` with ``initial_state`` -> status (``#createConnector``); before,
   ``PUT /config`` -> status -> updateState -> status (``#createOrUpdateConnector`` at 1.1.0); then topics; **no
   offsets**. The version is the profile's, or older when the namespace has a cluster-operator pod whose image tag
   says so (``Context.operator_version``; lifecycle tests emulate an old operator that way);
3. config differs -> ``PUT /config`` -> state update -> status -> topics; **no offsets handling**;
4. exists with matching config -> ``GET /status`` -> updateState -> manageConnectorOffsets -> ``GET /status``
   (retried on 404) -> ``GET /topics``.
Restart annotations and auto-restart are not emulated.
"""
from dataclasses import dataclass, field

from .connect_client import ConnectRestError
from .state import initial_state, update_state

INITIAL_STATE_SINCE = (1, 2, 0)  # KafkaConnectApiImpl#createConnector with initial_state (#12974)


@dataclass
class ConnectorResult:
    connector_status: dict
    topics: list
    conditions: list = field(default_factory=list)  # Warning conditions of this pass


def maybe_create_or_update(ctx, cr, name, desired, spec, offsets_fn):
    """Reconcile one connector; ``offsets_fn()`` runs manageConnectorOffsets and returns Warning conditions.

    Raises ReconcileError / ConnectRestError / ConnectUnreachable when the connector reconcile fails.
    """
    try:
        current = ctx.connect.get_config(name)
    except ConnectRestError as err:
        if err.status != 404:
            raise
        return _create(ctx, cr, name, desired, spec)
    if current != desired:
        return _update(ctx, cr, name, desired, spec, current)
    return _existing(ctx, cr, name, spec, offsets_fn)


def _create(ctx, cr, name, desired, spec):
    version = ctx.operator_version(cr["metadata"]["namespace"])
    if not ctx.profile.creates_with_initial_state or version < INITIAL_STATE_SINCE:
        ctx.decide(cr, f"connector {name}: does not exist -> PUT /config (Strimzi {'.'.join(map(str, version))}: "
                       "created running), then the state update")
        return _update(ctx, cr, name, desired, spec, {})
    state = initial_state(spec, ctx.profile)
    ctx.decide(cr, f"connector {name}: does not exist -> POST /connectors (initial_state={state})")
    ctx.connect.create(name, desired, state)
    status = ctx.connect.status_with_backoff(name)
    return ConnectorResult(status, ctx.connect.topics(name))


def _update(ctx, cr, name, desired, spec, current):
    changed = sorted(k for k in set(current) | set(desired) if current.get(k) != desired.get(k))
    if current:
        ctx.decide(cr, f"connector {name}: config differs ({', '.join(changed)}) -> PUT /config")
    ctx.connect.put_config(name, desired)
    warnings = update_state(ctx, cr, name, spec, ctx.connect.status_with_backoff(name))
    status = ctx.connect.status_with_backoff(name)
    return ConnectorResult(status, ctx.connect.topics(name), warnings)


def _existing(ctx, cr, name, spec, offsets_fn):
    warnings = update_state(ctx, cr, name, spec, ctx.connect.status(name))
    warnings += offsets_fn()
    status = ctx.connect.status_with_backoff(name)
    return ConnectorResult(status, ctx.connect.topics(name), warnings)


def failed_message(connector_status):
    """Readiness of a connector from its Connect status (§2.10); None when neither connector nor tasks FAILED."""
    if not connector_status:
        return None
    if ((connector_status.get("connector") or {}).get("state") or "").upper() == "FAILED":
        return "Connector has failed, see connectorStatus for more details."
    failed = [str(t.get("id")) for t in connector_status.get("tasks") or []
              if (t.get("state") or "").upper() == "FAILED"]
    if failed:
        return f"The following tasks have failed: {', '.join(failed)}, see connectorStatus for more details."
    return None
