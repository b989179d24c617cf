"""The tests' one wait (tests/waits.py) and the pure parts of their judges (tests/judges.py)."""
from __future__ import annotations

import itertools

import pytest

from tests import judges, waits


def test_eventually_returns_the_first_answer_and_nudges_only_while_it_waits():
    answers = iter([None, 0, "", "found", "later"])
    nudges = []

    found = waits.eventually("an answer", lambda: next(answers), timeout=5, interval=0.01,
                             nudge=lambda: nudges.append(1), nudge_every=0.015)

    assert found == "found" and next(answers) == "later"  # nothing asked after the answer
    assert 1 <= len(nudges) <= 2


def test_eventually_names_what_it_waited_for_the_last_value_and_the_last_tolerated_error():
    def probe():
        raise KeyError("not there yet")

    with pytest.raises(AssertionError, match=r"waiting for the sink's group.*last error: KeyError"):
        waits.eventually("the sink's group", probe, timeout=0.05, interval=0.01, tolerate=(KeyError,))
    with pytest.raises(ZeroDivisionError):  # anything else is a failure of its own, at once
        waits.eventually("a number", lambda: 1 / 0, timeout=5, tolerate=(KeyError,))
    with pytest.raises(AssertionError, match=r"last value: \{\}"):
        waits.eventually("offsets", lambda: {}, timeout=0.05, interval=0.01)


def test_unchanged_for_waits_until_a_value_stays_put():
    versions = itertools.chain(["1", "2", "3"], itertools.repeat("3"))

    assert waits.unchanged_for("a resource", lambda: next(versions), quiet=0.05, timeout=5, interval=0.01) == "3"
    moving = itertools.count()
    with pytest.raises(AssertionError, match="never stayed the same"):
        waits.unchanged_for("a resource", lambda: next(moving), quiet=1, timeout=0.1, interval=0.01)


def test_nudge_sets_and_removes_the_tests_own_annotation():
    calls = []

    class Custom:
        def patch_namespaced_custom_object(self, *args, **kwargs):
            calls.append((args, kwargs["_content_type"]))

    waits.nudge(Custom(), "v1", "ns", "kafkaconnectors", "sink", "1")
    waits.nudge(Custom(), "v1", "ns", "kafkaconnectors", "sink", None)
    waits.nudger(Custom(), "v1", "ns", "kafkaconnectors", "sink")()

    assert [c[0][-1]["metadata"]["annotations"][waits.NUDGE_ANNOTATION] for c in calls][:2] == ["1", None]
    assert calls[2][0][-1]["metadata"]["annotations"][waits.NUDGE_ANNOTATION].isdigit()  # a new value each time
    assert {c[1] for c in calls} == {"application/merge-patch+json"}
    assert calls[0][0][:5] == ("kafka.strimzi.io", "v1", "ns", "kafkaconnectors", "sink")



def test_nudging_takes_its_annotation_off_only_after_it_nudged_even_when_the_wait_fails():
    values = []

    class Custom:
        def patch_namespaced_custom_object(self, *args, **kwargs):
            values.append(args[-1]["metadata"]["annotations"][waits.NUDGE_ANNOTATION])

    with waits.nudging(Custom(), "v1", "ns", "kafkamirrormaker2s", "m"):
        pass
    assert values == []  # never nudged: nothing to take off
    with pytest.raises(AssertionError), waits.nudging(Custom(), "v1", "ns", "kafkamirrormaker2s", "m") as touch:
        waits.eventually("never", lambda: None, timeout=0.05, interval=0.01, nudge=touch, nudge_every=0.01)
    assert len(values) >= 2 and all(v.isdigit() for v in values[:-1]) and values[-1] is None

def test_the_judges_read_connects_documents_as_the_tests_compare_them():
    sink = [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 3}},
            {"partition": {"kafka_topic": "t", "kafka_partition": 1}, "offset": None}]
    assert judges.by_partition(sink) == {0: 3}
    assert judges.position([{"partition": {"filename": "/f"}, "offset": {"position": 21}}]) == 21
    assert judges.position([]) is None
    assert judges.sink_group("my-sink") == "connect-my-sink"


def test_eventually_polls_less_often_as_a_wait_lasts_and_probes_once_more_at_the_deadline(monkeypatch):
    """The pauses grow from ``interval`` by POLL_GROWTH up to POLL_CEILING; the last pause ends at the deadline."""
    clock = [0.0]
    pauses: list[float] = []
    monkeypatch.setattr(waits.time, "monotonic", lambda: clock[0])

    def sleep(seconds: float) -> None:
        pauses.append(round(seconds, 4))
        clock[0] += seconds

    monkeypatch.setattr(waits.time, "sleep", sleep)
    with pytest.raises(AssertionError, match="timed out after 5s"):
        waits.eventually("never", lambda: None, timeout=5, interval=0.25)
    assert pauses[:5] == [0.25, 0.375, 0.5625, 0.8438, 1.0]
    assert max(pauses) == waits.POLL_CEILING and abs(sum(pauses) - 5) < 0.001
    pauses.clear()
    clock[0] = 0.0
    with pytest.raises(AssertionError):
        waits.eventually("never", lambda: None, timeout=9, interval=3)  # a longer interval is kept
    assert pauses == [3, 3, 3]
