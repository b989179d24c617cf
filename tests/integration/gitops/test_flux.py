"""GitOps mode with Flux in the loop: Flux's own source-controller and kustomize-controller (tests/env/flux.py) clone
the repository from a git server over HTTP and apply it with server-side apply, against Strimzi's real operator.
Judged by Connect's REST API and the kubernetes client, never by the plugin's own ``list``.

For a sink KafkaConnector and for a KafkaMirrorMaker2's source connector: the resources come from the repository;
phase 1 is pushed (a branch merged, or straight to the watched branch) and Flux stops the connector; ``trigger``
fires once; phase 2 is merged and Flux resumes it at the new offsets; forced Flux reconciles after that never fire
the operation again. And why the rules exist: a one-shot annotation committed by hand is re-applied by Flux after
the operator removes it (the operation fires on every reconcile), and an empty one makes the operator refuse the
resource. docs/gitops.md ("GitOps under Flux") writes up what these tests show."""

from __future__ import annotations

import json

import pytest
import yaml

from kubectl_offsets.conventions import ANNOTATION_GITOPS, ANNOTATION_TRIGGERED, FIELD_MANAGER
from tests.env.clients import ConnectRest, create_topic, one_mirror_mm2, produce, unique_name

from tests.waits import eventually

from .conftest import API_VERSION, sink_yaml, wait_for_connector
from .flux_loop import describe_owners, flux_repo, flux_run, kubectl, owner_of
from .test_end_to_end import connect_offsets, connector_state, run

ONE_SHOT = "strimzi.io/connector-offsets"
FLUX_MANAGER = "kustomize-controller (Apply)"
OURS = f"{FIELD_MANAGER} (Update)"
RECONCILES = 3  # forced Flux reconciles after each operation, none of which may fire it again
# A new KafkaConnect or KafkaMirrorMaker2 is a new Connect worker: 6-20 s when the machine is idle, minutes at load 30.
STARTUP_TIMEOUT = 420


@pytest.fixture(scope="module")
def flux(env, tmp_path_factory):
    run_ = flux_run(env, tmp_path_factory.mktemp("flux"))
    yield run_
    run_.close()


@pytest.fixture
def repo(flux, namespace, tmp_path):
    repository = flux_repo(flux, namespace, tmp_path / "repo")
    yield repository
    for what, took in repository.timings:  # shown with -rA or on failure: how long each phase took to sync
        print(f"flux sync {what}: {took}")
    repository.close()


def _connector(kube_api, namespace: str, name: str, plural: str = "kafkaconnectors") -> dict:
    from kubernetes import client

    return client.CustomObjectsApi(kube_api).get_namespaced_custom_object(
        "kafka.strimzi.io", API_VERSION.split("/")[1], namespace, plural, name)


def _annotations(resource: dict) -> dict:
    return resource["metadata"].get("annotations") or {}


def _connect_yaml(env, kube_api, namespace: str) -> str:
    from kubernetes import client

    from tests.env.kind.shared import connect_spec_for

    return yaml.safe_dump({"apiVersion": API_VERSION, "kind": "KafkaConnect",
                           "metadata": {"name": "connect", "annotations": {"strimzi.io/use-connector-resources": "true"}},
                           "spec": connect_spec_for(env, client.CoreV1Api(kube_api), namespace, "connect")})


def _kustomization(namespace: str, *resources: str) -> str:
    return f"namespace: {namespace}\nresources:\n" + "".join(f"  - {r}\n" for r in resources)


def _stopped_without_tasks(connect: ConnectRest, name: str) -> bool:
    status, body = connect.get(ConnectRest.connector_path(name, "/status"))
    return status == 200 and body["connector"]["state"] == "STOPPED" and not body.get("tasks")


def _running_at(connect: ConnectRest, name: str, offsets: dict[int, int]):
    return lambda: connector_state(connect, name) == "RUNNING" and connect_offsets(connect, name) == offsets


def _force_reconciles(repo, what: str) -> None:
    for i in range(RECONCILES):
        repo.sync(f"{what}, forced reconcile {i + 1}")


