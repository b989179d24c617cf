"""``AbstractConnectOperator#updateState`` (strimzi-offsets.md §2.7).

Target state: ``spec.state``; when absent, the deprecated v1beta2 ``pause: true`` means PAUSED (0.38-0.51 rule,
kept because this environment serves v1beta2 like 0.49-0.51 do); otherwise RUNNING.  Transitions follow the table
driven by the live ``connector.state`` from ``GET /status``; FAILED follows the >= 1.1.0 rules.
"""
from .conditions import ReconcileError, warning


def target_state(spec):
    """Returns (target state in upper case, extra Warning conditions)."""
    state, pause = spec.get("state"), spec.get("pause")
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


def initial_state(spec):
    """``initial_state`` for ``POST /connectors`` (1.2.0): only when the spec asks for a state explicitly."""
    if spec.get("state") or spec.get("pause") is not None:
        return target_state(spec)[0]
    return None


def update_state(ctx, cr, connector, spec, status):
    """Issue the pause/stop/resume call the table asks for; returns Warning conditions; raises on failures."""
    live = ((status or {}).get("connector") or {}).get("state")
    if not isinstance(live, str):
        raise ReconcileError("RuntimeException", "JSON response lacked $.connector.state")
    target, warnings = target_state(spec)
    live = live.upper()
    action = _transition(connector, live, target)
    if action:
        ctx.decide(cr, f"connector {connector}: state {live} -> {target}: PUT /{action}")
        getattr(ctx.connect, action)(connector)
    return warnings


def _transition(connector, live, target):
    if live == target:
        return None
    if live == "RUNNING":
        return {"PAUSED": "pause", "STOPPED": "stop"}.get(target)
    if live == "PAUSED":
        return {"STOPPED": "stop", "RUNNING": "resume"}.get(target)
    if live == "STOPPED":
        return {"PAUSED": "pause", "RUNNING": "resume"}.get(target)
    if live == "FAILED":
        if target == "PAUSED":
            raise ReconcileError("RuntimeException", f"Connector {connector} cannot be paused since it is in failed state.")
        return "stop" if target == "STOPPED" else None
    return None  # UNASSIGNED, RESTARTING, ...: ignored this pass
