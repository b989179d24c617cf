"""Which Strimzi runs, from what a user may read: the operator pod's image, the served versions, the KafkaConnect
schema the API server publishes (OpenAPI v3); and what `create` says when it stays unknown."""
from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.core.online import lifecycle
from kubectl_offsets.core.online.operator_version import detect
from kubectl_offsets.errors import ForbiddenError, InputError
from kubectl_offsets.progress import SilentProgress


def openapi(pod_fields: list[str] | None, kind: str = "KafkaConnect") -> dict:
    """An OpenAPI v3 document of kafka.strimzi.io/v1 as the API server publishes it: one schema per kind, tagged
    with its group/version/kind, the CRD's schema inline."""
    spec: dict = {"type": "object", "properties": {"replicas": {"type": "integer"}}}
    if pod_fields is not None:
        pod = {"type": "object", "properties": {name: {"type": "array"} for name in pod_fields}}
        spec["properties"]["template"] = {"type": "object", "properties": {"pod": pod}}
    return {"openapi": "3.0.0", "components": {"schemas": {
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object"},
        f"io.strimzi.kafka.v1.{kind}": {
            "type": "object", "properties": {"spec": spec},
            "x-kubernetes-group-version-kind": [{"group": "kafka.strimzi.io", "kind": kind, "version": "v1"}]}}}}


@pytest.mark.parametrize("document, expected", [
    (openapi(["affinity", "templatedVolumes", "volumes"]), True),  # 1.2.0's CRDs
    (openapi(["affinity", "volumes"]), False),  # a pod template without it: older CRDs
    (openapi(None), None),  # no pod template described (not Strimzi's full CRDs): tells nothing
    (openapi(["templatedVolumes"], kind="KafkaNodePool"), None),  # another kind's field proves nothing here
    ({}, None),
    (None, None),
])
def test_the_kafkaconnect_schema_tells_1_2_from_older(document, expected):
    assert strimzi.creates_stopped_by_schema(document) is expected


class Kube:
    """What detect asks: pods (forbidden, as for most users), the served versions, the OpenAPI document."""

    def __init__(self, served: list[str], document: dict | None):
        self.served, self.document, self.asked = served, document, []

    def list_pods(self, selector, namespace=None):
        raise ForbiddenError("not allowed: pods")

    def served_versions(self):
        return self.served

    def openapi_document(self, path):
        self.asked.append(path)
        if self.document is None:
            raise ForbiddenError("not allowed")
        return self.document


def test_without_a_visible_pod_1_2_crds_say_1_2_or_newer():
    kube = Kube(["v1"], openapi(["templatedVolumes"]))
    found = detect(kube, "kafka")
    assert found.creates_stopped is True and kube.asked == ["/openapi/v3/apis/kafka.strimzi.io/v1"]
    assert found.describe().startswith("Strimzi 1.2.0 or newer (the KafkaConnect schema the API server publishes "
                                       "has spec.template.pod.templatedVolumes")


def test_without_a_visible_pod_older_v1_crds_say_before_1_2():
    found = detect(Kube(["v1"], openapi(["volumes"])), "kafka")
    assert found.creates_stopped is False and found.describe().startswith("Strimzi before 1.2.0 (")


def test_a_served_v1beta2_says_before_1_0_without_reading_the_schema():
    kube = Kube(["v1beta2", "v1"], openapi(["templatedVolumes"]))
    found = detect(kube, "kafka")
    assert found.creates_stopped is False and found.describe().startswith("Strimzi before 1.0 (")
    assert kube.asked == []


@pytest.mark.parametrize("document", [None, openapi(None)], ids=["unreadable", "silent"])
def test_an_unknown_version_is_said_to_be_unknown_and_create_does_not_advise_an_upgrade(document):
    with pytest.raises(InputError) as refused:
        lifecycle._check_operator(Kube(["v1"], document), "kafka", False, SilentProgress())
    assert "unknown version" in refused.value.message and "if it is Strimzi before 1.2" in refused.value.message
    assert "--accept-start-window" in refused.value.advice and "upgrade" not in refused.value.advice


def test_a_known_older_version_is_advised_to_upgrade():
    with pytest.raises(InputError) as refused:
        lifecycle._check_operator(Kube(["v1"], openapi(["volumes"])), "kafka", False, SilentProgress())
    assert refused.value.message.startswith("Strimzi before 1.2.0 (")
    assert "upgrade to Strimzi 1.2+" in refused.value.advice
