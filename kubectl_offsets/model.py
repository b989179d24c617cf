"""Plain data objects shared by every layer. No I/O, no third-party imports.

The central object is :class:`OffsetsDocument`: the ``{"offsets": [{"partition": {...}, "offset": {...}}]}``
document that Kafka Connect's ``GET /connectors/{c}/offsets`` returns, ``PATCH`` accepts, and Strimzi copies in and
out of ConfigMaps. We keep partitions and offsets as the maps Connect uses, because their keys depend on the
connector (sink, MirrorMaker 2, FileStream, any third-party source); ``connect.py`` knows the shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping


def _freeze(value: Any) -> Any:
    """A hashable, order-independent form of a partition map, used as a dictionary key."""
    if isinstance(value, Mapping):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class OffsetEntry:
    """One source or sink partition and its offset; ``offset`` None means "reset this partition"."""

    partition: Mapping[str, Any]
    offset: Mapping[str, Any] | None

    @property
    def key(self) -> Any:
        return _freeze(self.partition)

    def to_json(self) -> dict[str, Any]:
        return {"partition": dict(self.partition), "offset": None if self.offset is None else dict(self.offset)}


@dataclass(frozen=True)
class OffsetsDocument:
    """An ordered set of offset entries, at most one per partition."""

    entries: tuple[OffsetEntry, ...] = ()

    @classmethod
    def from_json(cls, document: Any) -> "OffsetsDocument":
        """Build from an already schema-validated ``{"offsets": [...]}`` object."""
        return cls.of(OffsetEntry(e["partition"], e.get("offset")) for e in document["offsets"])

    @classmethod
    def of(cls, entries: Iterable[OffsetEntry]) -> "OffsetsDocument":
        by_key: dict[Any, OffsetEntry] = {}
        for entry in entries:
            by_key[entry.key] = entry  # a later entry for the same partition wins, as in a PATCH
        return cls(tuple(by_key.values()))

    def to_json(self) -> dict[str, Any]:
        return {"offsets": [e.to_json() for e in self.entries]}

    def dumps(self) -> str:
        """Compact-but-readable JSON, stable for the same input (used in ConfigMaps and files)."""
        return json.dumps(self.to_json(), indent=2, sort_keys=False)

    def __iter__(self) -> Iterator[OffsetEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def by_partition(self) -> dict[Any, OffsetEntry]:
        return {e.key: e for e in self.entries}

    def get(self, partition: Mapping[str, Any]) -> OffsetEntry | None:
        return self.by_partition().get(_freeze(partition))

    def merged_with(self, change: "OffsetsDocument") -> "OffsetsDocument":
        """The offsets Connect holds after PATCHing ``change`` onto ``self``: named partitions are replaced,
        partitions with a null offset disappear, the others stay as they were."""
        result = self.by_partition()
        for entry in change:
            if entry.offset is None:
                result.pop(entry.key, None)
            else:
                result[entry.key] = entry
        return OffsetsDocument(tuple(result.values()))

    def same_offsets(self, other: "OffsetsDocument") -> bool:
        """Equal as sets of (partition, offset), whatever the order and the number types Connect returns."""
        return _normalised(self) == _normalised(other)


def _normalised(document: OffsetsDocument) -> dict[Any, Any]:
    return {e.key: _freeze(e.offset) for e in document if e.offset is not None}


@dataclass(frozen=True)
class OffsetChange:
    """One row of a before/after preview."""

    partition: Mapping[str, Any]
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None

    @property
    def changed(self) -> bool:
        return _freeze(self.before) != _freeze(self.after)


def diff(before: OffsetsDocument, after: OffsetsDocument) -> list[OffsetChange]:
    """Rows for every partition present before or after, in a stable order (before's order, then new ones)."""
    old, new = before.by_partition(), after.by_partition()
    keys = list(old) + [k for k in new if k not in old]
    rows = []
    for key in keys:
        partition = (old.get(key) or new[key]).partition
        rows.append(
            OffsetChange(
                partition,
                old[key].offset if key in old else None,
                new[key].offset if key in new else None,
            )
        )
    return rows


@dataclass(frozen=True)
class WaitSettings:
    """How long to wait for the operator and Connect; all in seconds."""

    timeout: float = 300.0
    # A watch request is re-opened after this many seconds even without events, so a lost connection is noticed.
    watch_chunk: float = 30.0


@dataclass
class Options:
    """What the user asked for besides the offsets: the switches every operation understands."""

    yes: bool = False
    dry_run: bool = False
    dry_run_server: bool = False  # --dry-run=server: the recorded writes are also judged by the API server
    resume: bool = True  # restore the previous spec.state afterwards (False = --no-resume)
    force: bool = False
    wait: WaitSettings = field(default_factory=WaitSettings)
    # MirrorMaker 2 only (core.mm2_check.Mm2Settings): broker addresses for the pre-flight and the full reset.
    mm2: Any = None


@dataclass(frozen=True)
class ClusterConfig:
    """Where to connect, as kubectl's flags say it; None means "as the kubeconfig's current context says"."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
