"""Alter inputs -> one offsets change document. Pure: no cluster, no files except the one the user names.

The forms (``kubectl offsets alter --help``):

- ``-f FILE|-``: a Connect/Strimzi ``{"offsets": [...]}`` document in JSON or YAML, or the ``topic,partition,offset``
  CSV that ``kafka-consumer-groups --export`` writes (next offset to read, so it means the same as --to-offset).
- ``--set TOPIC:PARTITION=OFFSET``: store exactly OFFSET, in Connect's own meaning for the connector (a sink's next
  offset to read; a MirrorSourceConnector's last replicated record).
- ``--to-offset N --topic T[:P1,P2]``: resume reading at record N.
- ``--shift-by N --topic T[:P1,P2]``: move the stored offsets by N (negative = replay), relative to the current ones.
- ``--skip-record TOPIC:PARTITION:OFFSET``: resume right after that record (one poison record skipped).

The same request is used online, by GitOps and by compute, so its checks are the "same input checks" everywhere.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import schemas
from ..connect import (ConnectorKind, entry_for, position_of, stored_offset_to_resume_at, topic_partition_of)
from ..errors import InputError
from ..model import OffsetEntry, OffsetsDocument

TopicFilter = Callable[[str], bool]


@dataclass(frozen=True)
class AlterRequest:
    """What the user typed, before we know anything about the connector."""

    file: str | None = None
    sets: tuple[str, ...] = ()
    shift_by: int | None = None
    to_offset: int | None = None
    topics: tuple[str, ...] = ()
    skip_records: tuple[str, ...] = ()

    @property
    def shorthand(self) -> bool:
        return bool(self.sets or self.skip_records or self.shift_by is not None or self.to_offset is not None)

    @property
    def needs_current(self) -> bool:
        """--shift-by and --topic without partitions are relative to what the connector holds now."""
        return self.shift_by is not None or any(":" not in t for t in self.topics)

    def check_combination(self) -> None:
        """Flag combinations that make no sense, before anything else is looked at."""
        if self.file and self.shorthand:
            raise InputError("-f cannot be combined with --set, --skip-record, --shift-by or --to-offset",
                             advice="put every change into the file, or use only the shorthand flags")
        if not self.file and not self.shorthand:
            raise InputError("nothing to alter", advice="give -f FILE, --set, --skip-record, --shift-by or --to-offset")
        if self.shift_by is not None and self.to_offset is not None:
            raise InputError("--shift-by and --to-offset cannot be combined")
        if (self.shift_by is not None or self.to_offset is not None) and not self.topics:
            raise InputError("--shift-by and --to-offset need --topic TOPIC[:P1,P2]")
        if self.topics and self.shift_by is None and self.to_offset is None:
            raise InputError("--topic only selects partitions for --shift-by or --to-offset")
        if self.to_offset is not None and self.to_offset < 0:
            raise InputError(f"--to-offset must not be negative (got {self.to_offset})")


@dataclass(frozen=True)
class ConnectorFacts:
    """What the input checks need to know about the connector (from the cluster or from a manifest)."""

    kind: ConnectorKind
    source_alias: str | None = None  # MirrorSourceConnector partitions carry it as "cluster"
    consumes: TopicFilter | None = None  # None = unknown, accept any topic
    consumes_description: str = ""


def build_change(request: AlterRequest, facts: ConnectorFacts, current: OffsetsDocument | None,
                 *, stdin: io.TextIOBase | None = None) -> OffsetsDocument:
    """The document to PATCH into Connect. Raises InputError, naming the flag or place, for anything invalid."""
    request.check_combination()
    if request.needs_current and current is None:
        raise InputError("--shift-by and --topic without partitions need the connector's current offsets",
                         advice="run against the cluster, or give the current offsets (--before FILE)")
    if request.file:
        change = read_offsets_file(request.file, facts, stdin=stdin)
    else:
        change = OffsetsDocument.of(_shorthand_entries(request, facts, current))
    validate_change(change, facts)
    return change


def validate_change(change: OffsetsDocument, facts: ConnectorFacts) -> None:
    """Schema of the connector's kind, plus the topic and alias checks that a schema cannot express."""
    if not len(change):
        raise InputError("the offsets document is empty", advice='Connect rejects an empty alter; to reset use "reset"')
    schemas.validate(facts.kind.schema_name, change.to_json(), what=f"the offsets for a {facts.kind.value} connector")
    for entry in change:
        _check_topic(entry, facts)


