"""Every way the operator can refuse our request (the Warning conditions of Strimzi's
AbstractConnectOperator#manageConnectorOffsets; docs/online.md "Operator answers") gives the documented message and exit code, and the
connector ends as it was (previous state, offsets unchanged, journal gone) or with a printed recover command.

Some refusals cannot happen to a correct flow (it always writes the stanza, stops first and writes valid JSON), so
the tests make them happen the way they do in real life: something else changes the resource or the ConfigMap
while we wait (a GitOps controller reverting spec.state, a colleague editing the ConfigMap). To do that at a
precise moment, the CLI runs in-process with a progress reporter that calls a hook when the flow reaches a step;
while the hook tampers, the emulator's ``ignore_offsets`` knob holds the operator back, so there is no race.
"""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.errors import ExitStatus

from .conftest import JOURNAL, OFFSETS_ANNOTATION, annotations, eventually, live_state, spec_state

# Every test here drives a global emulator knob (faults file, stopping the emulator): never in parallel.
pytestmark = pytest.mark.exclusive


def _offsets(cli, conn) -> list:
    result = cli("list", conn.name, "-n", conn.ns, "-o", "json", "-q")
    assert result.exit_code == 0, str(result)
    return json.loads(result.stdout)["offsets"]


def _hold_operator_then(emulator, tamper):
    """Hooks: when the flow is about to annotate, hold the operator back; once it waits, tamper and let go."""
    def hold():
        emulator.write_faults({"ignore_offsets": True})

    def release():
        tamper()
        emulator.clear_faults()

    return {"asking the operator to": hold, "waiting for the operator to alter": release}


def _assert_as_before(lab, cli, conn, offsets_before, state="RUNNING"):
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert spec_state(obj) is None and "alterOffsets" not in obj["spec"]
    eventually(f"connector back to {state}", lambda: live_state(lab.cr(conn)) == state)
    assert _offsets(cli, conn) == offsets_before


@pytest.fixture(scope="module")
def idle_source(lab, cli):
    """A FileStreamSource whose file does not exist: its task idles, so its offsets only move when we move them.
    Given a known offset (position 5) once, for the failure tests to check that it stays."""
    conn = lab.source("idle", lines=None)
    result = cli("alter", conn.name, "-n", conn.ns, "-f", "-", "--yes", "-q",
                 input=json.dumps({"offsets": [{"partition": {"filename": str(conn.file)},
                                                "offset": {"position": 5}}]}))
    assert result.exit_code == 0, str(result)
    return conn


def _alter_to_9(cli, conn, *extra):
    return cli("alter", conn.name, "-n", conn.ns, "-f", "-", "--yes", *extra,
               input=json.dumps({"offsets": [{"partition": {"filename": str(conn.file)}, "offset": {"position": 9}}]}))


def _overwrite_alter_data(lab, conn, data: dict) -> None:
    """Change the data of the alter ConfigMap we wrote, keeping its metadata (a replace would drop our ownership
    labels, and the next alter would then rightly refuse to touch a ConfigMap it did not create)."""
    lab.cluster.core.patch_namespaced_config_map(f"{conn.name}-offsets-alter", conn.ns, {"data": data})

def _changed_and_reconciled(lab, conn, spec: dict) -> None:
    """Change the spec, then wait until the operator (still ignoring offsets) has reconciled the changed object.

    The operator reconciles each event with the object that event carried, and re-reads the knobs whenever any event
    comes in. Released at once, the reconcile of our own request's event, still running with the object from before
    the change, could see the knob released and act on the stale object."""
    generation = lab.cluster.merge(conn.ns, conn.name, {"spec": spec})["metadata"]["generation"]
    eventually("the operator's pass over the changed resource", lambda: (
        (lab.cr(conn).get("status") or {}).get("observedGeneration") or 0) >= generation, timeout=30)


