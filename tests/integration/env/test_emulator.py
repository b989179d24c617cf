"""The Strimzi operator emulator against the real kube-apiserver, Kafka and Kafka Connect.

Everything goes through the Kubernetes API with the plain kubernetes client (plus Kafka clients to produce data and
read committed offsets), never through the plugin: these tests prove the environment the plugin is tested in.
Expected texts come from Strimzi's source, cited per test by a § key that tests/env/emulator/README.md ("Section
keys") resolves to the Strimzi class and method.  The session's Strimzi profile
(KO_STRIMZI, default 1.2) decides which API version objects are created through, which MirrorMaker 2 layouts exist
and the era's texts; tests marked ``exclusive`` change global emulator knobs (faults file, restarts).
"""
import json
import time

import pytest
from kubernetes.client.rest import ApiException

from tests.env.emulator import profiles

pytestmark = pytest.mark.emulator_only("tests of the emulator itself: they prove it reproduces Strimzi's rules")

PROFILE = profiles.selected()
V = PROFILE.preferred_version  # what users' manifests and kubectl use in this era
DEFAULT_LAYOUT = PROFILE.mm2_layouts[-1]  # v1 where it exists, else the legacy v1beta2 layout

OFFSETS = "strimzi.io/connector-offsets"
MM2_CONNECTOR = "strimzi.io/mirrormaker-connector"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


# --------------------------------------------------------------------------------------------- builders/waits

def connector(ns, name, cls, config, **spec):
    body = {"class": cls, "tasksMax": 1, "config": config}
    body.update(spec)
    return {"apiVersion": f"kafka.strimzi.io/{V}", "kind": "KafkaConnector",
            "metadata": {"name": name, "namespace": ns, "labels": {"strimzi.io/cluster": "connect"}},
            "spec": body}


def file_source(ns, name, path, topic, **spec):
    return connector(ns, name, FILE_SOURCE, {"file": str(path), "topic": topic}, **spec)


def live_state(obj):
    return (((obj or {}).get("status") or {}).get("connectorStatus") or {}).get("connector", {}).get("state")


def wait_connector_state(kube, h, ns, name, state, timeout=60):
    return h.wait_for(f"KafkaConnector {name} Ready with Connect state {state}",
                      lambda: (lambda o: o if live_state(o) == state and h.condition(o, "Ready") else None)(
                          kube.get("KafkaConnector", ns, name)), timeout)


def wait_annotation_gone(kube, h, kind, ns, name, keys=(OFFSETS,), timeout=60):
    def gone():
        obj = kube.get(kind, ns, name)
        present = [k for k in keys if k in h.annotations(obj)]
        return obj if not present else None
    return h.wait_for(f"{kind} {name}: annotations {keys} removed by the operator", gone, timeout)


def wait_no_warning(kube, h, kind, ns, name, timeout=30):
    """A Warning of an earlier attempt (e.g. a 409 on the annotation removal when the operator reconciled an older
    event's copy) stays until the status write of the pass that succeeded."""
    return h.wait_for(f"{kind} {name} without a Warning condition", lambda: (lambda o: o if not h.condition(
        o, "Warning") else None)(kube.get(kind, ns, name)), timeout)


def list_offsets(kube, h, ns, name, cm, key="offsets.json"):
    """Annotate list, wait for the operator to finish, return the parsed and raw ConfigMap value."""
    kube.annotate("KafkaConnector", ns, name, {OFFSETS: "list"})
    wait_annotation_gone(kube, h, "KafkaConnector", ns, name)
    raw = kube.configmap(ns, cm).data[key]
    return json.loads(raw), raw


def listed_until(kube, h, ns, name, cm, predicate, what, timeout=60):
    """Repeat list until the listed offsets satisfy ``predicate`` (Connect flushes offsets once a second)."""
    def attempt():
        parsed, raw = list_offsets(kube, h, ns, name, cm)
        return (parsed, raw) if predicate(parsed) else None
    return h.wait_for(what, attempt, timeout, interval=1.0)


def rest_error(method, path, status):
    """``ConnectRestException`` as each era's status shows it (connect_client.py has the source references)."""
    phrase = {400: "Bad Request", 500: "Internal Server Error"}[status]
    return {"0.45": f"{method} {path} returned {status} ({phrase}): Unexpected status code",
            "0.51": f"{method} {path} returned {status} ({status}): Unexpected status code",
            "1.2": "io.strimzi.operator.cluster.operator.assembly.ConnectRestException: "
                   f"{method} {path} returned {status} ({status}): Unexpected status code"}[PROFILE.name]


def decisions(emu_env, needle):
    """Lines of the emulator's decision log containing ``needle`` (the log is per environment; names are unique)."""
    with open(emu_env.emulator_log, encoding="utf-8") as fh:
        return [line for line in fh if needle in line]


def write_lines(path, count):
    path.write_text("".join(f"line-{i}\n" for i in range(count)))
    return path.stat().st_size


# --------------------------------------------------------------------------------------------- KafkaConnector

def test_file_source_list_yields_real_position(kube, kafka, h, connect_ns, tmp_path):
    """§2.4/§2.6: list -> ConfigMap key offsets.json, Jackson pretty JSON, Strimzi 1.x labels and owner reference."""
    name, topic = h.unique("src"), h.unique("file-in")
    size = write_lines(tmp_path / "in.txt", 5)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", topic,
                            listOffsets={"toConfigMap": {"name": "src-offsets"}}))
    cr = wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    assert cr["status"]["observedGeneration"] == cr["metadata"]["generation"]
    assert cr["status"]["connectorStatus"]["name"] == name
    kafka.consume_all(topic, 5)

    parsed, raw = listed_until(
        kube, h, connect_ns, name, "src-offsets",
        lambda p: p["offsets"] and p["offsets"][0]["offset"]["position"] == size, f"position {size} listed")
    assert parsed == {"offsets": [{"partition": {"filename": str(tmp_path / "in.txt")},
                                   "offset": {"position": size}}]}
    assert raw.startswith('{\n  "offsets" : [ {\n    "partition" : {\n') and raw.endswith("\n  } ]\n}")

    cm = kube.configmap(connect_ns, "src-offsets")
    [owner] = cm.metadata.owner_references
    if PROFILE.list_configmap_1x:  # 1.0+: Strimzi's default labels, which override the connector's cluster label
        assert cm.metadata.labels["strimzi.io/cluster"] == name
        assert cm.metadata.labels["strimzi.io/kind"] == "KafkaConnector"
        assert cm.metadata.labels["app.kubernetes.io/managed-by"] == "strimzi-cluster-operator"
    else:  # 0.44-0.51: a copy of the connector's labels
        assert cm.metadata.labels == {"strimzi.io/cluster": "connect"}
    assert (owner.api_version, owner.kind, owner.name, owner.uid, owner.controller, owner.block_owner_deletion) == \
        (f"kafka.strimzi.io/{PROFILE.read_version}", "KafkaConnector", name, cr["metadata"]["uid"], False,
         PROFILE.block_owner_deletion)
    managers = {m.manager for m in cm.metadata.managed_fields}
    assert ("strimzi-kafka-operator" in managers) == (not PROFILE.vertx_http_client)  # server-side apply from 0.48


