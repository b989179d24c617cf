"""Strimzi's real operator held back or down while something else changes the resource: every refusal it can answer
with (the Warning conditions of Strimzi's AbstractConnectOperator#manageConnectorOffsets; docs/online.md "Operator
answers") gives the documented message and exit code, and the connector ends as it was (previous state, offsets
unchanged, journal gone) or with a printed recover command.

Some refusals cannot happen to a correct flow (it always writes the stanza, stops first and writes valid JSON), so
the tests make them happen the way they do in real life: something else changes the resource or the ConfigMap
while the operator is busy or away (a GitOps controller reverting spec.state, a colleague editing the ConfigMap).
The CLI runs in-process with a progress reporter that calls a hook when the flow reaches a step (``hooks``), and
the operator's JVM is controlled for real (tests/env/operator_faults.py):

- held: SIGSTOP, then SIGCONT. Its watch events queue up, and each is reconciled with the object it carried
  (KafkaConnectAssemblyOperator#connectorEventHandler), so a held operator still acts on what the resource was when
  the plugin wrote it; it reads ConfigMaps and KafkaConnects afresh. Used where the change is to those.
- down: SIGKILL, then started again as a Deployment would restart it. Its start-up pass reads every resource as it
  is now: what a change to the resource itself needs to be seen.

Pausing or killing the operator disturbs every operation it serves, so this module runs against an environment of
its own (``private_strimzi_env``); the judges are Connect's stored offsets and the resource as the kubernetes client
reads it (tests/judges.py), never the plugin's list.
"""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.errors import ExitStatus
from tests.env.clients import create_topic, kafka_conf, kube_api_client, unique_name
from tests.judges import canonical

from .conftest import (FILE_SINK, GROUP, JOURNAL, OFFSETS_ANNOTATION, VERSION, Cli, Cluster, Connector, annotations,
                       caught_up, live_state, module_lab, source_document, spec_state)

pytestmark = pytest.mark.local_operator  # the operator is a process here to hold or kill: not on kind


# ---- the module's own environment ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def operator_env(private_strimzi_env):
    return private_strimzi_env


@pytest.fixture(scope="module")
def cluster(operator_env) -> Cluster:
    return Cluster(kube_api_client(operator_env.kubeconfig))


@pytest.fixture(scope="module")
def cli(operator_env) -> Cli:
    return Cli(operator_env.kubeconfig)


@pytest.fixture(scope="module")
def lab(operator_env, cluster, tmp_path_factory, request):
    from confluent_kafka.admin import AdminClient

    with module_lab(operator_env, cluster, AdminClient(kafka_conf(operator_env.bootstrap_servers)), tmp_path_factory,
                    request) as made:
        yield made


@pytest.fixture
def operator(operator_env, lab):
    """The operator's JVM: ``hold``/``release`` (SIGSTOP/SIGCONT), ``down``/``up`` (SIGKILL/start again). Whatever a
    test left it in, it runs again afterwards, and the test ends only once the operator has caught up with the
    module's connectors: a restarted operator's first pass comes minutes later on a loaded machine, and a pass it
    still owed one test (over a stopped spec) stopped the connector in the middle of the next (CI, 2026-11-28)."""
    class Operator:
        def __init__(self):
            self.held = self.stopped = False

        def hold(self):
            operator_env.pause_operator()
            self.held = True

        def release(self):
            operator_env.resume_operator()
            self.held = False

        def down(self):
            operator_env.kill_operator()
            self.stopped = True

        def up(self):
            operator_env.restart_operator()
            self.stopped = False

    controls = Operator()
    yield controls
    if controls.held:
        controls.release()
    if controls.stopped:
        controls.up()
    _settle(lab)


def _settle(lab) -> None:
    """Every connector of the lab's KafkaConnect as its spec says, with the operator's pass over it as it is now (the
    tests' own KafkaConnects may rightly be left unable to run theirs)."""
    for cr in lab.cluster.custom.list_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnectors")["items"]:
        if cr["metadata"].get("labels", {}).get("strimzi.io/cluster") != lab.connect:
            continue
        conn = Connector(lab.ns, cr["metadata"]["name"], "", lab.workdir)
        caught_up(lab, conn, (cr["spec"].get("state") or "running").upper())


# ---- helpers ---------------------------------------------------------------------------------------------------