def test_missing_alter_offsets_stanza(lab, cli, emulator, hooks, idle_source):
    conn = idle_source
    before = _offsets(cli, conn)
    hooks.update(_hold_operator_then(emulator, lambda: _changed_and_reconciled(lab, conn, {"alterOffsets": None})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert (f"error: the operator could not alter the offsets of '{conn.name}': AlterOffsets: Failed to alter the "
            "connector offsets due to missing property alterOffsets in KafkaConnector CR.") in result.stderr
    assert "hint: the resource lacks the listOffsets/alterOffsets stanza" in result.stderr
    assert "restored to running; offsets unchanged" in result.stderr
    _assert_as_before(lab, cli, conn, before)


def test_connector_not_stopped(lab, cli, emulator, hooks, idle_source):
    """Someone (a GitOps controller's self-heal) puts spec.state back to running while the alter waits."""
    conn = idle_source
    before = _offsets(cli, conn)

    def revert_state():
        lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "running"}})
        lab.wait_state(conn, "RUNNING")

    hooks.update(_hold_operator_then(emulator, revert_state))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert ("AlterOffsets: Encountered error altering connector offsets. Connector is not in STOPPED state"
            in result.stderr)
    assert "hint: the connector is not STOPPED in Connect" in result.stderr
    _assert_as_before(lab, cli, conn, before)


