"""Desired Connect config for a connector spec, as Strimzi computes it (``AbstractConnectOperator#asJson`` and
``#needsReconfiguring``): the spec's ``config`` values as strings, then ``connector.class``, ``tasks.max`` (only when
``tasksMax`` is set), ``connector.plugin.version`` (when ``version`` is set) and ``name``.  The keys Strimzi forbids
in ``config`` are dropped so that the spec fields win.
"""
import json

from .jackson_json import _java_double

FORBIDDEN_KEYS = ("name", "connector.class", "tasks.max", "connector.plugin.version")


def _to_string(value):
    """Java ``toString`` of the value Jackson read from the CR (Connect configs are Map<String, String>)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _java_double(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def stringify_config(config):
    return {str(k): _to_string(v) for k, v in config.items() if v is not None}


def desired_config(name, connector_class, spec_config, tasks_max=None, version=None):
    config = {k: v for k, v in stringify_config(spec_config or {}).items() if k not in FORBIDDEN_KEYS}
    config["connector.class"] = connector_class or ""
    if tasks_max is not None:
        config["tasks.max"] = str(tasks_max)
    if version:
        config["connector.plugin.version"] = str(version)
    config["name"] = name
    return config
