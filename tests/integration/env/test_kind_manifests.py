"""The kind environment's Strimzi resources (tests/env/kind/manifests.py) are valid for their era: a server-side dry
run of each against the CRDs of the matching profile in the local API server (here no Docker runs, so kind cannot).

Kafka and KafkaNodePool have no CRD in the local environment (nothing here reconciles them); the test says which
kinds it could not check rather than passing over them silently.
"""
from __future__ import annotations

import pytest
from kubernetes import client as k8s

from kubectl_offsets.errors import NotFoundError
from kubectl_offsets.model import ClusterConfig
from tests.env.kind import manifests

NOT_SERVED_LOCALLY = {"Kafka", "KafkaNodePool"}  # the local environment only installs what the emulator handles


def _profile(env) -> str:
    # The local CRDs without a profile are the 0.49-0.51 shape (v1beta2 and v1 served; tests/env/crds/generate.py).
    return getattr(env, "strimzi", "") or "0.51"


def _served_versions(api) -> set[str]:
    groups = k8s.ApisApi(api).get_api_versions().groups
    return {v.version for g in groups if g.name == manifests.GROUP for v in g.versions}


@pytest.fixture
def kube(env):
    from kubectl_offsets.adapters.kube import Kube

    return Kube(ClusterConfig(kubeconfig=env.kubeconfig))


def _in(namespace: str, document: dict) -> dict:
    return {**document, "metadata": {**document["metadata"], "namespace": namespace}}


def test_the_profiles_manifests_pass_a_server_side_dry_run(env, kube, namespace):
    profile = _profile(env)
    checked, unchecked = [], []
    for document in manifests.all_manifests(profile):
        if document["kind"] in NOT_SERVED_LOCALLY:
            unchecked.append(document["kind"])
            continue
        result = kube.server_dry_run(_in(namespace, document), namespace)
        assert result["kind"] == document["kind"]
        if document["kind"] == "KafkaConnect":  # nothing the schema does not know was pruned on the way
            assert result["metadata"]["annotations"] == document["metadata"]["annotations"]
            assert result["spec"]["image"] == document["spec"]["image"]
        if document["kind"] == "KafkaMirrorMaker2":
            assert result["spec"]["mirrors"] == document["spec"]["mirrors"]
        checked.append(document["kind"])
    assert checked == ["KafkaConnect", "Service", "KafkaMirrorMaker2"]
    assert sorted(unchecked) == sorted(NOT_SERVED_LOCALLY)


def test_another_eras_manifests_are_refused_where_their_version_is_not_served(env, kube, kube_api, namespace):
    """The dry run can fail: a profile's manifests in an API version this cluster does not serve are refused."""
    served = _served_versions(kube_api)
    foreign = [name for name, p in manifests.PROFILES.items() if p["api_version"] not in served]
    if not foreign:
        pytest.skip(f"this cluster serves {sorted(served)}: every profile's API version is served")
    connect = next(d for d in manifests.all_manifests(foreign[0]) if d["kind"] == "KafkaConnect")
    with pytest.raises(NotFoundError, match=f"does not serve KafkaConnect in {connect['apiVersion']}"):
        kube.server_dry_run(_in(namespace, connect), namespace)
