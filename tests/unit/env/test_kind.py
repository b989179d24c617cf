"""tests/env/kind: the kind environment's manifests per profile, and `up --kind` without Docker."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.env.kind import manifests

REPO = Path(__file__).resolve().parents[3]


def _up_kind(path: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=path)
    return subprocess.run([sys.executable, "-m", "tests.env", "up", "--kind", "--json"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def test_up_kind_without_docker_fails_with_one_line(tmp_path):
    """No docker command at all: exit 1, one line naming the problem, nothing on stdout, no run dir made."""
    result = _up_kind(str(tmp_path))  # an empty PATH directory: no docker, no kind, no kubectl

    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tests.env up --kind: Docker is not available (no `docker` command on PATH)")


def test_up_kind_with_a_docker_that_does_not_answer(tmp_path):
    """A docker client whose daemon is gone (this machine): still one line."""
    fake = tmp_path / "docker"
    fake.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    fake.chmod(0o755)

    result = _up_kind(f"{tmp_path}:{os.environ['PATH']}")

    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "tests.env up --kind: Docker is not available (the Docker daemon does not answer `docker info`); kind runs "
        "Kubernetes in Docker containers, so use the local environment (python -m tests.env up) here or run "
        ".github/workflows/e2e-kind.yml"]


@pytest.mark.parametrize("profile, api, layout_key", [("0.45", "v1beta2", "connectCluster"), ("0.51", "v1", "target"),
                                                      ("1.2", "v1", "target")])
def test_manifests_follow_the_era(profile, api, layout_key):
    docs = manifests.all_manifests(profile)
    kinds = [d["kind"] for d in docs]
    assert kinds == ["KafkaNodePool", "Kafka", "KafkaConnect", "Service", "KafkaMirrorMaker2"]
    strimzi_docs = [d for d in docs if d["apiVersion"].startswith("kafka.strimzi.io/")]
    assert {d["apiVersion"] for d in strimzi_docs} == {f"kafka.strimzi.io/{api}"}
    connect = next(d for d in docs if d["kind"] == "KafkaConnect")
    assert connect["metadata"]["annotations"] == {"strimzi.io/use-connector-resources": "true"}
    assert connect["spec"]["image"] == manifests.CONNECT_IMAGE.format(**manifests.profile(profile))
    mm2 = next(d for d in docs if d["kind"] == "KafkaMirrorMaker2")
    assert layout_key in mm2["spec"]
    kafka = next(d for d in docs if d["kind"] == "Kafka")
    assert ("annotations" in kafka["metadata"]) is (api == "v1beta2")  # 0.45 still needs node-pools/kraft


def test_profiles_pin_released_versions():
    assert {name: p["strimzi"] for name, p in manifests.PROFILES.items()} == {
        "0.45": "0.45.2", "0.51": "0.51.0", "1.2": "1.2.0"}
    assert manifests.operator_manifest_url("1.2") == (
        "https://github.com/strimzi/strimzi-kafka-operator/releases/download/1.2.0/strimzi-cluster-operator-1.2.0.yaml")
