"""Strimzi's real reading of annotations and conditions (issue 12), and connectors whose offsets live elsewhere."""
from __future__ import annotations

import pytest

from kubectl_offsets import strimzi


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