def _check_topic(entry: OffsetEntry, facts: ConnectorFacts) -> None:
    tp = topic_partition_of(facts.kind, entry.partition) if facts.kind.topic_partitioned else None
    if tp is None:
        return
    if facts.kind is ConnectorKind.MIRROR_SOURCE and facts.source_alias \
            and entry.partition.get("cluster") != facts.source_alias:
        raise InputError(f"partition {dict(entry.partition)} names cluster '{entry.partition.get('cluster')}', "
                         f"but this connector replicates from '{facts.source_alias}'",
                         advice=f'set "cluster": "{facts.source_alias}"')
    if facts.consumes is not None and not facts.consumes(tp[0]):
        what = "replicate" if facts.kind is ConnectorKind.MIRROR_SOURCE else "consume"
        raise InputError(f"the connector does not {what} topic '{tp[0]}'",
                         advice=f"its topics: {facts.consumes_description or 'see its configuration'}")


# --- files ------------------------------------------------------------------------------------------------------


def read_offsets_file(path: str, facts: ConnectorFacts, *, stdin: io.TextIOBase | None = None) -> OffsetsDocument:
    """JSON, YAML or consumer-group CSV, recognised by content (stdin has no extension)."""
    text = _read_text(path, stdin)
    where = "standard input" if path == "-" else path
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where} is empty")
    if _looks_like_csv(stripped):
        return _from_csv(stripped, facts, where)
    document = _parse_json_or_yaml(stripped, where)
    schemas.validate("offsets", document, what=f"the offsets document in {where}")
    return OffsetsDocument.from_json(document)


def _read_text(path: str, stdin: io.TextIOBase | None) -> str:
    if path == "-":
        return (stdin or sys.stdin).read()
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read {path}: {e}") from None


_CSV_LINE = re.compile(r"^[^,{}\[\]:]+,\s*-?\d+\s*,\s*-?\d+\s*$")


def _looks_like_csv(text: str) -> bool:
    return all(_CSV_LINE.match(line) for line in text.splitlines() if line.strip())


def _parse_json_or_yaml(text: str, where: str) -> Any:
    if text.startswith("{") or text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    from ruamel.yaml import YAML  # heavy; only for YAML input
    from ruamel.yaml.error import YAMLError

    try:
        document = YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        raise InputError(f"{where} is neither valid JSON nor valid YAML: {e}") from None
    if not isinstance(document, dict):
        raise InputError(f"{where} does not hold an offsets document",
                         advice='expected {"offsets": [...]} (JSON or YAML) or topic,partition,offset CSV lines')
    return document


def _from_csv(text: str, facts: ConnectorFacts, where: str) -> OffsetsDocument:
    """``kafka-consumer-groups --export`` lines: topic,partition,next-offset-to-read."""
    if not facts.kind.topic_partitioned:
        raise InputError(f"CSV offsets are topic-partition offsets; a {facts.kind.value} connector has none",
                         advice='use the {"offsets": [...]} form')
    entries = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        topic, partition, offset = (cell.strip() for cell in row)
        _non_negative(int(partition), f"{where} line {number}: partition")
        _non_negative(int(offset), f"{where} line {number}: offset")
        stored = stored_offset_to_resume_at(facts.kind, int(offset))
        entries.append(entry_for(facts.kind, topic, int(partition), stored, source_alias=facts.source_alias))
    return OffsetsDocument.of(entries)


# --- shorthand flags --------------------------------------------------------------------------------------------

_SET = re.compile(r"^(?P<topic>.+):(?P<partition>\d+)=(?P<offset>-?\d+)$")
_SKIP = re.compile(r"^(?P<topic>.+):(?P<partition>\d+):(?P<offset>-?\d+)$")
_TOPIC = re.compile(r"^(?P<topic>[^:]+)(?::(?P<partitions>\d+(?:,\d+)*))?$")