def test_bad_configmap_json(lab, cli, emulator, hooks, idle_source):
    conn = idle_source
    before = _offsets(cli, conn)
    hooks.update(_hold_operator_then(emulator, lambda: _overwrite_alter_data(
        lab, conn, {"offsets.json": '{"offsets": [ {"partition":'})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert ("AlterOffsets: Encountered error altering connector offsets. Failed to parse contents of offsets.json "
            "as JSON") in result.stderr
    assert "hint: the offsets ConfigMap does not hold valid JSON" in result.stderr
    _assert_as_before(lab, cli, conn, before)


def test_connect_rejects_the_offsets(lab, cli, emulator, idle_source):
    """Connect answers the operator's PATCH with 400 (the emulator's connect_failures knob stands in for Connect)."""
    conn = idle_source
    before = _offsets(cli, conn)
    emulator.write_faults({"connect_failures": [{"method": "PATCH", "path_regex": "/offsets$", "status": 400}]})

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert (f"AlterOffsets: Encountered error altering connector offsets. "
            f"io.strimzi.operator.cluster.operator.assembly.ConnectRestException: PATCH /connectors/{conn.name}/offsets"
            " returned 400 (400): Unexpected status code") in result.stderr
    assert "hint: Connect rejected the request" in result.stderr
    emulator.clear_faults()
    _assert_as_before(lab, cli, conn, before)


def test_connect_fails_to_reset(lab, cli, emulator, idle_source):
    conn = idle_source
    before = _offsets(cli, conn)
    emulator.write_faults({"connect_failures": [{"method": "DELETE", "path_regex": "/offsets$", "status": 500}]})

    result = cli("reset", conn.name, "-n", conn.ns, "--yes")

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert "ResetOffsets: Encountered error resetting connector offsets." in result.stderr
    assert "returned 500 (500)" in result.stderr and "hint: Connect failed to apply the offsets (5xx)" in result.stderr
    emulator.clear_faults()
    _assert_as_before(lab, cli, conn, before)


def test_operator_not_running_list_times_out_and_leaves_no_request(lab, cli, emulator, idle_source):
    conn = idle_source
    before = _offsets(cli, conn)
    emulator.stop_emulator()
    snapshot_spec = lab.cr(conn)["spec"]

    result = cli("list", conn.name, "-n", conn.ns, "--timeout", "3s")

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert f"error: timed out after 3s waiting for the operator to list the offsets on kafkaconnector/{conn.name}" \
        in result.stderr
    assert "hint: is the Strimzi cluster operator running?" in result.stderr
    obj = lab.cr(conn)
    assert OFFSETS_ANNOTATION not in annotations(obj), "the timed-out list request was left on the resource"
    assert obj["spec"] == snapshot_spec

    result = cli("alter", conn.name, "-n", conn.ns, "--timeout", "3s", "--yes", "-f", "-",
                 input=json.dumps({"offsets": [{"partition": {"filename": str(conn.file)}, "offset": {"position": 9}}]}))
    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert spec_state(obj) is None

    emulator.start_emulator()
    _assert_as_before(lab, cli, conn, before)


def test_operator_dies_while_we_wait(lab, cli, emulator, hooks, idle_source):
    """The operator stops after our alter request is on the resource: a timeout, the request withdrawn, the state
    set back (applied once the operator runs again), offsets unchanged."""
    conn = idle_source
    before = _offsets(cli, conn)
    hooks.update(_hold_operator_then(emulator, emulator.stop_emulator))

    result = _alter_to_9(cli, conn, "--timeout", "4s")

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert "timed out after 4s waiting for the operator to alter the offsets" in result.stderr
    # Past the hand-over only a list can tell whether the offsets changed, and the operator is down: it says so.
    assert ("the offsets could not be listed to check whether they changed; if they did: kubectl offsets undo "
            f"kafkaconnector/{conn.name} -n {conn.ns} --backup {conn.name}-offsets-backup-") in result.stderr
    assert "spec.state set back to running, but the operator has not applied it yet" in result.stderr
    obj = lab.cr(conn)
    assert live_state(obj) == "STOPPED"  # nobody applied the restore yet ...
    emulator.start_emulator()
    _assert_as_before(lab, cli, conn, before)  # ... and the operator does once it runs


def test_ctrl_c_while_waiting_withdraws_the_request(lab, cli, emulator, hooks, idle_source):
    conn = idle_source
    before = _offsets(cli, conn)

    def interrupt():
        # The operator stays held back until the request is withdrawn and the state restored (the flow then waits
        # for RUNNING); from then on it works again, so the flow's closing list can compare with the backup.
        hooks["waiting for connector"] = emulator.clear_faults
        raise KeyboardInterrupt

    hooks["asking the operator to"] = lambda: emulator.write_faults({"ignore_offsets": True})
    hooks["waiting for the operator to alter"] = interrupt

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.INTERRUPTED, str(result)
    assert ("error: interrupted. Connector restored to running; offsets unchanged (listed and compared with the "
            "backup)") in result.stderr
    _assert_as_before(lab, cli, conn, before)


def test_offsets_not_as_requested_keep_the_connector_stopped_with_the_recover_command(lab, cli, emulator, hooks,
                                                                                     idle_source):
    """Someone rewrites our alter ConfigMap while we wait: the operator applies other offsets. Verification sees it,
    the connector stays STOPPED with its journal, and the printed recover command (here --rollback) plus undo put
    everything back."""
    conn = idle_source
    before = _offsets(cli, conn)
    other = json.dumps({"offsets": [{"partition": {"filename": str(conn.file)}, "offset": {"position": 77}}]})
    hooks.update(_hold_operator_then(emulator, lambda: _overwrite_alter_data(lab, conn, {"offsets.json": other})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.VERIFY, str(result)
    assert "the connector's offsets after the operation are not the ones requested" in result.stderr
    assert "The connector is left STOPPED and the journal kept" in result.stderr
    recover = f"kubectl offsets recover kafkaconnector/{conn.name} -n {conn.ns}"
    assert f"next: {recover}" in result.stderr
    obj = lab.cr(conn)
    assert live_state(obj) == "STOPPED" and JOURNAL in annotations(obj)
    assert "then either finish (accept them) with the recover command below, or roll back" in result.stderr
    # The advice says to check with list: list works beside the journal, and reminds of the recover command.
    listed = cli("list", conn.name, "-n", conn.ns, "-o", "json")
    assert listed.exit_code == 0, str(listed)
    assert json.loads(listed.stdout)["offsets"][0]["offset"] == {"position": 77}
    assert f"has not finished; finish or roll it back with: {recover}" in listed.stderr

    result = cli(*recover.split()[2:], "--rollback")
    assert result.exit_code == 0, str(result)
    assert "restored to running; the offsets DID change before the failure; to put them back: " \
        f"kubectl offsets undo kafkaconnector/{conn.name}" in result.stdout
    result = cli("undo", conn.name, "-n", conn.ns, "--yes")
    assert result.exit_code == 0, str(result)
    _assert_as_before(lab, cli, conn, before)


def test_operator_dies_before_the_connector_stopped(lab, cli, emulator, hooks, idle_source):
    """Before the hand-over nothing has touched the offsets: the timeout rolls back at once, no list needed."""
    conn = idle_source
    before = _offsets(cli, conn)
    hooks["stopping connector"] = emulator.stop_emulator

    result = _alter_to_9(cli, conn, "--timeout", "3s")

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert f"error: timed out after 3s waiting for the connector to be STOPPED on kafkaconnector/{conn.name}" \
        in result.stderr
    assert "Connector restored to running; offsets unchanged;" in result.stderr
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) is None and live_state(obj) == "RUNNING"
    emulator.start_emulator()
    _assert_as_before(lab, cli, conn, before)


# ---- a failed operator pass: NotReady without connectorStatus ------------------------------------------------------

REBALANCE = ("GET /connectors/{name}/config returned 500 (500): Request cannot be completed because a rebalance is "
             "expected")


def _failed_pass_status(lab, conn) -> None:
    """What Strimzi writes after a pass that failed (maybeUpdateConnectorStatus in AbstractConnectOperator): a
    NotReady condition and no connectorStatus, here for Connect's 500 while its workers rebalance."""
    from .conftest import GROUP, VERSION

    obj = lab.cr(conn)
    obj["status"] = {"observedGeneration": obj["metadata"]["generation"],
                     "conditions": [{"type": "NotReady", "status": "True", "reason": "CompletionException",
                                     "message": REBALANCE.format(name=conn.name),
                                     "lastTransitionTime": "2026-11-24T07:00:00Z"}]}
    lab.cluster.custom.replace_namespaced_custom_object_status(GROUP, VERSION, conn.ns, "kafkaconnectors",
                                                              conn.name, obj)


def test_a_failed_operator_pass_is_waited_out_not_refused(lab, cli, emulator, idle_source):
    """Until the operator's next pass succeeds there is no connector status to judge: list and alter wait for it
    (a watch, bounded by --timeout), saying why, and refuse with the operator's own reason when it does not come."""
    import threading

    conn = idle_source
    before = _offsets(cli, conn)
    emulator.stop_emulator()  # the operator's next pass comes when we say
    _failed_pass_status(lab, conn)
    snapshot_spec = lab.cr(conn)["spec"]

    refused = cli("alter", conn.name, "-n", conn.ns, "--timeout", "3s", "--yes", "-f", "-",
                  input=json.dumps({"offsets": [{"partition": {"filename": str(conn.file)}, "offset": {"position": 9}}]}))
    assert refused.exit_code == ExitStatus.PRECONDITION, str(refused)
    assert f"has not reported a status for connector '{conn.name}' after 3s; its last pass failed: " \
           f"{REBALANCE.format(name=conn.name)}" in refused.stderr, str(refused)
    obj = lab.cr(conn)
    assert obj["spec"] == snapshot_spec and JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)

    # The operator comes back: its start-up pass over every resource reports the status, and list goes on.
    starter = threading.Timer(2.0, emulator.start_emulator)
    starter.start()
    try:
        listed = cli("list", conn.name, "-n", conn.ns, "-o", "json")
    finally:
        starter.join()
    assert listed.exit_code == 0, str(listed)
    assert "its last pass failed: GET /connectors/" in listed.stderr and "waiting for its next pass" in listed.stderr
    assert json.loads(listed.stdout)["offsets"] == before
