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

import io
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .. import files, schemas
from ..connect import (MAX_OFFSET, MAX_PARTITION, ConnectorKind, entry_for, position_of, stored_offset_to_resume_at,
                       topic_name_problem, topic_partition_of)
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

    def check_locally(self) -> None:
        """Everything that can be checked without the connector: the combination, the forms of --set,
        --skip-record and --topic, and that a -f file exists and parses. Runs before any cluster or repository is
        asked, so a typo is reported at once (exit 2), also when the cluster is unreachable. What needs the
        connector's kind (its schema, its topics) is checked again by build_change."""
        self.check_combination()
        for text in self.sets:
            topic, partition, offset = _match(_SET, text, "--set", "TOPIC:PARTITION=OFFSET")
            _non_negative(offset, f"--set {text}: offset")
            check_kafka_limits(topic, partition, offset, f"--set {_short(text)}")
        for text in self.skip_records:
            topic, partition, offset = _match(_SKIP, text, "--skip-record", "TOPIC:PARTITION:OFFSET")
            _non_negative(offset, f"--skip-record {text}: offset")
            check_kafka_limits(topic, partition, offset + 1, f"--skip-record {_short(text)}")
        for text in self.topics:
            if not _TOPIC.match(text):
                raise InputError(f"--topic '{text}' is not of the form TOPIC or TOPIC:P1,P2")
        if self.file and self.file != "-":  # standard input can be read once only: build_change reads it
            check_offsets_file(self.file)


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
                         advice="run against the cluster, or give the current offsets (--current FILE)")
    if request.file:
        change = read_offsets_file(request.file, facts, stdin=stdin)
        check_document_kind(change, facts.kind, "standard input" if request.file == "-" else request.file)
    else:
        change = OffsetsDocument.of(_refuse_duplicates(list(_shorthand_entries(request, facts, current))))
    validate_change(change, facts)
    return change


# The partition keys that tell whose offsets a document holds (schemas/offsets-*.schema.json), and what to call it.
_DOCUMENT_KINDS = [
    ({"kafka_topic", "kafka_partition"}, ConnectorKind.SINK, "a sink connector's document (kafka_topic/kafka_partition)"),
    ({"cluster", "topic", "partition"}, ConnectorKind.MIRROR_SOURCE,
     "a MirrorMaker 2 document (MirrorSourceConnector offsets)"),
    ({"group", "topic", "partition"}, ConnectorKind.MIRROR_CHECKPOINT,
     "a MirrorMaker 2 document (MirrorCheckpointConnector offsets)"),
    ({"sourceClusterAlias", "targetClusterAlias"}, ConnectorKind.MIRROR_HEARTBEAT,
     "a MirrorMaker 2 document (MirrorHeartbeatConnector offsets)"),
    ({"filename"}, ConnectorKind.FILE_SOURCE, "a FileStreamSource document (filename/position)"),
]


def check_document_kind(change: OffsetsDocument, kind: ConnectorKind, where: str) -> None:
    """A document of another connector kind (a MirrorMaker 2 list fed to a sink, say) in one line, instead of the
    schema's complaints about each key. Documents whose partitions are the connector's own maps pass to the
    schema check."""
    for keys, other, description in _DOCUMENT_KINDS:
        if other is not kind and len(change) and all(keys <= set(entry.partition) for entry in change):
            if kind is ConnectorKind.SOURCE and other is ConnectorKind.FILE_SOURCE:
                return  # any source connector may use a filename key
            what = f"a {kind.value} connector"
            raise InputError(f"{where} holds {description} given to {what}",
                             advice="list this connector's own offsets (kubectl offsets list NAME -o json) for the "
                                    "shape it takes")


def validate_change(change: OffsetsDocument, facts: ConnectorFacts) -> None:
    """Schema of the connector's kind, plus the topic and alias checks that a schema cannot express."""
    if not len(change):
        raise InputError("the offsets document is empty", advice='Connect rejects an empty alter; to reset use "reset"')
    schemas.validate(facts.kind.schema_name, change.to_json(), what=f"the offsets for a {facts.kind.value} connector")
    for number, entry in enumerate(change, start=1):
        _check_topic(entry, facts, f"entry {number}")


