"""examples/demo.py (what `make demo` runs) without an environment: how it reports a step that fails."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.py"
KUBECTL_ERROR = ('error: resource mapping not found for name: "demo-connect" namespace: "demo" from "STDIN": '
                 'no matches for kind "KafkaConnect" in version "kafka.strimzi.io/v1beta2"')


def load_demo():
    spec = importlib.util.spec_from_file_location("kubectl_offsets_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def failing_kubectl(tmp_path):
    """A `kubectl` that fails as kubectl apply does for a version the cluster does not serve."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(f"#!/bin/sh\ncat >/dev/null\necho '{KUBECTL_ERROR}' >&2\nexit 1\n")
    kubectl.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_a_failing_kubectl_apply_prints_kubectls_message_and_names_the_step(failing_kubectl, capsys):
    demo = load_demo()
    manifest = {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaConnect",
                "metadata": {"name": "demo-connect", "namespace": "demo"}, "spec": {}}

    with pytest.raises(demo.StepFailed) as failure:
        with demo.step("Create the connectors"):
            demo.apply([manifest], failing_kubectl)
    assert demo.report(failure.value) == 1

    out, err = capsys.readouterr()
    assert KUBECTL_ERROR in out  # kubectl's own words, not a traceback
    assert "$ kubectl apply -f -" in out
    assert "demo failed at step 'Create the connectors'" in err
    assert "exited 1" in err


def test_any_error_inside_a_step_is_that_steps_failure(capsys):
    demo = load_demo()

    with pytest.raises(demo.StepFailed) as failure:
        with demo.step("Wait for the sink"):
            raise TimeoutError("no lines after 120s")
    assert failure.value.step == "Wait for the sink"
    assert "TimeoutError: no lines after 120s" in failure.value.detail


def test_the_gitops_diff_is_shortened_to_the_connector_edit_and_the_changed_lines():
    demo = load_demo()
    diff = (DEMO.parent / "gitops" / "phase1-prod.diff").read_text()

    short = demo._short_diff(diff).splitlines()

    connector_hunk = diff[:diff.index("--- a/overlays/prod/kustomization.yaml")].splitlines()
    assert short[:len(connector_hunk)] == connector_hunk  # the connector's edit, whole
    assert short[len(connector_hunk):] == [
        "--- a/overlays/prod/kustomization.yaml", "+++ b/overlays/prod/kustomization.yaml",
        "+  - orders-sink-offsets-55fd55a1.yaml",
        "--- /dev/null", "+++ b/overlays/prod/orders-sink-offsets-55fd55a1.yaml",
        "+ ... (a new file: the ConfigMap with offsets.json, for Strimzi's alterOffsets)"]
