"""The operator as it really behaves (issue 12): annotations read like Java's Boolean.parseBoolean, the deprecated
``spec.pause``, reconcile failures that only show as a NotReady condition, and a failed request that the operator
completes on a later pass.

Tests that need an emulator knob (faults, a restarted emulator) carry ``exclusive``: they change the one operator
every test shares, and a real Strimzi (tests/env/kind) has no such knobs.
"""
from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s

from kubectl_offsets.errors import ExitStatus
from tests.env.clients import unique_name
from tests.env.kind.shared import connect_spec_for

from .conftest import FILE_SINK, GROUP, JOURNAL, OFFSETS_ANNOTATION, STRING, annotations, eventually, live_state
from .test_operator_failures import hooks  # noqa: F401 - a fixture, used by name


def _connect(lab, name: str, *, annotation: str | None = "true", replicas: int = 1) -> str:
    """A KafkaConnect of our own in the module's namespace (the shared one must stay as it is)."""
    meta: dict = {"name": name, "namespace": lab.ns}
    if annotation is not None:
        meta["annotations"] = {"strimzi.io/use-connector-resources": annotation}
    spec = {**connect_spec_for(lab.env, lab.cluster.core, lab.ns, name), "replicas": replicas}
    lab.cluster.custom.create_namespaced_custom_object(GROUP, "v1", lab.ns, "kafkaconnects", {
        "apiVersion": f"{GROUP}/v1", "kind": "KafkaConnect", "metadata": meta, "spec": spec})
    return name


def _sink_on(lab, connect: str, prefix: str, *, version: str = "v1", extra: dict | None = None) -> str:
    name, topic = unique_name(prefix), unique_name(f"{prefix}-topic")
    from tests.env.clients import create_topic

    create_topic(lab.admin, topic)
    body = {"apiVersion": f"{GROUP}/{version}", "kind": "KafkaConnector",
            "metadata": {"name": name, "namespace": lab.ns, "labels": {"strimzi.io/cluster": connect}},
            "spec": {"class": FILE_SINK, "tasksMax": 1, **(extra or {}),
                     "config": {"key.converter": STRING, "value.converter": STRING, "topics": topic,
                                "file": str(lab.workdir / f"{name}.out")}}}
    lab.cluster.custom.create_namespaced_custom_object(GROUP, version, lab.ns, "kafkaconnectors", body)
    return name


def _ready_in(lab, name: str, state: str) -> dict:
    def done():
        obj = lab.cluster.get(lab.ns, name)
        ready = any(c.get("type") == "Ready" for c in (obj.get("status") or {}).get("conditions") or [])
        return obj if ready and live_state(obj) == state else None
    return eventually(f"{name} Ready and {state}", done, timeout=90)


def _served(lab, version: str) -> bool:
    groups = k8s.ApisApi(lab.cluster.api).get_api_versions().groups
    return any(v.version == version for g in groups if g.name == GROUP for v in g.versions)


# --- defect 2: Boolean.parseBoolean ----------------------------------------------------------------------------


def test_use_connector_resources_is_read_in_any_letter_case(lab, cli):
    """Strimzi reads "True" as true: the operator manages the connector, so the plugin must not refuse it."""
    connect = _connect(lab, unique_name("connect-caps"), annotation="True")
    name = _sink_on(lab, connect, "caps")
    _ready_in(lab, name, "RUNNING")

    result = cli("list", name, "-n", lab.ns, "-o", "json", "--timeout", "60s")

    assert result.exit_code == 0, str(result)
    assert json.loads(result.stdout)["offsets"] == []


def test_pause_reconciliation_is_read_in_any_letter_case(lab, cli):
    """"TRUE" pauses reconciliation as "true" does: refused before anything changes, not a wait until timeout."""
    conn = lab.sink("paused")
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": "TRUE"}}})
    before = lab.cr(conn)

    result = cli("list", conn.name, "-n", conn.ns, "--timeout", "20s")

    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert "is paused (strimzi.io/pause-reconciliation=true)" in result.stderr
    after = lab.cr(conn)
    assert annotations(after) == annotations(before) and after["spec"] == before["spec"]


# --- defect 1: the deprecated spec.pause ---------------------------------------------------------------------------


def test_alter_of_a_connector_paused_with_the_deprecated_pause_field_restores_paused(lab, cli):
    """Strimzi 0.44-0.51: ``pause: true`` without ``state`` means paused. After the alter the connector must be
    PAUSED again (pause kept, no state), and the flow must wait for PAUSED, not for a RUNNING that never comes."""
    if not _served(lab, "v1beta2"):
        pytest.skip("spec.pause exists only in v1beta2 (Strimzi 0.38-0.51); this cluster serves only v1")
    name = _sink_on(lab, "connect", "pause", version="v1beta2", extra={"pause": True})
    _ready_in(lab, name, "PAUSED")
    topic = lab.cluster.get(lab.ns, name)["spec"]["config"]["topics"]

    result = cli("alter", name, "-n", lab.ns, "--set", f"{topic}:0=4", "--yes", "--timeout", "60s")

    assert result.exit_code == 0, str(result)
    assert "restoring the previous state: paused" in result.stderr
    obj = lab.cluster.custom.get_namespaced_custom_object(GROUP, "v1beta2", lab.ns, "kafkaconnectors", name)
    assert obj["spec"].get("pause") is True and "state" not in obj["spec"]
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert live_state(obj) == "PAUSED"

