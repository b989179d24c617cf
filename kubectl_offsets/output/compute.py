"""What ``compute``, ``compute connect-offsets`` and ``lag`` print: the positions behind a computed document, the
poison report (table, and the ``--report`` file as json, yaml or csv), Connect's offsets per connector and their
history, and the lag report. Plain data in, text out; knows no cluster."""

from __future__ import annotations

import json
from typing import Any, Iterable, TextIO

from .. import schemas
from .render import csv_rows, render_offsets, table, to_yaml


def positions_table(result: Any) -> str:
    """A ComputeResult's positions: where each partition resumes and why (shown on stderr)."""
    from ..times import iso_ms

    if not result.positions:
        return f"({result.method}) no partition to move"
    rows = [[p.topic, p.partition, p.resume_at, iso_ms(p.ts_ms) or "", p.basis] for p in result.positions]
    return f"({result.method})\n" + table(["TOPIC", "PARTITION", "RESUME AT", "RECORD TIME", "WHY"], rows)


def report_table(report: dict[str, Any]) -> str:
    if not report["records"]:
        return "No poison records found."
    rows = [[r["topic"], r["partition"], r["offset"], r["timestamp"] or "", r["reason"]] for r in report["records"]]
    more = f"\n... {report['total'] - len(rows)} more (raise --report-limit)" if report["truncated"] else ""
    if not report.get("complete", True):
        more += ("\nPartitions with poison were read only up to the window holding their first poison record "
                 "(scannedUntil in --report); --count-all reads them to the end.")
    return table(["TOPIC", "PARTITION", "OFFSET", "TIMESTAMP", "REASON"], rows) + more


def report_text(report: dict[str, Any], path: str) -> str:
    """The --report file's text, in the format its extension names (.yaml/.yml, .csv, else json)."""
    if path.endswith((".yaml", ".yml")):
        return to_yaml(report)
    if path.endswith(".csv"):
        return csv_rows(["topic", "partition", "offset", "timestamp", "reason"],
                        [[r["topic"], r["partition"], r["offset"], r["timestamp"] or "", r["reason"]]
                         for r in report["records"]])
    return json.dumps(report, indent=2)


def render_connect(result: Any, fmt: str, *, single: bool) -> str:
    """ConnectOffsets: one connector's document (ready for alter -f) or {"connectors": {...}}."""
    if single and fmt in ("json", "yaml"):
        (document,) = result.connectors.values()
        return render_offsets(document, fmt)
    data = result.to_json()
    schemas.validate("connect-offsets", data, what="the connect-offsets export")
    if fmt == "json":
        return json.dumps(data, indent=2)
    if fmt == "yaml":
        return to_yaml(data)
    rows = [[name, compact(e.partition), compact(e.offset)] for name, doc in sorted(result.connectors.items())
            for e in doc]
    if fmt == "csv":
        return csv_rows(["connector", "partition", "offset"], rows)
    return table(["CONNECTOR", "PARTITION", "OFFSET"], rows) if rows else "No offsets."


def compact(value: Any) -> str:
    return json.dumps(None if value is None else dict(value), sort_keys=True, separators=(",", ":"))


def write_history(rows: Iterable[dict[str, Any]], fmt: str, out: TextIO) -> None:
    """Streamed: a row is written as soon as Spark hands it over, so a long history needs no driver memory."""
    if fmt == "yaml":
        out.write(to_yaml({"history": list(rows)}) + "\n")
        return
    if fmt == "json":
        out.write('{"history": [')
        for i, row in enumerate(rows):
            out.write(("," if i else "") + "\n  " + json.dumps(row))
        out.write("\n]}\n")
        return
    header = ["connector", "partition", "offset", "topicPartition", "topicOffset", "timestamp"]
    sep = "," if fmt == "csv" else "   "
    out.write(sep.join(header if fmt == "csv" else [h.upper() for h in header]) + "\n")
    for row in rows:
        cells = [row["connector"], compact(row["partition"]), compact(row["offset"]), row["topicPartition"],
                 row["topicOffset"], row["timestamp"] or ""]
        out.write((csv_rows([], [cells]).lstrip("\n") if fmt == "csv" else sep.join(map(str, cells))) + "\n")
        out.flush()


def render_lag(document: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(document, indent=2)
    if fmt == "yaml":
        return to_yaml(document)
    rows = [[r["topic"], r["partition"], "-" if r["position"] is None else r["position"],
             "-" if r["end"] is None else r["end"], r["lag"], age(r["timeLagSeconds"]), r["status"]]
            for r in document["partitions"]]
    if fmt == "csv":
        return csv_rows(["topic", "partition", "position", "end", "lag", "time-lag-seconds", "status"],
                        [row[:5] + [r["timeLagSeconds"], r["status"]] for row, r in zip(rows, document["partitions"])])
    return table(["TOPIC", "PARTITION", "POSITION", "END", "LAG", "AGE", "STATUS"], rows) + \
        f"\nTOTAL LAG: {document['totalLag']}; OLDEST PENDING: {age(document['maxTimeLagSeconds'])}"


def age(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    if seconds < 120:
        return f"{seconds:.1f}s"
    if seconds < 7200:
        return f"{seconds / 60:.1f}m"
    return f"{seconds / 3600:.1f}h"
