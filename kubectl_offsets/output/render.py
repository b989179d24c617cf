"""Offsets documents and before/after changes as table, json, yaml or csv text. Knows no cluster.

- json: exactly the ``{"offsets": [...]}`` document that ``alter -f`` accepts (kcctl's "what you get, you can patch").
- yaml: the same document in YAML (also accepted by ``alter -f``).
- csv: ``topic,partition,offset`` lines as ``kafka-consumer-groups --export`` writes them, where offset is the NEXT
  record to read, whatever the connector stores (so a MirrorSourceConnector's stored N appears as N+1); also
  accepted by ``alter -f``. Connectors without topic-partition offsets get ``partition-json,offset-json`` lines.
- table: for people; ``no_headers`` (``--no-headers``) leaves out its header line, as kubectl does.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from typing import Any, Iterable, Mapping, Sequence

from ..connect import ConnectorKind, next_record_after_stored, position_of, topic_partition_of
from ..conventions import StrEnum
from ..model import OffsetChange, OffsetsDocument
from .terminal import printable


def render_offsets(document: OffsetsDocument, fmt: str, kind: ConnectorKind = ConnectorKind.SOURCE, *,
                   no_headers: bool = False) -> str:
    if fmt == "json":
        return json.dumps(document.to_json(), indent=2)
    if fmt == "yaml":
        return to_yaml(document.to_json())
    if fmt == "csv":
        return _csv(document, kind)
    return _offsets_table(document, kind, no_headers)


def render_changes(changes: Sequence[OffsetChange], kind: ConnectorKind, *, no_headers: bool = False) -> str:
    """The before -> after preview table; unchanged rows are kept so the user sees the whole picture."""
    headers = [*_partition_headers(kind), "BEFORE", "AFTER", ""]
    rows = [[*_partition_cells(kind, c.partition), _offset_cell(kind, c.before), _offset_cell(kind, c.after),
             "changed" if c.changed else ""] for c in changes]
    return table(headers, rows, no_headers=no_headers)


def _represent_name(representer, name: StrEnum):
    """A name declared once (conventions.StrEnum) is written as its plain value."""
    return representer.represent_str(str(name))


def _represent_text(representer, text: str):
    """A string with a control or invisible format character (a bidi override, a zero-width space) is written
    double-quoted: the terminal guard (terminal.printable) then shows the character as an escape (``\u202e``),
    which a double-quoted YAML scalar reads back as the character itself. In a plain or single-quoted scalar the
    escape would be six characters of text, and ``-o yaml | alter -f -`` would name another topic."""
    style = '"' if not text.isprintable() else None
    return representer.represent_scalar("tag:yaml.org,2002:str", text, style=style)


@functools.lru_cache(maxsize=None)
def _representer() -> type:
    """ruamel's round-trip representer with our two rules, as a class of its own: add_representer changes the
    class it is called on, and the GitOps edits (adapters/yamlfiles.py) use ruamel's own."""
    from ruamel.yaml.representer import RoundTripRepresenter  # heavy; only for -o yaml

    class Representer(RoundTripRepresenter):
        pass

    Representer.add_representer(str, _represent_text)
    Representer.add_multi_representer(StrEnum, _represent_name)
    return Representer


def to_yaml(data: Any) -> str:
    from ruamel.yaml import YAML  # heavy; only for -o yaml

    yaml = YAML()
    yaml.Representer = _representer()
    yaml.default_flow_style = False
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue().rstrip("\n")


def csv_rows(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV text: a header line, then one line per row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(rows)
    return out.getvalue().rstrip("\n")


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, no_headers: bool = False) -> str:
    """kubectl-style plain columns: upper-case headers, two spaces between columns, no borders. ``no_headers``:
    the rows alone, in the columns the headers would have given them (kubectl get --no-headers)."""
    cells = [list(map(str, headers))] + [[("" if c is None else printable(str(c), multiline=False)) for c in row]
                                         for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    shown = cells[1:] if no_headers else cells
    return "\n".join("   ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in shown)


def _offsets_table(document: OffsetsDocument, kind: ConnectorKind, no_headers: bool) -> str:
    if not len(document):
        return "No offsets."
    rows = [[*_partition_cells(kind, e.partition), _offset_cell(kind, e.offset)] for e in document]
    return table([*_partition_headers(kind), "OFFSET"], rows, no_headers=no_headers)


def _partition_headers(kind: ConnectorKind) -> list[str]:
    if kind is ConnectorKind.SINK:
        return ["TOPIC", "PARTITION"]
    if kind is ConnectorKind.MIRROR_SOURCE:
        return ["CLUSTER", "TOPIC", "PARTITION"]
    return ["PARTITION"]


def _partition_cells(kind: ConnectorKind, partition: Mapping[str, Any]) -> list[Any]:
    if kind is ConnectorKind.SINK:
        return [partition.get("kafka_topic"), partition.get("kafka_partition")]
    if kind is ConnectorKind.MIRROR_SOURCE:
        return [partition.get("cluster"), partition.get("topic"), partition.get("partition")]
    return [json.dumps(dict(partition), sort_keys=True)]


def _offset_cell(kind: ConnectorKind, offset: Mapping[str, Any] | None) -> str:
    if offset is None:
        return "-"
    if kind.topic_partitioned:
        return str(position_of(kind, offset))
    return json.dumps(dict(offset), sort_keys=True)


def _csv(document: OffsetsDocument, kind: ConnectorKind) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for entry in document:
        tp = topic_partition_of(kind, entry.partition) if kind.topic_partitioned else None
        if tp is None:
            writer.writerow([json.dumps(dict(entry.partition)), json.dumps(entry.offset)])
        elif entry.offset is not None:
            writer.writerow([tp[0], tp[1], next_record_after_stored(kind, position_of(kind, entry.offset))])
    return out.getvalue().rstrip("\n")
