"""The ConfigMap a list makes the operator write to, when kubectl-offsets adds the listOffsets stanza
(``<name>-offsets``), must be the resource's own (issue 28).

What Strimzi does with an existing ConfigMap of that name (AbstractConnectOperator#generateListOffsetsConfigMap, the
same in 0.45.2, 0.51.0 and 1.2.0 in what matters here): it keeps the other data keys but overwrites the connector's
key (``offsets.json``, or the MirrorMaker 2 connector's), puts its labels on it (0.45/0.51 copy the resource's
labels over the existing ones; 1.2.0 applies its default labels), and adds an owner reference to the resource (0.45
and 0.51 only when there is none), so Kubernetes deletes a ConfigMap that had no other owner with the connector.
A ConfigMap of that name that the operator did not write for this resource is therefore refused before anything
changes; one it wrote (its owner reference names the resource) is used as always. The real operator's side is in
tests/integration/online/test_guards.py."""

from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.core.online.configmaps import check_list_configmap
from kubectl_offsets.errors import PreconditionError

SINK = strimzi.ConnectorTarget(kind=strimzi.KIND_CONNECTOR, namespace="kafka", resource_name="orders-sink",
                               connector_name="orders-sink")
RESOURCE = {"metadata": {"name": "orders-sink", "namespace": "kafka", "uid": "u-1"}, "spec": {}}


class FakeKube:
    def __init__(self, configmaps):
        self.configmaps = {cm["metadata"]["name"]: cm for cm in configmaps}

    def find_configmap(self, name, namespace):
        return self.configmaps.get(name)


def configmap(name="orders-sink-offsets", owners=(), labels=None):
    return {"metadata": {"name": name, "namespace": "kafka", "labels": labels or {},
                         "ownerReferences": [{"apiVersion": "kafka.strimzi.io/v1", "kind": kind, "name": owner,
                                              "uid": "u-1"} for kind, owner in owners]},
            "data": {"offsets.json": '{"offsets": []}', "notes": "mine"}}


def test_a_free_name_is_used():
    check_list_configmap(FakeKube([]), SINK, RESOURCE)


def test_the_configmap_the_operator_wrote_for_the_resource_is_used():
    check_list_configmap(FakeKube([configmap(owners=[("KafkaConnector", "orders-sink")])]), SINK, RESOURCE)


@pytest.mark.parametrize("found", [
    configmap(),  # someone's own ConfigMap of that name
    configmap(owners=[("KafkaConnector", "payments-sink")]),  # another connector's
    configmap(owners=[("KafkaMirrorMaker2", "orders-sink")]),  # a mirror of the same name
    configmap(owners=[("Deployment", "orders-sink")]),
])
def test_a_configmap_the_operator_did_not_write_for_it_is_refused(found):
    with pytest.raises(PreconditionError) as refused:
        check_list_configmap(FakeKube([found]), SINK, RESOURCE)
    assert "configmap/orders-sink-offsets" in refused.value.message
    assert "offsets.json" in refused.value.message and "owner reference" in refused.value.message
    assert "listOffsets" in (refused.value.advice or "")


def test_a_listoffsets_stanza_the_resource_has_is_its_own_choice():
    resource = {**RESOURCE, "spec": {"listOffsets": {"toConfigMap": {"name": "orders-sink-offsets"}}}}
    check_list_configmap(FakeKube([configmap()]), SINK, resource)


def test_a_mirror_connector_checks_the_mirrors_configmap():
    target = strimzi.ConnectorTarget(kind=strimzi.KIND_MM2, namespace="kafka", resource_name="mirror",
                                     connector_name="east->west.MirrorSourceConnector",
                                     stanza_path=("spec", "mirrors", 0, "sourceConnector"))
    resource = {"metadata": {"name": "mirror"}, "spec": {"mirrors": [{"sourceConnector": {}}]}}
    check_list_configmap(FakeKube([configmap("mirror-offsets", owners=[("KafkaMirrorMaker2", "mirror")])]),
                         target, resource)
    with pytest.raises(PreconditionError, match="east--west.MirrorSourceConnector.json"):
        check_list_configmap(FakeKube([configmap("mirror-offsets")]), target, resource)


def test_create_refuses_it_before_the_connector_is_created(monkeypatch, tmp_path):
    """create lists the new connector's leftovers right after creating it: the refusal comes first."""
    import json

    from kubectl_offsets.core.online import lifecycle
    from kubectl_offsets.errors import NotFoundError
    from kubectl_offsets.progress import SilentProgress

    class Kube(FakeKube):
        namespace = "kafka"

        def get(self, kind, name, namespace):
            raise NotFoundError("absent")

        def create(self, *args):
            raise AssertionError("created before the refusal")

    path = tmp_path / "sink.json"
    path.write_text(json.dumps({"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
                                "metadata": {"name": "orders-sink", "labels": {"strimzi.io/cluster": "c"}},
                                "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                                         "config": {"topics": "orders"}}}))
    monkeypatch.setattr(lifecycle, "_check_connect_cluster", lambda *a: None)
    with pytest.raises(PreconditionError, match="configmap/orders-sink-offsets"):
        lifecycle.create_connector(Kube([configmap()]), lifecycle.read_manifest(str(path)), from_scratch=True,
                                   progress=SilentProgress())
