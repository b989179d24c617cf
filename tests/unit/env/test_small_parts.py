"""Faults file, status diff, ConfigMap rules, state table, desired config, work queue, REST path encoding."""
import json
import threading

import pytest

from tests.env.emulator import conditions, configmap_writer, profiles, state
from tests.env.emulator.conditions import ReconcileError
from tests.env.emulator.connect_client import ConnectRestError, encode_name
from tests.env.emulator.connector_config import desired_config
from tests.env.emulator.faults import Faults
from tests.env.emulator.workqueue import WorkQueue


# --------------------------------------------------------------------------------------------- faults

def test_missing_faults_file_means_no_faults(tmp_path):
    faults = Faults(str(tmp_path / "absent.json"))
    faults.reload()
    assert faults.delay_seconds == 0 and not faults.ignore_offsets
    assert faults.connect_failure("PATCH", "/connectors/x/offsets") is None


def test_connect_failure_times_and_regex(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"connect_failures": [
        {"method": "PATCH", "path_regex": "/offsets$", "status": 500, "times": 1}]}))
    faults = Faults(str(path))
    faults.reload()
    assert faults.connect_failure("GET", "/connectors/x/offsets") is None
    assert faults.connect_failure("PATCH", "/connectors/x/offsets") == 500
    faults.reload()  # re-reading the same rule must not reset its count
    assert faults.connect_failure("PATCH", "/connectors/x/offsets") is None


def test_a_new_write_of_the_same_rule_starts_a_fresh_count(tmp_path):
    """A test's rerun (or the next test) that writes the same rule meets its faults again, even when the emulator
    did not read the cleared file in between."""
    from tests.env.emulator_process import write_faults

    path = tmp_path / "f.json"
    rule = {"connect_failures": [{"method": "GET", "path_regex": "/config$", "status": 500, "times": 1}]}
    write_faults(path, rule)
    faults = Faults(str(path))
    faults.reload()
    assert faults.connect_failure("GET", "/connectors/x/config") == 500
    faults.reload()
    assert faults.connect_failure("GET", "/connectors/x/config") is None
    write_faults(path, {})  # the teardown clears the file, and the test writes the same rule again
    write_faults(path, rule)
    faults.reload()
    assert faults.connect_failure("GET", "/connectors/x/config") == 500


def test_connect_failure_matches_decoded_path(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"connect_failures": [{"path_regex": "a->b", "status": 409}]}))
    faults = Faults(str(path))
    faults.reload()
    assert faults.connect_failure("DELETE", "/connectors/" + encode_name("a->b.X") + "/offsets") == 409
    assert faults.connect_failure("GET", "/connectors/" + encode_name("a->b.X") + "/offsets") == 409


def test_knobs(tmp_path):
    path = tmp_path / "f.json"
    path.write_text(json.dumps({"delay_seconds": 1.5, "ignore_offsets": True}))
    faults = Faults(str(path))
    faults.reload()
    assert faults.delay_seconds == 1.5 and faults.ignore_offsets


# --------------------------------------------------------------------------------------------- REST client bits

def test_arrow_is_encoded_like_strimzi():
    assert encode_name("east->west.MirrorSourceConnector") == "east%2D%3Ewest.MirrorSourceConnector"
    assert encode_name("plain-name") == "plain-name"


@pytest.mark.parametrize("profile, reason, message", [
    ("0.45", "ConnectRestException", "DELETE /connectors/a->b.X/offsets returned 400 (Bad Request): "
                                     "Unexpected status code"),
    ("0.51", "ConnectRestException", "DELETE /connectors/a->b.X/offsets returned 400 (400): Unexpected status code"),
    ("1.2", "CompletionException", "io.strimzi.operator.cluster.operator.assembly.ConnectRestException: "
                                   "DELETE /connectors/a->b.X/offsets returned 400 (400): Unexpected status code"),
])
def test_rest_error_text_per_era(profile, reason, message):
    """Vert.x reason phrase (0.45), java.net.http numeric status with the path decoded (0.46+), CompletionException
    kept from 1.0 (Future.fromCompletionStage)."""
    err = ConnectRestError("DELETE", "/connectors/" + encode_name("a->b.X") + "/offsets", 400,
                           profile=profiles.get(profile))
    assert (err.reason, err.message) == (reason, message)


# --------------------------------------------------------------------------------------------- conditions

