"""gitops create, offline: phase 1 adds the connector (stopped, alterOffsets, record) and its ConfigMap to the
directory's kustomization; the existing phase 2 turns it into the manifest's connector; bad input writes nothing."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kubectl_offsets.core.online import lifecycle
from kubectl_offsets.core.gitops import create as gitops_create
from kubectl_offsets.core.gitops import output, phases
from kubectl_offsets.core.gitops.plan import GitopsRequest
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.errors import InputError, PreconditionError


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "apps").mkdir(parents=True)
    (root / "apps" / "kustomization.yaml").write_text("# the app\nresources:\n  - settings.yaml\n")
    (root / "apps" / "settings.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
    return root


def manifest(tmp_path: Path, state: str | None = "paused") -> lifecycle.Manifest:
    spec = {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
            "config": {"topics": "orders", "file": "/tmp/o"}}
    if state:
        spec["state"] = state
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
                                "metadata": {"name": "orders-sink", "labels": {"strimzi.io/cluster": "c"}},
                                "spec": spec}))
    return lifecycle.read_manifest(str(path))


def request(tmp_path, **changes) -> gitops_create.CreateRequest:
    base = dict(manifest=manifest(tmp_path), directory="apps", alter=AlterRequest(sets=("orders:0=5",)),
                strimzi_version="1.2.0")
    base.update(changes)
    return gitops_create.CreateRequest(**base)


def test_phase1_adds_the_stopped_connector_and_phase2_gives_it_its_state(tmp_path):
    root = repo(tmp_path)
    plan = gitops_create.plan_create(root, None, request(tmp_path))
    output.write(plan, root)
    kustomization = (root / "apps" / "kustomization.yaml").read_text()
    assert kustomization.startswith("# the app\n") and f"- orders-sink.yaml\n  - {plan.configmap}.yaml" in kustomization
    connector = (root / "apps" / "orders-sink.yaml").read_text()
    assert "state: stopped" in connector and f"name: {plan.configmap}" in connector
    assert '"previousState":"paused"' in connector and "strimzi.io/connector-offsets" not in connector
    assert '"kafka_offset": 5' in (root / "apps" / f"{plan.configmap}.yaml").read_text()
    built = subprocess.run(["/usr/bin/kubectl", "kustomize", str(root / "apps")], capture_output=True, text=True)
    assert built.returncode == 0 and "kind: KafkaConnector" in built.stdout, built.stderr

    phase2 = phases.plan_phase2(root, None, GitopsRequest("alter", "orders-sink"))
    output.write(phase2, root)
    connector = (root / "apps" / "orders-sink.yaml").read_text()
    assert "state: paused" in connector and "alterOffsets" not in connector and "kubectl-offsets.io" not in connector
    assert not (root / "apps" / f"{plan.configmap}.yaml").exists()


def test_from_scratch_is_a_reset_without_a_configmap(tmp_path):
    root = repo(tmp_path)
    plan = gitops_create.plan_create(root, None, request(tmp_path, alter=None, from_scratch=True))
    assert plan.operation == "reset" and plan.configmap is None and len(plan.files) == 2


@pytest.mark.parametrize("changes, error, message", [
    ({"strimzi_version": None}, InputError, "older than Strimzi 1.2"),
    ({"strimzi_version": "1.1.0"}, InputError, "older than Strimzi 1.2"),
    ({"strimzi_version": "new"}, InputError, "not a version"),
    ({"alter": None}, InputError, "or --from-scratch"),
    ({"from_scratch": True}, InputError, "not both"),
    ({"alter": AlterRequest(sets=("elsewhere:0=5",))}, InputError, "does not consume topic"),
    ({"alter": AlterRequest(shift_by=3, topics=("orders",))}, InputError, "no current offsets"),
    ({"directory": "../outside"}, InputError, "outside the repository"),
    ({"trigger": "job"}, InputError, "--trigger command"),
])
def test_bad_input_writes_nothing(tmp_path, changes, error, message):
    root = repo(tmp_path)
    before = {p: p.read_text() for p in root.rglob("*") if p.is_file()}
    with pytest.raises(error, match=message):
        gitops_create.plan_create(root, None, request(tmp_path, **changes))
    assert {p: p.read_text() for p in root.rglob("*") if p.is_file()} == before


def test_a_connector_already_in_the_repository_is_refused(tmp_path):
    root = repo(tmp_path)
    output.write(gitops_create.plan_create(root, None, request(tmp_path)), root)
    with pytest.raises(PreconditionError, match="already defined"):
        gitops_create.plan_create(root, None, request(tmp_path, alter=None, from_scratch=True))
