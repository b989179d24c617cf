"""Strimzi's real reading of annotations and conditions (issue 12), and connectors whose offsets live elsewhere."""
from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.core.journal import Journal


def _annotated(value):
    return {"metadata": {"annotations": {strimzi.ANNOTATION_USE_CONNECTOR_RESOURCES: value,
                                         strimzi.ANNOTATION_PAUSE_RECONCILIATION: value}}}


@pytest.mark.parametrize("value, expected", [("true", True), ("True", True), ("TRUE", True), ("tRuE", True),
                                             ("false", False), ("yes", False), ("1", False), ("", False),
                                             (" true", False)])
def test_boolean_annotations_read_like_java_parse_boolean(value, expected):
    assert strimzi.uses_connector_resources(_annotated(value)) is expected
    assert strimzi.reconciliation_paused(_annotated(value)) is expected


def test_absent_annotations_are_false():
    assert not strimzi.uses_connector_resources({"metadata": {}})
    assert not strimzi.reconciliation_paused({})



def _journal(**changes):
    fields = dict(operation="alter", id="abcdef12", started="2026-11-23T22:00:00Z", kind="KafkaConnector",
                  resource="r", connector="r", previous_state=None, previous_alter_offsets=None, backup="b",
                  offsets_configmap="o")
    return Journal(**{**fields, **changes})


@pytest.mark.parametrize("state, pause, effective", [(None, None, "running"), (None, True, "paused"),
                                                     ("running", True, "running"), ("stopped", None, "stopped")])
def test_journal_previous_effective_state_honours_the_deprecated_pause(state, pause, effective):
    journal = _journal(previous_state=state, previous_pause=pause)
    assert journal.previous_effective_state == effective
    assert Journal.from_annotation(journal.to_annotation()) == journal


def test_journal_without_previous_pause_still_reads():
    """Journals written before previous_pause existed are still understood (recover after an upgrade)."""
    import json

    data = json.loads(_journal().to_annotation())
    del data["previous_pause"]
    assert Journal.from_annotation(json.dumps(data)).previous_effective_state == "running"
