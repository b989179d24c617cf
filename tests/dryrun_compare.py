"""A dry run's writes against a real run's, on the same connector: what makes them comparable.

Both are the engine's writes, so after normalising what differs by nature (the journal's id, times and owner, the
backup's name, resourceVersions) they must be the same sequence, except for what only a real run does while it
waits on the operator: nudges, and the journal's heartbeats (a journal-only write that records no new step).
Used by the unit test on the in-memory cluster and by the integration test on the real operator.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

JOURNAL = "kubectl-offsets.io~1journal"
NUDGE = "kubectl-offsets.io~1nudge"
BACKUP_NAME = re.compile(r"-offsets-backup-\d{8}t\d{6}z(-\d+)?")
VOLATILE = ("id", "started", "heartbeat", "lease", "owner", "backup", "tool")


def from_the_claim(writes: list[tuple[str, str, str, Any]]) -> list[tuple[str, str, str, Any]]:
    """A real run's writes from the engine's first (the claim, which carries the journal): before it, the real
    run lists for its preview, which a dry run does not (it starts from the last list)."""
    first = next(i for i, (verb, _, _, body) in enumerate(writes) if verb == "patch" and _journal_step(body))
    return writes[first:]


def normalised(writes: Iterable[tuple[str, str, str, Any]]) -> list[tuple[str, str, str, str]]:
    """(verb, kind, name, body) -> the comparable sequence, without nudges and heartbeats."""
    out: list[tuple[str, str, str, str]] = []
    last_step = None
    for verb, kind, name, body in writes:
        if kind == "file":
            continue  # the local backup: a real run's is a file, not a cluster write
        if verb == "patch" and _only(body, NUDGE):
            continue
        step = _journal_step(body) if verb == "patch" else None
        if verb == "patch" and _only(body, JOURNAL) and step == last_step:
            continue  # a heartbeat
        last_step = step if step is not None else last_step
        out.append((verb, kind.lower(), BACKUP_NAME.sub("-offsets-backup-T", name), _text(body)))
    return out


def _only(ops: Any, key: str) -> bool:
    changes = [op for op in ops if op.get("op") != "test"] if isinstance(ops, list) else []
    return bool(changes) and all(op["path"].endswith(key) for op in changes)


def _journal_step(ops: Any) -> str | None:
    for op in ops if isinstance(ops, list) else []:
        value = op.get("value")
        if op["path"].endswith(JOURNAL) and isinstance(value, str):
            return json.loads(value)["step"]
        if op["path"] == "/metadata/annotations" and isinstance(value, dict) and "kubectl-offsets.io/journal" in value:
            return json.loads(value["kubectl-offsets.io/journal"])["step"]
    return None


def _text(body: Any) -> str:
    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in ("resourceVersion", "kubectl-offsets.io/taken-at")}
        if isinstance(value, list):
            return [clean(v) for v in value if not (isinstance(v, dict) and v.get("op") == "test")]
        if isinstance(value, str) and value.startswith("{") and '"operation"' in value:
            journal = json.loads(value)
            return {k: v for k, v in journal.items() if k not in VOLATILE}
        if isinstance(value, str) and value.lstrip().startswith("{") and ('"offsets"' in value or '"partitions"' in value):
            return _document(json.loads(value))
        return BACKUP_NAME.sub("-offsets-backup-T", value) if isinstance(value, str) else value
    return json.dumps(clean(body), sort_keys=True)


def _document(document: dict) -> dict:
    """An offsets document (a backup's offsets.json, its changed.json) with its partitions in one order: Connect
    lists them in its own map's order, which is no fact about the offsets."""
    def key(entry: Any) -> str:
        return json.dumps(entry, sort_keys=True)
    return {k: sorted(v, key=key) if isinstance(v, list) else v for k, v in document.items()}


def first_difference(left: list, right: list) -> str:
    """The first write where two normalised sequences differ, whole on both sides (pytest's diff cuts them short)."""
    for index, (a, b) in enumerate(zip(left, right)):
        if a != b:
            return f"write {index}:\n  left:  {a}\n  right: {b}"
    shorter, longer = (left, right) if len(left) < len(right) else (right, left)
    return f"one side has {len(longer) - len(shorter)} more write(s): {longer[len(shorter):]}"