def test_list_keeps_other_configmap_keys(kube, h, connect_ns, tmp_path):
    """§2.6: existing data entries are kept; only offsets.json is replaced."""
    name = h.unique("keep")
    write_lines(tmp_path / "in.txt", 1)
    kube.create_configmap(connect_ns, "shared", {"notes.txt": "mine", "offsets.json": "stale"})
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "shared"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    list_offsets(kube, h, connect_ns, name, "shared")
    data = kube.configmap(connect_ns, "shared").data
    assert data["notes.txt"] == "mine" and data["offsets.json"] != "stale"


def test_alter_on_running_connector_warns_and_keeps_annotation(kube, h, connect_ns, tmp_path):
    """§2.5 step 2 / §2.11: the stopped check reads Connect's live state; failure = Warning AlterOffsets."""
    name = h.unique("alter")
    write_lines(tmp_path / "in.txt", 2)
    offsets = {"offsets": [{"partition": {"filename": str(tmp_path / "in.txt")}, "offset": {"position": 0}}]}
    kube.create_configmap(connect_ns, "alter-in", {"offsets.json": json.dumps(offsets)})
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            alterOffsets={"fromConfigMap": {"name": "alter-in"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")

    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})
    cr = h.wait_for("AlterOffsets warning", lambda: (lambda o: o if h.condition(o, "Warning", "AlterOffsets")
                                                     else None)(kube.get("KafkaConnector", connect_ns, name)))
    warning = h.condition(cr, "Warning", "AlterOffsets")
    assert warning["status"] == "True"
    assert warning["message"] == "Encountered error altering connector offsets. Connector is not in STOPPED state"
    assert h.conditions(cr)[0]["type"] == "Ready"  # a warning, not a failed reconcile
    assert h.annotations(cr)[OFFSETS] == "alter"


def test_alter_on_stopped_connector_applies_and_removes_annotation(kube, kafka, h, connect_ns, tmp_path):
    """§2.5: stopped + valid ConfigMap -> PATCH with the raw string, annotation removed, offsets changed."""
    name, topic = h.unique("alter-ok"), h.unique("t")
    path = tmp_path / "in.txt"
    write_lines(path, 3)
    kube.create(file_source(connect_ns, name, path, topic, listOffsets={"toConfigMap": {"name": "out"}},
                            alterOffsets={"fromConfigMap": {"name": "in"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kafka.consume_all(topic, 3)
    raw = '{"offsets": [{"partition": {"filename": "%s"}, "offset": {"position": 7}}]}' % path
    kube.create_configmap(connect_ns, "in", {"offsets.json": raw})
    kube.merge_patch("KafkaConnector", connect_ns, name, {"spec": {"state": "stopped"}})
    wait_connector_state(kube, h, connect_ns, name, "STOPPED")

    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    wait_no_warning(kube, h, "KafkaConnector", connect_ns, name)
    parsed, _ = list_offsets(kube, h, connect_ns, name, "out")
    assert parsed["offsets"][0]["offset"] == {"position": 7}


def test_reset_on_stopped_connector_empties_offsets(kube, kafka, h, connect_ns, tmp_path):
    """§2.5 reset: DELETE offsets, annotation removed; a later list shows `{ "offsets" : [ ] }` (§2.4)."""
    name, topic = h.unique("reset"), h.unique("t")
    size = write_lines(tmp_path / "in.txt", 4)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", topic,
                            listOffsets={"toConfigMap": {"name": "reset-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kafka.consume_all(topic, 4)
    listed_until(kube, h, connect_ns, name, "reset-out",
                 lambda p: p["offsets"] and p["offsets"][0]["offset"]["position"] == size, "offsets before reset")

    kube.merge_patch("KafkaConnector", connect_ns, name, {"spec": {"state": "stopped"}})
    wait_connector_state(kube, h, connect_ns, name, "STOPPED")
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "reset"})
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    wait_no_warning(kube, h, "KafkaConnector", connect_ns, name)

    parsed, raw = list_offsets(kube, h, connect_ns, name, "reset-out")
    assert parsed == {"offsets": []}
    assert raw == '{\n  "offsets" : [ ]\n}'


def test_file_sink_listed_offsets_match_consumer_group(kube, kafka, judge, h, connect_ns, tmp_path):
    """§3.4: sink offsets are the connector's consumer group (connect-<name>) committed offsets."""
    name, topic = h.unique("sink"), h.unique("sink-in")
    kafka.create_topic(topic)
    kafka.produce(topic, [f"record-{i}" for i in range(6)])
    kube.create(connector(connect_ns, name, FILE_SINK, {"topics": topic, "file": str(tmp_path / "out.txt"),
                                                        "key.converter": STRING_CONVERTER,
                                                        "value.converter": STRING_CONVERTER},
                          listOffsets={"toConfigMap": {"name": "sink-offsets"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    committed = h.wait_for("sink group committed 6", lambda: (lambda c: c if c.get(0) == 6 else None)(
        judge.sink_offsets(name, topic)), timeout=60)

    parsed, _ = list_offsets(kube, h, connect_ns, name, "sink-offsets")
    listed = {(o["partition"]["kafka_topic"], o["partition"]["kafka_partition"]): o["offset"]["kafka_offset"]
              for o in parsed["offsets"]}
    assert listed == {(topic, p): off for p, off in committed.items()}


def test_invalid_annotation_value_makes_connector_not_ready(kube, h, connect_ns, tmp_path):
    """§2.3: a wrong-case value fails the reconcile: NotReady/IllegalArgumentException, annotation kept,
    connectorStatus dropped for that pass."""
    name = h.unique("bad")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t")))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")

    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "List"})
    cr = h.wait_for("NotReady", lambda: (lambda o: o if h.condition(o, "NotReady") else None)(
        kube.get("KafkaConnector", connect_ns, name)))
    not_ready = h.condition(cr, "NotReady")
    assert not_ready["reason"] == "IllegalArgumentException"
    assert not_ready["message"] == \
        "No enum constant io.strimzi.operator.cluster.model.KafkaConnectorOffsetsAnnotation.List"
    assert "connectorStatus" not in cr["status"]
    assert h.annotations(cr)[OFFSETS] == "List"

    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: None})
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")


def test_list_without_list_offsets_property_warns(kube, h, connect_ns, tmp_path):
    """§2.4 step 1: no listOffsets -> Warning ListOffsets with Strimzi's exact text, annotation kept."""
    name = h.unique("nolist")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t")))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "list"})
    cr = h.wait_for("ListOffsets warning", lambda: (lambda o: o if h.condition(o, "Warning", "ListOffsets")
                                                    else None)(kube.get("KafkaConnector", connect_ns, name)))
    assert h.condition(cr, "Warning", "ListOffsets")["message"] == \
        "Failed to list the connector offsets due to missing property listOffsets in KafkaConnector CR."
    assert h.annotations(cr)[OFFSETS] == "list"


@pytest.mark.exclusive
def test_connect_failure_fault_then_recovery(kube, h, faults, connect_ns, tmp_path):
    """Fault knob: GET offsets answered 500 -> Warning with Strimzi's ConnectRestException text; annotation kept;
    once the fault is used up the next reconcile succeeds and removes the annotation."""
    name = h.unique("fault")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "fault-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    faults({"connect_failures": [{"method": "GET", "path_regex": f"/connectors/{name}/offsets$",
                                  "status": 500, "times": 1}]})
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "list"})
    # The single failure is visible as a Warning only until the next reconcile succeeds, so wait for the log-free
    # signal that survives: the annotation gone and the ConfigMap written.
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    assert kube.configmap(connect_ns, "fault-out").data["offsets.json"].startswith('{\n  "offsets" : [')


