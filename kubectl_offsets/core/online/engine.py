"""The engine: one place where the online promise is kept. Back up, stop, change through Strimzi, verify, restore
the state, and recover from any interruption.

An operation is a ``Declaration``: data, not a subclass. It lists its steps in order. Each ``StepSpec`` says:
- what the step does (``do``), and how it is verified (``check``);
- how ``recover`` finishes it from the journal (``finish``; default: ``do`` and ``check`` again, which every step
  past the point of no return must allow);
- how a failure or ``recover --rollback`` puts back what it did (``undo``);
- whether a failure from it on keeps the connector stopped (``keeps_stopped``).
The declaration also names its point of no return: up to it the offsets are untouched and a failure rolls back;
from it on, recover finishes.

``Run`` carries one operation on one connector: its declaration, its journal, and what the steps found. It runs
the steps (``execute``), makes the connector safe when anything escapes (``fail``, ``make_safe``), and finishes or
rolls back from a journal (``recover``). It is also the only writer of the journal. Every mutation of the custom
resource is one JSON Patch that records the step in the journal too, written through the guarded write
(``writes.py``); every journal write checks that the journal still carries our id, so a process whose journal was
taken over (``recover --force``) stops instead of overwriting it. The journal carries a heartbeat: renewed while we
wait for Connect, and for waits on the operator (when the resource must not be patched: the operator removes its
annotation with a patch from the copy it read, which a change meanwhile makes fail; see ``operator.py``) a lease
covering the whole wait. Any exception counts, not only ours: a dropped connection, a full disk, Ctrl-C or SIGTERM
all go through the same path.

Tests reach into a run through ``hooks`` only (``with hooks.crash_after("annotate"): ...``): no public function
takes a fault parameter.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from ... import clock as clocks
from ... import strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_JOURNAL, alter_configmap_name, offsets_configmap_name
from ...errors import (ClusterError, InterruptedOperationError, OffsetsError, OperationTimeoutError,
                      OwnershipLostError, PreconditionError, VerificationError)
from ...model import OffsetsDocument, WaitSettings
from ...progress import Progress
from ...strimzi import OffsetsAction
from . import backups, configmaps
from .journal import Journal, Step, digest_matches, this_process, utc_text
from .operator import OperatorClient, list_stanza

if TYPE_CHECKING:
    from ...adapters.kube import Kube

# The lease a heartbeat grants while we wait for Connect (renewed every operator.HEARTBEAT_EVERY seconds).
HEARTBEAT_LEASE = 45.0
# Added to --timeout for the lease of a wait on the operator, during which the journal cannot be renewed.
LEASE_MARGIN = 30.0
REQUESTS = (OffsetsAction.ALTER, OffsetsAction.RESET)  # what an operation hands to the operator

Plan = Callable[[OffsetsDocument], "OffsetsDocument | None"]
Action = Callable[["Run"], None]


# --- hooks: how tests reach into a run ---------------------------------------------------------------------------


class SimulatedCrash(BaseException):
    """Raised by a test hook: the process "dies" at that point, with no clean-up at all, so tests can prove that
    ``recover`` works from every step. BaseException, so no handler here catches it."""


class Hooks:
    """Callbacks the engine calls around every step: ``callback(event, step)`` with event ``start`` or ``done``.
    For tests (fault injection); empty in normal use."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[str, str], None]] = []

    def __call__(self, event: str, step: str) -> None:
        for callback in list(self._callbacks):
            callback(event, step)

    @contextlib.contextmanager
    def on_step(self, callback: Callable[[str, str], None]) -> Iterator[None]:
        self._callbacks.append(callback)
        try:
            yield
        finally:
            self._callbacks.remove(callback)

    def crash_after(self, step: str) -> contextlib.AbstractContextManager[None]:
        """The process dies right after ``step`` (its journal write and its check done)."""
        def crash(event: str, reached: str) -> None:
            if event == "done" and reached == step:
                raise SimulatedCrash(step)
        return self.on_step(crash)


