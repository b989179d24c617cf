"""What a kubectl user expects of gitops (issue 23 §4): the ConfigMap lands where the connector is, whatever the
kustomization says; conflicting flags are bad input (exit 2). Built with the real `kubectl kustomize`."""

from __future__ import annotations

import subprocess
import textwrap

import yaml

from tests.unit.core.gitops.helpers import cli

from .conftest import API_VERSION, KUBECTL, commit_all, init_repo


def _repo(tmp_path, kustomization: str, inner: str | None = None):
    repo = init_repo(tmp_path / "repo")
    deploy = repo / "deploy"
    (deploy / "base").mkdir(parents=True)
    (deploy / "kustomization.yaml").write_text(kustomization)
    (deploy / "base" / "kustomization.yaml").write_text(inner or "resources:\n  - sink.yaml\n")
    (deploy / "base" / "sink.yaml").write_text(textwrap.dedent(f"""\
        apiVersion: {API_VERSION}
        kind: KafkaConnector
        metadata:
          name: orders-sink
          namespace: team-a
          labels:
            strimzi.io/cluster: connect
        spec:
          class: org.apache.kafka.connect.file.FileStreamSinkConnector
          tasksMax: 1
          config:
            topics: orders
        """))
    commit_all(repo, "initial manifests")
    return repo


def _built(directory) -> list[dict]:
    result = subprocess.run([KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


def test_the_configmap_gets_the_connectors_namespace_when_the_kustomization_names_none(tmp_path):
    repo = _repo(tmp_path, "resources:\n  - base\n")
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=42", "--repo", str(repo), "--path", "deploy")
    assert result.exit_code == 0, result.stderr
    built = {(d["kind"], d["metadata"]["name"]): d for d in _built(repo / "deploy")}
    connector = built[("KafkaConnector", "orders-sink")]
    (configmap,) = [d for (kind, _), d in built.items() if kind == "ConfigMap"]
    name = connector["spec"]["alterOffsets"]["fromConfigMap"]["name"]
    assert configmap["metadata"]["name"] == name
    assert configmap["metadata"].get("namespace") == connector["metadata"]["namespace"] == "team-a"


def test_the_configmap_follows_an_inner_kustomizations_namespace(tmp_path):
    repo = _repo(tmp_path, "resources:\n  - base\n", inner="namespace: team-b\nresources:\n  - sink.yaml\n")
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=42", "--repo", str(repo), "--path", "deploy",
                 "-n", "team-b")
    assert result.exit_code == 0, result.stderr
    built = _built(repo / "deploy")
    namespaces = {d["kind"]: d["metadata"].get("namespace") for d in built}
    assert namespaces == {"KafkaConnector": "team-b", "ConfigMap": "team-b"}
