"""``AbstractConnectOperator#updateState`` (§2.7), per Strimzi profile.

Target state: ``spec.state``; when absent, up to 0.51 the deprecated v1beta2 ``pause: true`` means PAUSED (with an
``UpdateState`` Warning when both are set); from 1.0 ``pause`` is ignored (#12488); otherwise RUNNING.  Transitions
follow the table driven by the live ``connector.state`` from ``GET /status``.  A FAILED connector is left alone up to
1.0; from 1.1 (#12750) it can be stopped, and asking to pause it fails the reconcile.
"""
from .conditions import ReconcileError, warning

# Future.failedFuture(String) fails with Vert.x's NoStackTraceThrowable: the NotReady reason Strimzi shows.


def target_state(spec, profile):
    """Returns (target state in upper case, extra Warning conditions)."""
    state = spec.get("state")
    pause = spec.get("pause") if profile.honours_pause else None
    if state:
        warnings = []
        if pause is not None:
            warnings.append(warning(
                "UpdateState", "Both pause and state are set. Since pause is deprecated, state takes precedence "
                               f"so the connector will be {state}"))
        return state.upper(), warnings
    if pause:
        return "PAUSED", []
    return "RUNNING", []


def initial_state(spec, profile):
    """``initial_state`` for ``POST /connectors`` (1.2.0): only when ``spec.state`` is set explicitly."""
    if spec.get("state"):
        return spec["state"].upper()
    return None


def update_state(ctx, cr, connector, spec, status):
    """Issue the pause/stop/resume call the table asks for; returns Warning conditions; raises on failures."""
    live = ((status or {}).get("connector") or {}).get("state")
    if not isinstance(live, str):
        raise ReconcileError("NoStackTraceThrowable", "JSON response lacked $.connector.state")
    target, warnings = target_state(spec, ctx.profile)
    live = live.upper()
    action = _transition(connector, live, target, ctx.profile)
    if action:
        ctx.decide(cr, f"connector {connector}: state {live} -> {target}: PUT /{action}")
        getattr(ctx.connect, action)(connector)
    return warnings


def _transition(connector, live, target, profile):
    if live == target:
        return None
    if live == "RUNNING":
        return {"PAUSED": "pause", "STOPPED": "stop"}.get(target)
    if live == "PAUSED":
        return {"STOPPED": "stop", "RUNNING": "resume"}.get(target)
    if live == "STOPPED":
        return {"PAUSED": "pause", "RUNNING": "resume"}.get(target)
    if live == "FAILED" and profile.failed_can_stop:
        if target == "PAUSED":
            raise ReconcileError("NoStackTraceThrowable", f"Connector {connector} cannot be paused since it is in failed state.")
        return "stop" if target == "STOPPED" else None
    return None  # FAILED before 1.1, UNASSIGNED, RESTARTING, ...: ignored this pass
