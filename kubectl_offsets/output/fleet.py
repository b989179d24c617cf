"""Fleet results as text: the offsets of many connectors (table/json/yaml/csv), the plan before a fleet operation and
the summary after it. Knows no cluster; takes plain rows so it does not depend on the library's classes.

- json/yaml: the fleet document (schemas/fleet.schema.json), which ``import -f`` accepts.
- csv: ``namespace,kind,name,connector,topic,partition,offset`` with offset = the NEXT record to read, as the single
  connector CSV means it (a MirrorSourceConnector's stored N is N+1); other partitions as JSON in ``topic``.
- table: NAMESPACE and CONNECTOR columns before the partition and offset.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable, Mapping, Sequence

from ..connect import ConnectorKind, next_record_after_stored, position_of, topic_partition_of
from .render import table, to_yaml

FleetRow = tuple[str, str, str, str, ConnectorKind | None, Sequence[Any]]  # ns, kind, name, connector, kind, entries


def render_fleet(document: Mapping[str, Any], rows: Iterable[FleetRow], fmt: str, *, no_headers: bool = False) -> str:
    if fmt == "json":
        return json.dumps(document, indent=2)
    if fmt == "yaml":
        return to_yaml(document)
    if fmt == "csv":
        return _csv(rows)
    return _table(rows, no_headers)


def _table(rows: Iterable[FleetRow], no_headers: bool) -> str:
    lines = []
    for namespace, kind, name, connector, ckind, entries in rows:
        shown = f"{kind.lower()}/{name}"
        if not entries:
            lines.append([namespace, shown, connector, "(no offsets)", ""])
        for entry in entries:
            lines.append([namespace, shown, connector, _partition(ckind, entry.partition), _offset(ckind, entry.offset)])
    if not lines:
        return "No connectors."
    return table(["NAMESPACE", "RESOURCE", "CONNECTOR", "PARTITION", "OFFSET"], lines, no_headers=no_headers)


def _partition(kind: ConnectorKind | None, partition: Mapping[str, Any]) -> str:
    tp = topic_partition_of(kind, partition) if kind is not None and kind.topic_partitioned else None
    return f"{tp[0]}:{tp[1]}" if tp else json.dumps(dict(partition), sort_keys=True)


def _offset(kind: ConnectorKind | None, offset: Mapping[str, Any] | None) -> str:
    if offset is None:
        return "-"
    if kind is not None and kind.topic_partitioned:
        return str(position_of(kind, offset))
    return json.dumps(dict(offset), sort_keys=True)


def _csv(rows: Iterable[FleetRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["namespace", "kind", "name", "connector", "topic", "partition", "offset"])
    for namespace, kind, name, connector, ckind, entries in rows:
        for entry in entries:
            tp = topic_partition_of(ckind, entry.partition) if ckind is not None and ckind.topic_partitioned else None
            if tp is None:
                writer.writerow([namespace, kind, name, connector, json.dumps(dict(entry.partition)), "",
                                 json.dumps(entry.offset)])
            elif entry.offset is not None:
                assert ckind is not None  # tp is set only for a known, topic-partitioned kind
                writer.writerow([namespace, kind, name, connector, tp[0], tp[1],
                                 next_record_after_stored(ckind, position_of(ckind, entry.offset))])
    return out.getvalue().rstrip("\n")


def render_plan(rows: Iterable[Sequence[str]]) -> str:
    """One line per connector: what will happen to it (rows: namespace, connector, operation, changes, note)."""
    return table(["NAMESPACE", "CONNECTOR", "OPERATION", "PARTITIONS CHANGED", "NOTE"], rows)


def render_summary(rows: Iterable[Sequence[str]], *, no_headers: bool = False) -> str:
    """After the run (rows: namespace, connector, outcome, backup, next command)."""
    return table(["NAMESPACE", "CONNECTOR", "OUTCOME", "BACKUP", "NEXT"], rows, no_headers=no_headers)