@pytest.mark.exclusive
def test_persistent_connect_failure_warns_with_strimzi_text(kube, h, faults, connect_ns, tmp_path):
    name = h.unique("fault2")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "fault2-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    faults({"connect_failures": [{"method": "GET", "path_regex": f"/connectors/{name}/offsets$", "status": 500}]})
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "list"})
    cr = h.wait_for("ListOffsets warning", lambda: (lambda o: o if h.condition(o, "Warning", "ListOffsets")
                                                    else None)(kube.get("KafkaConnector", connect_ns, name)))
    assert h.condition(cr, "Warning", "ListOffsets")["message"] == (
        "Encountered error listing connector offsets. " + rest_error("GET", f"/connectors/{name}/offsets", 500))
    assert h.annotations(cr)[OFFSETS] == "list"
    assert kube.configmap(connect_ns, "fault2-out") is None


def test_missing_use_connector_resources_is_not_ready(kube, h, connect_ns, tmp_path):
    """§2.9: the KafkaConnect must carry strimzi.io/use-connector-resources: "true"."""
    kube.create({"apiVersion": f"kafka.strimzi.io/{V}", "kind": "KafkaConnect",
                 "metadata": {"name": "plain", "namespace": connect_ns},
                 "spec": {"replicas": 1, "bootstrapServers": "x:9092"}})
    obj = file_source(connect_ns, h.unique("nores"), tmp_path / "in.txt", "t")
    obj["metadata"]["labels"]["strimzi.io/cluster"] = "plain"
    kube.create(obj)
    cr = h.wait_for("NotReady", lambda: (lambda o: o if h.condition(o, "NotReady") else None)(
        kube.get("KafkaConnector", connect_ns, obj["metadata"]["name"])))
    cond = h.condition(cr, "NotReady")
    assert (cond["reason"], cond["message"]) == (
        "NoSuchResourceException", "KafkaConnect plain is not configured with annotation "
                                   "strimzi.io/use-connector-resources")


def test_pause_field_and_rule_per_profile(kube, h, connect_ns, tmp_path):
    """§1.2/§2.7: `pause` exists only in v1beta2.  Through v1 (0.51, 1.2) strict field validation rejects it and the
    default validation prunes it; through v1beta2 (0.45, 0.51) `pause: true` without `state` pauses the connector
    (AbstractConnectOperator#updateState up to 0.51); 1.x has no pause at all, so the connector runs."""
    write_lines(tmp_path / "in.txt", 1)
    obj = file_source(connect_ns, h.unique("pause"), tmp_path / "in.txt", h.unique("t"), pause=True)
    name = obj["metadata"]["name"]
    if "v1" in PROFILE.served:
        obj["apiVersion"] = "kafka.strimzi.io/v1"
        with pytest.raises(ApiException) as err:
            kube.create(obj, field_validation="Strict")
        assert err.value.status == 400 and 'unknown field \\"spec.pause\\"' in err.value.body
    if "v1beta2" in PROFILE.served:
        obj["apiVersion"] = "kafka.strimzi.io/v1beta2"
        kube.create(obj)
        assert kube.get("KafkaConnector", connect_ns, name, version="v1beta2")["spec"]["pause"] is True
        wait_connector_state(kube, h, connect_ns, name, "PAUSED")
    else:
        kube.create(obj)
        assert "pause" not in kube.get("KafkaConnector", connect_ns, name)["spec"]
        wait_connector_state(kube, h, connect_ns, name, "RUNNING")


def test_served_versions_follow_the_profile(kube, emu_env):
    """The era's CRDs: v1beta2 only (0.45), v1beta2 stored + v1 (0.51), v1 only (1.2); discovery says so."""
    from kubernetes import client

    [group] = [g for g in client.ApisApi(kube.api).get_api_versions().groups if g.name == "kafka.strimzi.io"]
    assert sorted(v.version for v in group.versions) == sorted(emu_env.profile.served)
    assert group.preferred_version.version == PROFILE.preferred_version
    for version in ("v1beta2", "v1"):
        try:
            kube.custom.list_cluster_custom_object("kafka.strimzi.io", version, "kafkaconnectors", limit=1)
            served = True
        except ApiException as err:
            assert err.status == 404
            served = False
        assert served == (version in emu_env.profile.served), version


# --------------------------------------------------------------------------------------------- KafkaMirrorMaker2

