"""Every alter input form -> one change document, and every bad input -> a clear InputError."""

import io

import pytest

from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.inputs import AlterRequest, ConnectorFacts, build_change
from kubectl_offsets.errors import InputError
from kubectl_offsets.model import OffsetsDocument

SINK = ConnectorFacts(ConnectorKind.SINK, consumes=lambda t: t in {"orders", "payments"},
                      consumes_description="orders, payments")
MIRROR = ConnectorFacts(ConnectorKind.MIRROR_SOURCE, source_alias="east", consumes=lambda t: t.startswith("orders"))
CURRENT = OffsetsDocument.from_json({"offsets": [
    {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 100}},
    {"partition": {"kafka_topic": "orders", "kafka_partition": 1}, "offset": {"kafka_offset": 7}},
]})


def offsets(change):
    return [(e.partition, e.offset) for e in change]


def test_set_stores_the_value_as_given():
    change = build_change(AlterRequest(sets=("orders:0=5",)), SINK, None)
    assert offsets(change) == [({"kafka_topic": "orders", "kafka_partition": 0}, {"kafka_offset": 5})]
    change = build_change(AlterRequest(sets=("orders:0=5",)), MIRROR, None)
    assert offsets(change) == [({"cluster": "east", "topic": "orders", "partition": 0}, {"offset": 5})]


def test_skip_record_differs_by_one_between_sink_and_mirror():
    sink = build_change(AlterRequest(skip_records=("orders:0:41",)), SINK, None)
    mirror = build_change(AlterRequest(skip_records=("orders:0:41",)), MIRROR, None)
    assert offsets(sink)[0][1] == {"kafka_offset": 42}  # next record to read
    assert offsets(mirror)[0][1] == {"offset": 41}  # last record replicated; resumes at 42


def test_to_offset_zero_on_a_mirror_resets_the_partition():
    change = build_change(AlterRequest(to_offset=0, topics=("orders:2",)), MIRROR, None)
    assert offsets(change) == [({"cluster": "east", "topic": "orders", "partition": 2}, None)]


def test_shift_by_is_relative_to_current_offsets():
    change = build_change(AlterRequest(shift_by=-5, topics=("orders",)), SINK, CURRENT)
    assert [o["kafka_offset"] for _, o in offsets(change)] == [95, 2]
    with pytest.raises(InputError, match="below zero"):
        build_change(AlterRequest(shift_by=-8, topics=("orders:1",)), SINK, CURRENT)
    with pytest.raises(InputError, match="no current offset for orders:9"):
        build_change(AlterRequest(shift_by=1, topics=("orders:9",)), SINK, CURRENT)
    with pytest.raises(InputError, match="need the connector's current offsets"):
        build_change(AlterRequest(shift_by=1, topics=("orders",)), SINK, None)


def test_files_json_yaml_csv_and_stdin(tmp_path):
    json_file = tmp_path / "o.json"
    json_file.write_text('{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0},'
                         ' "offset": {"kafka_offset": 3}}]}')
    yaml_file = tmp_path / "o.yaml"
    yaml_file.write_text("offsets:\n- partition: {kafka_topic: orders, kafka_partition: 0}\n  offset: null\n")
    assert offsets(build_change(AlterRequest(file=str(json_file)), SINK, None))[0][1] == {"kafka_offset": 3}
    assert offsets(build_change(AlterRequest(file=str(yaml_file)), SINK, None))[0][1] is None
    csv_change = build_change(AlterRequest(file="-"), MIRROR, None, stdin=io.StringIO("orders,0,10\norders,1,0\n"))
    assert offsets(csv_change) == [({"cluster": "east", "topic": "orders", "partition": 0}, {"offset": 9}),
                                   ({"cluster": "east", "topic": "orders", "partition": 1}, None)]


@pytest.mark.parametrize("request_, message", [
    (AlterRequest(sets=("orders:0=-1",)), "must not be negative"),
    (AlterRequest(sets=("orders=1",)), "not of the form TOPIC:PARTITION=OFFSET"),
    (AlterRequest(sets=("refunds:0=1",)), "does not consume topic 'refunds'"),
    (AlterRequest(skip_records=("orders:0",)), "not of the form TOPIC:PARTITION:OFFSET"),
    (AlterRequest(), "nothing to alter"),
    (AlterRequest(file="x.json", sets=("orders:0=1",)), "cannot be combined"),
    (AlterRequest(to_offset=3), "need --topic"),
    (AlterRequest(file="/does/not/exist.json"), "no such file"),
])
def test_bad_shorthand(request_, message):
    with pytest.raises(InputError, match=message):
        build_change(request_, SINK, CURRENT)


@pytest.mark.parametrize("text, message", [
    ('{"offsets": [', "not valid JSON"),
    ('{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": -2}}]}',
     "kafka_offset"),
    ('{"offsets": [{"partition": {"kafka_topic": "orders"}, "offset": {"kafka_offset": 2}}]}', "kafka_partition"),
    ("offsets: [a, b", "neither valid JSON nor valid YAML"),
    ("orders,0,-4", "must not be negative"),
    ('{"offsets": []}', "empty"),
])
def test_bad_files(tmp_path, text, message):
    path = tmp_path / "bad"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        build_change(AlterRequest(file=str(path)), SINK, None)


def test_mirror_partition_must_name_the_source_alias(tmp_path):
    path = tmp_path / "o.json"
    path.write_text('{"offsets": [{"partition": {"cluster": "west", "topic": "orders", "partition": 0},'
                    ' "offset": {"offset": 3}}]}')
    with pytest.raises(InputError, match="replicates from 'east'"):
        build_change(AlterRequest(file=str(path)), MIRROR, None)


def test_shorthand_refused_for_connectors_without_topic_partitions():
    with pytest.raises(InputError, match="need topic-partition offsets"):
        build_change(AlterRequest(sets=("f:0=1",)), ConnectorFacts(ConnectorKind.FILE_SOURCE), None)
