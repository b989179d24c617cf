"""Kube.can_i: the namespace-wide answer is asked once and stands for every name; a name is asked about only
when the namespace-wide answer is no (a Role with resourceNames)."""
from __future__ import annotations

from kubectl_offsets.adapters.kube import Kube


def kube_answering(rules: dict) -> tuple[Kube, list]:
    """A Kube whose access reviews answer from ``rules`` ({(verb, resource, name or None): allowed})."""
    kube = Kube.__new__(Kube)  # no kubeconfig: only the access-review bookkeeping is under test
    kube._allowed_everywhere = {}
    asked = []

    def review(verb, group, resource, namespace, name):
        asked.append((verb, resource, name))
        return rules.get((verb, resource, name), False)
    kube._access_review = review
    return kube, asked


def test_allowed_in_the_namespace_is_asked_once_for_a_whole_fleet():
    kube, asked = kube_answering({("patch", "kafkaconnectors", None): True})
    assert all(kube.can_i("patch", "kafka.strimzi.io", "kafkaconnectors", "ns", f"c{i}") for i in range(40))
    assert asked == [("patch", "kafkaconnectors", None)]


def test_a_role_limited_to_names_is_asked_per_name():
    kube, asked = kube_answering({("patch", "kafkaconnectors", "mine"): True})
    assert kube.can_i("patch", "kafka.strimzi.io", "kafkaconnectors", "ns", "mine")
    assert not kube.can_i("patch", "kafka.strimzi.io", "kafkaconnectors", "ns", "theirs")
    assert not kube.can_i("patch", "kafka.strimzi.io", "kafkaconnectors", "ns")
    assert asked == [("patch", "kafkaconnectors", None), ("patch", "kafkaconnectors", "mine"),
                     ("patch", "kafkaconnectors", "theirs")]


def test_namespaces_are_answered_separately():
    kube, asked = kube_answering({("get", "configmaps", None): True})
    kube.can_i("get", "", "configmaps", "a", "x")
    kube.can_i("get", "", "configmaps", "b", "x")
    assert len(asked) == 2