def mm2_v1(ns, name, src, tgt, bootstrap, topic, **mirror_extra):
    mirror = {"source": {"alias": src, "bootstrapServers": bootstrap},
              "sourceConnector": {"tasksMax": 1, "config": {"refresh.topics.interval.seconds": 2,
                                                             "sync.topic.configs.enabled": False},
                                  "listOffsets": {"toConfigMap": {"name": "mm2-offsets"}}},
              "checkpointConnector": {"tasksMax": 1, "config": {"emit.checkpoints.interval.seconds": 5}},
              "topicsPattern": f"^{topic}$", "groupsPattern": "^none$"}
    mirror.update(mirror_extra)
    return {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaMirrorMaker2",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 1,
                     "target": {"alias": tgt, "bootstrapServers": bootstrap, "groupId": f"{name}-g",
                                "configStorageTopic": f"{name}-c", "statusStorageTopic": f"{name}-s",
                                "offsetStorageTopic": f"{name}-o"},
                     "mirrors": [mirror]}}


def mm2_v1beta2(ns, name, src, tgt, bootstrap, topic):
    v1 = mm2_v1(ns, name, src, tgt, bootstrap, topic)
    mirror = v1["spec"]["mirrors"][0]
    mirror.pop("source")
    # The heartbeat connector stays STOPPED: a running one creates `heartbeats` on the shared broker, and every
    # MirrorSourceConnector always replicates heartbeats topics (`src.heartbeats`, `src.src.heartbeats`, ...
    # isCycle only stops at the target alias), an endless chain when source and target are one broker.
    mirror.update({"sourceCluster": src, "targetCluster": tgt, "heartbeatConnector": {"state": "stopped"}})
    return {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaMirrorMaker2",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": 1, "connectCluster": tgt,
                     "clusters": [{"alias": src, "bootstrapServers": bootstrap},
                                  {"alias": tgt, "bootstrapServers": bootstrap}],
                     "mirrors": [mirror]}}


def mm2_build(layout):
    return mm2_v1 if layout == "v1" else mm2_v1beta2


def mm2_names(layout, src, tgt):
    """The connectors the operator generates: a heartbeat connector only in the legacy layout."""
    types = ["MirrorSourceConnector", "MirrorCheckpointConnector"]
    if layout == "v1beta2":
        types.append("MirrorHeartbeatConnector")
    return sorted(f"{src}->{tgt}.{t}" for t in types)


def mm2_ready(kube, h, ns, name, expected_connectors):
    def ready():
        obj = kube.get("KafkaMirrorMaker2", ns, name)
        names = [c.get("name") for c in (obj or {}).get("status", {}).get("connectors") or []]
        running = all(c.get("connector", {}).get("state") == ("STOPPED" if "Heartbeat" in c["name"] else "RUNNING")
                      for c in obj.get("status", {}).get("connectors") or []) if obj else False
        return obj if h.condition(obj, "Ready") and names == expected_connectors and running else None
    return h.wait_for(f"KafkaMirrorMaker2 {name} Ready with {expected_connectors}", ready, timeout=90)


def mm2_default(kube, h, emu_env, ns, name, src, tgt, topic):
    """A KafkaMirrorMaker2 in the era's default layout (v1 where it exists), Ready with its connectors."""
    kube.create(mm2_build(DEFAULT_LAYOUT)(ns, name, src, tgt, emu_env.bootstrap_servers, topic))
    return mm2_ready(kube, h, ns, name, mm2_names(DEFAULT_LAYOUT, src, tgt))


@pytest.mark.parametrize("layout", PROFILE.mm2_layouts)
def test_mm2_replicates_and_lists_source_connector(kube, kafka, h, emu_env, connect_ns, layout):
    """§1.3 naming for both layouts; §2.6 key `<src>--<tgt>.MirrorSourceConnector.json`; §2.8 both annotations
    removed; offsets are the last replicated source offset (§3.4)."""
    src, tgt = h.unique("src").replace("-", ""), h.unique("tgt").replace("-", "")
    topic, name = h.unique("mm2in"), h.unique("mm2")
    kafka.create_topic(topic)
    kafka.produce(topic, [f"m-{i}" for i in range(5)])
    kube.create(mm2_build(layout)(connect_ns, name, src, tgt, emu_env.bootstrap_servers, topic))
    cr = mm2_ready(kube, h, connect_ns, name, mm2_names(layout, src, tgt))
    assert cr["status"]["observedGeneration"] == cr["metadata"]["generation"]
    kafka.consume_all(f"{src}.{topic}", 5, timeout=90)  # DefaultReplicationPolicy: <source alias>.<topic>

    source = f"{src}->{tgt}.MirrorSourceConnector"
    key = f"{src}--{tgt}.MirrorSourceConnector.json"

    def listed():
        kube.annotate("KafkaMirrorMaker2", connect_ns, name, {OFFSETS: "list", MM2_CONNECTOR: source},
                      version=layout)
        wait_annotation_gone(kube, h, "KafkaMirrorMaker2", connect_ns, name, (OFFSETS, MM2_CONNECTOR))
        parsed = json.loads(kube.configmap(connect_ns, "mm2-offsets").data[key])
        return parsed if parsed["offsets"] and parsed["offsets"][0]["offset"]["offset"] == 4 else None

    parsed = h.wait_for("MirrorSourceConnector offset 4 listed", listed, timeout=60, interval=1.0)
    assert parsed["offsets"] == [{"partition": {"cluster": src, "partition": 0, "topic": topic},
                                  "offset": {"offset": 4}}]
    cm = kube.configmap(connect_ns, "mm2-offsets")
    if PROFILE.list_configmap_1x:
        assert cm.metadata.labels["strimzi.io/kind"] == "KafkaMirrorMaker2"
    assert cm.metadata.owner_references[0].kind == "KafkaMirrorMaker2"


def test_mm2_typo_in_connector_name_is_a_silent_no_op(kube, h, emu_env, connect_ns):
    """§2.3: a mirrormaker-connector naming no connector -> no warning, both annotations stay, nothing written."""
    src, tgt, name = "typosrc" + h.unique("a")[-6:], "typotgt" + h.unique("b")[-6:], h.unique("mm2typo")
    mm2_default(kube, h, emu_env, connect_ns, name, src, tgt, h.unique("none"))
    typo = {OFFSETS: "list", MM2_CONNECTOR: f"{src}->{tgt}.MirrorSourceConnecter"}
    kube.annotate("KafkaMirrorMaker2", connect_ns, name, typo)
    # Prove later reconciles happened: a spec change that leaves the connector configs alone bumps the
    # generation, and observedGeneration catches up only after a full pass that evaluated the annotations.
    for replicas in (2, 3):
        kube.merge_patch("KafkaMirrorMaker2", connect_ns, name, {"spec": {"replicas": replicas}})
        cr = h.wait_for("observedGeneration caught up", lambda: (lambda o: o if o["status"].get(
            "observedGeneration") == o["metadata"]["generation"] else None)(
            kube.get("KafkaMirrorMaker2", connect_ns, name)))
    assert not h.condition(cr, "Warning") and h.condition(cr, "Ready")
    assert {k: h.annotations(cr)[k] for k in typo} == typo
    assert kube.configmap(connect_ns, "mm2-offsets") is None