def test_status_diff_ignores_transition_time_only():
    a = {"conditions": [conditions.warning("ListOffsets", "m")], "observedGeneration": 1}
    b = json.loads(json.dumps(a))
    b["conditions"][0]["lastTransitionTime"] = "1970-01-01T00:00:00Z"
    assert not conditions.status_differs(a, b)
    b["conditions"][0]["message"] = "other"
    assert conditions.status_differs(a, b)


def test_error_condition_uses_strimzi_reason():
    cond = conditions.error_condition(ReconcileError("IllegalArgumentException", "No enum constant x"))
    assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == \
        ("NotReady", "True", "IllegalArgumentException", "No enum constant x")


# --------------------------------------------------------------------------------------------- ConfigMap (§2.6)

CR = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector", "metadata": {
    "name": "src", "namespace": "ns", "uid": "u-1",
    "labels": {"strimzi.io/cluster": "my-connect", "app.kubernetes.io/name": "drop-me",
               "app.kubernetes.io/part-of": "keep-me", "kustomize.toolkit.fluxcd.io/name": "drop", "team": "a"}}}


def test_new_configmap_labels_owner_and_data():
    cm = configmap_writer.desired_configmap(CR, "cm", "offsets.json", "{ }", None)
    labels = cm["metadata"]["labels"]
    assert labels["strimzi.io/cluster"] == "src"  # overrides the connector's own label
    assert labels["team"] == "a"
    assert "kustomize.toolkit.fluxcd.io/name" not in labels
    assert labels["app.kubernetes.io/name"] == "kafka-connector"
    assert labels["app.kubernetes.io/part-of"] == "strimzi-src"
    assert labels["strimzi.io/kind"] == "KafkaConnector"
    assert labels["strimzi.io/component-type"] == "kafka-connector"
    assert labels["app.kubernetes.io/managed-by"] == "strimzi-cluster-operator"
    assert cm["metadata"]["ownerReferences"] == [{
        "apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector", "name": "src", "uid": "u-1",
        "controller": False, "blockOwnerDeletion": True}]
    assert cm["data"] == {"offsets.json": "{ }"}


def test_existing_configmap_keeps_data_and_foreign_owner():
    foreign = {"apiVersion": "v1", "kind": "Secret", "name": "x", "uid": "s"}
    existing = {"metadata": {"ownerReferences": [foreign]}, "data": {"other": "1", "offsets.json": "old"}}
    cm = configmap_writer.desired_configmap(CR, "cm", "offsets.json", "new", existing)
    assert cm["data"] == {"other": "1", "offsets.json": "new"}
    assert cm["metadata"]["ownerReferences"][0] == foreign and len(cm["metadata"]["ownerReferences"]) == 2