def test_sink_phase1_trigger_phase2_under_flux(env, namespace, kube_api, repo, kafka_producer, topic, tmp_path):
    connect = ConnectRest(env.connect_url)
    name = unique_name("orders-sink")
    out_file = tmp_path / "sink.out"
    produce(kafka_producer, topic, [f"record-{i}" for i in range(10)])

    # 1. The KafkaConnect and the sink come from the repository, synced by Flux.
    (repo.deploy / "connect.yaml").write_text(_connect_yaml(env, kube_api, namespace))
    (repo.deploy / "sink.yaml").write_text(sink_yaml(name, topic, out_file))
    (repo.deploy / "kustomization.yaml").write_text(_kustomization(namespace, "connect.yaml", "sink.yaml"))
    repo.push("the orders sink and its Connect cluster")
    repo.sync("the KafkaConnect and the sink (new)")
    wait_for_connector(kube_api, namespace, name, "the sink RUNNING, at 10", _running_at(connect, name, {0: 10}),
                       timeout=STARTUP_TIMEOUT)
    live = _connector(kube_api, namespace, name)
    assert owner_of(live, "spec.class") == [FLUX_MANAGER], describe_owners(live)

    # 2. Phase 1 pushed as a branch, merged, synced: STOPPED, the offsets ConfigMap exists, nothing fired.
    run("gitops", "alter", name, "--repo", str(repo.dir), "-n", namespace, "--set", f"{topic}:0=3",
        "--branch", "offsets-phase1", "--push")
    repo.merge("offsets-phase1")
    repo.sync("phase 1")
    wait_for_connector(kube_api, namespace, name, "STOPPED in Connect",
                       lambda: connector_state(connect, name) == "STOPPED")
    live = _connector(kube_api, namespace, name)
    configmap = live["spec"]["alterOffsets"]["fromConfigMap"]["name"]
    assert json.loads(kubectl_get_configmap(env, namespace, configmap)["data"]["offsets.json"])["offsets"]
    assert owner_of(live, "spec.state") == [FLUX_MANAGER] and ONE_SHOT not in _annotations(live)
    assert connect_offsets(connect, name) == {0: 10}
    record = json.loads(_annotations(live)[ANNOTATION_GITOPS])

    # 3. The trigger, once: the offsets change in Connect; the marker and the journal are the plugin's own fields.
    run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig, "--timeout", "120s")
    assert connect_offsets(connect, name) == {0: 3}
    live = _connector(kube_api, namespace, name)
    assert _annotations(live)[ANNOTATION_TRIGGERED] == record["id"] and ONE_SHOT not in _annotations(live)
    assert owner_of(live, f"metadata.annotations.{ANNOTATION_TRIGGERED}") == [OURS], describe_owners(live)

    # Flux's drift correction leaves the marker (and the operator's removal of the one-shot annotation) alone, so a
    # second trigger still knows it is done. A field manager whose name starts with "kubectl" would be taken over
    # by Flux here and the marker pruned (docs/gitops.md).
    _force_reconciles(repo, "phase 1")
    live = _connector(kube_api, namespace, name)
    assert _annotations(live).get(ANNOTATION_TRIGGERED) == record["id"], describe_owners(live)
    assert ONE_SHOT not in _annotations(live)
    assert "already triggered" in run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig).stderr
    assert connect_offsets(connect, name) == {0: 3}

    # 4. Phase 2 merged and synced: RUNNING from offset 3, records 3..9 replayed; Flux dropped state and the stanza.
    run("gitops", "next", name, "--repo", str(repo.dir), "-n", namespace, "--branch", "offsets-phase2", "--push")
    repo.merge("offsets-phase2")
    repo.sync("phase 2")
    wait_for_connector(kube_api, namespace, name, "RUNNING again, caught up", _running_at(connect, name, {0: 10}),
                       timeout=120)
    assert out_file.read_text().splitlines()[10:] == [f"record-{i}" for i in range(3, 10)]
    live = _connector(kube_api, namespace, name)
    assert "state" not in live["spec"] and "alterOffsets" not in live["spec"]
    assert ANNOTATION_GITOPS not in _annotations(live)
    assert kubectl_get_configmap(env, namespace, configmap) is None  # pruned by Flux

    # 5. Forced reconciles never fire the operation again: Connect's offsets stay, no annotation appears.
    produce(kafka_producer, topic, [f"record-{i}" for i in range(10, 12)])
    eventually("the two new records", lambda: connect_offsets(connect, name) == {0: 12})
    _force_reconciles(repo, "phase 2")
    live = _connector(kube_api, namespace, name)
    assert ONE_SHOT not in _annotations(live) and connect_offsets(connect, name) == {0: 12}
    assert connector_state(connect, name) == "RUNNING"
    assert len(out_file.read_text().splitlines()) == 19  # 10, then 3..9 replayed once, then the two new ones