def _check_topic(entry: OffsetEntry, facts: ConnectorFacts, where: str) -> None:
    tp = topic_partition_of(facts.kind, entry.partition) if facts.kind.topic_partitioned else None
    if tp is None:
        return
    check_kafka_limits(tp[0], tp[1], position_of(facts.kind, entry.offset), where)
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
    text = _read_text(path, stdin).removeprefix("\ufeff")  # a UTF-8 byte order mark, as Excel and Notepad write
    where = "standard input" if path == "-" else path
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{where} is empty")
    if _looks_like_csv(stripped):
        return _from_csv(stripped, facts, where)
    document = _parse_json_or_yaml(stripped, where)
    check_document_shape(document, where)
    _refuse_duplicates([(f"{where} entry {i}", OffsetEntry(e["partition"], e.get("offset")))
                        for i, e in enumerate(document["offsets"], start=1)])
    return OffsetsDocument.from_json(document)


def check_offsets_file(path: str) -> None:
    """The file exists, is UTF-8 text and parses (JSON/YAML: as an offsets document); CSV rows are checked
    later, when the connector's kind says what they mean."""
    text = _read_text(path, None).removeprefix("\ufeff").strip()
    if not text:
        raise InputError(f"{path} is empty")
    if not _looks_like_csv(text):
        check_document_shape(_parse_json_or_yaml(text, path), path)


def check_document_shape(document: Any, where: str) -> None:
    """An ``{"offsets": [...]}`` document, checked as far as it can be without the connector: the generic schema,
    then the schema of the connector kind its partition keys name (a sink's ``kafka_topic``/``kafka_partition``,
    a MirrorMaker 2 connector's), so that a partition or offset that is no integer is refused before the cluster
    is asked. A third-party source connector's maps (any primitive: OffsetUtils#validateFormat) and a
    ``filename`` key, which any source connector may use, wait for the connector's own kind (validate_change)."""
    schemas.validate("offsets", document, what=f"the offsets document in {where}")
    kind = _claimed_kind(document["offsets"])
    if kind is not None:
        schemas.validate(kind.schema_name, document, what=f"the offsets document in {where}")


def _claimed_kind(entries: list[Any]) -> ConnectorKind | None:
    for keys, kind, _ in _DOCUMENT_KINDS:
        if kind is not ConnectorKind.FILE_SOURCE and entries and all(keys <= set(e["partition"]) for e in entries):
            return kind
    return None


def _read_text(path: str, stdin: io.TextIOBase | None) -> str:
    if path == "-":
        return (stdin or sys.stdin).read()
    try:
        return files.read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not UTF-8 text (byte {e.start})",
                         advice="give a JSON, YAML or CSV offsets file saved as UTF-8") from None


# The headers that spreadsheets, pandas and the docs write above the rows (optional): the third column is the next
# offset to read, and either name says so (README.md, docs/mirrormaker2.md).
CSV_HEADERS = (("topic", "partition", "offset"), ("topic", "partition", "next-offset"))
# Loose on purpose: a line with a comma and none of JSON's or YAML's mapping characters is meant as CSV, so that a
# malformed row gets the CSV message that names its line (the strict checks are in _from_csv).
_CSV_LINE = re.compile(r"^[^{}\[\]:]*,[^{}\[\]:]*$")


