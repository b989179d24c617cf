"""`list` without a target: the connectors table (``kcctl get connectors``) and, with --lag, one row per partition
(``kafka-consumer-groups --describe``). Takes the plain dicts of ``ConnectorRow.to_json()`` and
``PartitionLag.to_json()``; knows no cluster."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from .render import table, to_yaml


def connectors_document(rows: Sequence[Mapping[str, Any]],
                        lag: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """What -o json/yaml print: ``{"connectors": [...]}``, each with its partitions when lag was asked for."""
    return {"connectors": [_with_partitions(r, lag) for r in rows]}


def render_connectors(rows: Sequence[Mapping[str, Any]], fmt: str, *, all_namespaces: bool = False,
                      lag: Sequence[Mapping[str, Any]] | None = None, no_headers: bool = False) -> str:
    if fmt in ("json", "yaml"):
        document = connectors_document(rows, lag)
        return json.dumps(document, indent=2) if fmt == "json" else to_yaml(document)
    ns = ["NAMESPACE"] if all_namespaces else []
    if lag is None:
        head = [*ns, "NAME", "KIND", "CONNECTOR", "TYPE", "CLASS", "STATE", "TASKS"]
        body = [[*_ns(r, all_namespaces), r["name"], r["kind"], r["connector"], r["type"] or "-",
                 _short_class(r["class"]), r["state"] or "-", f"{r['tasksRunning']}/{r['tasks']}"] for r in rows]
        return table(head, body, no_headers=no_headers)
    head = [*ns, "NAME", "CONNECTOR", "STATE", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"]
    body = []
    for r in rows:
        partitions = _partitions_of(r, lag)
        first = [*_ns(r, all_namespaces), r["name"], r["connector"], r["state"] or "-"]
        if not partitions:
            body.append([*first, "-", "-", "-", "-", "-"])
        for p in partitions:
            body.append([*first, p["topic"], p["partition"], "-" if p["currentOffset"] is None else p["currentOffset"],
                         "-" if p["logEndOffset"] is None else p["logEndOffset"], "-" if p["lag"] is None else p["lag"]])
    return table(head, body, no_headers=no_headers)


def _ns(row: Mapping[str, Any], all_namespaces: bool) -> list[str]:
    return [row["namespace"]] if all_namespaces else []


def _short_class(name: str | None) -> str:
    return name.rsplit(".", 1)[-1] if name else "-"


def _partitions_of(row: Mapping[str, Any], lag: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    name = row["name"].split("/")[-1]
    return [p for p in lag if (p["namespace"], p["kind"], p["name"], p["connector"])
            == (row["namespace"], row["kind"], name, row["connector"])]


def _with_partitions(row: Mapping[str, Any], lag: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    if lag is None:
        return dict(row)
    keep = ("topic", "partition", "currentOffset", "logEndOffset", "lag")
    return {**row, "partitions": [{k: p[k] for k in keep} for p in _partitions_of(row, lag)]}