def kubectl_get_configmap(env, namespace: str, name: str) -> dict | None:
    import subprocess

    result = subprocess.run(["/usr/bin/kubectl", "--kubeconfig", env.kubeconfig, "-n", namespace, "get",
                             "configmap", name, "-o", "json"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        assert "NotFound" in result.stderr, result.stderr
        return None
    return json.loads(result.stdout)


def test_mirrormaker2_source_connector_under_flux(env, namespace, kube_api, repo, kafka_admin, kafka_producer):
    connect = ConnectRest(env.connect_url)
    src, tgt = unique_name("src").replace("-", ""), unique_name("tgt").replace("-", "")
    topic, name = create_topic(kafka_admin, unique_name("mm2in")), unique_name("mm2")
    produce(kafka_producer, topic, [f"m-{i}" for i in range(5)])
    source = f"{src}->{tgt}.MirrorSourceConnector"
    mm2 = one_mirror_mm2(name, src, tgt, env.bootstrap_servers, {
        "sourceConnector": {"tasksMax": 1, "config": {"refresh.topics.interval.seconds": 2,
                                                      "sync.topic.configs.enabled": False,
                                                      "heartbeats.replication.enabled": False}},
        "topicsPattern": f"^{topic}$", "groupsPattern": "^none$"})
    mm2["metadata"].pop("namespace", None)
    (repo.deploy / "mirror.yaml").write_text(yaml.safe_dump(mm2, sort_keys=False))
    (repo.deploy / "kustomization.yaml").write_text(_kustomization(namespace, "mirror.yaml"))
    repo.push("a mirror")
    repo.sync("the KafkaMirrorMaker2 (new)")
    eventually("5 records replicated", lambda: _source_offset(connect, source) == 4, timeout=STARTUP_TIMEOUT)

    # Phase 1 straight to the watched branch (a team that lets the tool push there), Flux stops the one connector.
    # main is checked out in --repo: the plugin pushes it and leaves the checkout alone, saying how to update it.
    phase1 = run("gitops", "alter", f"kmm2/{name}", "--connector", "source", "--repo", str(repo.dir), "-n", namespace,
                 "--set", f"{topic}:0=1", "--branch", "main", "--push", "--allow-default-branch")
    assert "git pull --ff-only" in phase1.stdout + phase1.stderr, phase1.stderr
    repo.git("pull", "--ff-only")
    repo.sync("phase 1")
    eventually("the source connector STOPPED", lambda: connector_state(connect, source) == "STOPPED", timeout=120)

    run("trigger", f"kmm2/{name}", "--connector", source, "-n", namespace, "--kubeconfig", env.kubeconfig,
        "--timeout", "120s")
    assert _source_offset(connect, source) == 1
    _force_reconciles(repo, "phase 1")
    live = _connector(kube_api, namespace, name, "kafkamirrormaker2s")
    assert not {ONE_SHOT, "strimzi.io/mirrormaker-connector"} & set(_annotations(live))
    assert ANNOTATION_TRIGGERED in _annotations(live), describe_owners(live)

    run("gitops", "next", f"kmm2/{name}", "--connector", source, "--repo", str(repo.dir), "-n", namespace,
        "--branch", "main", "--push", "--allow-default-branch")
    repo.sync("phase 2")
    eventually("the source connector RUNNING", lambda: connector_state(connect, source) == "RUNNING", timeout=120)
    eventually("replication resumed after record 1 and caught up", lambda: _source_offset(connect, source) == 4,
             timeout=120)
    _force_reconciles(repo, "phase 2")
    live = _connector(kube_api, namespace, name, "kafkamirrormaker2s")
    assert not {ONE_SHOT, "strimzi.io/mirrormaker-connector"} & set(_annotations(live))
    assert _source_offset(connect, source) == 4 and connector_state(connect, source) == "RUNNING"


def _source_offset(connect: ConnectRest, connector: str) -> int | None:
    status, body = connect.get(ConnectRest.connector_path(connector, "/offsets"))
    offsets = (body or {}).get("offsets") or [] if status == 200 else []
    return offsets[0]["offset"]["offset"] if offsets else None


def test_a_one_shot_annotation_committed_by_hand_fires_on_every_flux_reconcile(env, namespace, kube_api, repo,
                                                                              kafka_producer, topic, tmp_path):
    """What the plugin's rules prevent, shown with Flux: the operator removes the annotation, Flux puts it back, the
    operator fires again. And an empty value: the operator refuses the resource."""
    connect = ConnectRest(env.connect_url)
    name = unique_name("hand-sink")
    produce(kafka_producer, topic, [f"record-{i}" for i in range(10)])
    (repo.deploy / "connect.yaml").write_text(_connect_yaml(env, kube_api, namespace))
    (repo.deploy / "sink.yaml").write_text(sink_yaml(name, topic, tmp_path / "sink.out"))
    (repo.deploy / "kustomization.yaml").write_text(_kustomization(namespace, "connect.yaml", "sink.yaml"))
    repo.push("a sink")
    repo.sync("the KafkaConnect and the sink (new)")
    wait_for_connector(kube_api, namespace, name, "the sink at 10", _running_at(connect, name, {0: 10}), timeout=STARTUP_TIMEOUT)

    # The naive GitOps change: stopped, alterOffsets, the ConfigMap, and the one-shot annotation, all committed.
    offsets = {"offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 3}}]}
    (repo.deploy / "hand-offsets.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hand-offsets"},
        "data": {"offsets.json": json.dumps(offsets)}}))
    sink = yaml.safe_load((repo.deploy / "sink.yaml").read_text())
    sink["metadata"]["annotations"] = {ONE_SHOT: "alter"}
    sink["spec"].update(state="stopped", alterOffsets={"fromConfigMap": {"name": "hand-offsets"}})
    (repo.deploy / "sink.yaml").write_text(yaml.safe_dump(sink))
    (repo.deploy / "kustomization.yaml").write_text(_kustomization(namespace, "connect.yaml", "sink.yaml",
                                                                   "hand-offsets.yaml"))
    repo.push("stop the sink and alter its offsets (by hand, with the annotation)")
    repo.sync("the hand-written alter")
    wait_for_connector(kube_api, namespace, name, "the alter to 3 done and the annotation removed by the operator",
                       lambda: connect_offsets(connect, name) == {0: 3}
                       and ONE_SHOT not in _annotations(_connector(kube_api, namespace, name)), timeout=180)

    # Move the offsets in Connect (the connector is STOPPED, Connect allows it); a Flux reconcile puts the annotation
    # back and the operator alters again, to 3. Every reconcile does, for as long as the commit stays.
    for moved_to in (7, 5):
        _move_offsets(connect, name, topic, moved_to)
        before_sync = _connector(kube_api, namespace, name)["metadata"]["resourceVersion"]
        repo.sync(f"re-fire after the offset moved to {moved_to}")
        assert _annotation_put_back_and_removed(kube_api, namespace, name, before_sync, timeout=180), \
            "Flux's re-apply did not bring the annotation back, or the operator did not remove it"
        # ... and its pass over: the alter done. (A pass whose removal met a 409 runs again and alters again, so
        # offsets at 3 alone do not say the operator is done with it.)
        wait_for_connector(kube_api, namespace, name, "the alter fired again by Flux's re-apply, the annotation removed",
                           lambda: connect_offsets(connect, name) == {0: 3}
                           and ONE_SHOT not in _annotations(_connector(kube_api, namespace, name)), timeout=180)

    # The plugin refuses to work on such a repository, before writing anything.
    before = repo.git("status", "--porcelain"), (repo.deploy / "sink.yaml").read_text()
    refused = run_refused("gitops", "reset", name, "--repo", str(repo.dir), "-n", namespace)
    assert ONE_SHOT in refused and (repo.git("status", "--porcelain"), (repo.deploy / "sink.yaml").read_text()) \
        == before

    # An empty value: Strimzi's case-sensitive valueOf fails and the operator reports the resource NotReady.
    sink["metadata"]["annotations"] = {ONE_SHOT: ""}
    (repo.deploy / "sink.yaml").write_text(yaml.safe_dump(sink))
    repo.push("an empty annotation, as a template that renders nothing writes it")
    repo.sync("the empty annotation")
    condition = wait_for_connector(kube_api, namespace, name, "the operator refusing the empty value",
                                   lambda: _not_ready_message(_connector(kube_api, namespace, name)), timeout=180)
    assert "No enum constant" in condition, condition


