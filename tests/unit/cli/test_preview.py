"""The preview says when its 'before' was listed while the connector ran (issue 10, defect 1)."""
from __future__ import annotations

from kubectl_offsets import strimzi
from kubectl_offsets.cli.common import render_preview
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.online.operations import Preview
from kubectl_offsets.model import OffsetEntry, OffsetsDocument


def _preview(running: bool) -> Preview:
    resource = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
                "metadata": {"name": "sink", "namespace": "kafka", "labels": {"strimzi.io/cluster": "c"}},
                "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector"}}
    before = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": p}, {"kafka_offset": 10})
                                 for p in (0, 1)])
    change = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 4})])
    return Preview("alter", strimzi.connector_target(resource), ConnectorKind.SINK, before, change,
                   listed_while_running=running)


def test_a_preview_listed_while_running_says_the_offsets_may_move():
    text = render_preview(_preview(True))
    assert "listed while the connector runs" in text and "listed once it is stopped" in text


def test_a_paused_connector_s_preview_has_no_such_note():
    assert "listed while the connector runs" not in render_preview(_preview(False))
