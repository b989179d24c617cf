"""The journal: what an alter/reset/undo in progress records on the custom resource itself.

It is a JSON annotation (``conventions.ANNOTATION_JOURNAL``, shape in ``schemas/journal.schema.json``) written
*before* each mutating step (write-ahead), so whoever finds it (``recover``, a second run, a colleague) knows the
previous ``spec.state`` and ``alterOffsets`` to restore, where the backup is, exactly what was asked (the request and
a digest of the document handed to the operator), whether to resume afterwards, and how far the operation got. Only
the engine (``engine.Run``) writes it. Living on the resource, it survives a lost laptop and is visible to ``kubectl get -o yaml``.

Ownership: the journal carries the id of the process that works on it and a heartbeat with a lease (the owner
promises to write again, or to be done, within ``lease`` seconds of ``heartbeat``). Every write tests that the
journal still carries the writer's id, so a process that lost the journal (someone ran ``recover --force``) stops
instead of overwriting it. While the lease runs, ``recover`` refuses without ``--force`` (or waits it out with
``--wait``), unless the owner is known to be dead: the journal names the owner's host and process, and on that same
host a process that no longer runs is dead, whatever its lease says (a kill -9, a closed laptop lid does not count:
its process still runs).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import socket
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from ... import __version__, schemas, strimzi
from ...conventions import ANNOTATION_JOURNAL, Operation, StrEnum
from ...strimzi import OffsetsAction
from ...errors import PreconditionError
from ...times import parse_instant

class Step(StrEnum):
    """The journal's ``step``: the last step an operation recorded. Stored in journals: never rename one after a
    release. The flow's steps in order (STEPS), then those only a MirrorMaker 2 full reset takes (FULL_RESET_STEPS)."""

    STOP = "stop"
    BACKUP = "backup"
    WRITE_CONFIGMAP = "write-configmap"
    ANNOTATE = "annotate"
    AWAIT_OPERATOR = "await-operator"
    VERIFY = "verify"
    RESUME = "resume"
    CLEANUP = "cleanup"
    RESET_CHECKPOINT = "reset-checkpoint"
    TRUNCATE_OFFSET_SYNCS = "truncate-offset-syncs"


# The alter declaration's order (core/online/steps.py, ALTER); "stop" comes before "backup" because the offsets of a running connector
# move (live partitions): the backup and the offsets the verification compares with are listed once Connect reports
# the connector STOPPED.
STEPS = (Step.STOP, Step.BACKUP, Step.WRITE_CONFIGMAP, Step.ANNOTATE, Step.AWAIT_OPERATOR, Step.VERIFY, Step.RESUME,
         Step.CLEANUP)
# From this step on the offsets may already have changed in Connect: recover finishes instead of rolling back.
POINT_OF_NO_RETURN = Step.ANNOTATE
VERSION = 2  # 2: owner heartbeat/lease, the request and its digest, the resume choice