def test_mm2_one_annotation_missing_warns_per_connector(kube, h, emu_env, connect_ns):
    """§2.3: only connector-offsets -> one ManageOffsets Warning per generated connector, annotation kept."""
    src, tgt, name = "onesrc" + h.unique("a")[-6:], "onetgt" + h.unique("b")[-6:], h.unique("mm2one")
    mm2_default(kube, h, emu_env, connect_ns, name, src, tgt, h.unique("none"))
    kube.annotate("KafkaMirrorMaker2", connect_ns, name, {OFFSETS: "list"})
    count = len(mm2_names(DEFAULT_LAYOUT, src, tgt))
    cr = h.wait_for(f"{count} ManageOffsets warnings", lambda: (lambda o: o if len(
        [c for c in h.conditions(o) if c.get("reason") == "ManageOffsets"]) == count else None)(
        kube.get("KafkaMirrorMaker2", connect_ns, name)))
    message = (f"Encountered error getting connector offsets annotation. KafkaMirrorMaker2 resource "
               f"{connect_ns}/{name} is missing annotation strimzi.io/mirrormaker-connector")
    assert all(c["message"] == message for c in h.conditions(cr) if c.get("reason") == "ManageOffsets")
    assert h.annotations(cr)[OFFSETS] == "list"


# --------------------------------------------------------------------------------------------- fault knobs, §2.8

@pytest.mark.exclusive
def test_ignore_offsets_knob_leaves_annotation_alone(kube, h, faults, connect_ns, tmp_path):
    """`ignore_offsets`: the operator keeps reconciling (observedGeneration follows) but never acts on offsets."""
    name = h.unique("ign")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "ign-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    faults({"ignore_offsets": True})
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "list"})
    kube.merge_patch("KafkaConnector", connect_ns, name, {"spec": {"tasksMax": 2}})
    cr = h.wait_for("observedGeneration caught up", lambda: (lambda o: o if o["status"].get(
        "observedGeneration") == o["metadata"]["generation"] == 2 else None)(
        kube.get("KafkaConnector", connect_ns, name)))
    # One more pass after the config change (offsets are never handled on the config-update pass, §2.1).
    kube.merge_patch("KafkaConnector", connect_ns, name, {"spec": {"tasksMax": 1}})
    cr = h.wait_for("observedGeneration 3", lambda: (lambda o: o if o["status"].get(
        "observedGeneration") == 3 else None)(kube.get("KafkaConnector", connect_ns, name)))
    assert h.annotations(cr)[OFFSETS] == "list" and kube.configmap(connect_ns, "ign-out") is None
    faults({})
    # Clearing a knob is no event: like a real operator, the emulator acts on the next one (here a label).
    kube.merge_patch("KafkaConnector", connect_ns, name, {"metadata": {"labels": {"nudge": "1"}}})
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    assert kube.configmap(connect_ns, "ign-out") is not None


@pytest.mark.exclusive
def test_cr_changed_during_slow_list_conflicts_then_retries(kube, h, faults, emu_env, connect_ns, tmp_path):
    """§2.8: annotation removal carries the resourceVersion read; if the CR changed meanwhile (made possible here
    by the `delay_seconds` knob) the patch gets 409, a ListOffsets Warning appears, and the list is repeated."""
    name = h.unique("slow")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "slow-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    faults({"delay_seconds": 2})
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "list"})
    # The decision log is the only way to know the operator is inside its delay; the check itself uses the API.
    h.wait_for("operator delaying the list", lambda: f"{connect_ns}/{name}: connector {name}: fault delay" in
               open(emu_env.emulator_log).read(), timeout=30)
    kube.merge_patch("KafkaConnector", connect_ns, name, {"metadata": {"labels": {"touched": "yes"}}})
    cr = h.wait_for("ListOffsets conflict warning", lambda: (lambda o: o if h.condition(o, "Warning", "ListOffsets")
                                                             else None)(kube.get("KafkaConnector", connect_ns, name)))
    message = h.condition(cr, "Warning", "ListOffsets")["message"]
    assert message.startswith("Encountered error listing connector offsets. Failure executing: PATCH at: ")
    assert "the object has been modified" in message
    faults({})
    cr = wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    h.wait_for("warning cleared", lambda: not h.condition(kube.get("KafkaConnector", connect_ns, name), "Warning"))


@pytest.mark.parametrize("cm_data, expected", [
    (None, "Encountered error altering connector offsets. Encountered error fetching offsets to use in alter "
           "operation. ConfigMap {ns}/alter-src does not exist."),
    ({"other.json": "{}"}, "Encountered error altering connector offsets. Encountered error fetching offsets to use "
                           "in alter operation. Data field offsets.json is missing."),
    ({"offsets.json": '{"test":}'}, "Encountered error altering connector offsets. Failed to parse contents of "
                                    "offsets.json as JSON: "),
    ({"offsets.json": '{"offsets": []}'}, "Encountered error altering connector offsets. "
                                          + rest_error("PATCH", "/connectors/{name}/offsets", 400)),
])
def test_alter_failures_on_stopped_connector(kube, h, connect_ns, tmp_path, cm_data, expected):
    """§2.5 step 3/4 and §2.11: ConfigMap checks and Connect's rejection, each a Warning AlterOffsets; the
    connector is created already STOPPED (initial_state from 1.2.0; created, then stopped, before)."""
    name = h.unique("altf")
    write_lines(tmp_path / "in.txt", 1)
    if cm_data is not None:
        kube.create_configmap(connect_ns, "alter-src", cm_data)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"), state="stopped",
                            alterOffsets={"fromConfigMap": {"name": "alter-src"}}))
    wait_connector_state(kube, h, connect_ns, name, "STOPPED")
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})
    cr = h.wait_for("AlterOffsets warning", lambda: (lambda o: o if h.condition(o, "Warning", "AlterOffsets")
                                                     else None)(kube.get("KafkaConnector", connect_ns, name)))
    message = h.condition(cr, "Warning", "AlterOffsets")["message"]
    assert message.startswith(expected.format(ns=connect_ns, name=name))
    assert h.annotations(cr)[OFFSETS] == "alter"


