from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.inputs import AlterRequest, ConnectorFacts, build_change
from kubectl_offsets.core.online.operations import restoring_change
from kubectl_offsets.model import OffsetEntry, OffsetsDocument, diff
from kubectl_offsets.output.render import render_offsets


def doc(*pairs):
    return OffsetsDocument.of(OffsetEntry({"kafka_topic": "t", "kafka_partition": p},
                                          None if o is None else {"kafka_offset": o}) for p, o in pairs)


def test_merge_replaces_named_partitions_and_drops_nulls():
    after = doc((0, 10), (1, 20)).merged_with(doc((1, 5), (0, None), (2, 1)))
    assert after.same_offsets(doc((1, 5), (2, 1)))
    assert not after.same_offsets(doc((1, 5)))


def test_same_offsets_ignores_order_and_key_order():
    a = OffsetsDocument.from_json({"offsets": [{"partition": {"kafka_partition": 0, "kafka_topic": "t"},
                                                "offset": {"kafka_offset": 1}}]})
    assert a.same_offsets(doc((0, 1)))


def test_diff_rows_cover_before_and_after():
    rows = diff(doc((0, 10), (1, 20)), doc((1, 21), (2, 3)))
    assert [(r.partition["kafka_partition"], r.before, r.after, r.changed) for r in rows] == [
        (0, {"kafka_offset": 10}, None, True), (1, {"kafka_offset": 20}, {"kafka_offset": 21}, True),
        (2, None, {"kafka_offset": 3}, True)]


def test_restoring_change_resets_partitions_added_since_the_backup():
    change = restoring_change(doc((0, 10)), doc((0, 50), (1, 7)))
    assert doc((0, 50), (1, 7)).merged_with(change).same_offsets(doc((0, 10)))
    assert restoring_change(OffsetsDocument(), doc((0, 1))) is None  # an empty backup is a reset


def test_list_outputs_round_trip_through_alter_inputs(tmp_path):
    """kcctl's principle: what list prints, alter -f accepts, and it changes nothing."""
    current = OffsetsDocument.from_json({"offsets": [
        {"partition": {"cluster": "east", "topic": "t", "partition": 0}, "offset": {"offset": 41}}]})
    facts = ConnectorFacts(ConnectorKind.MIRROR_SOURCE, source_alias="east")
    for fmt in ("json", "yaml", "csv"):
        path = tmp_path / f"out.{fmt}"
        path.write_text(render_offsets(current, fmt, ConnectorKind.MIRROR_SOURCE))
        change = build_change(AlterRequest(file=str(path)), facts, None)
        assert current.merged_with(change).same_offsets(current), fmt


def test_listing_order_is_topic_then_partition_numerically():
    from kubectl_offsets.connect import in_listing_order

    entries = [("b", 1), ("a", 10), ("b", 0), ("a", 2), ("a", 0)]
    document = OffsetsDocument.of(OffsetEntry({"kafka_topic": t, "kafka_partition": p}, {"kafka_offset": 1})
                                  for t, p in entries)
    shown = [(e.partition["kafka_topic"], e.partition["kafka_partition"])
             for e in in_listing_order(ConnectorKind.SINK, document)]
    assert shown == [("a", 0), ("a", 2), ("a", 10), ("b", 0), ("b", 1)]


def test_listing_order_for_mirror_sources_and_other_sources():
    from kubectl_offsets.connect import in_listing_order

    mm2 = OffsetsDocument.of(OffsetEntry({"cluster": c, "topic": t, "partition": p}, {"offset": 1})
                             for c, t, p in [("west", "a", 0), ("east", "b", 1), ("east", "b", 0)])
    assert [(e.partition["cluster"], e.partition["partition"]) for e in in_listing_order(
        ConnectorKind.MIRROR_SOURCE, mm2)] == [("east", 0), ("east", 1), ("west", 0)]
    files = OffsetsDocument.of(OffsetEntry({"filename": f}, {"position": 1}) for f in ["/z", "/a"])
    assert [e.partition["filename"] for e in in_listing_order(ConnectorKind.FILE_SOURCE, files)] == ["/a", "/z"]