def utc_text(when: dt.datetime) -> str:
    return when.astimezone(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_utc(text: str) -> dt.datetime:
    return parse_instant(text)


def document_digest(document) -> str:
    """sha256 of an offsets document's JSON with sorted keys and its entries in one order: what the journal records
    of the alter ConfigMap, so ``recover`` can tell the document it handed over from a ConfigMap changed (or left
    over) since. The order of the entries is no fact about the offsets (Connect lists partitions in its map's order,
    so an undo's document, read from a backup, came in whatever order that list had)."""
    data = document.to_json()
    entries = data.get("offsets")
    if isinstance(entries, list):
        data = {**data, "offsets": sorted(entries, key=lambda e: json.dumps(e, sort_keys=True, separators=(",", ":")))}
    return _sha256(data)


def digest_matches(document, recorded: str) -> bool:
    """Whether ``document`` is the one a journal's ``request_digest`` names: in one order (``document_digest``), or
    in the order of the document as written (a journal of an earlier version, which hashed it so)."""
    return recorded in (document_digest(document), _sha256(document.to_json()))


def _sha256(data) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# Steps only a MirrorMaker 2 full reset takes (core/online/mm2_full_reset.py), between the source's verify and resume:
# past the point of no return.
FULL_RESET_STEPS = (Step.RESET_CHECKPOINT, Step.TRUNCATE_OFFSET_SYNCS)


@dataclass
class Journal:
    operation: str  # an Operation: alter | reset | undo
    id: str  # the owner: the process working on the operation (recover takes over with a new id)
    started: str  # ISO-8601 UTC
    kind: str
    resource: str
    connector: str
    previous_state: str | None  # the stanza's state field as it was; None = absent (means running)
    previous_alter_offsets: dict[str, Any] | None
    backup: str  # the backup ConfigMap's name
    offsets_configmap: str
    step: str = Step.STOP  # a Step
    request: str | None = None  # the OffsetsAction handed to the operator: alter | reset (None: version 1)
    request_digest: str | None = None  # document_digest of the alter document, once written
    resume: bool = True  # False: --no-resume, the connector stays stopped afterwards
    heartbeat: str | None = None  # when the owner last wrote (ISO-8601 UTC)
    lease: float = 0.0  # seconds after heartbeat within which the owner writes again or is done
    # v1beta2's deprecated ``pause: true`` (Strimzi 0.38-0.51), which pauses the connector when ``state`` is absent;
    # None = not set. Without it a resume would wait for RUNNING while the operator pauses the connector again.
    previous_pause: bool | None = None
    tool: str = field(default_factory=lambda: f"kubectl-offsets {__version__}")
    version: int = VERSION
    # A MirrorMaker 2 full reset only (core/online/mm2_full_reset.py): the checkpoint connector and the offset-syncs topic,
    # and whether the truncation happened. Absent from every other journal.
    offset_syncs: dict[str, Any] | None = None
    # The ConfigMap named by the listOffsets stanza the claim added (None: the stanza was the user's, or absent and
    # not added). Kept for the whole operation so its lists need no stanza change (no extra operator pass, no wait
    # for it to be observed); the resume (or make-safe) removes it while it still names this ConfigMap.
    list_offsets_added: str | None = None
    # The process working on it (this_process()): on the same host, recover can tell that it died (None: written by
    # an older kubectl-offsets, or the process could not say).
    owner: dict[str, Any] | None = None
    # delete --reset-offsets (core/online/lifecycle.py, DELETE_AFTER_RESET): the connector stays stopped after the reset and
    # its last step deletes it. None in every other journal.
    then_delete: bool | None = None

    def to_annotation(self) -> str:
        data = asdict(self)
        for optional in ("offset_syncs", "list_offsets_added", "owner", "then_delete"):  # absent unless used: journals stay short
            if data[optional] is None:
                del data[optional]
        return json.dumps(data, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_annotation(cls, text: str) -> "Journal":
        try:
            data = json.loads(text)
        except ValueError:
            raise PreconditionError("the kubectl-offsets journal on this resource is not valid JSON",
                                    advice="inspect it with kubectl get -o yaml; remove the annotation "
                                    "kubectl-offsets.io/journal once the connector is as you want it") from None
        problems = schemas.errors("journal", data)
        if problems:
            raise PreconditionError(f"the kubectl-offsets journal on this resource is not understood: {problems[0]}",
                                    advice="was it written by a newer kubectl-offsets? upgrade and retry")
        return cls(**data)

    @property
    def previous_effective_state(self) -> str:
        """The state the connector had, as the operator derives it (``state`` wins, else ``pause``: Strimzi's
        AbstractConnectOperator#updateState before 1.0.0)."""
        if self.previous_state:
            return self.previous_state
        return strimzi.STATE_PAUSED if self.previous_pause else strimzi.DEFAULT_STATE

    @property
    def past_point_of_no_return(self) -> bool:
        if self.step in FULL_RESET_STEPS:
            return True
        return STEPS.index(self.step) >= STEPS.index(POINT_OF_NO_RETURN)

    @property
    def resets(self) -> bool:
        """The request handed to the operator is a reset (a reset, or an undo of a backup without offsets)."""
        return self.request == OffsetsAction.RESET if self.request else self.operation == Operation.RESET

    # --- ownership ----------------------------------------------------------------------------------------------
    def beat(self, lease: float, now: dt.datetime | None = None) -> None:
        self.heartbeat = utc_text(now or dt.datetime.now(dt.timezone.utc))
        self.lease = float(lease)

    def seconds_since_seen(self, now: dt.datetime | None = None) -> float | None:
        if not self.heartbeat:
            return None
        return max(0.0, ((now or dt.datetime.now(dt.timezone.utc)) - parse_utc(self.heartbeat)).total_seconds())

    def owner_alive(self, now: dt.datetime | None = None) -> bool:
        """The owner's lease still runs and its process is not known to be dead: it may be working (waiting for
        the operator) right now."""
        seen = self.seconds_since_seen(now)
        return seen is not None and seen < self.lease and not self.owner_dead()

    def owner_dead(self) -> bool:
        """The owner ran on this host (the same kernel boot and process namespace) and its process is gone."""
        return self.owner is not None and process_gone(self.owner)

    def lease_left(self, now: dt.datetime | None = None) -> float:
        seen = self.seconds_since_seen(now)
        return 0.0 if seen is None else max(0.0, self.lease - seen)

    def owner_text(self) -> str:
        return f"{self.id} (pid {self.owner['pid']} on {self.owner['host']})" if self.owner else self.id

    @property
    def what(self) -> str:
        """The operation as people call it: ``reset (then delete)`` for delete --reset-offsets."""
        return f"{self.operation} (then delete)" if self.then_delete else self.operation

    def describe(self) -> str:
        return f"{self.what} of '{self.connector}' started {self.started} (id {self.id}), last step '{self.step}'"

    def presence(self, now: dt.datetime | None = None) -> str:
        """'in progress by <id>, last seen Ns ago' while its owner's lease runs, else how long it has been silent."""
        seen = self.seconds_since_seen(now)
        if seen is None:
            return f"{self.describe()}; its owner leaves no heartbeat (an older kubectl-offsets)"
        if self.owner_dead():
            return f"{self.describe()}; its owner {self.owner_text()} no longer runs"
        if self.owner_alive(now):
            where = f"pid {self.owner['pid']} on {self.owner['host']}, " if self.owner else ""
            return (f"{self.what} of '{self.connector}' in progress by {self.id}, last seen {seen:.0f}s ago ({where}"
                    f"started {self.started}, last step '{self.step}')")
        return f"{self.describe()}; its owner was last seen {seen:.0f}s ago and is presumed gone"

    def target_argument(self) -> str:
        prefix = "kafkaconnector" if self.kind == strimzi.KIND_CONNECTOR else "kafkamirrormaker2"
        text = f"{prefix}/{self.resource}"
        if self.kind == strimzi.KIND_MM2:
            text += f" --connector '{self.connector}'"
        return text

    def recover_command(self, namespace: str, *, force: bool = False, wait: bool = False) -> str:
        return (f"kubectl offsets recover {self.target_argument()} -n {namespace}" + (" --force" if force else "")
                + (" --wait" if wait else ""))


# --- the owner's process ----------------------------------------------------------------------------------------


def refuse_other_operation(target: strimzi.ConnectorTarget, resource: Mapping[str, Any], *, own_id: str | None = None,
                           interrupted_ok: bool = False, now: dt.datetime | None = None) -> None:
    """Raise unless ``resource`` is free of any kubectl-offsets operation but ours (``own_id``).

    ``interrupted_ok``: a list may run beside an interrupted operation, whose owner stopped working on it (its lease
    ran out, or its process is gone), because checking the offsets is exactly what the advice after a failed
    verification asks for. Beside an owner at work it may not: its own next request would be refused as pending,
    and a make-safe of it would remove a listOffsets stanza ours still needs."""
    text = ((resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    if text is None:
        return
    journal = Journal.from_annotation(text)
    alive = journal.owner_alive(now)
    if journal.id == own_id or (interrupted_ok and not alive):
        return
    raise PreconditionError(
        f"another kubectl-offsets operation is in progress on {target.kind.lower()}/{target.resource_name}: "
        f"{journal.presence(now)}",
        advice="wait for it to finish (recover --wait waits until its lease runs out); if you know its process "
        "is gone, take over at once with the command below" if alive
        else "its owner stopped working on it: finish or roll it back",
        next_command=journal.recover_command(target.namespace, force=alive))


def this_process() -> dict[str, Any]:
    """Who writes the journal: host name (for people), pid, the scope in which that pid means this process (the
    kernel boot and the pid namespace: two containers, or one machine after a reboot, reuse pids) and the process's
    start time in that scope (a pid reused later has another). On systems without /proc the scope is the host name
    and the start unknown."""
    host = socket.gethostname()
    return {"host": host, "pid": os.getpid(), "scope": _pid_scope(host), "start": _start_time(os.getpid())}


def process_gone(owner: dict[str, Any]) -> bool:
    """True only when we can tell: the owner's pid scope is ours and its process no longer runs (or the pid now
    belongs to a process started later). Anywhere else we know nothing, and the lease decides."""
    if owner.get("scope") != _pid_scope(socket.gethostname()):
        return False
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it runs, as another user
        pass
    stat = _stat(pid)
    if stat is not None and stat[0] in "ZX":  # a zombie: dead, not yet reaped by its parent
        return True
    start = owner.get("start")
    return start is not None and stat is not None and stat[1] != start


def _pid_scope(host: str) -> str:
    boot = _read("/proc/sys/kernel/random/boot_id")
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = None
    return "/".join(part for part in (host, boot, namespace) if part)


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start time in clock ticks since boot) from /proc/PID/stat, or None without /proc."""
    text = _read(f"/proc/{pid}/stat")
    if text is None:
        return None
    fields = text.rsplit(")", 1)[-1].split()  # the command name, in parentheses, may hold spaces
    return fields[0], int(fields[19])


def _start_time(pid: int) -> int | None:
    stat = _stat(pid)
    return None if stat is None else stat[1]


def _read(path: str) -> str | None:
    try:
        with open(path) as file:
            return file.read().strip()
    except OSError:
        return None