def _down_then(operator, tamper):
    """Hooks: the operator goes down before the request is placed; once the flow waits, tamper and start it again
    (its start-up pass reads the tampered resource)."""
    def start_again():
        tamper()
        operator.up()

    return {"asking the operator to": operator.down, "waiting for the operator to alter": start_again}


def _held_then(operator, tamper):
    """Hooks: the operator is held before the request is placed; once the flow waits, tamper and let it go."""
    def release():
        tamper()
        operator.release()

    return {"asking the operator to": operator.hold, "waiting for the operator to alter": release}


def _assert_as_before(lab, conn, position: int, state="RUNNING"):
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert spec_state(obj) is None and "alterOffsets" not in obj["spec"]
    caught_up(lab, conn, state)
    assert lab.judge.source_position(conn.name) == position


@pytest.fixture(scope="module")
def idle_source(lab, cli):
    """A FileStreamSource whose file does not exist: its task idles, so its offsets only move when we move them.
    Given a known offset (position 5) once, for the failure tests to check that it stays."""
    conn = lab.source("idle", lines=None)
    result = cli("alter", conn.name, "-n", conn.ns, "-f", "-", "--yes", "-q", input=source_document(conn, 5))
    assert result.exit_code == 0, str(result)
    assert lab.judge.source_position(conn.name) == 5
    return conn


# The --timeout of an operation that needs the operator for its first steps and meets the fault later: long enough
# for a loaded machine's operator to answer those steps (the suite runs at 100% CPU), so only the fault ends it.
WAIT_BEFORE_THE_FAULT = "45s"


def _alter_to_9(cli, conn, *extra):
    return cli("alter", conn.name, "-n", conn.ns, "-f", "-", "--yes", *extra, input=source_document(conn, 9))


def _overwrite_alter_data(lab, conn, data: dict) -> None:
    """Change the data of the alter ConfigMap we wrote, keeping its metadata (a replace would drop our ownership
    labels, and the next alter would then rightly refuse to touch a ConfigMap it did not create)."""
    lab.cluster.core.patch_namespaced_config_map(f"{conn.name}-offsets-alter", conn.ns, {"data": data})


# ---- refusals ----------------------------------------------------------------------------------------------------

