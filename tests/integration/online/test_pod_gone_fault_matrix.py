"""The fault matrix's pod-gone column (issue 24): at every step of an online alter (on a running connector) and of a
reset (on a paused one), the moment the plugin starts the step, the KafkaConnect's pod is deleted (as ``kubectl
delete pod``, a drain or an eviction does); the real operator's StrimziPodSet controller creates it again and the
kubelet stand-in starts a new Connect worker for it. The plugin runs on; judged as in
test_operator_fault_matrix.py.

Deleting a pod disturbs only its own KafkaConnect, so this runs against the session's environment beside the other
tests when that runs Strimzi's real operator (against an environment of its own when it runs the emulator, which
has no pods).
"""
from __future__ import annotations

import pytest

from .test_operator_fault_matrix import LANES, check_every_step

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the columns beside the parallel phase


@pytest.fixture(scope="module")
def strimzi_env(request):
    env = request.getfixturevalue("env")
    return env if env.operator == "strimzi" else request.getfixturevalue("private_strimzi_env")


@pytest.mark.parametrize(("operation", "state"), LANES, ids=[f"pod-gone-{o}-{s}" for o, s in LANES])
def test_the_connect_pod_gone_at_every_step_leaves_the_connector_safe(strimzi_env, tmp_path, operation, state):
    check_every_step(strimzi_env, tmp_path, "pod gone", operation, state)