def test_mm2_invalid_value_for_named_connector_is_not_ready(kube, h, emu_env, connect_ns):
    """§2.3: with mirrormaker-connector naming an existing connector, a bad value fails that connector's reconcile
    and the KafkaMirrorMaker2 goes NotReady/IllegalArgumentException; both annotations stay."""
    src, tgt, name = "badsrc" + h.unique("a")[-6:], "badtgt" + h.unique("b")[-6:], h.unique("mm2bad")
    mm2_default(kube, h, emu_env, connect_ns, name, src, tgt, h.unique("none"))
    bad = {OFFSETS: "", MM2_CONNECTOR: f"{src}->{tgt}.MirrorCheckpointConnector"}
    kube.annotate("KafkaMirrorMaker2", connect_ns, name, bad)
    cr = h.wait_for("NotReady", lambda: (lambda o: o if h.condition(o, "NotReady") else None)(
        kube.get("KafkaMirrorMaker2", connect_ns, name)))
    cond = h.condition(cr, "NotReady")
    assert (cond["reason"], cond["message"]) == (
        "IllegalArgumentException", "No enum constant io.strimzi.operator.cluster.model.KafkaConnectorOffsetsAnnotation.")
    assert {k: h.annotations(cr)[k] for k in bad} == bad


def test_mm2_reset_stopped_source_connector(kube, kafka, h, emu_env, connect_ns):
    """§2.5/§2.7/§2.8 for MM2: the mirror's sourceConnector.state stops that one connector; reset then empties its
    offsets and removes both annotations in one patch."""
    src, tgt, topic, name = "rsrc" + h.unique("a")[-6:], "rtgt" + h.unique("b")[-6:], h.unique("rin"), h.unique("mm2r")
    kafka.create_topic(topic)
    kafka.produce(topic, ["a", "b", "c"])
    source = f"{src}->{tgt}.MirrorSourceConnector"
    mm2_default(kube, h, emu_env, connect_ns, name, src, tgt, topic)
    kafka.consume_all(f"{src}.{topic}", 3, timeout=90)

    mirrors = kube.get("KafkaMirrorMaker2", connect_ns, name)["spec"]["mirrors"]
    mirrors[0]["sourceConnector"]["state"] = "stopped"
    kube.merge_patch("KafkaMirrorMaker2", connect_ns, name, {"spec": {"mirrors": mirrors}})
    h.wait_for("source connector STOPPED", lambda: [c for c in (kube.get("KafkaMirrorMaker2", connect_ns, name)[
        "status"].get("connectors") or []) if c["name"] == source and c["connector"]["state"] == "STOPPED"])

    both = (OFFSETS, MM2_CONNECTOR)
    kube.annotate("KafkaMirrorMaker2", connect_ns, name, {OFFSETS: "reset", MM2_CONNECTOR: source})
    wait_annotation_gone(kube, h, "KafkaMirrorMaker2", connect_ns, name, both)
    wait_no_warning(kube, h, "KafkaMirrorMaker2", connect_ns, name)
    kube.annotate("KafkaMirrorMaker2", connect_ns, name, {OFFSETS: "list", MM2_CONNECTOR: source})
    wait_annotation_gone(kube, h, "KafkaMirrorMaker2", connect_ns, name, both)
    raw = kube.configmap(connect_ns, "mm2-offsets").data[f"{src}--{tgt}.MirrorSourceConnector.json"]
    assert raw == '{\n  "offsets" : [ ]\n}'


def test_pause_reconciliation_freezes_everything(kube, h, connect_ns, tmp_path):
    """§2.9: strimzi.io/pause-reconciliation=true -> only a ReconciliationPaused condition, no offsets handling;
    unpausing lets the pending list run."""
    name = h.unique("frozen")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            listOffsets={"toConfigMap": {"name": "frozen-out"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kube.annotate("KafkaConnector", connect_ns, name, {"strimzi.io/pause-reconciliation": "true", OFFSETS: "list"})
    cr = h.wait_for("ReconciliationPaused", lambda: (lambda o: o if h.condition(o, "ReconciliationPaused")
                                                     else None)(kube.get("KafkaConnector", connect_ns, name)))
    assert [c["type"] for c in h.conditions(cr)] == ["ReconciliationPaused"]
    assert "connectorStatus" not in cr["status"] and cr["status"]["observedGeneration"] == 1
    # The pass that wrote ReconciliationPaused saw the list annotation (same patch) and did not act on it.
    assert h.annotations(cr)[OFFSETS] == "list" and kube.configmap(connect_ns, "frozen-out") is None

    kube.annotate("KafkaConnector", connect_ns, name, {"strimzi.io/pause-reconciliation": None})
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, name)
    assert kube.configmap(connect_ns, "frozen-out") is not None


# --------------------------------------------------------------------------------------------- realistic cadence

def connect_status(emu_env, name):
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{emu_env.connect_url}/connectors/{name}/status", timeout=10) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError:
        return None


def wait_quiet(kube, h, kind, ns, name, quiet=3.0, timeout=60):
    """Until the resource's resourceVersion stayed put for ``quiet`` seconds (the operator is done with it)."""
    seen = {"rv": None, "since": time.monotonic()}

    def settled():
        rv = kube.get(kind, ns, name)["metadata"]["resourceVersion"]
        if rv != seen["rv"]:
            seen.update(rv=rv, since=time.monotonic())
        return time.monotonic() - seen["since"] >= quiet
    h.wait_for(f"{kind} {name} to stay unchanged for {quiet:g}s", settled, timeout, interval=0.5)


def interval_of(emu_env):
    return float(emu_env.emulator_setting("--interval"))


def attempts(emu_env, ns, name, reason):
    return len(decisions(emu_env, f"{ns}/{name}: connector {name}: Warning {reason}:"))


@pytest.mark.exclusive  # restarts the emulator with an hour-long interval: no periodic pass may blur the count
def test_failed_alter_retries_once_then_status_is_not_rewritten(kube, h, emulator, connect_ns, tmp_path):
    """Realistic cadence (AbstractConnectOperator#maybeUpdateStatusCommon + StatusDiff): the first Warning is a status
    write, hence an event, hence exactly one immediate retry; the retry's identical Warning changes nothing in status
    (lastTransitionTime ignored), so nothing is written and nothing else happens until the periodic pass."""
    emu_env = emulator
    emulator.restart_emulator(interval=3600)
    assert emu_env.emulator_setting("--cadence") == "realistic"
    # The KafkaConnect's own reconciles (its creation, its status write) also reconcile its connectors: let them
    # finish first, so that only the connector's events remain.
    h.wait_for("KafkaConnect Ready", lambda: h.condition(kube.get("KafkaConnect", connect_ns, "connect"), "Ready"))
    time.sleep(3)
    name = h.unique("retry")
    kube.create_configmap(connect_ns, f"{name}-in", {"offsets.json": '{"offsets": []}'})
    # No input file: the task idles, so nothing in the connector's status (tasks, topics) moves on its own.
    kube.create(file_source(connect_ns, name, tmp_path / "absent.txt", h.unique("t"),
                            alterOffsets={"fromConfigMap": {"name": f"{name}-in"}}))
    h.wait_for("the task RUNNING in Connect", lambda: [t for t in (connect_status(emu_env, name) or {}).get(
        "tasks") or [] if t.get("state") == "RUNNING"])
    # Every event carrying the annotation is one attempt: let the creation's own status writes (and their events)
    # settle first, so that the annotation's event is the only one.
    wait_quiet(kube, h, "KafkaConnector", connect_ns, name)

    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})  # not stopped: the alter must fail
    h.wait_for("the immediate retry", lambda: attempts(emu_env, connect_ns, name, "AlterOffsets") >= 2, timeout=30)
    settled = kube.get("KafkaConnector", connect_ns, name)
    time.sleep(8)
    assert attempts(emu_env, connect_ns, name, "AlterOffsets") == 2
    after = kube.get("KafkaConnector", connect_ns, name)
    assert after["metadata"]["resourceVersion"] == settled["metadata"]["resourceVersion"], "status rewritten"
    assert h.condition(after, "Warning", "AlterOffsets") and h.annotations(after)[OFFSETS] == "alter"
    written = decisions(emu_env, f"KafkaConnector {connect_ns}/{name}: status written: Ready, Warning/AlterOffsets")
    assert len(written) == 1, written


