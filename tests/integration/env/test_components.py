"""The real components of the test environment do what later tests rely on (issue 2, deliverable 3)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from kubernetes import client

from tests.env.clients import consume, produce
from tests.env.kafka import REQUIRED_PLUGINS
from tests.env.processes import alive
from tests.waits import eventually


def _wait_status(call, expected: int, timeout: float = 15.0) -> int:
    """Call until it answers ``expected`` (RBAC caches bindings for a moment); the last status otherwise."""
    def status() -> int:
        try:
            call()
            return 200
        except client.ApiException as e:
            return e.status

    try:
        return eventually(f"HTTP {expected}", lambda: (lambda s: s if s == expected else None)(status()), timeout, 0.2)
    except AssertionError:
        return status()


def test_rbac_denies_limited_user_until_a_role_is_bound(kube_api, limited_api, namespace):
    limited = client.CoreV1Api(limited_api)
    with pytest.raises(client.ApiException) as denied:
        limited.list_namespaced_config_map(namespace)
    assert denied.value.status == 403
    assert 'User "limited-user" cannot list resource "configmaps"' in json.loads(denied.value.body)["message"]

    rbac = client.RbacAuthorizationV1Api(kube_api)
    rbac.create_namespaced_role(namespace, client.V1Role(
        metadata=client.V1ObjectMeta(name="read-configmaps"),
        rules=[client.V1PolicyRule(api_groups=[""], resources=["configmaps"], verbs=["get", "list"])]))
    rbac.create_namespaced_role_binding(namespace, client.V1RoleBinding(
        metadata=client.V1ObjectMeta(name="limited-user-reads-configmaps"),
        role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="read-configmaps"),
        subjects=[client.RbacV1Subject(kind="User", name="limited-user", api_group="rbac.authorization.k8s.io")]))

    assert _wait_status(lambda: limited.list_namespaced_config_map(namespace), 200) == 200
    # The grant is exactly what was bound: other verbs and other namespaces stay forbidden.
    assert _wait_status(lambda: limited.list_namespaced_config_map("default"), 403, timeout=1) == 403
    with pytest.raises(client.ApiException) as create_denied:
        limited.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="x")))
    assert create_denied.value.status == 403


def test_client_certificate_users_authenticate_with_their_groups(kube_client_for):
    review = client.AuthenticationV1Api(kube_client_for("alice", ("team-a",))).create_self_subject_review(
        client.V1SelfSubjectReview())
    assert review.status.user_info.username == "alice"
    assert "team-a" in review.status.user_info.groups


def test_admin_creates_and_reads_a_kafkaconnector(kube_api, limited_api, namespace, env):
    """Created through the storage version and read through every served one (the profile's CRDs: v1beta2 only on
    0.45, both on 0.51, v1 only on 1.2); an unbound user is refused."""
    custom = client.CustomObjectsApi(kube_api)
    storage = env.profile.storage
    body = {"apiVersion": f"kafka.strimzi.io/{storage}", "kind": "KafkaConnector",
            "metadata": {"name": "file-source", "labels": {"strimzi.io/cluster": "no-such-connect"}},
            "spec": {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasksMax": 1,
                     "config": {"file": "/tmp/in.txt", "topic": "file-in"}, "state": "running"}}
    created = custom.create_namespaced_custom_object("kafka.strimzi.io", storage, namespace, "kafkaconnectors",
                                                     body)
    assert created["metadata"]["uid"]

    for version in env.profile.served:  # served through each version, with the spec preserved
        read = custom.get_namespaced_custom_object("kafka.strimzi.io", version, namespace, "kafkaconnectors",
                                                   "file-source")
        assert read["spec"]["class"] == body["spec"]["class"]
        assert read["spec"]["config"] == body["spec"]["config"]
        assert read["spec"]["state"] == "running"

    with pytest.raises(client.ApiException) as denied:
        client.CustomObjectsApi(limited_api).list_namespaced_custom_object(
            "kafka.strimzi.io", storage, namespace, "kafkaconnectors")
    assert denied.value.status == 403


def test_kafka_round_trips_records(topic, kafka_producer, kafka_consumer):
    values = [b"one", b"two", b"three"]
    produce(kafka_producer, topic, values, key=b"k")

    messages = consume(kafka_consumer(), [topic], count=3)

    assert [m.value() for m in messages] == values
    assert [m.offset() for m in messages] == [0, 1, 2]
    assert {m.key() for m in messages} == {b"k"}


def test_connect_lists_the_file_and_mirrormaker2_plugins(connect, env):
    status, plugins = connect.get("/connector-plugins")
    assert status == 200
    by_class = {p["class"]: p for p in plugins}
    for cls in REQUIRED_PLUGINS:
        assert cls in by_class, f"{cls} missing from {sorted(by_class)}"
    assert by_class["org.apache.kafka.connect.file.FileStreamSinkConnector"]["type"] == "sink"
    assert by_class["org.apache.kafka.connect.mirror.MirrorSourceConnector"]["type"] == "source"
    assert by_class["org.apache.kafka.connect.file.FileStreamSourceConnector"]["version"] == env.versions["kafka"]

    status, root = connect.get("/")
    assert status == 200 and root["version"] == env.versions["kafka"]


def test_emulator_can_be_stopped_restarted_and_given_faults(emulator):
    before = emulator.processes["strimzi-emulator"]
    emulator.stop_emulator()
    assert "strimzi-emulator" not in emulator.processes
    assert not alive(before)

    emulator.write_faults({"delay_seconds": 3})
    assert json.loads(Path(emulator.faults_file).read_text()) == {"delay_seconds": 3}

    restarted = emulator.start_emulator(interval=1)
    assert restarted.pid != before.pid
    assert "--interval" in restarted.argv and restarted.argv[restarted.argv.index("--interval") + 1] == "1"
    assert emulator.dead_components() == []


def test_no_secret_reaches_the_json_output_or_the_logs(env):
    tokens = [line.split(",")[0] for line in (Path(env.run_dir) / "pki" / "tokens.csv").read_text().splitlines()]
    # limited-user, and the token of the Strimzi operator's kubeconfig (its fabric8 client cannot read our keys)
    assert len(tokens) == 3 and all(len(t) > 30 for t in tokens)
    public = json.dumps(env.public())
    # every log, the Connect workers' (logs/workers/) included
    logs = [p.read_text(errors="replace") for p in (Path(env.run_dir) / "logs").rglob("*") if p.is_file()]
    for token in tokens:
        assert token not in public
        assert all(token not in text for text in logs)


def test_the_environment_stops_an_emulator_that_another_process_restarted(emulator):
    """The suite stops the environment it started with the records it holds; an exclusive test, in a pytest worker,
    restarts the emulator and saves the new process to env.json. The stop must take the new one from there (a CI
    run left such an emulator running, polling an API server that was gone)."""
    from tests.env.environment import Env

    held = Env.load(emulator.env_json)  # what the suite's process holds: the emulator as it was
    restarted = emulator.restart_emulator()  # another process restarts it and records it
    assert held.processes["strimzi-emulator"].pid != restarted.pid

    current = held.current_processes()
    assert current["strimzi-emulator"].pid == restarted.pid
    assert not alive(current["strimzi-emulator (earlier)"])  # stopped by the restart; stop() skips it


@pytest.mark.parametrize("role", ["broker", "connect"])
def test_the_kafka_jvms_load_their_classes_from_the_provisioned_archive(env, role):
    """The broker and the Connect worker start with their class-data archive (tests/env/cds.py), and the archive fits
    this JDK and these jars: -Xshare:on refuses to start when it does not, and class+load names the archive as the
    source of Connect's and Kafka's classes."""
    import subprocess

    from tests.env import cds
    from tests.env.assets import find_assets

    lib = find_assets().kafka_lib
    name = "kafka" if role == "broker" else "kafka-connect"
    assert cds.flags(lib, role), f"no {role} archive at {cds.archive(lib, role)}: run `bash tests/provision.sh cds`"
    assert cds.flags(lib, role)[0] in env.processes[name].argv
    main = {"broker": "kafka.Kafka", "connect": "org.apache.kafka.connect.cli.ConnectDistributed"}[role]
    run = subprocess.run(["java", "-Xshare:on", *cds.flags(lib, role), "-Xlog:class+load=info", "-cp", f"{lib}/*",
                          main], capture_output=True, text=True, timeout=60)
    shared = [line for line in run.stdout.splitlines()  # "(top)": the dynamic archive, not the JDK's own
              if "source: shared objects file (top)" in line and " java." not in line and " jdk." not in line]
    assert len(shared) > 20, run.stdout[-2000:] + run.stderr[-2000:]
