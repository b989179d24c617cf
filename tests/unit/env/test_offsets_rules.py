"""Pure parts of the offsets handling: annotation parsing (§2.2/§2.3) and the alter JSON check (§2.5)."""
import pytest

from tests.env.emulator import offsets
from tests.env.emulator.conditions import ReconcileError


def cr(annotations, kind="KafkaMirrorMaker2"):
    return {"kind": kind, "metadata": {"name": "m", "namespace": "ns", "annotations": annotations}}


@pytest.mark.parametrize("value", ["none", "list", "alter", "reset"])
def test_valid_values(value):
    assert offsets.parse_operation(value) == value


@pytest.mark.parametrize("value", ["", "List", " list", "LIST", "delete"])
def test_invalid_values_fail_with_strimzi_message(value):
    with pytest.raises(ReconcileError) as err:
        offsets.parse_operation(value)
    assert err.value.reason == "IllegalArgumentException"
    assert err.value.message == \
        f"No enum constant io.strimzi.operator.cluster.model.KafkaConnectorOffsetsAnnotation.{value}"


def test_kafka_connector_absent_is_none_and_mm2_annotation_ignored():
    assert offsets.connector_operation(cr({}, "KafkaConnector")) == "none"
    assert offsets.connector_operation(cr({offsets.ANNO_MM2_CONNECTOR: "x"}, "KafkaConnector")) == "none"
    assert offsets.connector_operation(cr({offsets.ANNO_OFFSETS: "list"}, "KafkaConnector")) == "list"


def test_mm2_missing_connector_annotation():
    with pytest.raises(offsets.InvalidAnnotations) as err:
        offsets.mm2_operation(cr({offsets.ANNO_OFFSETS: "list"}), "a->b.MirrorSourceConnector")
    assert str(err.value) == "KafkaMirrorMaker2 resource ns/m is missing annotation strimzi.io/mirrormaker-connector"


def test_mm2_missing_offsets_annotation():
    with pytest.raises(offsets.InvalidAnnotations) as err:
        offsets.mm2_operation(cr({offsets.ANNO_MM2_CONNECTOR: "a->b.MirrorSourceConnector"}), "x")
    assert str(err.value) == "KafkaMirrorMaker2 resource ns/m is missing annotation strimzi.io/connector-offsets"


def test_mm2_other_connector_is_none_even_with_invalid_value():
    both = {offsets.ANNO_OFFSETS: "bogus", offsets.ANNO_MM2_CONNECTOR: "a->b.MirrorSourceConnector"}
    assert offsets.mm2_operation(cr(both), "a->b.MirrorCheckpointConnector") == "none"
    with pytest.raises(ReconcileError):
        offsets.mm2_operation(cr(both), "a->b.MirrorSourceConnector")


def test_mm2_typo_matches_nothing():
    both = {offsets.ANNO_OFFSETS: "list", offsets.ANNO_MM2_CONNECTOR: "a->b.MirrorSourceConnecter"}
    assert offsets.mm2_operation(cr(both), "a->b.MirrorSourceConnector") == "none"


@pytest.mark.parametrize("text", ['{"offsets": []}', "[1]", "3", '"s"', '{"a": 1} trailing', "  {}"])
def test_jackson_lenient_json_check_accepts(text):
    assert offsets.jackson_parse_error(text) is None


@pytest.mark.parametrize("text", ['{"test":}', "", "   ", "{", "nope"])
def test_jackson_json_check_rejects(text):
    assert offsets.jackson_parse_error(text)