def test_missing_alter_offsets_stanza(lab, cli, operator, hooks, idle_source):
    """Someone removes alterOffsets while the operator is away: its start-up pass finds the request without it."""
    conn = idle_source
    hooks.update(_down_then(operator, lambda: lab.cluster.merge(conn.ns, conn.name, {"spec": {"alterOffsets": None}})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert (f"error: the operator could not alter the offsets of '{conn.name}': AlterOffsets: Failed to alter the "
            "connector offsets due to missing property alterOffsets in KafkaConnector CR.") in result.stderr
    assert "hint: the resource lacks the listOffsets/alterOffsets stanza" in result.stderr
    assert "restored to running; offsets unchanged" in result.stderr
    _assert_as_before(lab, conn, 5)


def test_connector_not_stopped(lab, cli, operator, hooks, idle_source):
    """Someone (a GitOps controller's self-heal) puts spec.state back to running while the operator is away: its
    start-up pass resumes the connector and refuses the alter. Which words it refuses with is a race inside the
    operator: Connect resumes asynchronously, so the pass's own status check may still see STOPPED and send the PATCH,
    which Connect refuses with 400 (the real operator did so here); a later pass says "not in STOPPED state"."""
    conn = idle_source
    hooks.update(_down_then(operator, lambda: lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "running"}})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert "AlterOffsets: Encountered error altering connector offsets. " in result.stderr
    assert (("Connector is not in STOPPED state" in result.stderr
             and "hint: the connector is not STOPPED in Connect" in result.stderr)
            or (f"PATCH /connectors/{conn.name}/offsets returned 400" in result.stderr
                and "hint: Connect rejected the request" in result.stderr)), str(result)
    _assert_as_before(lab, conn, 5)


def test_bad_configmap_json(lab, cli, operator, hooks, idle_source):
    """A colleague breaks the alter ConfigMap while the operator is held: it reads the ConfigMap when it acts."""
    conn = idle_source
    hooks.update(_held_then(operator, lambda: _overwrite_alter_data(
        lab, conn, {"offsets.json": '{"offsets": [ {"partition":'})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert ("AlterOffsets: Encountered error altering connector offsets. Failed to parse contents of offsets.json "
            "as JSON") in result.stderr
    assert "hint: the offsets ConfigMap does not hold valid JSON" in result.stderr
    _assert_as_before(lab, conn, 5)


def test_offsets_not_as_requested_keep_the_connector_stopped_with_the_recover_command(lab, cli, operator, hooks,
                                                                                     idle_source):
    """Someone rewrites our alter ConfigMap while the operator is held: it applies other offsets. Verification sees
    it, the connector stays STOPPED with its journal, and the printed recover command (here --rollback) plus undo
    put everything back."""
    conn = idle_source
    other = source_document(conn, 77)
    hooks.update(_held_then(operator, lambda: _overwrite_alter_data(lab, conn, {"offsets.json": other})))

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.VERIFY, str(result)
    assert "the connector's offsets after the operation are not the ones requested" in result.stderr
    assert "The connector is left STOPPED and the journal kept" in result.stderr
    recover = f"kubectl offsets recover kafkaconnector/{conn.name} -n {conn.ns}"
    assert f"next: {recover}" in result.stderr
    obj = lab.cr(conn)
    assert live_state(obj) == "STOPPED" and JOURNAL in annotations(obj)
    assert lab.judge.state(conn.name) == "STOPPED" and lab.judge.source_position(conn.name) == 77
    assert "then either finish (accept them) with the recover command below, or roll back" in result.stderr
    # The advice says to check with list: list works beside the journal, shows what Connect has, and reminds of the
    # recover command.
    listed = cli("list", conn.name, "-n", conn.ns, "-o", "json")
    assert listed.exit_code == 0, str(listed)
    assert canonical(json.loads(listed.stdout)["offsets"]) == canonical(lab.judge.stored(conn.name))
    assert f"has not finished; finish or roll it back with: {recover}" in listed.stderr

    result = cli(*recover.split()[2:], "--rollback")
    assert result.exit_code == 0, str(result)
    assert "restored to running; the offsets DID change before the failure; to put them back: " \
        f"kubectl offsets undo kafkaconnector/{conn.name}" in result.stdout
    result = cli("undo", conn.name, "-n", conn.ns, "--yes")
    assert result.exit_code == 0, str(result)
    _assert_as_before(lab, conn, 5)


# ---- the operator down ---------------------------------------------------------------------------------------------

def test_operator_not_running_list_times_out_and_leaves_no_request(lab, cli, operator, idle_source):
    conn = idle_source
    operator.down()
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
                 input=source_document(conn, 9))
    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and OFFSETS_ANNOTATION not in annotations(obj)
    assert spec_state(obj) is None

    operator.up()
    _assert_as_before(lab, conn, 5)


def test_operator_dies_while_we_wait(lab, cli, operator, hooks, idle_source):
    """The operator is gone when our alter request lands on the resource: a timeout, the request withdrawn, the
    state set back (applied once the operator runs again), offsets unchanged."""
    conn = idle_source
    hooks["asking the operator to"] = operator.down

    # Every wait before the hand-over (the preview's list, the stop, the backup's list) needs the operator, alive
    # and loaded: 4 s was too short for 0.45.2's list on a machine at full load. WAIT_BEFORE_THE_FAULT is not.
    result = _alter_to_9(cli, conn, "--timeout", WAIT_BEFORE_THE_FAULT)

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert f"timed out after {WAIT_BEFORE_THE_FAULT} waiting for the operator to alter the offsets" in result.stderr
    # Past the hand-over only a list can tell whether the offsets changed, and the operator is down: it says so.
    assert ("the offsets could not be listed to check whether they changed; if they did: kubectl offsets undo "
            f"kafkaconnector/{conn.name} -n {conn.ns} --backup {conn.name}-offsets-backup-") in result.stderr
    assert "spec.state set back to running, but the operator has not applied it yet" in result.stderr
    assert live_state(lab.cr(conn)) == "STOPPED"  # nobody applied the restore yet ...
    assert lab.judge.state(conn.name) == "STOPPED" and lab.judge.source_position(conn.name) == 5
    operator.up()
    _assert_as_before(lab, conn, 5)  # ... and the operator does once it runs


def test_ctrl_c_while_waiting_withdraws_the_request(lab, cli, operator, hooks, idle_source):
    conn = idle_source

    def back_and_caught_up():
        # The flow's wait for RUNNING starts its clock once this returns: the restarted operator's first pass comes
        # minutes after its start on a loaded machine (CI, 2026-11-28), and the restore's pace is not what this
        # test is about. Its closing list then meets an operator at work.
        operator.up()
        caught_up(lab, conn, "RUNNING")

    def interrupt():
        # The operator stays away until the request is withdrawn and the state restored (the flow then waits for
        # RUNNING); it starts again then, so the flow's closing list can compare with the backup.
        hooks["waiting for connector"] = back_and_caught_up
        raise KeyboardInterrupt

    hooks["asking the operator to"] = operator.down
    hooks["waiting for the operator to alter"] = interrupt

    result = _alter_to_9(cli, conn)

    assert result.exit_code == ExitStatus.INTERRUPTED, str(result)
    assert ("error: interrupted. Connector restored to running; offsets unchanged (listed and compared with the "
            "backup)") in result.stderr
    _assert_as_before(lab, conn, 5)


def test_operator_dies_before_the_connector_stopped(lab, cli, operator, hooks, idle_source):
    """Before the hand-over nothing has touched the offsets: the timeout rolls back at once, no list needed."""
    conn = idle_source
    hooks["stopping connector"] = operator.down

    result = _alter_to_9(cli, conn, "--timeout", WAIT_BEFORE_THE_FAULT)  # the preview's list needs the operator

    assert result.exit_code == ExitStatus.TIMEOUT, str(result)
    assert (f"error: timed out after {WAIT_BEFORE_THE_FAULT} waiting for the connector to be STOPPED on "
            f"kafkaconnector/{conn.name}") in result.stderr
    assert "Connector restored to running; offsets unchanged;" in result.stderr
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) is None and live_state(obj) == "RUNNING"
    assert lab.judge.state(conn.name) == "RUNNING"  # Connect never heard of the stop
    operator.up()
    _assert_as_before(lab, conn, 5)


# ---- something else ends the wait while the operator is held -------------------------------------------------------

def _own_connect_and_sink(lab, prefix: str) -> tuple[str, str]:
    """A KafkaConnect of the test's own (the lab's must stay as it is) and a running sink on it."""
    connect, name, topic = unique_name(f"connect-{prefix}"), unique_name(prefix), unique_name(f"{prefix}-topic")
    lab.own_connect(connect)
    create_topic(lab.admin, topic)
    body = lab._connector(name, FILE_SINK, {"file": str(lab.workdir / f"{name}.out"), "topics": topic}, None, None)
    body["metadata"]["labels"]["strimzi.io/cluster"] = connect
    lab.cluster.create(body)
    lab.wait_state(Connector(lab.ns, name, topic, lab.workdir / f"{name}.out"), "RUNNING")
    return connect, name


def test_kafka_connect_scaled_to_zero_while_we_wait_ends_the_wait_with_advice(lab, cli, operator, hooks):
    """The operator reports NotReady "has 0 replicas" and never reaches the offsets step: we say so at once instead
    of waiting for the whole --timeout and then asking whether the operator runs. Held while the list request is
    placed, the operator meets the request and the scale-down together: the connector's event reads its KafkaConnect
    afresh."""
    connect, name = _own_connect_and_sink(lab, "scaled")

    def scale_down_and_release():
        lab.cluster.custom.patch_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnects", connect,
                                                          {"spec": {"replicas": 0}},
                                                          _content_type="application/merge-patch+json")
        operator.release()

    hooks["waiting for the operator to list"] = scale_down_and_release
    operator.hold()  # list places its request at once: held before it

    result = cli("list", name, "-n", lab.ns, "--timeout", "90s")

    assert result.exit_code == ExitStatus.OPERATOR, str(result)
    assert f"the operator cannot reconcile kafkaconnector/{name}" in result.stderr
    assert "has 0 replicas" in result.stderr
    assert "hint: the operator manages no connectors of a cluster scaled to replicas: 0" in result.stderr
    assert OFFSETS_ANNOTATION not in annotations(lab.cluster.get(lab.ns, name)), "the list request was left behind"


def test_reconciliation_paused_while_we_wait_ends_the_wait(lab, cli, operator, hooks):
    conn = lab.sink("midpause")
    hooks["waiting for the operator to list"] = lambda: lab.cluster.merge(
        conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": "true"}}})
    operator.hold()  # the list stays pending until someone pauses reconciliation

    result = cli("list", conn.name, "-n", conn.ns, "--timeout", "90s")

    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert f"reconciliation of kafkaconnector/{conn.name} was paused (strimzi.io/pause-reconciliation)" \
        in result.stderr
    assert OFFSETS_ANNOTATION not in annotations(lab.cr(conn))
    operator.release()
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": None}}})