# The most A's list holds the KafkaConnect's lock: it lets go when the test clears the knob, once B's annotation event
# was dropped (a fixed hold of 25 s left a loaded machine too little time to annotate B: B then waited less than
# 10 s, took the lock after A and was listed at once).
HOLD_SECONDS = 120


@pytest.mark.exclusive  # restarts the emulator with an hour-long interval: a periodic pass would reach B as well
def test_dropped_event_under_a_held_lock_waits_for_the_next_event(kube, h, emulator, connect_ns, tmp_path):
    """AbstractOperator#withLock: a slow offsets operation on connector A holds its KafkaConnect's lock; connector
    B's annotation event waits 10 s for that lock and is dropped (never re-queued).  B's annotation then stays
    although A finished, until another event for B arrives (the periodic pass would be the other way; it is an hour
    away here, so it cannot come first by chance)."""
    emu_env = emulator
    emulator.restart_emulator(interval=3600)
    a, b = h.unique("holder"), h.unique("dropped")
    write_lines(tmp_path / "in.txt", 1)
    for name in (a, b):
        kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                                listOffsets={"toConfigMap": {"name": f"{name}-out"}}))
    for name in (a, b):
        wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    emulator.write_faults({"delay_seconds": HOLD_SECONDS})
    kube.annotate("KafkaConnector", connect_ns, a, {OFFSETS: "list"})
    h.wait_for("A's list holding the lock", lambda: decisions(emu_env, f"{connect_ns}/{a}: connector {a}: fault delay"),
               timeout=30)
    annotated = int(kube.annotate("KafkaConnector", connect_ns, b, {OFFSETS: "list"})["metadata"]["resourceVersion"])
    dropped = h.wait_for("B's annotation event dropped", lambda: _dropped_version(emu_env, b, annotated), timeout=30)
    emulator.clear_faults()  # A's list goes on and lets go of the lock
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, a, timeout=30)
    time.sleep(5)  # A's own follow-up events come and go; none of them is B's
    standing = h.annotations(kube.get("KafkaConnector", connect_ns, b)).get(OFFSETS)  # read before the log: see below
    if not _triggers_after(emu_env, connect_ns, b, dropped):
        # Nothing has reached B since: its annotation stands and nothing was listed, although the lock is free.
        assert standing == "list"
        assert kube.configmap(connect_ns, f"{b}-out") is None
    # Else an event of the real world came first: a watch the API server closed early, for one, is listed again and
    # every object handed on as ADDED. The check below holds either way; the annotation was read first, so a pass
    # that removed it shows in the log read after.
    if standing:
        kube.merge_patch("KafkaConnector", connect_ns, b, {"metadata": {"labels": {"nudge": "1"}}})  # any event
    wait_annotation_gone(kube, h, "KafkaConnector", connect_ns, b, timeout=30)
    assert kube.configmap(connect_ns, f"{b}-out") is not None
    listed_by = _pass_that_listed(emu_env, connect_ns, b)
    assert f"(resourceVersion {dropped})" not in listed_by, f"the dropped event was retried: {listed_by}"


def _log(emu_env):
    with open(emu_env.emulator_log, encoding="utf-8") as fh:
        return [line.rstrip("\n").split(" INFO ", 1)[-1] for line in fh]


def _dropped_version(emu_env, name, annotated):
    """The resourceVersion of ``name``'s first event at or after ``annotated`` (the annotation's) that was dropped
    for want of the lock; None until there is one. (Resource versions are etcd revisions here, one API server and one
    etcd: they compare as numbers.)"""
    for line in _log(emu_env):
        if f"lock not acquired within 10s: KafkaConnector {name} " in line:
            version = int(line.split("(resourceVersion ")[1].split(")")[0])
            if version >= annotated:
                return version
    return None


def _triggers_after(emu_env, ns, name, version):
    """What the emulator took after event ``version`` of connector ``name`` that can start a pass over it: its events
    and its KafkaConnect's (``connect``), and periodic passes."""
    lines = _log(emu_env)
    start = lines.index(f"KafkaConnector {ns}/{name}: MODIFIED event (resourceVersion {version}) received") + 1
    return [line for line in lines[start:] if line.startswith("periodic reconciliation") or (
        line.startswith((f"KafkaConnector {ns}/{name}: ", f"KafkaConnect {ns}/connect: ")) and line.endswith(" received"))]


