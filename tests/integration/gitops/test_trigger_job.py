"""--trigger job: the Job's own script, run with the Job's own identity (its ServiceAccount, impersonated; the test
environment has no kubelet to run pods), fires the alter exactly once; re-runs, re-created Jobs and re-synced phase-1
manifests do nothing; the Role allows nothing but that one resource."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from tests.env.clients import ConnectRest, produce, unique_name

from .conftest import KUBECTL, commit_all, sink_repo, wait_for_connector
from .test_end_to_end import annotations, connect_offsets, connector_state, run


def _job(controller, repo: Path) -> dict:
    docs = list(yaml.safe_load_all(controller.build(repo / "deploy")))
    return next(d for d in docs if d["kind"] == "Job")


def _run_job_script(job: dict, env, namespace: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run the container's command with its env, kubectl acting as the Job's ServiceAccount."""
    spec = job["spec"]["template"]["spec"]
    container = spec["containers"][0]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    wrapper = bin_dir / "kubectl"
    wrapper.write_text(f'#!/bin/sh\nexec {KUBECTL} --kubeconfig "{env.kubeconfig}" '
                       f'--as "system:serviceaccount:{namespace}:{spec["serviceAccountName"]}" "$@"\n')
    wrapper.chmod(0o755)
    variables = {e["name"]: e["value"] for e in container["env"]}
    variables.update(NAMESPACE=namespace, PATH=f"{bin_dir}:{os.environ['PATH']}")
    return subprocess.run(container["command"], env=variables, capture_output=True, text=True, timeout=120)


def test_trigger_job_fires_once_with_least_privilege(env, namespace, kube_api, connect_cluster, controller,
                                                     kafka_producer, topic, tmp_path):
    connect = ConnectRest(env.connect_url)
    name = unique_name("orders-sink")
    repo = sink_repo(tmp_path / "repo", namespace, name, topic, tmp_path / "sink.out")
    produce(kafka_producer, topic, [f"r{i}" for i in range(6)])
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "consumed", lambda: connect_offsets(connect, name) == {0: 6}
                       if connector_state(connect, name) == "RUNNING" else None)

    run("gitops", "alter", name, "--repo", str(repo), "--set", f"{topic}:0=2", "--trigger", "job")
    commit_all(repo, "phase 1 with a trigger Job")
    controller.sync(repo / "deploy")
    job = _job(controller, repo)
    assert job["spec"]["ttlSecondsAfterFinished"] > 0 and job["metadata"]["name"].endswith(
        json_id(kube_api, namespace, name)[:8])

    first = _run_job_script(job, env, namespace, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "done: the operator has processed the alter request" in first.stdout
    assert connect_offsets(connect, name) == {0: 2}
    assert annotations(kube_api, namespace, name)["kubectl-offsets.io/triggered"] == json_id(kube_api, namespace, name)

    # Re-run (pod retry, Job re-created after its TTL, Argo hook on the next sync) and re-sync: nothing fires.
    for _ in range(2):
        controller.sync(repo / "deploy")
        again = _run_job_script(job, env, namespace, tmp_path)
        assert again.returncode == 0 and "already triggered; nothing to do" in again.stdout
        assert "strimzi.io/connector-offsets" not in annotations(kube_api, namespace, name)
    assert connect_offsets(connect, name) == {0: 2}

    # Least privilege: the Job's identity may patch exactly this resource and nothing else.
    sa = f"system:serviceaccount:{namespace}:{job['spec']['template']['spec']['serviceAccountName']}"

    def can(*what):
        out = subprocess.run([KUBECTL, "--kubeconfig", env.kubeconfig, "-n", namespace, "auth", "can-i", *what,
                              "--as", sa], capture_output=True, text=True)
        return out.stdout.strip() == "yes"

    assert can("patch", f"kafkaconnectors.kafka.strimzi.io/{name}")
    assert not can("patch", "kafkaconnectors.kafka.strimzi.io/another-connector")
    assert not can("delete", f"kafkaconnectors.kafka.strimzi.io/{name}")
    assert not can("get", "configmaps")
    assert not can("list", "kafkaconnectors.kafka.strimzi.io")

    # Phase 2 removes the Job and its RBAC from the repository.
    run("gitops", "next", name, "--repo", str(repo))
    kinds = {d["kind"] for d in yaml.safe_load_all(controller.build(repo / "deploy"))}
    assert kinds == {"KafkaConnector"}


def json_id(kube_api, namespace, name) -> str:
    import json

    return json.loads(annotations(kube_api, namespace, name)["kubectl-offsets.io/gitops"])["id"]


def test_a_second_operation_on_the_same_resource_fires_its_own_job(env, namespace, kube_api, connect_cluster,
                                                                    controller, kafka_producer, topic, tmp_path):
    """The first operation's marker stays on the resource; the second Job must replace it (annotate --overwrite),
    or it retries its patch until its deadline and the second operation never fires. The resource's name is long
    enough (44 characters) that the Job name needs the hash-shortened form."""
    connect = ConnectRest(env.connect_url)
    name = unique_name("orders-sink-with-a-rather-long-name")
    repo = sink_repo(tmp_path / "repo", namespace, name, topic, tmp_path / "sink.out")
    produce(kafka_producer, topic, [f"r{i}" for i in range(6)])
    controller.sync(repo / "deploy")
    wait_for_connector(kube_api, namespace, name, "consumed", lambda: connect_offsets(connect, name) == {0: 6}
                       if connector_state(connect, name) == "RUNNING" else None)

    for offset in (2, 4):
        run("gitops", "alter", name, "--repo", str(repo), "--set", f"{topic}:0={offset}", "--trigger", "job")
        commit_all(repo, f"phase 1: offset {offset}")
        controller.sync(repo / "deploy")
        job = _job(controller, repo)
        assert len(job["metadata"]["name"]) <= 63
        fired = _run_job_script(job, env, namespace, tmp_path)
        assert fired.returncode == 0, fired.stdout + fired.stderr
        assert "done: the operator has processed the alter request" in fired.stdout
        assert connect_offsets(connect, name) == {0: offset}
        marker = annotations(kube_api, namespace, name)["kubectl-offsets.io/triggered"]
        assert marker == json_id(kube_api, namespace, name)
        run("gitops", "next", name, "--repo", str(repo))
        commit_all(repo, "phase 2")
        controller.sync(repo / "deploy")
        wait_for_connector(kube_api, namespace, name, "running again",
                           lambda: connector_state(connect, name) == "RUNNING")
