"""The operator as it really behaves (issue 12): annotations read like Java's Boolean.parseBoolean, the deprecated
``spec.pause``, reconcile failures that only show as a NotReady condition, and a failed request that the operator
completes on a later pass.

Tests that need an emulator knob (faults, a restarted emulator) carry ``exclusive``: they change the one operator
every test shares, and a real Strimzi (tests/env/kind) has no such knobs.
"""
from __future__ import annotations

import json
import time

import pytest
from kubernetes import client as k8s

from kubectl_offsets.errors import ExitStatus
from tests.env.clients import unique_name
from tests.env.kind.shared import connect_spec_for

from .conftest import (FILE_SINK, GROUP, JOURNAL, OFFSETS_ANNOTATION, STRING, VERSION, annotations, eventually,
                       live_state)


def _connect(lab, name: str, *, annotation: str | None = "true", replicas: int = 1) -> str:
    """A KafkaConnect of our own in the module's namespace (the shared one must stay as it is)."""
    meta: dict = {"name": name, "namespace": lab.ns}
    if annotation is not None:
        meta["annotations"] = {"strimzi.io/use-connector-resources": annotation}
    spec = {**connect_spec_for(lab.env, lab.cluster.core, lab.ns, name), "replicas": replicas}
    lab.cluster.custom.create_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnects", {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnect", "metadata": meta, "spec": spec})
    return name


def _sink_on(lab, connect: str, prefix: str, *, version: str = VERSION, extra: dict | None = None) -> str:
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


# --- defect 3: reconcile failures that only show as NotReady ------------------------------------------------------


def _scale(lab, connect: str, replicas: int) -> None:
    lab.cluster.custom.patch_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnects", connect,
                                                      {"spec": {"replicas": replicas}},
                                                      _content_type="application/merge-patch+json")


def test_kafka_connect_scaled_to_zero_is_refused_in_preflight(lab, cli):
    connect = _connect(lab, unique_name("connect-zero"))
    name = _sink_on(lab, connect, "zero")
    _ready_in(lab, name, "RUNNING")
    _scale(lab, connect, 0)
    eventually("the operator's NotReady for 0 replicas", lambda: any(
        "0 replicas" in str(c.get("message")) for c in (lab.cluster.get(lab.ns, name).get("status") or {}).get(
            "conditions") or []))
    before = lab.cluster.get(lab.ns, name)

    result = cli("reset", name, "-n", lab.ns, "--yes", "--timeout", "30s")

    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert f"KafkaConnect '{connect}' has replicas: 0" in result.stderr
    assert "hint: scale the KafkaConnect up" in result.stderr
    after = lab.cluster.get(lab.ns, name)
    assert annotations(after) == annotations(before) and after["spec"] == before["spec"]


@pytest.mark.exclusive
def test_kafka_connect_scaled_to_zero_while_we_wait_ends_the_wait_with_advice(lab, cli, emulator, hooks):
    """The operator reports NotReady "has 0 replicas" and never reaches the offsets step: we say so at once instead
    of waiting for the whole --timeout and then asking whether the operator runs."""
    connect = _connect(lab, unique_name("connect-scaled"))
    name = _sink_on(lab, connect, "scaled")
    _ready_in(lab, name, "RUNNING")
    # The operator leaves offsets alone (as if busy) until the end, so the only thing that can end the wait is the
    # NotReady it writes once the KafkaConnect is scaled down while we wait.
    emulator.write_faults({"ignore_offsets": True})
    hooks["waiting for the operator to list"] = lambda: _scale(lab, connect, 0)

    result = cli("list", name, "-n", lab.ns, "--timeout", "90s")

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert f"the operator cannot reconcile kafkaconnector/{name}" in result.stderr
    assert "has 0 replicas" in result.stderr
    assert "hint: the operator manages no connectors of a cluster scaled to replicas: 0" in result.stderr
    assert OFFSETS_ANNOTATION not in annotations(lab.cluster.get(lab.ns, name)), "the list request was left behind"


