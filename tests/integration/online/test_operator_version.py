"""`create` tells which Strimzi runs without seeing the cluster operator's pod, as most users cannot.

A user bound to the documented Role (examples/online/rbac.yaml) in the connectors' namespace may list pods there,
but the operator runs elsewhere; here no cluster-operator pod exists at all. What every authenticated user can read
is discovery and the OpenAPI v3 document of kafka.strimzi.io/v1 (the system:discovery ClusterRole): the served
versions tell a release before 1.0 (v1beta2 served), and the installed KafkaConnect schema tells 1.2.0 and newer
(spec.template.pod.templatedVolumes). Connect's config topic shows how the real operator created the connector.
"""
from __future__ import annotations

import pytest

from tests.env.clients import create_topic, unique_name
from tests.env.emulator import profiles

from .conftest import bind_documented_role, exists, sink_manifest

RECORDS_TIMEOUT = 120.0  # records written after a start: the sink's consumer group joins first


@pytest.fixture(scope="module")
def documented_user(env, lab, cluster):
    """limited-user (token auth, no groups) bound to the documented Role in the lab namespace and to nothing else:
    it may list pods there, where no operator pod is, and nowhere else."""
    bind_documented_role(cluster, lab.ns, "limited-user", "offsets-documented")
    assert not cluster.core.list_namespaced_pod(lab.ns, label_selector="strimzi.io/kind=cluster-operator").items
    return env.limited_kubeconfig


def test_create_knows_the_strimzi_release_without_seeing_the_operator_pod(lab, cli, tmp_path, documented_user):
    name, topic = unique_name("nopod"), unique_name("nopod-topic")
    create_topic(lab.admin, topic)
    lab.produce(topic, [f"r{i}" for i in range(4)])
    path, conn = sink_manifest(lab, tmp_path, name, topic)

    result = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=2", "--yes",
                 kubeconfig=documented_user)

    assert "unknown" not in result.stderr, str(result)
    if profiles.selected().creates_with_initial_state:  # 1.2: served v1 only; its CRDs carry 1.2.0's mark
        assert result.exit_code == 0, str(result)
        assert "Strimzi 1.2.0 or newer" in result.stderr and "templatedVolumes" in result.stderr
        assert "creates the connector stopped" in result.stderr
        # Connect's own record: created with initial_state STOPPED (its config topic), so never r0, r1
        assert lab.judge.created_in_state(lab.config_topic(), name) == "STOPPED"
        lab.judge.wait_sink_offsets(name, {0: 4}, timeout=RECORDS_TIMEOUT)  # verified at 2: r2, r3 came after
        assert conn.file_lines() == ["r2", "r3"]
    else:  # 0.45 and 0.51 serve v1beta2: a release before 1.0, so the start window is real and said so
        assert result.exit_code == 2, str(result)
        assert "Strimzi before 1.0" in result.stderr and "--accept-start-window" in result.stderr
        assert "upgrade to Strimzi 1.2+" in result.stderr
        assert not exists(lab, name)
