"""Kube.can_i: the namespace-wide answer is asked once and stands for every name; a name is asked about only
when the namespace-wide answer is no (a Role with resourceNames). Once means once per process: threads asking at
the same moment, and the siblings a fleet's workers use, share the answer."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from kubectl_offsets.adapters.kube import Kube, _Answers


def kube_answering(rules: dict) -> tuple[Kube, list]:
    """A Kube whose access reviews answer from ``rules`` ({(verb, resource, name or None): allowed})."""
    kube = Kube.__new__(Kube)  # no kubeconfig: only the access-review bookkeeping is under test
    kube._answers = _Answers()
    asked = []

    def review(verb, group, resource, namespace, name):
        time.sleep(0.05)  # a round trip: long enough for threads to overlap
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


def test_threads_asking_at_the_same_moment_get_one_review():
    kube, asked = kube_answering({("patch", "kafkaconnectors", None): True})
    start = threading.Barrier(8)

    def ask(i):
        start.wait()
        return kube.can_i("patch", "kafka.strimzi.io", "kafkaconnectors", "ns", f"c{i}")
    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(ask, range(8)))
    assert asked == [("patch", "kafkaconnectors", None)]


def test_different_questions_do_not_wait_for_each_other():
    """Four different reviews are in flight together: each waits at a barrier that only opens when all four have
    arrived (asked one after another, the first would wait there alone and time out)."""
    kube, _ = kube_answering({})
    together = threading.Barrier(4, timeout=10)

    def review(verb, group, resource, namespace, name):
        together.wait()
        return True
    kube._access_review = review
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(lambda verb: kube.can_i(verb, "", "configmaps", "ns"), ["get", "list", "create", "patch"]))


def test_a_failed_question_is_asked_again():
    answers, calls = _Answers(), []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise OSError("connection reset")
        return True
    try:
        answers.get(("k",), flaky)
    except OSError:
        pass
    assert answers.get(("k",), flaky) is True and len(calls) == 2