hooks = Hooks()


# --- declarations ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    """What an ``undo`` did, for the summary; ``keep_stopped``: something it must restore could not be, so the
    connector stays stopped and the journal stays (``next_command``: what to run then)."""

    text: str = ""
    keep_stopped: bool = False
    next_command: str | None = None


@dataclass(frozen=True)
class StepSpec:
    id: Step
    do: Action
    check: Action | None = None
    finish: Action | None = None  # recover, past the point of no return; default: do, then check
    undo: Callable[["Run", bool], "Note | None"] | None = None  # (run, keeping it stopped) -> what it did
    keeps_stopped: bool = False  # a failure at this step or later keeps it stopped: only --rollback restores it

    def then(self, *, do: Action | None = None, check: Action | None = None,
             undo: Callable[["Run", bool], "Note | None"] | None = None) -> "StepSpec":
        """This step with more work after its own (a companion connector beside it)."""
        both = _both(self.do, do)
        assert both is not None  # self.do is never None
        return StepSpec(self.id, both, _both(self.check, check), self.finish, _both_undo(undo, self.undo),
                        self.keeps_stopped)


@dataclass(frozen=True)
class Declaration:
    """An operation as data: its steps in order and what sets it apart."""

    name: str
    steps: tuple[StepSpec, ...]
    point_of_no_return: Step = Step.ANNOTATE
    # Fields of the journal this operation adds (then_delete, offset_syncs), filled in at the claim.
    journal_fields: Callable[["Run", Mapping[str, Any]], dict[str, Any]] = lambda run, resource: {}
    # The claim also adds a listOffsets stanza for the whole operation (not for trigger: git holds the spec there).
    keep_list_stanza: bool = True
    resume_allowed: bool = True  # False: the connector stays stopped whatever --no-resume says (delete)
    left_stopped: str = "The connector is left STOPPED and the journal kept"
    summary_note: Callable[["Run"], str] = lambda run: ""  # added to make-safe's summary (full reset)
    finished: Callable[["Run", str], str] = lambda run, state: f"finished: offsets verified, connector {state}"
    rolled_back: Callable[["Run", str], str] = lambda run, summary: summary

    def spec(self, step: str) -> StepSpec:
        return next(s for s in self.steps if s.id == step)

    def reached(self, journal: Journal) -> list[StepSpec]:
        """The steps the journal says were started (its step is recorded with, or before, the step's write)."""
        ids = [s.id for s in self.steps]
        return list(self.steps[:ids.index(Step(journal.step)) + 1]) if journal.step in ids else []

    def past_point_of_no_return(self, journal: Journal) -> bool:
        return any(s.id == self.point_of_no_return for s in self.reached(journal))

    def after_point_of_no_return(self) -> list[StepSpec]:
        ids = [s.id for s in self.steps]
        return list(self.steps[ids.index(self.point_of_no_return) + 1:])


def _both(first: Action | None, second: Action | None) -> Action | None:
    if first is None or second is None:
        return first or second

    def both(run: Run) -> None:
        first(run)
        second(run)
    return both


def _both_undo(first, second):
    if first is None or second is None:
        return first or second

    def both(run: Run, keep: bool) -> Note | None:
        notes = [n for n in (first(run, keep), second(run, keep)) if n is not None]
        if not notes:
            return None
        return Note("; ".join(n.text for n in notes if n.text), any(n.keep_stopped for n in notes),
                    next((n.next_command for n in notes if n.next_command), None))
    return both


@dataclass
class Outcome:
    kind: ConnectorKind
    before: OffsetsDocument
    after: OffsetsDocument
    change: OffsetsDocument | None
    backup: str
    final_state: str
    journal_id: str


@dataclass(frozen=True)
class SafeOutcome:
    journal_kept: bool
    summary: str
    next_command: str | None = None  # with the journal kept: what to run, when more than the plain recover command


# --- a run ----------------------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One operation on one target: build it, then ``execute``; or ``recover`` an interrupted one."""

    declaration: Declaration
    kube: Kube
    target: strimzi.ConnectorTarget
    kind: ConnectorKind
    wait: WaitSettings
    progress: Progress
    operation: str = ""  # an Operation: alter | reset | undo
    request: str = OffsetsAction.RESET  # what it hands to the operator: alter | reset
    plan: Plan = lambda stopped: None  # the change, from the offsets listed once the connector is stopped
    resume: bool = True
    marker: dict[str, str] = field(default_factory=dict)  # annotations placed with the request (trigger's marker)
    offsets_configmap: str | None = None  # the alter ConfigMap when it is not ours to write (GitOps phase 1's)
    extra: Any = None  # the declaration's own state (the full reset's companion and plan)
    journal: Journal | None = None
    before: OffsetsDocument = field(default_factory=OffsetsDocument)
    change: OffsetsDocument | None = None
    after: OffsetsDocument = field(default_factory=OffsetsDocument)
    final_state: str = ""
    rolling_back: bool = False
    written: bool = False  # the claim's write landed: from here on a failure is made safe

    def __post_init__(self) -> None:
        self.operator = OperatorClient(self.kube, self.target, self.wait, self.progress)
        self.operator.operation_id = self.operation_id
        self.clock = clocks.of(self.kube)
        self.resume = self.resume and self.declaration.resume_allowed

    def operation_id(self) -> str | None:
        """The id of the journal this run works under (a take-over by recover gives it a new one)."""
        return self.journal.id if self.journal is not None else None

    @property
    def claimed(self) -> Journal:
        """The journal of the operation under way: the claim (execute) or ``recover`` sets it before any step."""
        assert self.journal is not None, "no operation claimed"
        return self.journal

    # --- the steps ------------------------------------------------------------------------------------------------
    def execute(self) -> Outcome:
        """Run every step of the declaration; made safe on any failure."""
        assert self.request in REQUESTS
        with self._made_safe_on_failure():
            for spec in self.declaration.steps:
                hooks("start", spec.id)
                spec.do(self)
                if spec.check is not None:
                    spec.check(self)
                hooks("done", spec.id)
        return self.outcome()

    def outcome(self) -> Outcome:
        return Outcome(self.kind, self.before, self.after, self.change, self.claimed.backup, self.final_state,
                       self.claimed.id)

    def _finish(self) -> str:
        """Recover: the steps past the point of no return that the journal does not show done, from the step it
        recorded on (written ahead, so that one may be half done: each step can be finished again), with what the
        journal and the backup say. A step before it is done: a source verified before its checkpoint connector was
        reset is not listed again, nor a connector already resumed (and running on, its offsets moving) verified."""
        journal = self.claimed
        self.progress.step(f"finishing {journal.describe()}")
        self.before = backups.load_configmap(self.kube, self.target, journal.backup)
        self.change = None if journal.resets else self.requested_document()
        remaining = self.declaration.after_point_of_no_return()
        recorded = [s.id for s in remaining]
        if journal.step in recorded:
            remaining = remaining[recorded.index(Step(journal.step)):]
        for spec in remaining:
            hooks("start", spec.id)
            if spec.finish is not None:
                spec.finish(self)
            else:
                spec.do(self)
                if spec.check is not None:
                    spec.check(self)
            hooks("done", spec.id)
        return self.declaration.finished(self, self.final_state)

    # --- the claim -------------------------------------------------------------------------------------------------
    def claim(self) -> None:
        """The first journal write, together with ``spec.state: stopped``, as a guarded write on the read it is
        based on. With ``keep_list_stanza`` also a ``listOffsets`` stanza (when there is none) for the whole
        operation: the flow lists twice (backup, verify), and with the stanza in place neither list changes the
        spec, which saves the operator a reconcile per list and us the wait for it to observe the removal (under
        one KafkaConnect's lock, every reconcile of every connector of that cluster queues behind the others:
        fleet operations). The journal records it, and the resume (or make-safe) removes it.

        Preflight saw no journal, but another kubectl-offsets may have started since (two people, or a retry while
        the first run still works): the loser re-reads, sees the winner's journal and stops before changing
        anything. Nothing to clean up when it fails: nothing was written (the failure handler checks)."""
        from .targets import LiveTarget, check_not_busy

        def claim(resource: Mapping[str, Any]) -> list[dict[str, Any]]:
            check_not_busy(LiveTarget(self.target, dict(resource)))
            self.journal = self._new_journal(resource)
            stanza: dict[str, Any] = {strimzi.FIELD_STATE: strimzi.STATE_STOPPED}
            if self.declaration.keep_list_stanza and not self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS):
                self.claimed.list_offsets_added = offsets_configmap_name(self.target.resource_name)
                stanza[strimzi.FIELD_LIST_OFFSETS] = list_stanza(self.claimed.list_offsets_added)
            self.claimed.beat(HEARTBEAT_LEASE, self.clock.now())
            return (self.operator.annotation_ops({ANNOTATION_JOURNAL: self.claimed.to_annotation()}, resource)
                    + self.operator.stanza_ops(stanza, resource))

        self.operator.guarded_patch(claim, exhausted=lambda: PreconditionError(
            f"{self.target.display} kept changing while we tried to start",
            advice="retry; if it persists, look for another controller writing to the resource"))
        self.written = True

    def _new_journal(self, resource: Mapping[str, Any]) -> Journal:
        stanza = self.target.stanza(resource)
        now = self.clock.now()
        journal = Journal(
            operation=self.operation, id=secrets.token_hex(4), started=utc_text(now),
            kind=self.target.kind, resource=self.target.resource_name, connector=self.target.connector_name,
            previous_state=stanza.get(strimzi.FIELD_STATE), previous_alter_offsets=stanza.get(strimzi.FIELD_ALTER_OFFSETS),
            previous_pause=True if stanza.get(strimzi.FIELD_PAUSE) is True else None,
            backup=backups.configmap_name(self.target, now, self.kube),
            offsets_configmap=self.offsets_configmap or alter_configmap_name(self.target.resource_name),
            step=Step.STOP, request=self.request, resume=self.resume, owner=this_process(),
        )
        for name, value in self.declaration.journal_fields(self, resource).items():
            setattr(journal, name, value)
        return journal

    # --- journal writes ---------------------------------------------------------------------------------------------
    def check_owner(self, resource: Mapping[str, Any], expected_id: str | None = None) -> None:
        """Raise OwnershipLostError unless the resource's journal carries ``expected_id`` (ours by default)."""
        expected_id = expected_id or self.claimed.id
        text = ((resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
        if text is None:
            raise OwnershipLostError(f"the journal of this operation (id {expected_id}) was removed from "
                                     f"{self.target.display} by someone else (recover?)")
        found = Journal.from_annotation(text)
        if found.id != expected_id:
            raise OwnershipLostError(f"the journal of this operation (id {expected_id}) was taken over on "
                                     f"{self.target.display}: {found.presence()}")

    def write(self, extra_ops: Callable[[Mapping[str, Any]], list] = lambda resource: [], *,
              lease: float = HEARTBEAT_LEASE, remove_journal: bool = False, expected_id: str | None = None) -> None:
        """One guarded patch: the journal (renewed heartbeat; or removed) plus ``extra_ops(resource)``, on the
        condition that the journal there is ours (``expected_id``: the owner we take over from)."""
        def ops(resource: Mapping[str, Any]) -> list[dict[str, Any]]:
            self.check_owner(resource, expected_id)
            self.claimed.beat(lease, self.clock.now())
            journal = None if remove_journal else self.claimed.to_annotation()
            return self.operator.annotation_ops({ANNOTATION_JOURNAL: journal}, resource) + extra_ops(resource)

        self.operator.guarded_patch(ops, exhausted=lambda: ClusterError(
            f"{self.target.display} kept changing while we tried to write the journal",
            advice="another controller may be writing to the resource"))

    def record(self, step: str, extra_ops: Callable[[Mapping[str, Any]], list] = lambda resource: [], *,
               lease: float = HEARTBEAT_LEASE) -> None:
        """Write the journal at ``step`` together with ``extra_ops(resource)`` in one guarded patch."""
        self.claimed.step = step
        self.write(extra_ops, lease=lease)

    def journal_ops(self, step: str, *, lists: bool = False) -> Callable[[Mapping[str, Any]], list]:
        """The journal at ``step`` as ops for a patch that places an operator request (the lease covers the wait
        on the operator, during which nothing is written): the step is recorded iff the request is placed.

        ``lists``: the request is a list, which adds a listOffsets stanza when there is none and removes it once
        done. The journal records that stanza too, so that a run that dies in between (or is made safe from there)
        has it removed with the rest (trigger runs without the claim's stanza)."""
        def ops(resource: Mapping[str, Any]) -> list:
            self.check_owner(resource)
            self.claimed.step = step
            if lists and not self.claimed.list_offsets_added and \
                    not self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS):
                self.claimed.list_offsets_added = offsets_configmap_name(self.target.resource_name)
            self.claimed.beat(self.operator_lease, self.clock.now())
            return self.operator.annotation_ops({ANNOTATION_JOURNAL: self.claimed.to_annotation()}, resource)
        return ops

    def heartbeat(self) -> None:
        self.write(lease=HEARTBEAT_LEASE)

    @property
    def operator_lease(self) -> float:
        """The lease for a wait on the operator: the whole --timeout, since the resource must not be patched then."""
        return self.wait.timeout + LEASE_MARGIN

    def restoring_ops(self, resource: Mapping[str, Any], *, state: bool = True) -> list[dict[str, Any]]:
        """Ops that put the stanza back as the claim found it: the state (unless ``state`` is False: --no-resume
        keeps it stopped), ``alterOffsets``, and the ``listOffsets`` the claim added, while it still names our
        ConfigMap (someone who changed it since made it theirs)."""
        stanza: dict[str, Any] = {strimzi.FIELD_ALTER_OFFSETS: self.claimed.previous_alter_offsets}
        if state:
            stanza[strimzi.FIELD_STATE] = self.claimed.previous_state
            if self.claimed.previous_pause:  # never removed: we do not own it, and v1 (Strimzi 1.x) has no such field
                stanza[strimzi.FIELD_PAUSE] = True
        added = self.claimed.list_offsets_added
        if added and self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS) == list_stanza(added):
            stanza[strimzi.FIELD_LIST_OFFSETS] = None
        return self.operator.stanza_ops(stanza, resource)

    def requested_document(self) -> OffsetsDocument:
        """The alter document the journal's operation handed over: read back and checked against its digest, so a
        ConfigMap left by an earlier operation, or edited since, is never taken for it."""
        name = self.claimed.offsets_configmap
        document = configmaps.get_document(self.kube, self.target, name)
        if self.claimed.request_digest and not digest_matches(document, self.claimed.request_digest):
            # The operator may have applied whatever the ConfigMap held: keep the connector stopped (journal kept).
            raise VerificationError(f"configmap/{name} no longer holds the offsets this {self.claimed.operation} "
                                    "asked for (it was changed since, or is left over from another operation)",
                                    advice="check the offsets with kubectl offsets list; roll back with the recover "
                                    f"command below plus --rollback, and restore the backup configmap/"
                                    f"{self.claimed.backup} with kubectl offsets undo if they changed")
        return document

    def target_argument(self) -> str:
        return self.claimed.target_argument() if self.journal else self.target.display

    # --- failure ---------------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _made_safe_on_failure(self) -> Iterator[None]:
        """Around every run of steps (execute, recover): whatever escapes after the first change, ours, a library's
        or Ctrl-C/SIGTERM, goes through make-safe and comes out as our error with the next command. A lost journal
        is not ours to make safe any more; a simulated crash (tests) must leave things as a killed process would."""
        try:
            yield
        except SimulatedCrash:
            raise
        except BaseException as failure:  # noqa: BLE001 - whatever it is, the connector must be made safe
            if getattr(self.kube, "dry_run", False):
                raise  # a dry run changed nothing: there is nothing to make safe
            if isinstance(failure, OwnershipLostError):
                if not self.written:
                    raise
                raise self._lost(failure) from None
            if not self.written and not self._claim_landed(failure):
                raise (failure if isinstance(failure, OffsetsError) else as_offsets_error(failure)) from None
            raise self.fail(failure) from (None if isinstance(failure, (OffsetsError, KeyboardInterrupt)) else failure)

    def _claim_landed(self, failure: BaseException) -> bool:
        """The claim ended (Ctrl-C during its patch) after its write may have landed: when the resource carries our
        journal, the stop happened, so it is made safe like any later failure. The claim's own errors come before
        (or instead of) a successful write."""
        if isinstance(failure, OffsetsError) or self.journal is None:
            return False
        try:
            self.check_owner(self.operator.read())
        except BaseException:  # noqa: BLE001 - not ours, or unreadable: nothing of ours to make safe
            return False
        self.written = True
        return True

    def fail(self, failure: BaseException) -> OffsetsError:
        """Make things safe after ``failure`` (any exception: ours, a library's, Ctrl-C/SIGTERM) and return the
        error to raise, with the next command to run."""
        error = as_offsets_error(failure)
        self.progress.warn(f"{error.message}; making the connector safe")
        self._step_as_written()
        recover = self.claimed.recover_command(self.target.namespace)
        try:
            outcome = self.make_safe(keep_stopped=isinstance(error, VerificationError))
        except OwnershipLostError as lost:
            return replace_error(error, f"{error.message}. {lost.message}; this process leaves it alone", None)
        except BaseException as second:  # noqa: BLE001 - the journal stays; the user gets the command to finish
            self._release()
            return replace_error(error, f"{error.message}. Making the connector safe failed too "
                                 f"({as_offsets_error(second).message}); its journal is kept", recover)
        if outcome.journal_kept:
            self._release()
            return replace_error(error, f"{error.message}. {outcome.summary}", outcome.next_command or recover)
        return replace_error(error, f"{error.message}. {outcome.summary}", error.next_command)

    def _step_as_written(self) -> None:
        """The step the journal on the resource records: a request's patch sets the step in the journal it carries,
        so when that patch failed (an API error) the journal in memory is a step ahead of what happened. Making
        safe from it would take an unplaced request for handed over (keep a delete's connector stopped, and a
        later recover would try to verify a change that was never asked for). Unreadable: the step in memory, which
        errs on the side of "handed over"."""
        try:
            text = ((self.operator.read().get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
            written = Journal.from_annotation(text) if text else None
        except BaseException:  # noqa: BLE001 - best effort, see above
            return
        if written is not None and written.id == self.claimed.id:
            self.claimed.step = written.step

    def _lost(self, lost: OwnershipLostError) -> OffsetsError:
        """Someone took the operation over (recover --force) or removed its journal: touch nothing more."""
        self.progress.warn(lost.message)
        return OwnershipLostError(f"{lost.message}; this process stopped without touching the connector again",
                                  advice="check the resource (kubectl offsets list) and the other run's output")

    def _release(self) -> None:
        """We are exiting with the journal kept: end our lease, so recover need not wait for it or use --force."""
        try:
            self.write(lease=0.0)
        except BaseException:  # noqa: BLE001 - best effort: recover --force still works
            pass

    def make_safe(self, *, keep_stopped: bool = False) -> SafeOutcome:
        """Put back what the steps reached did, newest first (their ``undo``: withdraw a pending request, a
        companion's state, a topic's policy), then restore the previous state and remove the journal; used by
        failures and by ``recover``.

        When the offsets may have changed in a way we could not verify (``keep_stopped``), or a step from which a
        failure keeps it stopped was reached (not for --rollback), or an undo could not put back what it must, the
        connector stays stopped and the journal stays, so nothing runs on wrong offsets unnoticed."""
        reached = self.declaration.reached(self.claimed)
        keep = keep_stopped or (not self.rolling_back and any(s.keeps_stopped for s in reached))
        notes: list[Note] = []
        for spec in reversed(reached):
            note = spec.undo(self, keep) if spec.undo is not None else None
            if note is not None:
                notes.append(note)
                keep = keep or note.keep_stopped
        said = "".join(f"; {n.text}" for n in notes if n.text)
        next_command = next((n.next_command for n in notes if n.next_command), None)
        if keep:
            return SafeOutcome(True, f"{self.declaration.left_stopped}{said}", next_command)
        previous = self.claimed.previous_effective_state
        self.write(self.restoring_ops, remove_journal=True)
        settled = self.operator.try_wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])
        offsets = self._offsets_report(list_in_vain=not settled and self._restore_unseen())
        state = f"restored to {previous}" if settled else \
            f"spec.state set back to {previous}, but the operator has not applied it yet"
        return SafeOutcome(False, f"Connector {state}; {offsets}; backup in configmap/{self.claimed.backup}"
                           f"{self.declaration.summary_note(self)}{said}")

    def _restore_unseen(self) -> bool:
        """The operator has not reconciled the spec we just restored (status.observedGeneration behind)."""
        try:
            return strimzi.observed_generation_behind(self.operator.read())
        except OffsetsError:
            return False  # unknown: the list may still tell

    def _offsets_report(self, *, list_in_vain: bool = False) -> str:
        """Say whether the offsets changed. Before the hand-over they cannot have; after it, a withdrawn annotation
        proves nothing (the operator may have altered, then failed to remove it), so we list and compare.

        ``list_in_vain``: the operator has not even reconciled the restored spec within the wait. A list is a request
        to the same operator, queued behind that one; asking would only make the user wait again as long for the
        same silence (a dead operator cost three times --timeout), so we say at once what we cannot tell."""
        if not self.declaration.past_point_of_no_return(self.claimed):
            return "offsets unchanged"
        undo = f"kubectl offsets undo {self.target_argument()} -n {self.target.namespace} --backup {self.claimed.backup}"
        cannot_tell = f"the offsets could not be listed to check whether they changed; if they did: {undo}"
        if list_in_vain:
            return cannot_tell
        try:
            current = self.operator.try_list_offsets()
            saved = backups.load_configmap(self.kube, self.target, self.claimed.backup)
        except OffsetsError:
            return cannot_tell
        if current.same_offsets(saved):
            return "offsets unchanged (listed and compared with the backup)"
        return f"the offsets DID change before the failure; to put them back: {undo}"

    # --- recover ---------------------------------------------------------------------------------------------------
    def recover(self, journal: Journal, *, rollback: bool = False, force: bool = False, wait: bool = False) -> str:
        """Finish or roll back the operation ``journal`` describes; returns a one-line summary.

        A journal whose owner's lease still runs belongs to a process that may be working right now (waiting for
        the operator): refused unless ``force``, or waited out with ``wait``. An owner that ran on this host and
        whose process is gone is dead whatever its lease says (``Journal.owner_dead``). Then recover takes the
        journal over (a guarded write of a new owner id), so the old owner, should it still be alive, stops at its
        next write."""
        if journal.owner_alive(self.clock.now()) and not force:
            if not wait:
                raise PreconditionError(
                    f"{journal.presence(self.clock.now())}: it may still be working on {self.target.display}",
                    advice=f"wait for it to finish, or let recover wait until its lease runs out ("
                    f"{journal.lease_left(self.clock.now()):.0f}s; --wait); if its process is gone (killed on another "
                    "machine, terminal closed, laptop asleep), take over at once with --force",
                    next_command=journal.recover_command(self.target.namespace, wait=True))
            waited = self._wait_out_the_owner(journal)
            if waited is None:
                return "nothing left to recover: its owner finished the operation"
            journal = waited
        self.journal = journal
        self.operation = journal.operation
        self.request = OffsetsAction.RESET if journal.resets else OffsetsAction.ALTER
        self.resume = self.resume and journal.resume and self.declaration.resume_allowed
        self.rolling_back = rollback
        self._take_over()  # outside the try: when it fails, nothing was changed and the journal is the old owner's
        self.written = True
        with self._made_safe_on_failure():
            if rollback or not self.declaration.past_point_of_no_return(journal):
                self.progress.step(f"rolling back {journal.describe()}")
                outcome = self.make_safe()
                if not outcome.journal_kept:
                    return self.declaration.rolled_back(self, outcome.summary)
            else:
                return self._finish()
        # make_safe kept the journal (something it must restore could not be): the rollback is not done
        self._release()
        raise PreconditionError(f"the rollback of {journal.describe()} is not complete: {outcome.summary}",
                                next_command=outcome.next_command or
                                f"{journal.recover_command(self.target.namespace)} --rollback")

    def _wait_out_the_owner(self, journal: Journal) -> Journal | None:
        """``recover --wait``: read the journal again until its owner's lease has run out (or its process is known
        to be gone); None when the owner finished and removed it meanwhile. A working owner renews its lease, so
        the wait is bounded: by the lease as first seen, or --timeout if that is longer."""
        clock = self.clock
        deadline = clock.monotonic() + max(journal.lease_left(clock.now()), self.wait.timeout) + 5.0
        self.progress.waiting(f"waiting for {journal.owner_text()} to finish or its lease to run out "
                              f"({journal.lease_left(clock.now()):.0f}s)")
        while True:
            text = ((self.operator.read().get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
            if text is None:
                self.progress.done()
                return None
            journal = Journal.from_annotation(text)
            if not journal.owner_alive(clock.now()):
                self.progress.done()
                return journal
            if clock.monotonic() >= deadline:
                raise OperationTimeoutError(f"{journal.presence(clock.now())}: still at work after the wait",
                                            advice="wait longer, or take over with --force if you know its process "
                                            "is gone", next_command=journal.recover_command(self.target.namespace,
                                                                                            force=True))
            clock.sleep(min(2.0, max(0.2, journal.lease_left(clock.now()))))

    def _take_over(self) -> None:
        previous_id = self.claimed.id
        self.claimed.owner = this_process()
        self.claimed.id = secrets.token_hex(4)
        self.progress.step(f"taking over the journal of {previous_id} as {self.claimed.id}")
        self.write(lease=self.operator_lease, expected_id=previous_id)


def replace_error(error: OffsetsError, message: str, next_command: str | None) -> OffsetsError:
    return type(error)(message, advice=error.advice, next_command=next_command)


def as_offsets_error(failure: BaseException) -> OffsetsError:
    """Our error for any exception: ours as is, Ctrl-C/SIGTERM as an interruption, anything else as unexpected."""
    if isinstance(failure, OffsetsError):
        return failure
    if isinstance(failure, KeyboardInterrupt):
        return InterruptedOperationError("interrupted")
    return OffsetsError(f"unexpected failure: {failure.__class__.__name__}: {failure}",
                        advice="this may be a bug in kubectl-offsets; please report it with the output above")