@pytest.mark.exclusive
def test_reconciliation_paused_while_we_wait_ends_the_wait(lab, cli, emulator, hooks):
    conn = lab.sink("midpause")
    emulator.write_faults({"ignore_offsets": True})  # the list stays pending until someone pauses reconciliation
    hooks["waiting for the operator to list"] = lambda: lab.cluster.merge(
        conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": "true"}}})

    result = cli("list", conn.name, "-n", conn.ns, "--timeout", "90s")

    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert f"reconciliation of kafkaconnector/{conn.name} was paused (strimzi.io/pause-reconciliation)" \
        in result.stderr
    assert OFFSETS_ANNOTATION not in annotations(lab.cr(conn))
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": None}}})


@pytest.mark.exclusive
def test_connect_refusing_the_stop_is_named_when_the_wait_times_out(lab, cli, emulator):
    """PUT /stop fails on every pass: the connector never stops, the operator only says so in NotReady. The timeout
    names that cause and its advice; the connector ends as it was."""
    conn = lab.sink("nostop", records=2)
    emulator.write_faults({"connect_failures": [{"method": "PUT", "path_regex": "/stop$", "status": 500}]})

    result = cli("reset", conn.name, "-n", conn.ns, "--yes", "--timeout", "25s")

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert "waiting for the connector to be STOPPED" in result.stderr
    assert "; the operator reports " in result.stderr and "/stop returned 500" in result.stderr
    assert "hint: Connect refused the operator's stop call" in result.stderr
    emulator.clear_faults()
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and "state" not in obj["spec"]
    eventually("back to RUNNING", lambda: live_state(lab.cr(conn)) == "RUNNING")


# --- the real cadence: a failure the operator's next pass gets past -----------------------------------------------


@pytest.mark.exclusive
def test_a_failed_alter_the_next_pass_completes_is_not_rolled_back(lab, cli, emulator):
    """Connect fails the first PATCH and its immediate retry (a sink whose tasks had not stopped yet). With the
    operator's real cadence the next attempt is its periodic pass, minutes away: the plugin must not roll back,
    but bring that pass forward (a nudge) and finish."""
    emulator.restart_emulator(interval=300)  # no periodic pass within the test: only events drive the operator
    conn = lab.sink("retry", records=5)
    emulator.write_faults({"connect_failures": [{"method": "PATCH", "path_regex": "/offsets$", "status": 500,
                                                 "times": 2}]})

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=2", "--yes", "--timeout", "120s")

    assert result.exit_code == 0, str(result)
    assert "making the connector safe" not in result.stderr
    # Verified by the command itself; the resumed sink then writes records 2, 3 and 4 a second time.
    eventually("records 2-4 re-written", lambda: conn.file_lines() == [f"r{i}" for i in (0, 1, 2, 3, 4, 2, 3, 4)])
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and "kubectl-offsets.io/nudge" not in annotations(obj)


@pytest.mark.exclusive
def test_a_stop_the_next_pass_completes_is_waited_for(lab, cli, emulator):
    """PUT /stop fails on the first pass and its immediate retry; without a later event the connector would stay
    RUNNING until the periodic pass. The wait for STOPPED nudges the operator and goes on."""
    emulator.restart_emulator(interval=300)
    conn = lab.sink("latestop", records=3)
    emulator.write_faults({"connect_failures": [{"method": "PUT", "path_regex": "/stop$", "status": 500,
                                                 "times": 2}]})

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--yes", "--timeout", "120s")

    assert result.exit_code == 0, str(result)
    eventually("back to RUNNING", lambda: live_state(lab.cr(conn)) == "RUNNING")


@pytest.mark.exclusive
def test_a_connector_whose_creation_met_a_connect_error_is_running_before_the_periodic_pass(lab, emulator):
    """Connect answers 500 ("a rebalance is expected") while it takes in a connector: the operator's pass fails,
    its NotReady status write is one more event that fails the same way, and then it waits for its periodic pass
    (120 s). The lab's wait gives it an event, as a user would, and the connector runs well before that. Three
    failures: the periodic pass may come at any time, and may take the third."""
    started = time.monotonic()
    emulator.write_faults({"connect_failures": [{"method": "GET", "path_regex": "/connectors/created-[^/]*/config$",
                                                 "status": 500, "times": 3}]})

    conn = lab.source("created", state=None)

    assert live_state(lab.cr(conn)) == "RUNNING"
    assert time.monotonic() - started < 60
