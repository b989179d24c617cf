"""GitOps create end to end: phase 1 adds a new connector (stopped, alterOffsets, the offsets ConfigMap, the record),
the controller syncs it, the operator creates it stopped (Strimzi 1.2's initial_state, the emulator's default),
``trigger`` applies the offsets, phase 2 sets the requested state: the sink's first record is the chosen one."""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from kubectl_offsets.cli.root import root as cli_root
from tests.env.clients import ConnectRest, produce, unique_name
from tests.waits import eventually

from .conftest import STRING_CONVERTER, commit_all, init_repo, wait_for_connector
from .test_end_to_end import connect_offsets, connector_state


def run(*args: str, code: int = 0):
    result = CliRunner().invoke(cli_root, list(args), catch_exceptions=False)
    assert result.exit_code == code, f"kubectl offsets {' '.join(args)}: {result.stdout}{result.stderr}"
    return result


def connector_file(path, name: str, topic: str, out_file) -> None:
    path.write_text(json.dumps({
        "apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
        "metadata": {"name": name, "labels": {"strimzi.io/cluster": "connect"}},
        "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
                 "config": {"topics": topic, "file": str(out_file), "key.converter": STRING_CONVERTER,
                            "value.converter": STRING_CONVERTER}}}))


def test_gitops_create_starts_a_new_connector_at_the_chosen_offset(env, namespace, kube_api, connect_cluster,
                                                                    controller, kafka_producer, topic, tmp_path):
    connect = ConnectRest(env.connect_url)
    name, out_file = unique_name("new-sink"), tmp_path / "sink.out"
    repo = init_repo(tmp_path / "repo")
    (repo / "deploy").mkdir()
    (repo / "deploy" / "kustomization.yaml").write_text(textwrap.dedent(f"""\
        # Applied by the GitOps controller.
        namespace: {namespace}
        resources:
          - settings.yaml
        """))
    (repo / "deploy" / "settings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
    commit_all(repo, "initial")
    produce(kafka_producer, topic, [f"r{i}" for i in range(8)])
    manifest = tmp_path / "sink.json"
    connector_file(manifest, name, topic, out_file)

    refused = run("gitops", "create", "-f", str(manifest), "--repo", str(repo), "--dir", "deploy",
                  "--set", f"{topic}:0=5", code=2)
    assert "--accept-start-window" in refused.stderr and not (repo / "deploy" / f"{name}.yaml").exists()

    run("gitops", "create", "-f", str(manifest), "--repo", str(repo), "--dir", "deploy", "--set", f"{topic}:0=5",
        "--strimzi-version", "1.2.0")
    commit_all(repo, "phase 1")
    phase1 = (repo / "deploy" / f"{name}.yaml").read_text()
    assert "state: stopped" in phase1 and "strimzi.io/connector-offsets" not in phase1
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "created STOPPED in Connect",
                       lambda: connector_state(connect, name) == "STOPPED")
    assert not out_file.exists() or out_file.read_text() == ""  # created stopped: nothing consumed

    # The operator's status can come after Connect's state (the real cadence); until then trigger rightly refuses.
    eventually("the operator's status for the new connector", lambda: _reported(env, namespace, name), timeout=180)
    run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig, "--timeout", "90s")
    assert connect_offsets(connect, name) == {0: 5}

    run("gitops", "next", name, "--repo", str(repo), "-n", namespace)
    commit_all(repo, "phase 2")
    phase2 = (repo / "deploy" / f"{name}.yaml").read_text()
    assert "state: stopped" not in phase2 and "alterOffsets" not in phase2 and "kubectl-offsets.io" not in phase2
    controller.sync(repo / "deploy")
    eventually("r5..r7 written", lambda: out_file.exists() and out_file.read_text().splitlines() == ["r5", "r6", "r7"])

    again = run("gitops", "create", "-f", str(manifest), "--repo", str(repo), "--dir", "deploy", "--from-scratch",
                "--strimzi-version", "1.2.0", code=5)
    assert "already defined" in again.stderr


def _reported(env, namespace: str, name: str) -> bool:
    from kubernetes import client

    from tests.env.clients import kube_api_client

    api = kube_api_client(env.kubeconfig)
    try:
        obj = client.CustomObjectsApi(api).get_namespaced_custom_object(
            "kafka.strimzi.io", env.profile.preferred_version, namespace, "kafkaconnectors", name)
    finally:
        api.close()
    return bool(((obj.get("status") or {}).get("connectorStatus") or {}).get("connector"))