def _move_offsets(connect: ConnectRest, name: str, topic: str, to: int) -> None:
    """Move the sink's offsets in Connect, as someone fixing things by hand would, until the move holds.

    Strimzi reconciles the copy of the resource it holds, not a fresh read: when two copies carry the annotation (the
    event of Flux's apply and the periodic pass's list of the same moment), the second pass alters again after the
    first removed the annotation, and a move made in between is undone (a CI run of 2026-11-29 read 3 back right after
    moving to 5). The next move holds."""
    def moved() -> bool:
        # Connect takes offsets only from a connector whose target state is STOPPED and whose task list is empty
        # (Herder#modifyConnectorOffsetsChecks); the operator's pass being over does not say both are (a CI run of
        # 2026-11-29 had this PATCH refused once): Connect's own status first.
        if not _stopped_without_tasks(connect, name):
            return False
        status, body = connect.patch(ConnectRest.connector_path(name, "/offsets"), {"offsets": [
            {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": to}}]})
        assert status == 200, body
        return connect_offsets(connect, name) == {0: to}
    eventually(f"{name}'s offsets moved to {to} in Connect (again if a late pass undid it)", moved, 90)


def _annotation_put_back_and_removed(kube_api, namespace: str, name: str, since: str, timeout: float) -> bool:
    """Watch the KafkaConnector from resourceVersion ``since``: True once a version with the one-shot annotation
    (Flux's re-apply) is followed by one without (the operator's pass). Reading the resource after the sync could miss
    both: the operator can be done before the sync returns."""
    from kubernetes import client, watch

    seen = False
    stream = watch.Watch()
    for event in stream.stream(client.CustomObjectsApi(kube_api).list_namespaced_custom_object, "kafka.strimzi.io",
                               API_VERSION.split("/")[1], namespace, "kafkaconnectors",
                               field_selector=f"metadata.name={name}", resource_version=since,
                               timeout_seconds=int(timeout)):
        present = ONE_SHOT in _annotations(event["object"])
        if seen and not present:
            stream.stop()
            return True
        seen = seen or present
    return False


def _not_ready_message(resource: dict) -> str | None:
    for condition in (resource.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "NotReady" and condition.get("status") == "True":
            return condition.get("message") or condition.get("reason") or "NotReady"
    return None


def run_refused(*args: str) -> str:
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root as cli_root

    result = CliRunner().invoke(cli_root, list(args), catch_exceptions=False)
    assert result.exit_code == 5, result.stderr
    return result.stderr


def test_flux_prunes_what_kubectl_wrote_and_keeps_what_the_plugin_wrote(env, namespace, repo):
    """The reason for the plugin's field manager, on a plain ConfigMap (seconds, no Connect): Flux takes over the
    fields of every manager whose name starts with "kubectl" and its next apply prunes them; the plugin's stay."""
    (repo.deploy / "settings.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "annotations": {"declared": "yes"}},
        "data": {"a": "1"}}))
    (repo.deploy / "kustomization.yaml").write_text(_kustomization(namespace, "settings.yaml"))
    repo.push("a ConfigMap")
    repo.sync("a ConfigMap (new)")
    writers = {FIELD_MANAGER: "ours", "kubectl-annotate": "kubectl", "kubectl-offsets": "old-name"}
    for manager, key in writers.items():
        kubectl(env, namespace, "annotate", "configmap", "settings", f"{key}=1", f"--field-manager={manager}")
    repo.sync("a forced reconcile")
    live = json.loads(kubectl(env, namespace, "get", "configmap", "settings", "-o", "json", "--show-managed-fields"))
    assert _annotations(live) == {"declared": "yes", "ours": "1"}, describe_owners(live)
    assert owner_of(live, "metadata.annotations.ours") == [OURS]