def _looks_like_csv(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and _is_csv_header(lines[0]):
        return True
    return all(_CSV_LINE.match(line) for line in lines)


def _is_csv_header(line: str) -> bool:
    return tuple(cell.strip().strip('"').lower() for cell in line.split(",")) in CSV_HEADERS


# Nesting deeper than this is no offsets document; the parsers would end in a RecursionError long before Python's
# own limit is reached in a useful way.
MAX_DEPTH = 64


def _parse_json_or_yaml(text: str, where: str) -> Any:
    if text.startswith("{") or text.startswith("["):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{where} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
        except RecursionError:
            raise _too_deep(where) from None
        _check_depth(document, where)
        _refuse_fleet_document(document, where)
        return document
    from ..adapters.yamlfiles import load_data  # heavy (ruamel.yaml); only for YAML input

    try:
        document = load_data(text, where, invalid="is neither valid JSON nor valid YAML",
                             advice='expected {"offsets": [...]} (JSON or YAML) or topic,partition,offset CSV lines')
    except RecursionError:
        raise _too_deep(where) from None
    _check_depth(document, where)
    if not isinstance(document, dict):
        raise InputError(f"{where} does not hold an offsets document",
                         advice='expected {"offsets": [...]} (JSON or YAML) or topic,partition,offset CSV lines')
    _refuse_fleet_document(document, where)
    return document


def _refuse_fleet_document(document: Any, where: str) -> None:
    """What export (and list -l/--all -o json) writes holds many connectors' offsets: import applies it, each entry
    to its own connector. Said as such, instead of the schema error an offsets document's checks would give."""
    if isinstance(document, dict) and "connectors" in document and "offsets" not in document:
        raise InputError(f"{where} is a fleet document (many connectors' offsets, as export writes), not one "
                         "connector's offsets", advice=f"apply it with: kubectl offsets import -f {where}")


def _too_deep(where: str) -> InputError:
    return InputError(f"{where} is nested too deeply to be an offsets document",
                      advice='expected {"offsets": [{"partition": {...}, "offset": {...}}]}')


def _check_depth(document: Any, where: str) -> None:
    """Iteratively, so that a hostile document cannot exhaust the stack here either."""
    stack = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(where)
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)


def _from_csv(text: str, facts: ConnectorFacts, where: str) -> OffsetsDocument:
    """``kafka-consumer-groups --export`` lines: topic,partition,next-offset-to-read; an optional header line.

    Plain comma-separated cells only: a quoted cell could carry a comma or a line break into a topic name, and no
    legal topic name needs quoting, so a quote character is refused rather than interpreted."""
    if not facts.kind.topic_partitioned:
        raise InputError(f"CSV offsets are topic-partition offsets; a {facts.kind.value} connector has none",
                         advice='use the {"offsets": [...]} form')
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (number == 1 and _is_csv_header(line)):
            continue
        here = f"{where} line {number}"
        if '"' in line or "'" in line:
            raise InputError(f"{here}: quoted CSV cells are not accepted",
                             advice="write topic,partition,offset without quotes (topic names never need them)")
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != 3 or not _INTEGER.match(cells[1]) or not _INTEGER.match(cells[2]):
            raise InputError(f"{here}: expected topic,partition,offset with two integers",
                             advice="for example: orders,0,1200")
        topic, partition, offset = cells[0], int(cells[1]), int(cells[2])
        _non_negative(partition, f"{here}: partition")
        _non_negative(offset, f"{here}: offset")
        check_kafka_limits(topic, partition, offset, here)
        stored = stored_offset_to_resume_at(facts.kind, offset)
        entries.append((here, entry_for(facts.kind, topic, partition, stored, source_alias=facts.source_alias)))
    return OffsetsDocument.of(_refuse_duplicates(entries))


_INTEGER = re.compile(r"^-?\d+$")


def check_kafka_limits(topic: str, partition: int, offset: int | None, where: str) -> None:
    """Kafka's own limits, checked before anything is stopped: Connect would reject these only later."""
    problem = topic_name_problem(topic)
    if problem:
        raise InputError(f"{where}: {_short(topic)} is not a legal topic name: {problem}")
    if partition > MAX_PARTITION:
        raise InputError(f"{where}: partition {partition} is above Kafka's maximum {MAX_PARTITION}")
    if offset is not None and offset > MAX_OFFSET:
        raise InputError(f"{where}: offset {offset} is above Kafka's maximum {MAX_OFFSET} (2^63-1)")


