"""The step machine: how an alter, reset or undo walks a connector through Strimzi's one-shot mechanism, and how
it finishes or rolls back when something goes wrong. The only module that changes ``spec.state`` or writes the
journal.

    stop -> backup -> write-configmap -> annotate -> await-operator -> verify -> resume -> cleanup

The offsets of a running connector move (a sink's live partitions, a MirrorMaker 2 source still replicating), so the
offsets that count are listed only once Connect reports the connector STOPPED with no task left: that list is the
backup, the base the change is computed on, and what verification compares the partitions the change does not name
with. (The list taken before, while it ran, only served validation and the preview.)

Every mutation of the custom resource is one JSON Patch that also records the step in the journal, and every
journal write is conditional: it ``test``s the resourceVersion it read and that the journal still carries our id,
so a process whose journal was taken over (``recover --force``) stops instead of overwriting it. The journal also
carries a heartbeat: renewed while we wait for Connect, and for waits on the operator (when the resource must not be
patched: the operator removes its annotation with a patch from the copy it read, which a change meanwhile makes fail;
see ``operator.py``) a lease covering the whole wait. Up to ``annotate`` the offsets are untouched and a failure
rolls back (previous state and stanza restored, journal removed). From ``annotate`` on, a failure removes a
still-pending annotation (so the operator cannot act later), restores the previous state when that is safe, and
otherwise keeps the journal and names the exact ``kubectl offsets recover`` command. Any exception counts, not only
ours: a dropped connection, a full disk, Ctrl-C or SIGTERM all go through the same path.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from ... import strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_JOURNAL, Operation, Role, alter_configmap_name, offsets_configmap_name, utc_now
from ...errors import (ClusterError, InterruptedOperationError, OffsetsError, OperationTimeoutError, OwnershipLostError,
                      PreconditionError, VerificationError)
from ...model import OffsetsDocument, WaitSettings
from ...progress import Progress
from ...strimzi import OffsetsAction
from . import backups, configmaps
from .journal import Journal, Step, document_digest, this_process, utc_text
from .operator import OperatorClient, list_stanza

if TYPE_CHECKING:
    from ...adapters.kube import Kube

ALTERING_OPERATIONS = tuple(Operation)
REQUESTS = (OffsetsAction.ALTER, OffsetsAction.RESET)  # what an alter/reset/undo hands to the operator
# The lease a heartbeat grants while we wait for Connect (renewed every operator.HEARTBEAT_EVERY seconds).
HEARTBEAT_LEASE = 45.0
# Added to --timeout for the lease of a wait on the operator, during which the journal cannot be renewed.
LEASE_MARGIN = 30.0
WRITE_ATTEMPTS = 8

Plan = Callable[[OffsetsDocument], "OffsetsDocument | None"]


class SimulatedCrash(BaseException):
    """Raised by the ``crash_after`` test hook: the process "dies" after a step, with no clean-up at all, so tests
    can prove that ``recover`` works from every step boundary. BaseException, so no handler here catches it."""


@dataclass
class Outcome:
    kind: ConnectorKind
    before: OffsetsDocument
    after: OffsetsDocument
    change: OffsetsDocument | None
    backup: str
    final_state: str
    journal_id: str


class AlterFlow:
    """One alter/reset/undo on one target. Build it, then ``run``; or ``recover`` an interrupted one."""

    def __init__(self, kube: Kube, target: strimzi.ConnectorTarget, kind: ConnectorKind, *, wait: WaitSettings,
                 progress: Progress, resume: bool = True, crash_after: str | None = None):
        self.kube, self.target, self.kind = kube, target, kind
        self.operator = OperatorClient(kube, target, wait, progress)
        self.wait = wait
        self.progress = progress
        self.resume_after = resume
        self.crash_after = crash_after
        self.journal: Journal | None = None
        self.marker: dict[str, str] = {}  # extra annotations placed with the request (the GitOps trigger's marker)

    @property
    def claimed(self) -> Journal:
        """The journal of the operation under way: ``_claim`` (run) or ``recover`` sets it before any step."""
        assert self.journal is not None, "no operation claimed"
        return self.journal

    # --- the happy path ------------------------------------------------------------------------------------
    def run(self, operation: str, plan: Plan, request: str) -> Outcome:
        """``plan(stopped)`` returns the document to PATCH given the offsets listed once the connector is stopped
        (None for a reset); ``request`` is the one-shot request it needs: alter or reset."""
        assert operation in ALTERING_OPERATIONS and request in REQUESTS
        self.progress.step(f"stopping connector '{self.target.connector_name}' (spec.state: stopped)")
        self._claim_or_make_safe(operation, request)
        with self._made_safe_on_failure():
            self._step_stop()
            before, change = self._step_backup(plan, request)
            if change is not None:
                self._step_write_configmap(change)
            self._step_annotate(request)
            self._step_await(request)
            after = self._step_verify(expected_after(before, change))
            self._steps_after_verify()
            final_state = self._step_resume()
            self._step_cleanup()
        return Outcome(self.kind, before, after, change, self.claimed.backup, final_state, self.claimed.id)

    def run_prepared(self, operation: str, before: OffsetsDocument, change: OffsetsDocument | None, *,
                     configmap: str | None, marker: dict[str, str]) -> Outcome:
        """Fire a request that GitOps phase 1 prepared: the spec already says ``state: stopped`` and (alter)
        ``alterOffsets`` names ``configmap``, which holds ``change``. The same backup and journal as ``run`` (so
        ``recover`` and ``undo`` work), but nothing of phase 1 is rewritten: no stop, no ConfigMap, and "resume"
        keeps the stopped state that phase 2 will undo. ``marker`` goes into the request's patch."""
        assert operation in REQUESTS  # a GitOps alter/reset asks for what it is
        self.marker = marker
        self._claim(operation, operation, offsets_configmap=configmap)
        with self._made_safe_on_failure():
            self._step_stop()  # phase 1 stopped it already; wait until Connect reports STOPPED
            # Backed up (and verified against) the offsets listed now that it is stopped; ``before`` was listed by
            # the caller for its checks. The change is phase 1's ConfigMap whatever those offsets are.
            before, _ = self._step_backup(lambda stopped: change, operation)
            if change is not None:  # recover checks that the ConfigMap still holds what was fired
                self.claimed.request_digest = document_digest(change)
            self._step_annotate(operation)
            self._step_await(operation)
            after = self._step_verify(expected_after(before, change))
            final_state = self._step_resume()
            self._step_cleanup()
        return Outcome(self.kind, before, after, change, self.claimed.backup, final_state, self.claimed.id)

    def _claim_or_make_safe(self, operation: str, request: str) -> None:
        """The claim, and if something ends it (Ctrl-C during its patch) after that patch may have landed: when the
        resource carries our journal, the stop happened, so make it safe like any later failure."""
        try:
            self._claim(operation, request, keep_list_stanza=True)
        except (OffsetsError, SimulatedCrash):
            raise  # the claim's own errors come before (or instead of) a successful write
        except BaseException as failure:  # noqa: BLE001 - Ctrl-C/SIGTERM mid-request: did the stop land?
            try:
                self._check_owner(self.operator.read())
            except BaseException:  # noqa: BLE001 - not ours, or unreadable: nothing of ours to make safe
                raise as_offsets_error(failure) from None
            raise self._fail(failure) from None

    def _new_journal(self, operation: str, request: str, resource: Mapping[str, Any]) -> Journal:
        stanza = self.target.stanza(resource)
        now = utc_now()
        return Journal(
            operation=operation, id=secrets.token_hex(4), started=utc_text(now),
            kind=self.target.kind, resource=self.target.resource_name, connector=self.target.connector_name,
            previous_state=stanza.get(strimzi.FIELD_STATE), previous_alter_offsets=stanza.get(strimzi.FIELD_ALTER_OFFSETS),
            previous_pause=True if stanza.get(strimzi.FIELD_PAUSE) is True else None,
            backup=backups.configmap_name(self.target, now, self.kube), offsets_configmap=alter_configmap_name(self.target.resource_name),
            step=Step.STOP, request=request, resume=self.resume_after, owner=this_process(),
        )

    def _claim(self, operation: str, request: str, offsets_configmap: str | None = None, *,
               keep_list_stanza: bool = False) -> None:
        """The first journal write, together with ``spec.state: stopped``, as a compare-and-swap on the
        resourceVersion of the read it is based on. ``offsets_configmap``: the alter ConfigMap when it is not ours
        to write (GitOps phase 1 named it).

        ``keep_list_stanza``: also add a ``listOffsets`` stanza (when there is none) for the whole operation. The
        flow lists twice (backup, verify); with the stanza in place neither list changes the spec, which saves the
        operator a reconcile per list and us the wait for it to observe the removal (under one KafkaConnect's lock,
        every reconcile of every connector of that cluster queues behind the others: fleet operations). The
        journal records it, and the resume (or make-safe) removes it. Not for ``trigger`` (``run_prepared``):
        the spec there is what git holds, and a self-healing controller would revert the stanza mid-operation.

        Preflight saw no journal, but another kubectl-offsets may have started since (two people, or a retry while
        the first run still works): an unconditional write would overwrite its journal and both would go on. Here
        the loser re-reads, sees the winner's journal and stops before changing anything. Nothing to clean up on
        failure: nothing was written."""
        from ...adapters.kube import ConflictError, InvalidError
        from .targets import LiveTarget, check_not_busy

        for _ in range(WRITE_ATTEMPTS):
            resource = self.operator.read()
            check_not_busy(LiveTarget(self.target, resource))
            self.journal = self._new_journal(operation, request, resource)
            self.claimed.offsets_configmap = offsets_configmap or self.claimed.offsets_configmap
            stanza: dict[str, Any] = {strimzi.FIELD_STATE: strimzi.STATE_STOPPED}
            if keep_list_stanza and not self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS):
                self.claimed.list_offsets_added = offsets_configmap_name(self.target.resource_name)
                stanza[strimzi.FIELD_LIST_OFFSETS] = list_stanza(self.claimed.list_offsets_added)
            self.claimed.beat(HEARTBEAT_LEASE)
            guard = [{"op": "test", "path": "/metadata/resourceVersion",
                      "value": resource["metadata"]["resourceVersion"]}]
            try:
                self.operator.patch(guard + self.operator.annotation_ops(
                    {ANNOTATION_JOURNAL: self.claimed.to_annotation()}, resource)
                    + self.operator.stanza_ops(stanza, resource))
                return
            except ClusterError as error:  # 409/422: changed since our read (a status update, or a rival's journal)
                if not isinstance(error, (ConflictError, InvalidError)):
                    raise
        raise PreconditionError(f"{self.target.display} kept changing while we tried to start",
                                advice="retry; if it persists, look for another controller writing to the resource")

    # --- conditional journal writes ---------------------------------------------------------------------------
    def _check_owner(self, resource: Mapping[str, Any], expected_id: str | None = None) -> None:
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

    def _write(self, extra_ops: Callable[[Mapping[str, Any]], list] = lambda resource: [], *,
               lease: float = HEARTBEAT_LEASE, remove_journal: bool = False, expected_id: str | None = None) -> None:
        """One patch: the journal (renewed heartbeat; or removed) plus ``extra_ops(resource)``, conditional on the
        resourceVersion read and on the journal there being ours (``expected_id``: the owner we take over from)."""
        from ...adapters.kube import ConflictError, InvalidError

        for _ in range(WRITE_ATTEMPTS):
            resource = self.operator.read()
            self._check_owner(resource, expected_id)
            self.claimed.beat(lease)
            journal = None if remove_journal else self.claimed.to_annotation()
            guard = [{"op": "test", "path": "/metadata/resourceVersion",
                      "value": resource["metadata"]["resourceVersion"]}]
            try:
                self.operator.patch(guard + self.operator.annotation_ops({ANNOTATION_JOURNAL: journal}, resource)
                                    + extra_ops(resource))
                return
            except (ConflictError, InvalidError):
                continue  # changed since our read (most often the operator's status write): read and check again
        raise ClusterError(f"{self.target.display} kept changing while we tried to write the journal",
                           advice="another controller may be writing to the resource")

    def _record(self, step: str, extra_ops: Callable[[Mapping[str, Any]], list] = lambda resource: [], *,
                lease: float = HEARTBEAT_LEASE) -> None:
        """Write the journal at ``step`` together with ``extra_ops(resource)`` in one conditional patch."""
        self.claimed.step = step
        self._write(extra_ops, lease=lease)

    def _journal_ops(self, step: str) -> Callable[[Mapping[str, Any]], list]:
        """The journal at ``step`` as ops for a patch that places an operator request (the lease covers the wait
        on the operator, during which nothing is written): the step is recorded iff the request is placed. Checks
        that the journal is still ours, as every write does (the request's patch ``test``s the resourceVersion)."""
        def ops(resource: Mapping[str, Any]) -> list:
            self._check_owner(resource)
            self.claimed.step = step
            self.claimed.beat(self._operator_lease)
            return self.operator.annotation_ops({ANNOTATION_JOURNAL: self.claimed.to_annotation()}, resource)
        return ops

    def _heartbeat(self) -> None:
        self._write(lease=HEARTBEAT_LEASE)

    @property
    def _operator_lease(self) -> float:
        """The lease for a wait on the operator: the whole --timeout, since the resource must not be patched then."""
        return self.wait.timeout + LEASE_MARGIN

    def _done(self, step: str) -> None:
        if self.crash_after == step:
            raise SimulatedCrash(step)

    # --- the steps -------------------------------------------------------------------------------------------
    def _step_stop(self) -> None:
        self.operator.wait_for_connect_state("STOPPED", heartbeat=self._heartbeat)
        self._done(Step.STOP)

    def _step_backup(self, plan: Plan, request: str) -> tuple[OffsetsDocument, OffsetsDocument | None]:
        """List the offsets now that nothing moves them, compute the change from them, and back them up (with the
        partitions the change touches, for undo)."""
        self.progress.step(f"listing the offsets of the stopped connector '{self.target.connector_name}'")
        before = self.operator.list_offsets(with_ops=self._journal_ops(Step.BACKUP))
        change = plan(before)
        if (change is None) != (request == OffsetsAction.RESET):
            raise PreconditionError(f"the {self.claimed.operation} no longer applies to the offsets listed after "
                                    "the stop", advice="list the offsets and retry")
        self.progress.step(f"backing up the offsets to configmap/{self.claimed.backup}")
        try:
            local = backups.save(self.kube, self.target, self.journal, before, change)
        except OSError as error:  # the cluster copy exists; the local one could not be written
            raise PreconditionError(f"cannot write the local copy of the backup: {error}",
                                    advice="make $XDG_STATE_HOME (default ~/.local/state) writable, or point "
                                    "XDG_STATE_HOME at a writable directory, and retry") from None
        self.progress.step(f"local copy of the backup: {local}")
        self._done(Step.BACKUP)
        return before, change

    def _step_write_configmap(self, change: OffsetsDocument) -> None:
        name = self.claimed.offsets_configmap
        self.progress.step(f"writing the new offsets to configmap/{name} (key {self.target.configmap_key})")
        self.claimed.request_digest = document_digest(change)
        self._record(Step.WRITE_CONFIGMAP)
        configmaps.put_document(self.kube, self.target, name, change, role=Role.ALTER)
        self._done(Step.WRITE_CONFIGMAP)

    def _step_annotate(self, action: str) -> None:
        shown = ", ".join(f"{k}={v}" for k, v in self.target.trigger_annotations(action).items())
        self.progress.step(f"asking the operator to {action} the offsets ({shown})")
        journal_ops = self._journal_ops(Step.ANNOTATE)

        def stanza_and_journal(resource):
            ops = journal_ops(resource)  # no journal write until the operator is done
            if action == OffsetsAction.ALTER:
                ops += self.operator.stanza_ops({strimzi.FIELD_ALTER_OFFSETS: {
                    strimzi.FIELD_FROM_CONFIGMAP: {"name": self.claimed.offsets_configmap}}}, resource)
            return ops

        # The journal annotation goes into the same guarded patch: "annotate" recorded iff the request placed.
        self.operator.place_request(action, stanza_and_journal, extra=self.marker or None)
        self._done(Step.ANNOTATE)

    def _step_await(self, action: str) -> None:
        # No journal write here: patching the resource while the operator works makes its annotation-removal patch
        # fail with 409 after a successful alter (KafkaConnectAssemblyOperator#removeAnnotation patches from the copy it
        # read, through OC/operator/resource/kubernetes/CrdOperator.java#patchAsync), so it would redo the alter and
        # report a Warning.
        # The journal's "annotate" already means "handed over; wait for the operator", and its lease covers this.
        self.operator.wait_until_done(action)
        self._done(Step.AWAIT_OPERATOR)

    def _step_verify(self, expected: OffsetsDocument) -> OffsetsDocument:
        """Every partition exactly as expected: the requested ones as requested, the others as listed after the
        stop (the connector has been stopped ever since, so nothing else can have moved them)."""
        self.progress.step("verifying: listing the offsets again")
        after = self.operator.list_offsets(with_ops=self._journal_ops(Step.VERIFY))
        if not after.same_offsets(expected):
            raise VerificationError(
                "the connector's offsets after the operation are not the ones requested "
                f"(expected {_short(expected)}, found {_short(after)})",
                advice=f"the connector is left STOPPED. Check the offsets with kubectl offsets list; then either "
                "finish (accept them) with the recover command below, or roll back with it plus --rollback and "
                f"restore the backup with kubectl offsets undo {self._target_argument()} "
                f"-n {self.target.namespace} --backup {self.claimed.backup}")
        self._done(Step.VERIFY)
        return after

    def _steps_after_verify(self) -> None:
        """Steps a subclass adds between the verification and the resume, e.g. MirrorMaker 2's full reset
        (core/online/mm2_full_reset.py). Each must be safe to repeat: recover runs them again."""

    def _step_resume(self) -> str:
        previous = self.claimed.previous_effective_state
        if not self.resume_after:
            self._record(Step.RESUME)
            self.progress.warn(f"--no-resume: connector '{self.target.connector_name}' is left STOPPED "
                               f"(it was {previous}); resume it with: kubectl patch ... or set spec.state")
            return strimzi.STATE_STOPPED
        self.progress.step(f"restoring the previous state: {previous}")
        self._record(Step.RESUME, self._restoring_ops)
        self.operator.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous], heartbeat=self._heartbeat)
        self._done(Step.RESUME)
        return previous

    def _step_cleanup(self) -> None:
        def stanza(resource):  # --no-resume: the state stays stopped on purpose; still put the stanza back
            return [] if self.resume_after else self._restoring_ops(resource, state=False)

        self.progress.step("removing the journal")
        self._write(stanza, remove_journal=True)
        self._done(Step.CLEANUP)

    def _restoring_ops(self, resource: Mapping[str, Any], *, state: bool = True) -> list[dict[str, Any]]:
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

    # --- failure ---------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _made_safe_on_failure(self) -> Iterator[None]:
        """Around every run of steps (run, run_prepared, recover): whatever escapes after the first change, ours,
        a library's or Ctrl-C/SIGTERM, goes through make-safe and comes out as our error with the next command.
        A lost journal is not ours to make safe any more; a simulated crash (tests) must leave things as a
        killed process would."""
        try:
            yield
        except SimulatedCrash:
            raise
        except OwnershipLostError as lost:
            raise self._lost(lost) from None
        except BaseException as failure:  # noqa: BLE001 - whatever it is, the connector must be made safe
            raise self._fail(failure) from (None if isinstance(failure, (OffsetsError, KeyboardInterrupt))
                                             else failure)

    def _fail(self, failure: BaseException) -> OffsetsError:
        """Make things safe after ``failure`` (any exception: ours, a library's, Ctrl-C/SIGTERM) and return the
        error to raise, with the next command to run."""
        error = as_offsets_error(failure)
        self.progress.warn(f"{error.message}; making the connector safe")
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

    def _lost(self, lost: OwnershipLostError) -> OffsetsError:
        """Someone took the operation over (recover --force) or removed its journal: touch nothing more."""
        self.progress.warn(lost.message)
        return OwnershipLostError(f"{lost.message}; this process stopped without touching the connector again",
                                  advice="check the resource (kubectl offsets list) and the other run's output")

    def _release(self) -> None:
        """We are exiting with the journal kept: end our lease, so recover need not wait for it or use --force."""
        try:
            self._write(lease=0.0)
        except BaseException:  # noqa: BLE001 - best effort: recover --force still works
            pass

    def make_safe(self, *, keep_stopped: bool = False) -> "SafeOutcome":
        """Withdraw a pending request and restore the previous state; used by failures and by ``recover``.

        Returns what was done. When the offsets may have changed in a way we could not verify (``keep_stopped``),
        the connector stays stopped and the journal stays, so nothing runs on wrong offsets unnoticed."""
        if self.claimed.past_point_of_no_return:  # before the hand-over no request of ours can be pending
            # An undo of an empty backup placed a reset, so try both of the requests this journal can have placed.
            any(self.operator.withdraw_request(action) for action in REQUESTS)
        if keep_stopped:
            return SafeOutcome(True, "The connector is left STOPPED and the journal kept")
        previous = self.claimed.previous_effective_state
        self._write(self._restoring_ops, remove_journal=True)
        settled = self.operator.try_wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])
        offsets = self._offsets_report()
        state = f"restored to {previous}" if settled else \
            f"spec.state set back to {previous}, but the operator has not applied it yet"
        return SafeOutcome(False, f"Connector {state}; {offsets}; backup in configmap/{self.claimed.backup}")

    def _offsets_report(self) -> str:
        """Say whether the offsets changed. Before the hand-over they cannot have; after it, a withdrawn annotation
        proves nothing (the operator may have altered, then failed to remove it), so we list and compare."""
        if not self.claimed.past_point_of_no_return:
            return "offsets unchanged"
        undo = f"kubectl offsets undo {self._target_argument()} -n {self.target.namespace} --backup {self.claimed.backup}"
        try:
            current = self.operator.try_list_offsets()
            saved = backups.load_configmap(self.kube, self.target, self.claimed.backup)
        except OffsetsError:
            return f"the offsets could not be listed to check whether they changed; if they did: {undo}"
        if current.same_offsets(saved):
            return "offsets unchanged (listed and compared with the backup)"
        return f"the offsets DID change before the failure; to put them back: {undo}"

    def _target_argument(self) -> str:
        return self.claimed.target_argument() if self.journal else self.target.display

    # --- recover ----------------------------------------------------------------------------------------------
    def recover(self, journal: Journal, *, rollback: bool = False, force: bool = False, wait: bool = False) -> str:
        """Finish or roll back the operation ``journal`` describes; returns a one-line summary.

        A journal whose owner's lease still runs belongs to a process that may be working right now (waiting for
        the operator): refused unless ``force``, or waited out with ``wait``. An owner that ran on this host and
        whose process is gone is dead whatever its lease says (``Journal.owner_dead``). Then recover takes the
        journal over (a conditional write of a new owner id), so the old owner, should it still be alive, stops at
        its next write."""
        if journal.owner_alive() and not force:
            if not wait:
                raise PreconditionError(
                    f"{journal.presence()}: it may still be working on {self.target.display}",
                    advice=f"wait for it to finish, or let recover wait until its lease runs out ("
                    f"{journal.lease_left():.0f}s; --wait); if its process is gone (killed on another machine, "
                    "terminal closed, laptop asleep), take over at once with --force",
                    next_command=journal.recover_command(self.target.namespace, wait=True))
            waited = self._wait_out_the_owner(journal)
            if waited is None:
                return "nothing left to recover: its owner finished the operation"
            journal = waited
        self.journal = journal
        self.resume_after = self.resume_after and journal.resume
        self._take_over()  # outside the try: when it fails, nothing was changed and the journal is the old owner's
        with self._made_safe_on_failure():
            if rollback or not journal.past_point_of_no_return:
                self.progress.step(f"rolling back {journal.describe()}")
                outcome = self.make_safe()
                if not outcome.journal_kept:
                    return outcome.summary
            else:
                return self._finish(journal)
        # make_safe kept the journal (something it must restore could not be): the rollback is not done
        self._release()
        raise PreconditionError(f"the rollback of {journal.describe()} is not complete: {outcome.summary}",
                                next_command=outcome.next_command or
                                f"{journal.recover_command(self.target.namespace)} --rollback")

    def _finish(self, journal: Journal) -> str:
        """Finish the operation from where its journal says it stopped: wait, verify, the extra steps, resume."""
        self.progress.step(f"finishing {journal.describe()}")
        before = backups.load_configmap(self.kube, self.target, journal.backup)
        change = None if journal.resets else self._requested_document()
        if self.target.pending_annotations(self.operator.read()):
            self.operator.remember_warnings()
            self.operator.wait_until_done(OffsetsAction.RESET if change is None else OffsetsAction.ALTER)
        self._step_verify(expected_after(before, change))
        self._steps_after_verify()
        final_state = self._step_resume()
        self._step_cleanup()
        return f"finished: offsets verified, connector {final_state}"

    def _wait_out_the_owner(self, journal: Journal) -> Journal | None:
        """``recover --wait``: read the journal again until its owner's lease has run out (or its process is known
        to be gone); None when the owner finished and removed it meanwhile. A working owner renews its lease, so
        the wait is bounded: by the lease as first seen, or --timeout if that is longer."""
        import time

        deadline = time.monotonic() + max(journal.lease_left(), self.wait.timeout) + 5.0
        self.progress.waiting(f"waiting for {journal.owner_text()} to finish or its lease to run out "
                              f"({journal.lease_left():.0f}s)")
        while True:
            text = ((self.operator.read().get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
            if text is None:
                self.progress.done()
                return None
            journal = Journal.from_annotation(text)
            if not journal.owner_alive():
                self.progress.done()
                return journal
            if time.monotonic() >= deadline:
                raise OperationTimeoutError(f"{journal.presence()}: still at work after the wait",
                                            advice="wait longer, or take over with --force if you know its process "
                                            "is gone", next_command=journal.recover_command(self.target.namespace,
                                                                                            force=True))
            time.sleep(min(2.0, max(0.2, journal.lease_left())))

    def _take_over(self) -> None:
        previous_id = self.claimed.id
        self.claimed.owner = this_process()
        self.claimed.id = secrets.token_hex(4)
        self.progress.step(f"taking over the journal of {previous_id} as {self.claimed.id}")
        self._write(lease=self._operator_lease, expected_id=previous_id)

    def _requested_document(self) -> OffsetsDocument:
        """The alter document the journal's operation handed over: read back and checked against its digest, so a
        ConfigMap left by an earlier operation, or edited since, is never taken for it."""
        name = self.claimed.offsets_configmap
        document = configmaps.get_document(self.kube, self.target, name)
        if self.claimed.request_digest and document_digest(document) != self.claimed.request_digest:
            # The operator may have applied whatever the ConfigMap held: keep the connector stopped (journal kept).
            raise VerificationError(f"configmap/{name} no longer holds the offsets this {self.claimed.operation} "
                                    "asked for (it was changed since, or is left over from another operation)",
                                    advice="check the offsets with kubectl offsets list; roll back with the recover "
                                    f"command below plus --rollback, and restore the backup configmap/"
                                    f"{self.claimed.backup} with kubectl offsets undo if they changed")
        return document


@dataclass(frozen=True)
class SafeOutcome:
    journal_kept: bool
    summary: str
    next_command: str | None = None  # with the journal kept: what to run, when more than the plain recover command


def expected_after(before: OffsetsDocument, change: OffsetsDocument | None) -> OffsetsDocument:
    """What ``list`` must show afterwards: nothing after a reset, else ``before`` with ``change`` applied."""
    return OffsetsDocument() if change is None else before.merged_with(change)


def replace_error(error: OffsetsError, message: str, next_command: str | None) -> OffsetsError:
    clone = type(error)(message, advice=error.advice, next_command=next_command)
    return clone


def as_offsets_error(failure: BaseException) -> OffsetsError:
    """Our error for any exception: ours as is, Ctrl-C/SIGTERM as an interruption, anything else as unexpected."""
    if isinstance(failure, OffsetsError):
        return failure
    if isinstance(failure, KeyboardInterrupt):
        return InterruptedOperationError("interrupted")
    return OffsetsError(f"unexpected failure: {failure.__class__.__name__}: {failure}",
                        advice="this may be a bug in kubectl-offsets; please report it with the output above")


def _short(document: OffsetsDocument) -> str:
    text = json.dumps([[dict(e.partition), e.offset] for e in document])
    return text if len(text) < 300 else text[:297] + "..."
