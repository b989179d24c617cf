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
