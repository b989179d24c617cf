"""The step machine: how an alter, reset or undo walks a connector through Strimzi's one-shot mechanism, and how
it finishes or rolls back when something goes wrong. The only module that changes ``spec.state`` or writes the
journal.

    backup -> stop -> write-configmap -> annotate -> await-operator -> verify -> resume -> cleanup

Every mutation of the custom resource is one JSON Patch that also records the step in the journal, so the journal
on the resource always says how far we got. Up to ``annotate`` the offsets are untouched and a failure rolls back
(previous state and stanza restored, journal removed). From ``annotate`` on, a failure removes a still-pending
annotation (so the operator cannot act later), restores the previous state when that is safe, and otherwise keeps
the journal and names the exact ``kubectl offsets recover`` command.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Mapping

from .. import strimzi
from ..connect import ConnectorKind
from ..conventions import ANNOTATION_JOURNAL, alter_configmap_name, utc_now
from ..errors import ClusterError, InterruptedOperationError, OffsetsError, PreconditionError, VerificationError
from ..model import OffsetsDocument, WaitSettings
from ..output.progress import Progress
from . import backups, configmaps
from .journal import Journal
from .operator import OperatorClient

ALTERING_OPERATIONS = ("alter", "reset", "undo")


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

    def __init__(self, kube, target: strimzi.ConnectorTarget, kind: ConnectorKind, *, wait: WaitSettings,
                 progress: Progress, resume: bool = True, crash_after: str | None = None):
        self.kube, self.target, self.kind = kube, target, kind
        self.operator = OperatorClient(kube, target, wait, progress)
        self.progress = progress
        self.resume_after = resume
        self.crash_after = crash_after
        self.journal: Journal | None = None
        self.marker: dict[str, str] = {}  # extra annotations placed with the request (the GitOps trigger's marker)

    # --- the happy path ------------------------------------------------------------------------------------
    def run(self, operation: str, before: OffsetsDocument, change: OffsetsDocument | None) -> Outcome:
        """``before`` is what ``list`` just returned; ``change`` the document to PATCH (None for reset)."""
        assert operation in ALTERING_OPERATIONS
        self._claim(operation)
        try:
            self._step_backup(before)
            self._step_stop()
            if change is not None:
                self._step_write_configmap(change)
            self._step_annotate("reset" if change is None else "alter")
            self._step_await("reset" if change is None else "alter")
            after = self._step_verify(expected_after(before, change))
            self._steps_after_verify()
            final_state = self._step_resume()
            self._step_cleanup()
        except SimulatedCrash:
            raise
        except (OffsetsError, KeyboardInterrupt) as failure:
            raise self._fail(failure) from None
        return Outcome(self.kind, before, after, change, self.journal.backup, final_state, self.journal.id)

    def run_prepared(self, operation: str, before: OffsetsDocument, change: OffsetsDocument | None, *,
                     configmap: str | None, marker: dict[str, str]) -> Outcome:
        """Fire a request that GitOps phase 1 prepared: the spec already says ``state: stopped`` and (alter)
        ``alterOffsets`` names ``configmap``, which holds ``change``. The same backup and journal as ``run`` (so
        ``recover`` and ``undo`` work), but nothing of phase 1 is rewritten: no stop, no ConfigMap, and "resume"
        keeps the stopped state that phase 2 will undo. ``marker`` goes into the request's patch."""
        assert operation in ("alter", "reset")
        self.marker = marker
        self._claim(operation, offsets_configmap=configmap)
        try:
            self._step_backup(before)
            self._record("stop")
            self.operator.wait_for_connect_state("STOPPED")
            self._done("stop")
            self._step_annotate(operation)
            self._step_await(operation)
            after = self._step_verify(expected_after(before, change))
            final_state = self._step_resume()
            self._step_cleanup()
        except SimulatedCrash:
            raise
        except (OffsetsError, KeyboardInterrupt) as failure:
            raise self._fail(failure) from None
        return Outcome(self.kind, before, after, change, self.journal.backup, final_state, self.journal.id)

    def _new_journal(self, operation: str, resource: Mapping[str, Any]) -> Journal:
        stanza = self.target.stanza(resource)
        now = utc_now()
        return Journal(
            operation=operation, id=secrets.token_hex(4), started=now.isoformat().replace("+00:00", "Z"),
            kind=self.target.kind, resource=self.target.resource_name, connector=self.target.connector_name,
            previous_state=stanza.get(strimzi.FIELD_STATE), previous_alter_offsets=stanza.get(strimzi.FIELD_ALTER_OFFSETS),
            previous_pause=True if stanza.get(strimzi.FIELD_PAUSE) is True else None,
            backup=backups.configmap_name(self.target, now, self.kube), offsets_configmap=alter_configmap_name(self.target.resource_name),
        )

    def _claim(self, operation: str, attempts: int = 5, offsets_configmap: str | None = None) -> None:
        """The first journal write, as a compare-and-swap on the resourceVersion of the read it is based on.

        Preflight saw no journal, but another kubectl-offsets may have started since (two people, or a retry while
        the first run still works): an unconditional write would overwrite its journal and both would go on. Here
        the loser re-reads, sees the winner's journal and stops before changing anything. Nothing to clean up on
        failure: nothing was written."""
        from ..adapters.kube import ConflictError, InvalidError
        from .targets import LiveTarget, check_not_busy

        for _ in range(attempts):
            resource = self.operator.read()
            check_not_busy(LiveTarget(self.target, resource))
            self.journal = self._new_journal(operation, resource)
            self.journal.offsets_configmap = offsets_configmap or self.journal.offsets_configmap
            self.journal.step = "backup"
            guard = [{"op": "test", "path": "/metadata/resourceVersion",
                      "value": resource["metadata"]["resourceVersion"]}]
            try:
                self.operator.patch(guard + self.operator.annotation_ops(
                    {ANNOTATION_JOURNAL: self.journal.to_annotation()}, resource))
                return
            except ClusterError as error:  # 409/422: changed since our read (a status update, or a rival's journal)
                if not isinstance(error, (ConflictError, InvalidError)):
                    raise
        raise PreconditionError(f"{self.target.display} kept changing while we tried to start",
                                advice="retry; if it persists, look for another controller writing to the resource")

    def _record(self, step: str, stanza: Mapping[str, Any] | None = None) -> None:
        """Write the journal at ``step`` together with the ``stanza`` field changes in one JSON Patch."""
        self.journal.step = step
        resource = self.operator.read()
        self.operator.patch(self.operator.annotation_ops({ANNOTATION_JOURNAL: self.journal.to_annotation()}, resource)
                            + (self.operator.stanza_ops(stanza, resource) if stanza else []))

    def _done(self, step: str) -> None:
        if self.crash_after == step:
            raise SimulatedCrash(step)

    def _step_backup(self, before: OffsetsDocument) -> None:
        self.progress.step(f"backing up the current offsets to configmap/{self.journal.backup}")
        local = backups.save(self.kube, self.target, self.journal, before)
        self.progress.step(f"local copy of the backup: {local}")
        self._done("backup")

    def _step_stop(self) -> None:
        self.progress.step(f"stopping connector '{self.target.connector_name}' (spec.state: stopped)")
        self._record("stop", {strimzi.FIELD_STATE: strimzi.STATE_STOPPED})
        self.operator.wait_for_connect_state("STOPPED")
        self._done("stop")

    def _step_write_configmap(self, change: OffsetsDocument) -> None:
        name = self.journal.offsets_configmap
        self.progress.step(f"writing the new offsets to configmap/{name} (key {self.target.configmap_key})")
        self._record("write-configmap")
        configmaps.put_document(self.kube, self.target, name, change, role="alter")
        self._done("write-configmap")

    def _step_annotate(self, action: str) -> None:
        shown = ", ".join(f"{k}={v}" for k, v in self.target.trigger_annotations(action).items())
        self.progress.step(f"asking the operator to {action} the offsets ({shown})")
        self.journal.step = "annotate"

        def stanza_and_journal(resource):
            ops = []
            if action == "alter":
                ops = self.operator.stanza_ops({strimzi.FIELD_ALTER_OFFSETS: {
                    strimzi.FIELD_FROM_CONFIGMAP: {"name": self.journal.offsets_configmap}}}, resource)
            return ops

        # The journal annotation goes into the same guarded patch: "annotate" recorded iff the request placed.
        self.operator.place_request(action, stanza_and_journal,
                                    extra={ANNOTATION_JOURNAL: self.journal.to_annotation(), **self.marker})
        self._done("annotate")

    def _step_await(self, action: str) -> None:
        # No journal write here: patching the resource while the operator works makes its annotation-removal patch
        # fail with 409 after a successful alter (research 2.8), so it would redo the alter and report a Warning.
        # The journal's "annotate" already means "handed over; wait for the operator".
        self.operator.wait_until_done(action)
        self._done("await-operator")

    def _step_verify(self, expected: OffsetsDocument) -> OffsetsDocument:
        self._record("verify")
        self.progress.step("verifying: listing the offsets again")
        after = self.operator.list_offsets()
        if not after.same_offsets(expected):
            raise VerificationError(
                "the connector's offsets after the operation are not the ones requested "
                f"(expected {_short(expected)}, found {_short(after)})",
                advice=f"the connector is left STOPPED. Check the offsets with kubectl offsets list; then either "
                "finish (accept them) with the recover command below, or roll back with it plus --rollback and "
                f"restore the backup with kubectl offsets undo {self._target_argument()} "
                f"-n {self.target.namespace} --backup {self.journal.backup}")
        self._done("verify")
        return after

    def _steps_after_verify(self) -> None:
        """Steps a subclass adds between the verification and the resume, e.g. MirrorMaker 2's full reset
        (core/mm2_full_reset.py). Each must be safe to repeat: recover runs them again."""

    def _step_resume(self) -> str:
        previous = self.journal.previous_effective_state
        if not self.resume_after:
            self._record("resume")
            self.progress.warn(f"--no-resume: connector '{self.target.connector_name}' is left STOPPED "
                               f"(it was {previous}); resume it with: kubectl patch ... or set spec.state")
            return strimzi.STATE_STOPPED
        self.progress.step(f"restoring the previous state: {previous}")
        self._record("resume", self._previous_stanza())
        self.operator.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])
        self._done("resume")
        return previous

    def _step_cleanup(self) -> None:
        resource = self.operator.read()
        ops = self.operator.annotation_ops({ANNOTATION_JOURNAL: None}, resource)
        if not self.resume_after:  # the state stays stopped on purpose; still put the stanza back as it was
            ops += self.operator.stanza_ops({strimzi.FIELD_ALTER_OFFSETS: self.journal.previous_alter_offsets},
                                            resource)
        self.operator.patch(ops)
        self._done("cleanup")

    def _previous_stanza(self) -> dict[str, Any]:
        stanza = {strimzi.FIELD_STATE: self.journal.previous_state,
                  strimzi.FIELD_ALTER_OFFSETS: self.journal.previous_alter_offsets}
        if self.journal.previous_pause:  # never removed: we do not own it, and v1 (Strimzi 1.x) has no such field
            stanza[strimzi.FIELD_PAUSE] = True
        return stanza

    # --- failure ---------------------------------------------------------------------------------------------
    def _fail(self, failure: BaseException) -> OffsetsError:
        """Make things safe after ``failure`` and return the error to raise, with the next command to run."""
        error = failure if isinstance(failure, OffsetsError) else InterruptedOperationError("interrupted")
        self.progress.warn(f"{error.message}; making the connector safe")
        try:
            outcome = self.make_safe(keep_stopped=isinstance(error, VerificationError))
        except (OffsetsError, KeyboardInterrupt) as second:
            return replace_error(error, f"{error.message}. Making the connector safe failed too "
                                 f"({getattr(second, 'message', 'interrupted')}); its journal is kept",
                                 self.journal.recover_command(self.target.namespace))
        if outcome.journal_kept:
            return replace_error(error, f"{error.message}. {outcome.summary}",
                                 self.journal.recover_command(self.target.namespace))
        return replace_error(error, f"{error.message}. {outcome.summary}", error.next_command)

    def make_safe(self, *, keep_stopped: bool = False) -> "SafeOutcome":
        """Withdraw a pending request and restore the previous state; used by failures and by ``recover``.

        Returns what was done. When the offsets may have changed in a way we could not verify (``keep_stopped``),
        the connector stays stopped and the journal stays, so nothing runs on wrong offsets unnoticed."""
        if self.journal.past_point_of_no_return:  # before the hand-over no request of ours can be pending
            # An undo of an empty backup placed a reset, so try both of the requests this journal can have placed.
            any(self.operator.withdraw_request(action) for action in ("alter", "reset"))
        if keep_stopped:
            return SafeOutcome(True, "The connector is left STOPPED and the journal kept")
        previous = self.journal.previous_effective_state
        resource = self.operator.read()
        self.operator.patch(self.operator.stanza_ops(self._previous_stanza(), resource)
                            + self.operator.annotation_ops({ANNOTATION_JOURNAL: None}, resource))
        settled = self.operator.try_wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])
        offsets = self._offsets_report()
        state = f"restored to {previous}" if settled else \
            f"spec.state set back to {previous}, but the operator has not applied it yet"
        return SafeOutcome(False, f"Connector {state}; {offsets}; backup in configmap/{self.journal.backup}")

    def _offsets_report(self) -> str:
        """Say whether the offsets changed. Before the hand-over they cannot have; after it, a withdrawn annotation
        proves nothing (the operator may have altered, then failed to remove it), so we list and compare."""
        if not self.journal.past_point_of_no_return:
            return "offsets unchanged"
        undo = f"kubectl offsets undo {self._target_argument()} -n {self.target.namespace} --backup {self.journal.backup}"
        try:
            current = self.operator.try_list_offsets()
            saved = backups.load_configmap(self.kube, self.target, self.journal.backup)
        except OffsetsError:
            return f"the offsets could not be listed to check whether they changed; if they did: {undo}"
        if current.same_offsets(saved):
            return "offsets unchanged (listed and compared with the backup)"
        return f"the offsets DID change before the failure; to put them back: {undo}"

    def _target_argument(self) -> str:
        return self.journal.target_argument() if self.journal else self.target.display

    # --- recover ----------------------------------------------------------------------------------------------
    def recover(self, journal: Journal, *, rollback: bool = False) -> str:
        """Finish or roll back the operation ``journal`` describes; returns a one-line summary."""
        self.journal = journal
        if rollback or not journal.past_point_of_no_return:
            self.progress.step(f"rolling back {journal.describe()}")
            return self.make_safe().summary
        self.progress.step(f"finishing {journal.describe()}")
        before = backups.load_configmap(self.kube, self.target, journal.backup)
        change = None if journal.operation == "reset" else configmaps.get_document(
            self.kube, self.target, journal.offsets_configmap)
        try:
            if self.target.pending_annotations(self.operator.read()):
                self.operator.remember_warnings()
                self.operator.wait_until_done("reset" if change is None else "alter")
            self._step_verify(expected_after(before, change))
            self._steps_after_verify()
            final_state = self._step_resume()
            self._step_cleanup()
        except (OffsetsError, KeyboardInterrupt) as failure:
            raise self._fail(failure) from None
        return f"finished: offsets verified, connector {final_state}"


@dataclass(frozen=True)
class SafeOutcome:
    journal_kept: bool
    summary: str


def expected_after(before: OffsetsDocument, change: OffsetsDocument | None) -> OffsetsDocument:
    """What ``list`` must show afterwards: nothing after a reset, else ``before`` with ``change`` applied."""
    return OffsetsDocument() if change is None else before.merged_with(change)


def replace_error(error: OffsetsError, message: str, next_command: str | None) -> OffsetsError:
    clone = type(error)(message, advice=error.advice, next_command=next_command)
    return clone


def _short(document: OffsetsDocument) -> str:
    text = json.dumps([[dict(e.partition), e.offset] for e in document])
    return text if len(text) < 300 else text[:297] + "..."
