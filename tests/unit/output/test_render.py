"""table(): kubectl's plain columns, and --no-headers as the renderer's own flag (the rows alone, never a line lost)."""

from __future__ import annotations

from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.model import OffsetsDocument
from kubectl_offsets.output.render import render_offsets, table


def test_no_headers_leaves_out_only_the_header_and_keeps_the_columns():
    rows = [["orders", 0, 12], ["ORDERS-EU", 1, None]]  # an upper-case first row is a row, not a header
    with_header = table(["TOPIC", "PARTITION", "OFFSET"], rows).splitlines()
    without = table(["TOPIC", "PARTITION", "OFFSET"], rows, no_headers=True).splitlines()
    assert with_header[0].split() == ["TOPIC", "PARTITION", "OFFSET"]
    assert without == with_header[1:]
    assert without[1].split() == ["ORDERS-EU", "1"]


def test_no_headers_of_an_empty_table_prints_nothing_and_a_message_stays():
    assert table(["TOPIC"], [], no_headers=True) == ""
    assert render_offsets(OffsetsDocument(), "table", ConnectorKind.SINK, no_headers=True) == "No offsets."


def test_yaml_output_keeps_invisible_characters_as_data():
    """Issue 28: the terminal guard writes a bidi override or a zero-width space as a visible escape (\\u202e). In
    a plain YAML scalar that escape is six characters of text, so `-o yaml | alter -f -` changed the topic name; in
    a double-quoted scalar it is the character itself. What the CLI prints must read back as the same data."""
    import yaml

    from kubectl_offsets.output.terminal import printable

    for topic in ("orders\u202e", "ord\u200bers", "tab\tand\\backslash\u2066", "orders\x1b[2J"):
        document = OffsetsDocument.from_json({"offsets": [
            {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 5}}]})
        shown = printable(render_offsets(document, "yaml", ConnectorKind.SINK))
        assert shown.isascii() or "\u202e" not in shown
        assert yaml.safe_load(shown) == document.to_json(), shown
