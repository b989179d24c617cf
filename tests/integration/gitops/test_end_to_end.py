"""GitOps end to end, against the real API server, Kafka, Connect and the Strimzi operator emulator:
phase 1 applied like a GitOps controller does, the trigger, phase 2; the offsets in Connect are the requested ones,
the connector runs again, and re-applying phase 1 and phase 2 any number of times never fires the operation again.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from kubectl_offsets.cli.root import root as cli_root
from tests.env.clients import ConnectRest, produce, unique_name

from .conftest import API_VERSION, commit_all, sink_repo, wait_for_connector


def run(*args: str):
    result = CliRunner().invoke(cli_root, list(args), catch_exceptions=False)
    assert result.exit_code == 0, f"kubectl offsets {' '.join(args)}: {result.stderr}"
    return result


def connector_state(connect: ConnectRest, name: str) -> str | None:
    status, body = connect.get(ConnectRest.connector_path(name, "/status"))
    return (body or {}).get("connector", {}).get("state") if status == 200 else None


def connect_offsets(connect: ConnectRest, name: str) -> dict[int, int]:
    status, body = connect.get(ConnectRest.connector_path(name, "/offsets"))
    assert status == 200, body
    return {o["partition"]["kafka_partition"]: o["offset"]["kafka_offset"] for o in body["offsets"]}


def annotations(kube_api, namespace: str, name: str) -> dict[str, str]:
    from kubernetes import client

    obj = client.CustomObjectsApi(kube_api).get_namespaced_custom_object(
        "kafka.strimzi.io", API_VERSION.split("/")[1], namespace, "kafkaconnectors", name)
    return obj["metadata"].get("annotations") or {}


def test_gitops_alter_phase1_trigger_phase2_and_no_refire(env, namespace, kube_api, connect_cluster, controller,
                                                          kafka_producer, topic, tmp_path):
    connect = ConnectRest(env.connect_url)
    name = unique_name("orders-sink")
    out_file = tmp_path / "sink.out"
    repo = sink_repo(tmp_path / "repo", namespace, name, topic, out_file)
    produce(kafka_producer, topic, [f"record-{i}" for i in range(10)])

    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "the sink to consume 10 records",
                       lambda: connect_offsets(connect, name) == {0: 10}
                       if connector_state(connect, name) == "RUNNING" else None)

    # Phase 1 in the repository, reviewed and merged (here: committed), then synced.
    run("gitops", "alter", name, "--repo", str(repo), "--set", f"{topic}:0=3", "-n", namespace)
    commit_all(repo, "phase 1")
    phase1 = (repo / "deploy" / "sink.yaml").read_text()
    assert "strimzi.io/connector-offsets" not in phase1 and "state: stopped" in phase1
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "STOPPED in Connect",
                       lambda: connector_state(connect, name) == "STOPPED")
    assert connect_offsets(connect, name) == {0: 10}  # nothing fired by the sync itself

    # A dry run checks and says what it would fire, and fires nothing (the same flags as every changing command).
    dry = run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig, "--dry-run", "--yes")
    assert "dry run: trigger would fire the alter of operation " in dry.stdout and "nothing was changed" in dry.stderr
    assert "kubectl-offsets.io/triggered" not in annotations(kube_api, namespace, name)
    assert connect_offsets(connect, name) == {0: 10}

    # The trigger, once.
    run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig, "--timeout", "90s")
    assert connect_offsets(connect, name) == {0: 3}
    record = json.loads(annotations(kube_api, namespace, name)["kubectl-offsets.io/gitops"])
    assert annotations(kube_api, namespace, name)["kubectl-offsets.io/triggered"] == record["id"]

    # A second trigger and any number of phase-1 syncs fire nothing.
    again = run("trigger", name, "-n", namespace, "--kubeconfig", env.kubeconfig)
    assert "already triggered" in again.stderr
    for _ in range(3):
        controller.sync(repo / "deploy")
        assert "strimzi.io/connector-offsets" not in annotations(kube_api, namespace, name)
    assert connect_offsets(connect, name) == {0: 3}

    # Phase 2: back to running (state absent again), stanza and ConfigMap gone from the repository.
    run("gitops", "next", name, "--repo", str(repo), "-n", namespace)
    commit_all(repo, "phase 2")
    assert (repo / "deploy" / "sink.yaml").read_text() == _initial_sink(repo)
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "RUNNING again and resumed at 3",
                       lambda: connect_offsets(connect, name) == {0: 10}
                       if connector_state(connect, name) == "RUNNING" else None)
    lines = out_file.read_text().splitlines()
    assert lines[10:] == [f"record-{i}" for i in range(3, 10)]  # replayed from the requested offset

    # Re-applying phase 1 and phase 2 manifests again and again never re-fires the alter.
    for _ in range(2):
        _sync_revision(controller, repo, "HEAD~1")  # phase 1 again: the connector stops, nothing fires
        wait_for_connector(kube_api, namespace, name, "STOPPED", lambda: connector_state(connect, name) == "STOPPED")
        assert "strimzi.io/connector-offsets" not in annotations(kube_api, namespace, name)
        assert connect_offsets(connect, name) == {0: 10}
        _sync_revision(controller, repo, "HEAD")
        wait_for_connector(kube_api, namespace, name, "RUNNING", lambda: connector_state(connect, name) == "RUNNING")
        assert connect_offsets(connect, name) == {0: 10}
    assert len(out_file.read_text().splitlines()) == 17  # no replay beyond the one requested


def _initial_sink(repo):
    from .conftest import git

    return git(repo, "show", "HEAD~2:deploy/sink.yaml") + "\n"


def _sync_revision(controller, repo, revision: str) -> None:
    """Apply the repository as of ``revision`` (a GitOps controller pointed at an older commit, e.g. a revert)."""
    import subprocess
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", tmp + "/w", revision], cwd=repo, check=True)
        try:
            controller.sync(Path(tmp) / "w" / "deploy")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tmp + "/w"], cwd=repo, check=True)


def test_shift_by_from_cluster_lists_live_offsets(env, namespace, kube_api, connect_cluster, controller,
                                                  kafka_producer, topic, tmp_path):
    connect = ConnectRest(env.connect_url)
    name = unique_name("orders-sink")
    repo = sink_repo(tmp_path / "repo", namespace, name, topic, tmp_path / "sink.out")
    produce(kafka_producer, topic, [f"r{i}" for i in range(10)])
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "consumed", lambda: connect_offsets(connect, name) == {0: 10}
                       if connector_state(connect, name) == "RUNNING" else None)
    result = run("gitops", "alter", name, "--repo", str(repo), "-n", namespace, "--shift-by", "-4", "--topic", topic,
                 "--from-cluster", "--kubeconfig", env.kubeconfig, "-o", "diff")
    assert '"kafka_offset": 6' in result.stdout
    assert "state: stopped" in result.stdout