def _pass_that_listed(emu_env, ns, name):
    """The event or pass that listed connector ``name``: passes hold the KafkaConnect's lock one at a time, so it is the
    last one to take that lock before the list."""
    lines = _log(emu_env)
    listed = next(i for i, line in enumerate(lines) if line.startswith(f"KafkaConnector {ns}/{name}: connector {name}: list ->"))
    return next(line for line in reversed(lines[:listed]) if line.startswith(f"KafkaConnect {ns}/connect: lock acquired: "))

@pytest.mark.exclusive
def test_periodic_pass_reaches_connectors_through_their_kafkaconnect(kube, h, emulator, connect_ns, tmp_path):
    """KafkaConnectAssemblyOperator#reconcileConnectors: with a short interval the failed alter is retried on every
    periodic KafkaConnect pass (there is no periodic pass of the KafkaConnector itself), and only then."""
    emulator.restart_emulator(interval=6)
    name = h.unique("periodic")
    kube.create_configmap(connect_ns, f"{name}-in", {"offsets.json": '{"offsets": []}'})
    kube.create(file_source(connect_ns, name, tmp_path / "absent.txt", h.unique("t"),
                            alterOffsets={"fromConfigMap": {"name": f"{name}-in"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})
    h.wait_for("the first attempts", lambda: attempts(emulator, connect_ns, name, "AlterOffsets") >= 2)
    wait_quiet(kube, h, "KafkaConnector", connect_ns, name, quiet=2)
    before, passes = attempts(emulator, connect_ns, name, "AlterOffsets"), len(decisions(emulator, "periodic reconc"))
    h.wait_for("two more periodic passes", lambda: len(decisions(emulator, "periodic reconc")) >= passes + 2,
               timeout=30)
    h.wait_for("an attempt per periodic pass", lambda: attempts(emulator, connect_ns, name, "AlterOffsets")
               >= before + 2, timeout=20)


@pytest.mark.exclusive
def test_fast_cadence_keeps_requeueing(kube, h, emulator, connect_ns, tmp_path):
    """--cadence fast: the old work queue re-queues every resource every interval, whatever its status."""
    emulator.restart_emulator(interval=2, cadence="fast")
    name = h.unique("fast")
    write_lines(tmp_path / "in.txt", 2)
    kube.create_configmap(connect_ns, f"{name}-in", {"offsets.json": '{"offsets": []}'})
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t"),
                            alterOffsets={"fromConfigMap": {"name": f"{name}-in"}}))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    kube.annotate("KafkaConnector", connect_ns, name, {OFFSETS: "alter"})
    h.wait_for("attempts every 2 s", lambda: attempts(emulator, connect_ns, name, "AlterOffsets") >= 5, timeout=30)


@pytest.mark.parametrize("value, uses", [("true", True), ("TRUE", True), ("True", True), ("yes", False),
                                         (" true", False)])
def test_boolean_annotations_parse_like_java(kube, h, connect_ns, tmp_path, value, uses):
    """Annotations#booleanAnnotation -> Boolean.parseBoolean: "true" in any case, nothing else (no trimming)."""
    cluster = "c" + h.unique("b")[-6:]
    kube.create({"apiVersion": f"kafka.strimzi.io/{V}", "kind": "KafkaConnect",
                 "metadata": {"name": cluster, "namespace": connect_ns,
                              "annotations": {"strimzi.io/use-connector-resources": value}},
                 "spec": {"replicas": 1, "bootstrapServers": "x:9092"}})
    obj = file_source(connect_ns, h.unique("bool"), tmp_path / "in.txt", h.unique("t"), state="stopped")
    obj["metadata"]["labels"]["strimzi.io/cluster"] = cluster
    kube.create(obj)
    cr = h.wait_for("Ready or NotReady", lambda: (lambda o: o if h.condition(o, "Ready") or h.condition(
        o, "NotReady") else None)(kube.get("KafkaConnector", connect_ns, obj["metadata"]["name"])))
    if uses:
        wait_connector_state(kube, h, connect_ns, obj["metadata"]["name"], "STOPPED")
    else:
        assert h.condition(cr, "NotReady")["reason"] == "NoSuchResourceException"


def test_kafkaconnect_with_zero_replicas_makes_its_connectors_not_ready(kube, h, connect_ns, tmp_path):
    """connectorEventHandler: a KafkaConnect scaled to 0 -> every connector event writes NotReady zeroReplicas."""
    kube.create({"apiVersion": f"kafka.strimzi.io/{V}", "kind": "KafkaConnect",
                 "metadata": {"name": "zero", "namespace": connect_ns,
                              "annotations": {"strimzi.io/use-connector-resources": "true"}},
                 "spec": {"replicas": 0, "bootstrapServers": "x:9092"}})
    obj = file_source(connect_ns, h.unique("zero"), tmp_path / "in.txt", "t")
    obj["metadata"]["labels"]["strimzi.io/cluster"] = "zero"
    kube.create(obj)
    cr = h.wait_for("NotReady", lambda: (lambda o: o if h.condition(o, "NotReady") else None)(
        kube.get("KafkaConnector", connect_ns, obj["metadata"]["name"])))
    cond = h.condition(cr, "NotReady")
    assert (cond["reason"], cond["message"]) == (
        "RuntimeException", f"Kafka Connect cluster 'zero' in namespace {connect_ns} has 0 replicas.")



@pytest.mark.exclusive
def test_stop_rest_error_is_a_not_ready_with_the_era_text(kube, h, faults, connect_ns, tmp_path):
    """updateState: a REST failure on stop fails the connector's reconcile: NotReady (not a Warning) whose reason
    and message follow the era (ConnectRestException up to 0.51, CompletionException with the class prefix in 1.x)."""
    name = h.unique("nostop")
    write_lines(tmp_path / "in.txt", 1)
    kube.create(file_source(connect_ns, name, tmp_path / "in.txt", h.unique("t")))
    wait_connector_state(kube, h, connect_ns, name, "RUNNING")
    faults({"connect_failures": [{"method": "PUT", "path_regex": f"/connectors/{name}/stop$", "status": 500}]})
    kube.merge_patch("KafkaConnector", connect_ns, name, {"spec": {"state": "stopped"}})
    cr = h.wait_for("NotReady", lambda: (lambda o: o if h.condition(o, "NotReady") else None)(
        kube.get("KafkaConnector", connect_ns, name)))
    cond = h.condition(cr, "NotReady")
    expected = rest_error("PUT", f"/connectors/{name}/stop", 500)
    assert (cond["reason"], cond["message"]) == (
        "CompletionException" if PROFILE.wraps_completion else "ConnectRestException", expected)
