"""Strimzi's real reading of annotations and conditions (issue 12), and connectors whose offsets live elsewhere."""
from __future__ import annotations

import pytest

from kubectl_offsets import connect, strimzi
from kubectl_offsets.core.online.journal import Journal


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


@pytest.mark.parametrize("message, outlook", [
    ("Failed to alter the connector offsets due to missing property alterOffsets in KafkaConnector CR.", "final"),
    ("Encountered error altering connector offsets. Encountered error fetching offsets to use in alter operation. "
     "ConfigMap ns/cm does not exist.", "final"),
    ("Encountered error altering connector offsets. io.strimzi.operator.cluster.operator.assembly."
     "ConnectRestException: PATCH /connectors/c/offsets returned 409 (409): Unexpected status code", "retry"),
    ("Encountered error altering connector offsets. PATCH /connectors/c/offsets returned 500 (Internal Server "
     "Error): Unexpected status code", "unsure"),
    ("Encountered error altering connector offsets. Connector is not in STOPPED state", "unsure"),
])
def test_warning_outlook(message, outlook):
    assert strimzi.warning_outlook(message) == outlook


def _not_ready(reason, message):
    return {"type": "NotReady", "status": "True", "reason": reason, "message": message}


@pytest.mark.parametrize("condition, lasting, advice", [
    (_not_ready("RuntimeException", "Kafka Connect cluster 'c' in namespace n has 0 replicas."), True, "replicas: 0"),
    (_not_ready("NoSuchResourceException", "KafkaConnect c is not configured with annotation "
                "strimzi.io/use-connector-resources"), True, "use-connector-resources"),
    (_not_ready("RuntimeException", "Connector c cannot be paused since it is in failed state."), True, "restart"),
    (_not_ready("ConnectRestException", "PUT /connectors/c/stop returned 500 (500): Unexpected status code"),
     False, "stop call"),
    (_not_ready("ConnectException", "Connection refused: c-connect-api.n.svc/10.0.0.1:8083"), False, "REST API"),
    ({"type": "ReconciliationPaused", "status": "True", "reason": "ReconciliationPaused"}, True, "paused"),
])
def test_reconcile_blocks_are_recognised(condition, lasting, advice):
    block = strimzi.reconcile_block(condition)
    assert block is not None and block.lasting is lasting and advice in block.advice


def test_a_ready_condition_is_no_block():
    assert strimzi.reconcile_block({"type": "Ready", "status": "True"}) is None
    assert strimzi.reconcile_block(_not_ready("Throwable", "Connector has failed, see connectorStatus")) is None


@pytest.mark.parametrize("resource, behind", [
    ({"metadata": {"generation": 3}}, True),
    ({"metadata": {"generation": 3}, "status": {"observedGeneration": 2}}, True),
    ({"metadata": {"generation": 3}, "status": {"observedGeneration": 3}}, False),
])
def test_observed_generation_behind(resource, behind):
    assert strimzi.observed_generation_behind(resource) is behind


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


def test_external_offsets_warning_by_class():
    assert connect.external_offsets_warning("org.apache.kafka.connect.file.FileStreamSinkConnector") is None
    assert connect.external_offsets_warning("org.apache.kafka.connect.mirror.MirrorSourceConnector") is None
    assert connect.external_offsets_warning(None) is None
    known = connect.external_offsets_warning("io.confluent.connect.hdfs.HdfsSinkConnector")
    assert "HDFS" in known and "only the offsets Connect stores" in known
    unknown = connect.external_offsets_warning("com.example.MySourceConnector")
    assert "com.example.MySourceConnector" in unknown and "outside Connect" in unknown


@pytest.mark.parametrize("spec, zero", [({"replicas": 0}, True), ({"replicas": 1}, False), ({}, False)])
def test_replicas_zero(spec, zero):
    """KafkaConnect and KafkaMirrorMaker2 scaled to 0 (an absent replicas is Strimzi's default, 3: not zero)."""
    assert strimzi.replicas_zero({"spec": spec}) is zero