def _short(value: str, limit: int = 60) -> str:
    """The offending value quoted, cut short: a message never carries a whole line of someone's file."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 4] + "...'"


def _refuse_duplicates(entries: list[tuple[str, OffsetEntry]]) -> list[OffsetEntry]:
    """Two values for one partition are a mistake in the input, not "the last one wins"."""
    first: dict[Any, str] = {}
    for where, entry in entries:
        if entry.key in first:
            raise InputError(f"{where} names partition {_describe(entry)} again (first at {first[entry.key]})",
                             advice="give each partition once")
        first[entry.key] = where
    return [entry for _, entry in entries]


def _describe(entry: OffsetEntry) -> str:
    return ", ".join(f"{k}={_short(v, 40) if isinstance(v, str) else v}" for k, v in entry.partition.items())


# --- shorthand flags --------------------------------------------------------------------------------------------

_SET = re.compile(r"^(?P<topic>.+):(?P<partition>\d+)=(?P<offset>-?\d+)$")
_SKIP = re.compile(r"^(?P<topic>.+):(?P<partition>\d+):(?P<offset>-?\d+)$")
_TOPIC = re.compile(r"^(?P<topic>[^:]+)(?::(?P<partitions>\d+(?:,\d+)*))?$")


def _shorthand_entries(request: AlterRequest, facts: ConnectorFacts, current: OffsetsDocument | None
                       ) -> Iterable[tuple[str, OffsetEntry]]:
    if not facts.kind.topic_partitioned:
        raise InputError(f"--set, --skip-record, --shift-by and --to-offset need topic-partition offsets, "
                         f"but this is a {facts.kind.value} connector",
                         advice='give the offsets with -f FILE in the {"offsets": [...]} form')
    alias = facts.source_alias
    for text in request.sets:
        topic, partition, offset = _match(_SET, text, "--set", "TOPIC:PARTITION=OFFSET")
        _non_negative(offset, f"--set {text}: offset")
        check_kafka_limits(topic, partition, offset, f"--set {_short(text)}")
        yield f"--set {_short(text)}", entry_for(facts.kind, topic, partition, offset, source_alias=alias)
    for text in request.skip_records:
        topic, partition, offset = _match(_SKIP, text, "--skip-record", "TOPIC:PARTITION:OFFSET")
        _non_negative(offset, f"--skip-record {text}: offset")
        check_kafka_limits(topic, partition, offset + 1, f"--skip-record {_short(text)}")
        yield f"--skip-record {_short(text)}", entry_for(
            facts.kind, topic, partition, stored_offset_to_resume_at(facts.kind, offset + 1), source_alias=alias)
    for topic, partition in _selected_partitions(request.topics, facts, current):
        if request.to_offset is not None:
            stored = stored_offset_to_resume_at(facts.kind, request.to_offset)
        else:
            stored = _shifted(facts, current, topic, partition, request.shift_by or 0)
        check_kafka_limits(topic, partition, stored, f"--topic {_short(topic)}:{partition}")
        yield f"--topic {_short(topic)}:{partition}", entry_for(facts.kind, topic, partition, stored,
                                                                source_alias=alias)


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
    position = positions.get((topic, partition))
    if position is None:
        known = ", ".join(f"{t}:{p}" for t, p in sorted(positions)) or "none"
        raise InputError(f"--shift-by: the connector has no current offset for {topic}:{partition}",
                         advice=f"partitions with offsets: {known}")
    value = position + by
    if value < 0:
        raise InputError(f"--shift-by {by} moves {topic}:{partition} below zero "
                         f"(current {positions[(topic, partition)]})",
                         advice="use --to-offset 0, or reset the connector to start from the beginning")
    return value


def _non_negative(value: int, what: str) -> None:
    if value < 0:
        raise InputError(f"{what} must not be negative (got {value})")
