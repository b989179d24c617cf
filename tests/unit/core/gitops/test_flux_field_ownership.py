"""The plugin's writes must stay its own under Flux. Flux's kustomize-controller takes over, before every apply, the
fields of the managers it considers stale kubectl edits: every manager whose name starts with "kubectl" (Apply and
Update), "before-first-apply" and its own Update manager (kustomize-controller
internal/controller/kustomization_controller.go; the match is a prefix match, fluxcd/pkg/ssa patch.go
matchFieldManager), and then prunes those it does not declare. A write under such a name (ours was
"kubectl-offsets"; the trigger Job's `kubectl annotate` is "kubectl-annotate") loses the journal, the trigger's
marker and a one-shot annotation the operator has not read yet at the next reconcile
(tests/integration/gitops/test_flux.py shows it with Flux itself)."""

from __future__ import annotations

import os
import subprocess

from kubectl_offsets import strimzi
from kubectl_offsets.conventions import FIELD_MANAGER
from kubectl_offsets.core.gitops import trigger_job

# Flux's default takeover list (kustomize-controller 1.9.3 and 1.10.1 alike), plus its own name.
FLUX_TAKES_OVER = ("kubectl", "before-first-apply", "kustomize-controller")


def test_the_field_manager_is_not_one_flux_takes_over():
    assert not FIELD_MANAGER.startswith(FLUX_TAKES_OVER), FIELD_MANAGER


def test_the_trigger_job_annotates_under_the_plugins_field_manager(tmp_path):
    """The Job's own script, run with a kubectl that answers its reads and records the annotate call."""
    target = strimzi.ConnectorTarget(strimzi.KIND_CONNECTOR, "kafka", "orders-sink", "orders-sink")
    operation = "0123456789abcdef"
    calls = tmp_path / "calls"
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(f"""#!/bin/sh
case "$*" in
  *annotate*) echo "$@" >> {calls}; echo annotated ;;
  *resourceVersion*) echo 7 ;;
  *triggered*) if [ -s {calls} ]; then echo {operation}; fi ;;
  *gitops*) echo '{{"id":"{operation}"}}' ;;
  *connectorStatus*) echo STOPPED ;;
esac
""")
    kubectl.chmod(0o755)
    env = dict(trigger_job.environment(target, operation, "alter"), NAMESPACE="kafka",
               PATH=f"{tmp_path}:{os.environ['PATH']}")
    result = subprocess.run(["/bin/sh", "-c", trigger_job.SCRIPT], env=env, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    annotate = calls.read_text().splitlines()
    assert len(annotate) == 1 and f"--field-manager={FIELD_MANAGER}" in annotate[0].split(), annotate
