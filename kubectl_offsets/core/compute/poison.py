"""Poison scans of a live topic in growing offset windows, and the ``--report`` document of a poison scan.

Below ``positions.py`` (which calls it): it takes the scan's settings as arguments, not positions' request."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ... import schemas
from ...adapters.spark.jobs import PoisonCriteria, PoisonScan
from ...adapters.spark.sources import LiveTopics
from ...times import iso_ms

TopicPartition = tuple[str, int]
# A live poison scan reads each partition in offset windows of this many records, four times larger each round,
# and stops reading a partition after the window that holds its first poison record: the answer needs no more.
POISON_WINDOW = 50_000
POISON_WINDOW_GROWTH = 4


def poison_in_windows(source: LiveTopics, criteria: PoisonCriteria | None, session: Any,
                      live: Mapping[str, list[int]], client: Any, starts: Mapping[TopicPartition, int],
                      columns: tuple[str, ...], *, report_limit: int, first_window: int = POISON_WINDOW) -> PoisonScan:
    """A live topic's poison scan, one offset window per partition at a time (Spark's Kafka source reads exact
    per-partition ranges): a partition whose window held a poison record is answered and not read further; the
    others go on with a window four times larger, up to the end offsets asked for before the first window."""
    from ...adapters.spark import jobs, sources

    partitions = [(t, p) for t, ps in live.items() for p in ps]
    earliest, end = client.earliest(partitions), client.end(partitions)
    position = {tp: max(starts.get(tp, earliest[tp]), earliest[tp]) for tp in partitions}
    pending = [tp for tp in partitions if position[tp] < end[tp]]
    size, scans, stopped = first_window, [], {}
    while pending:
        window_end = {tp: min(position[tp] + size, end[tp]) for tp in pending}
        window = LiveTopics(source.bootstrap_servers, source.topics, source.kafka_options,
                            starts=_by_topic(position, pending), ends=_by_topic(window_end, pending))
        scan = jobs.scan_poison(sources.load(session, window, columns), criteria, report_limit)
        scans.append(scan)
        position.update(window_end)
        stopped.update({tp: position[tp] for tp in scan.first if position[tp] < end[tp]})
        pending = [tp for tp in pending if tp not in scan.first and position[tp] < end[tp]]
        size *= POISON_WINDOW_GROWTH
    return jobs.merge_poison_scans(scans, report_limit, stopped)


def _by_topic(offsets: Mapping[TopicPartition, int], partitions: Iterable[TopicPartition]) -> dict[str, dict[int, int]]:
    nested: dict[str, dict[int, int]] = {}
    for topic, partition in partitions:
        nested.setdefault(topic, {})[partition] = offsets[(topic, partition)]
    return nested



# --- poison report ----------------------------------------------------------------------------------------------


def poison_report(scan: PoisonScan, criteria: PoisonCriteria) -> dict[str, Any]:
    """The ``--report`` document (schemas/poison-report.schema.json)."""
    report = {
        "criteria": _criteria_text(criteria),
        "total": scan.total,
        "truncated": scan.truncated,
        "complete": scan.complete,
        "partitions": [{"topic": t, "partition": p, "firstPoisonOffset": scan.first[(t, p)],
                        "poisonRecords": scan.counts[(t, p)],
                        **({"scannedUntil": scan.scanned_until[(t, p)]} if (t, p) in scan.scanned_until else {})}
                       for t, p in sorted(scan.first)],
        "records": [{"topic": r.topic, "partition": r.partition, "offset": r.offset,
                     "timestamp": iso_ms(r.ts_ms), "reason": r.reason} for r in scan.records],
    }
    schemas.validate("poison-report", report, what="the poison report")
    return report


def _criteria_text(criteria: PoisonCriteria) -> list[str]:
    texts = []
    if criteria.where is not None:
        texts.append(f"--where {criteria.where}")
    if criteria.invalid_json:
        texts.append("--invalid json")
    if criteria.schema is not None:
        texts.append(f"--invalid-against {criteria.schema_name}")
    return texts