def test_legacy_configmap_copies_labels_and_owns_only_unowned_maps():
    """0.44-0.51: the CR's labels copied (no Strimzi defaults), owner reference only when the map had none,
    blockOwnerDeletion false up to 0.48 (0.45 here)."""
    cr = dict(CR, apiVersion="kafka.strimzi.io/v1beta2")
    fresh = configmap_writer.legacy_configmap(cr, "cm", "offsets.json", "{ }", None, False)
    assert fresh["metadata"]["labels"] == CR["metadata"]["labels"]
    assert fresh["metadata"]["ownerReferences"][0]["apiVersion"] == "kafka.strimzi.io/v1beta2"
    assert fresh["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] is False
    foreign = {"apiVersion": "v1", "kind": "Secret", "name": "x", "uid": "s"}
    existing = {"metadata": {"name": "cm", "labels": {"mine": "1"}, "ownerReferences": [foreign],
                             "managedFields": [{}]}, "data": {"other": "1"}}
    merged = configmap_writer.legacy_configmap(cr, "cm", "offsets.json", "new", existing, True)
    assert merged["metadata"]["ownerReferences"] == [foreign]
    assert merged["metadata"]["labels"]["mine"] == "1" and merged["metadata"]["labels"]["team"] == "a"
    assert "managedFields" not in merged["metadata"]
    assert merged["data"] == {"other": "1", "offsets.json": "new"}


def test_existing_owner_with_same_name_and_kind_is_not_duplicated():
    mine = {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaConnector", "name": "src", "uid": "old"}
    cm = configmap_writer.desired_configmap(CR, "cm", "k", "v", {"metadata": {"ownerReferences": [mine]}})
    assert cm["metadata"]["ownerReferences"] == [mine]


# --------------------------------------------------------------------------------------------- state (§2.7)

@pytest.mark.parametrize("live, spec, action", [
    ("RUNNING", {"state": "paused"}, "pause"), ("RUNNING", {"state": "stopped"}, "stop"),
    ("RUNNING", {}, None), ("PAUSED", {"state": "stopped"}, "stop"), ("PAUSED", {}, "resume"),
    ("STOPPED", {"state": "paused"}, "pause"), ("STOPPED", {"state": "running"}, "resume"),
    ("STOPPED", {"state": "stopped"}, None), ("FAILED", {"state": "stopped"}, "stop"), ("FAILED", {}, None),
    ("UNASSIGNED", {"state": "stopped"}, None), ("RUNNING", {"pause": True}, "pause"),
    ("PAUSED", {"pause": True, "state": "running"}, "resume"),
])
def test_transition_table(live, spec, action):
    """The 0.51 rules (pause honoured) except FAILED, which follows 1.1+ (see the per-era tests below)."""
    target, _ = state.target_state(spec, profiles.get("0.51"))
    assert state._transition("c", live, target, profiles.get("1.2")) == action


def test_failed_connector_cannot_be_paused_from_1_1():
    with pytest.raises(ReconcileError) as err:
        state._transition("c", "FAILED", "PAUSED", profiles.get("1.2"))
    assert err.value.message == "Connector c cannot be paused since it is in failed state."
    assert err.value.reason == "NoStackTraceThrowable"


@pytest.mark.parametrize("profile", ["0.45", "0.51"])
def test_failed_connector_is_left_alone_before_1_1(profile):
    assert state._transition("c", "FAILED", "PAUSED", profiles.get(profile)) is None
    assert state._transition("c", "FAILED", "STOPPED", profiles.get(profile)) is None


@pytest.mark.parametrize("profile, target", [("0.45", "PAUSED"), ("0.51", "PAUSED"), ("1.2", "RUNNING")])
def test_deprecated_pause_honoured_until_0_51(profile, target):
    assert state.target_state({"pause": True}, profiles.get(profile))[0] == target


def test_both_pause_and_state_warns():
    _, warnings = state.target_state({"pause": True, "state": "stopped"}, profiles.get("0.51"))
    assert warnings[0]["reason"] == "UpdateState"
    assert warnings[0]["message"].endswith("so the connector will be stopped")
    assert state.target_state({"pause": True, "state": "stopped"}, profiles.get("1.2"))[1] == []


def test_initial_state_only_when_asked():
    assert state.initial_state({}, profiles.get("1.2")) is None
    assert state.initial_state({"state": "stopped"}, profiles.get("1.2")) == "STOPPED"


# --------------------------------------------------------------------------------------------- desired config

def test_desired_config_strings_and_spec_fields_win():
    cfg = desired_config("c", "FileStreamSource", {"file": "/x", "tasks.max": 9, "batch": 5, "flag": True}, 1)
    assert cfg == {"file": "/x", "batch": "5", "flag": "true", "connector.class": "FileStreamSource",
                   "tasks.max": "1", "name": "c"}


# --------------------------------------------------------------------------------------------- work queue

def test_queue_serialises_and_collapses_per_key():
    q = WorkQueue()
    q.add("a")
    q.add("a")
    assert q.get(0.1) == "a"
    q.add("a")  # arrives while "a" is processed: not handed to another worker
    assert q.get(0.05) is None
    q.done("a")
    assert q.get(0.1) == "a"
    q.done("a")
    assert q.get(0.05) is None


def test_queue_shutdown_wakes_workers():
    q = WorkQueue()
    got = []
    t = threading.Thread(target=lambda: got.append(q.get()))
    t.start()
    q.shutdown()
    t.join(2)
    assert got == [None]


def test_a_class_data_archive_is_named_by_the_jars_it_was_built_from(tmp_path, monkeypatch):
    """A changed, added or removed jar gives another archive name, so a stale archive is never offered."""
    from tests.env import cds

    monkeypatch.setenv("KO_CACHE", str(tmp_path / "cache"))
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.jar").write_bytes(b"a")

    def name() -> str:
        cds.archive.cache_clear()
        return cds.archive(lib, "connect").name

    first = name()
    assert first.startswith("connect-") and first.endswith(".jsa") and name() == first
    assert cds.flags(lib, "connect") == []  # not built: no option, the JVM starts as before
    (lib / "b.jar").write_bytes(b"b")
    second = name()
    (lib / "a.jar").write_bytes(b"a2")
    third = name()
    assert len({first, second, third}) == 3
    archive = cds.archive(lib, "connect")
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"built")
    assert cds.flags(lib, "connect") == [f"-XX:SharedArchiveFile={archive}"]