def _shorthand_entries(request: AlterRequest, facts: ConnectorFacts, current: OffsetsDocument | None
                       ) -> Iterable[OffsetEntry]:
    if not facts.kind.topic_partitioned:
        raise InputError(f"--set, --skip-record, --shift-by and --to-offset need topic-partition offsets, "
                         f"but this is a {facts.kind.value} connector",
                         advice='give the offsets with -f FILE in the {"offsets": [...]} form')
    alias = facts.source_alias
    for text in request.sets:
        topic, partition, offset = _match(_SET, text, "--set", "TOPIC:PARTITION=OFFSET")
        _non_negative(offset, f"--set {text}: offset")
        yield entry_for(facts.kind, topic, partition, offset, source_alias=alias)
    for text in request.skip_records:
        topic, partition, offset = _match(_SKIP, text, "--skip-record", "TOPIC:PARTITION:OFFSET")
        _non_negative(offset, f"--skip-record {text}: offset")
        yield entry_for(facts.kind, topic, partition, stored_offset_to_resume_at(facts.kind, offset + 1),
                        source_alias=alias)
    for topic, partition in _selected_partitions(request.topics, facts, current):
        if request.to_offset is not None:
            stored = stored_offset_to_resume_at(facts.kind, request.to_offset)
        else:
            stored = _shifted(facts, current, topic, partition, request.shift_by or 0)
        yield entry_for(facts.kind, topic, partition, stored, source_alias=alias)


def _match(pattern: re.Pattern[str], text: str, flag: str, form: str) -> tuple[str, int, int]:
    m = pattern.match(text)
    if not m:
        raise InputError(f"{flag} '{text}' is not of the form {form}", advice=f"for example: {flag} orders:0=42"
                         if flag == "--set" else f"for example: {flag} orders:0:41")
    return m["topic"], int(m["partition"]), int(m["offset"])


def _selected_partitions(topics: tuple[str, ...], facts: ConnectorFacts, current: OffsetsDocument | None
                         ) -> list[tuple[str, int]]:
    known = _current_positions(facts, current)
    selected: list[tuple[str, int]] = []
    for text in topics:
        m = _TOPIC.match(text)
        if not m:
            raise InputError(f"--topic '{text}' is not of the form TOPIC or TOPIC:P1,P2")
        topic = m["topic"]
        if m["partitions"]:
            selected += [(topic, int(p)) for p in m["partitions"].split(",")]
        else:
            partitions = sorted(p for (t, p) in known if t == topic)
            if not partitions:
                raise InputError(f"the connector has no current offsets for topic '{topic}'",
                                 advice="name the partitions explicitly: --topic TOPIC:0,1")
            selected += [(topic, p) for p in partitions]
    return selected


def _current_positions(facts: ConnectorFacts, current: OffsetsDocument | None) -> dict[tuple[str, int], int | None]:
    positions: dict[tuple[str, int], int | None] = {}
    for entry in current or ():
        tp = topic_partition_of(facts.kind, entry.partition)
        if tp is not None:
            positions[tp] = position_of(facts.kind, entry.offset)
    return positions


def _shifted(facts: ConnectorFacts, current: OffsetsDocument | None, topic: str, partition: int, by: int) -> int:
    positions = _current_positions(facts, current)
    if (topic, partition) not in positions or positions[(topic, partition)] is None:
        known = ", ".join(f"{t}:{p}" for t, p in sorted(positions)) or "none"
        raise InputError(f"--shift-by: the connector has no current offset for {topic}:{partition}",
                         advice=f"partitions with offsets: {known}")
    value = positions[(topic, partition)] + by
    if value < 0:
        raise InputError(f"--shift-by {by} moves {topic}:{partition} below zero "
                         f"(current {positions[(topic, partition)]})",
                         advice="use --to-offset 0, or reset the connector to start from the beginning")
    return value


def _non_negative(value: int, what: str) -> None:
    if value < 0:
        raise InputError(f"{what} must not be negative (got {value})")
