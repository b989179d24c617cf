"""Backup ConfigMaps as text (``kubectl offsets backups``): a kubectl-style table, json/yaml documents, or
``configmap/NAME`` lines. Takes the plain dicts of ``Backup.to_json()``; knows no cluster."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from .render import table, to_yaml


def backups_document(backups: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What -o json/yaml print: ``{"backups": [...]}``."""
    return {"backups": [dict(b) for b in backups]}


def render_backups(backups: Sequence[Mapping[str, Any]], fmt: str, *, all_namespaces: bool = False,
                   no_headers: bool = False) -> str:
    if fmt == "json":
        return json.dumps(backups_document(backups), indent=2)
    if fmt == "yaml":
        return to_yaml(backups_document(backups))
    if fmt == "name":
        return "\n".join(f"configmap/{b['name']}" for b in backups)
    head = (["NAMESPACE"] if all_namespaces else []) + ["NAME", "CONNECTOR", "OPERATION", "AGE", "SIZE"]
    rows = [([b["namespace"]] if all_namespaces else []) + [b["name"], b["connector"] or "-", b["operation"] or "-",
            human_age(b["ageSeconds"]), human_size(b["size"])] for b in backups]
    return table(head, rows, no_headers=no_headers)


def human_age(seconds: int | None) -> str:
    """kubectl's age column (apimachinery's duration.HumanDuration): 45s, 5m30s, 60m, 3h20m, 20h, 2d5h, 30d."""
    if seconds is None:
        return "<unknown>"
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86400
    if seconds < 120:
        return f"{seconds}s"
    if minutes < 10:
        return f"{minutes}m" + (f"{seconds % 60}s" if seconds % 60 else "")
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h" + (f"{minutes % 60}m" if minutes % 60 else "")
    if hours < 48:
        return f"{hours}h"
    if hours < 192:
        return f"{days}d" + (f"{hours % 24}h" if hours % 24 else "")
    if days < 365 * 2:
        return f"{days}d"
    years = days // 365
    return f"{years}y" + (f"{days % 365}d" if days % 365 and years < 8 else "")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KiB"
    return f"{size / 1024 / 1024:.1f}MiB"
