"""``kubectl offsets version`` against the real API server and the real Kafka Connect."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from kubernetes import client

from kubectl_offsets import __version__
from tests.env.kind.shared import create_kafka_connect

BIN = Path(sys.executable).parent


def run(env, *args: str, kubeconfig: str | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "KUBECONFIG": kubeconfig or env.kubeconfig}
    return subprocess.run([str(BIN / "kubectl-offsets"), "version", *args], capture_output=True, text=True,
                          env=environment, timeout=300)


@pytest.fixture
def kafka_connect(kube_api, namespace, env):
    """A KafkaConnect whose status the operator has written: status.url is the cluster-internal Service address, as
    Strimzi writes it. (Its spec is one the operator accepts: Strimzi's v1 CRD requires the group and topics.)"""
    create_kafka_connect(env, kube_api, namespace, "my-connect", version=env.profile.storage)
    custom = client.CustomObjectsApi(kube_api)
    url = (custom.get_namespaced_custom_object("kafka.strimzi.io", env.profile.storage, namespace, "kafkaconnects",
                                               "my-connect").get("status") or {}).get("url")
    assert url, "a Ready KafkaConnect without status.url"
    return namespace, url


def test_client_only_needs_no_cluster(env, tmp_path):
    result = run(env, "--client", kubeconfig=str(tmp_path / "missing"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Plugin Version: v{__version__} (python package, Python {sys.version.split()[0]})\n"


def test_cluster_internal_connect_url_is_unknown_with_the_reason(env, kafka_connect):
    namespace, url = kafka_connect
    started = time.monotonic()
    result = run(env, "-n", namespace)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"Plugin Version: v{__version__}")
    assert lines[1].startswith("Strimzi API: kafka.strimzi.io " + ", ".join(sorted(env.profile.served)))
    assert lines[2].startswith("Kafka Connect Version: unknown (kafkaconnect/my-connect: not reachable from here")
    assert time.monotonic() - started < 120  # the probe is bounded (2 s); the rest is start-up on a busy box


def test_connect_version_through_a_reachable_url(env, kafka_connect):
    """--connect-url stands for a port-forward: the real Connect answers with its version."""
    namespace, _ = kafka_connect
    result = run(env, "-n", namespace, "--connect-url", env.connect_url, "-o", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["kafkaConnect"] == [{"name": "my-connect", "namespace": namespace, "url": env.connect_url,
                                       "version": env.versions["kafka"], "reason": ""}]
    assert set(report["strimzi"]["served"]) == set(env.profile.served)
    # The plugin reads v1beta2 while it is served (its superset schema), v1 when only v1 is (Strimzi 1.x).
    used = env.profile.superset_version
    assert report["strimzi"]["used"] == {"KafkaConnector": used, "KafkaMirrorMaker2": used, "KafkaConnect": used}


def test_a_namespace_without_kafkaconnect(env, namespace):
    result = run(env, "-n", namespace)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"Kafka Connect Version: unknown (no KafkaConnect in namespace {namespace})"


def test_an_unreachable_cluster_fails_after_printing_the_plugin_version(env, tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("""apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-real-token}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
""")
    result = run(env, kubeconfig=str(kubeconfig))
    assert result.returncode == 11  # the API server gave no answers (issue 30: its own exit code)
    assert result.stdout.startswith("Plugin Version: ")
    assert result.stderr.startswith("error: cannot reach the API server")
    assert "not-a-real-token" not in result.stdout + result.stderr
