"""The fault matrix's pod-gone columns (issues 24 and 32): the moment the plugin starts a step, the Connect pod that
runs the connector is deleted (as ``kubectl delete pod``, a drain or an eviction does): the KafkaConnect's, or the
KafkaMirrorMaker2's; the real operator's StrimziPodSet controller creates it again and the kubelet stand-in starts
a new Connect worker for it. The plugin runs on; the cells and the judges are test_operator_fault_matrix.py's.

Deleting a pod disturbs only its own Connect cluster, so this runs against the session's environment beside the
other tests when that runs Strimzi's real operator (against an environment of its own when it runs the emulator,
which has no pods).
"""
from __future__ import annotations

import pytest

from tests.faultmatrix import STATES, suite_slice

from .test_operator_fault_matrix import check_lanes

pytestmark = pytest.mark.fault_matrix  # tests/suite.py runs the columns beside the parallel phase


@pytest.fixture(scope="module")
def strimzi_env(request):
    env = request.getfixturevalue("env")
    return env if env.operator == "strimzi" else request.getfixturevalue("private_strimzi_env")


@pytest.mark.parametrize("state", STATES, ids=[f"pod-gone-{s}" for s in STATES])
def test_the_connect_pod_gone_in_every_operation_leaves_the_connector_safe(strimzi_env, tmp_path, state):
    check_lanes(strimzi_env, tmp_path, "pod gone", suite_slice("pod gone", state))
