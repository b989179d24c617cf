"""The steps of the online promise, and the operations made of them: alter, reset and undo (``ALTER``) and the
GitOps trigger (``PREPARED``). The engine (``engine.py``) runs them; other operations declare their steps from these
(``mm2_full_reset.FULL_RESET``, ``lifecycle.DELETE_AFTER_RESET``).

    stop -> backup -> write-configmap -> annotate -> await-operator -> verify -> resume -> cleanup

The offsets of a running connector move (a sink's live partitions, a MirrorMaker 2 source still replicating), so the
offsets that count are listed only once Connect reports the connector STOPPED with no task left: that list is the
backup, the base the change is computed on, and what verification compares the partitions the change does not name
with. (The list taken before, while it ran, only served validation and the preview.)

Up to ``annotate`` the offsets are untouched and a failure rolls back (previous state and stanza restored, journal
removed). From ``annotate`` on, a failure removes a still-pending annotation (so the operator cannot act later),
restores the previous state when that is safe, and otherwise keeps the journal and names the exact
``kubectl offsets recover`` command.
"""

from __future__ import annotations

import dataclasses
import json

from ... import strimzi
from ...conventions import Role
from ...errors import PreconditionError, VerificationError
from ...model import OffsetsDocument
from ...strimzi import OffsetsAction
from . import backups, configmaps
from .engine import REQUESTS, Declaration, Note, Run, StepSpec
from .journal import Step, document_digest


# --- stop ------------------------------------------------------------------------------------------------------------
def _stop(run: Run) -> None:
    run.progress.step(f"stopping connector '{run.target.connector_name}' (spec.state: stopped)")
    run.claim()


def _stopped(run: Run) -> None:
    run.operator.wait_for_connect_state("STOPPED", heartbeat=run.heartbeat)


# --- backup ----------------------------------------------------------------------------------------------------------
def _backup(run: Run) -> None:
    """List the offsets now that nothing moves them, compute the change from them, and back them up (with the
    partitions the change touches, for undo)."""
    run.progress.step(f"listing the offsets of the stopped connector '{run.target.connector_name}'")
    run.before = run.operator.list_offsets(with_ops=run.journal_ops(Step.BACKUP, lists=True))
    run.change = run.plan(run.before)
    if (run.change is None) != (run.request == OffsetsAction.RESET):
        raise PreconditionError(f"the {run.claimed.operation} no longer applies to the offsets listed after "
                                "the stop", advice="list the offsets and retry")
    run.progress.step(f"backing up the offsets to configmap/{run.claimed.backup}")
    try:
        local = backups.save(run.kube, run.target, run.claimed, run.before, run.change)
    except OSError as error:  # the cluster copy exists; the local one could not be written
        raise PreconditionError(f"cannot write the local copy of the backup: {error}",
                                advice="make $XDG_STATE_HOME (default ~/.local/state) writable, or point "
                                "XDG_STATE_HOME at a writable directory, and retry") from None
    run.progress.step(f"local copy of the backup: {local}")


def _record_digest(run: Run) -> None:
    """A prepared request (GitOps phase 1's ConfigMap): recover checks that the ConfigMap still holds what was fired."""
    if run.change is not None:
        run.claimed.request_digest = document_digest(run.change)


# --- write-configmap -------------------------------------------------------------------------------------------------
def _write_configmap(run: Run) -> None:
    if run.change is None:
        return  # a reset hands the operator no document
    name = run.claimed.offsets_configmap
    run.progress.step(f"writing the new offsets to configmap/{name} (key {run.target.configmap_key})")
    run.claimed.request_digest = document_digest(run.change)
    run.record(Step.WRITE_CONFIGMAP)
    configmaps.put_document(run.kube, run.target, name, run.change, role=Role.ALTER)


# --- annotate, await-operator ----------------------------------------------------------------------------------------
def _annotate(run: Run) -> None:
    action = run.request
    shown = ", ".join(f"{k}={v}" for k, v in run.target.trigger_annotations(action).items())
    run.progress.step(f"asking the operator to {action} the offsets ({shown})")
    journal_ops = run.journal_ops(Step.ANNOTATE)

    def stanza_and_journal(resource):
        ops = journal_ops(resource)  # no journal write until the operator is done
        if action == OffsetsAction.ALTER:
            ops += run.operator.stanza_ops({strimzi.FIELD_ALTER_OFFSETS: {
                strimzi.FIELD_FROM_CONFIGMAP: {"name": run.claimed.offsets_configmap}}}, resource)
        return ops

    # The journal annotation goes into the same guarded patch: "annotate" recorded iff the request placed.
    run.operator.place_request(action, stanza_and_journal, extra=run.marker or None)


def _withdraw(run: Run, keep: bool) -> Note | None:
    """The operator must never act on our request later. An undo of an empty backup placed a reset, so both of
    the requests this journal can have placed are tried."""
    any(run.operator.withdraw_request(action) for action in REQUESTS)
    return None


def _withdraw_list(run: Run, keep: bool) -> Note | None:
    """A list request of ours may be left pending when the step ended right after placing it (Ctrl-C, SIGTERM while
    its patch was answered): the restore removes the listOffsets stanza it needs, so the operator would never
    complete it, and every later operation would refuse the pending request."""
    run.operator.withdraw_request("list")
    return None


def _await(run: Run) -> None:
    # No journal write here: patching the resource while the operator works makes its annotation-removal patch
    # fail with 409 after a successful alter (KafkaConnectAssemblyOperator#removeAnnotation patches from the copy it
    # read, through OC/operator/resource/kubernetes/CrdOperator.java#patchAsync), so it would redo the alter and
    # report a Warning. The journal's "annotate" already means "handed over; wait for the operator", and its lease
    # covers this.
    run.operator.wait_until_done(run.request)


def _finish_hand_over(run: Run) -> None:
    """Recover: the request may still be pending (its owner died while waiting), done, or withdrawn (its owner
    timed out and made it safe, keeping the connector stopped: a delete). Pending: wait for it. Otherwise the
    offsets say whether it was done; when not, it is handed over again (the journal's request, from the
    digest-checked document), so recover can finish what it promised instead of failing its verification."""
    if run.target.pending_annotations(run.operator.read()):
        run.operator.remember_warnings()
        run.operator.wait_until_done(run.request)
        return
    current = run.operator.list_offsets(with_ops=run.journal_ops(Step.ANNOTATE, lists=True))
    if current.same_offsets(expected_after(run.before, run.change)):
        return
    run.progress.step("the request was not carried out: handing it to the operator again")
    _annotate(run)
    _await(run)


# --- verify -----------------------------------------------------------------------------------------------------------
def _verify(run: Run) -> None:
    """Every partition exactly as expected: the requested ones as requested, the others as listed after the
    stop (the connector has been stopped ever since, so nothing else can have moved them)."""
    expected = expected_after(run.before, run.change)
    run.progress.step("verifying: listing the offsets again")
    run.after = run.operator.list_offsets(with_ops=run.journal_ops(Step.VERIFY, lists=True))
    if not run.after.same_offsets(expected):
        raise VerificationError(
            "the connector's offsets after the operation are not the ones requested "
            f"(expected {_short(expected)}, found {_short(run.after)})",
            advice=f"the connector is left STOPPED. Check the offsets with kubectl offsets list; then either "
            "finish (accept them) with the recover command below, or roll back with it plus --rollback and "
            f"restore the backup with kubectl offsets undo {run.target_argument()} "
            f"-n {run.target.namespace} --backup {run.claimed.backup}")


# --- resume, cleanup --------------------------------------------------------------------------------------------------
def _resume(run: Run) -> None:
    previous = run.claimed.previous_effective_state
    if not run.resume:
        run.record(Step.RESUME)
        if run.declaration.resume_allowed:
            run.progress.warn(f"--no-resume: connector '{run.target.connector_name}' is left STOPPED "
                              f"(it was {previous}); resume it with: kubectl patch ... or set spec.state")
        run.final_state = strimzi.STATE_STOPPED
        return
    run.progress.step(f"restoring the previous state: {previous}")
    run.record(Step.RESUME, run.restoring_ops)
    run.operator.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous], heartbeat=run.heartbeat)
    run.final_state = previous


def _cleanup(run: Run) -> None:
    def stanza(resource):  # --no-resume: the state stays stopped on purpose; still put the stanza back
        return [] if run.resume else run.restoring_ops(resource, state=False)

    run.progress.step("removing the journal")
    run.write(stanza, remove_journal=True)


STOP = StepSpec(Step.STOP, _stop, check=_stopped)
BACKUP = StepSpec(Step.BACKUP, _backup, undo=_withdraw_list)
WRITE_CONFIGMAP = StepSpec(Step.WRITE_CONFIGMAP, _write_configmap)
ANNOTATE = StepSpec(Step.ANNOTATE, _annotate, undo=_withdraw)
AWAIT_OPERATOR = StepSpec(Step.AWAIT_OPERATOR, _await, finish=_finish_hand_over)
VERIFY = StepSpec(Step.VERIFY, _verify, undo=_withdraw_list)
RESUME = StepSpec(Step.RESUME, _resume)
CLEANUP = StepSpec(Step.CLEANUP, _cleanup)

# alter, reset, undo (and create's offsets): the whole promise.
ALTER = Declaration("alter", (STOP, BACKUP, WRITE_CONFIGMAP, ANNOTATE, AWAIT_OPERATOR, VERIFY, RESUME, CLEANUP))

# ``trigger``: fire a request that GitOps phase 1 prepared. The spec already says ``state: stopped`` and (alter)
# ``alterOffsets`` names phase 1's ConfigMap, which holds the change: the same backup and journal as alter (so
# ``recover`` and ``undo`` work), but nothing of phase 1 is rewritten (no listOffsets stanza for the run: the spec is
# what git holds, and a self-healing controller would revert it; no ConfigMap), and "resume" keeps the stopped state
# that phase 2 will undo. Its journal is an alter's, so recover finishes it with ``ALTER``.
PREPARED = Declaration(
    "trigger", (dataclasses.replace(STOP, do=lambda run: run.claim()), BACKUP.then(do=_record_digest), ANNOTATE,
                AWAIT_OPERATOR, VERIFY, RESUME, CLEANUP), keep_list_stanza=False)


def expected_after(before: OffsetsDocument, change: OffsetsDocument | None) -> OffsetsDocument:
    """What ``list`` must show afterwards: nothing after a reset, else ``before`` with ``change`` applied."""
    return OffsetsDocument() if change is None else before.merged_with(change)


def _short(document: OffsetsDocument) -> str:
    text = json.dumps([[dict(e.partition), e.offset] for e in document])
    return text if len(text) < 300 else text[:297] + "..."
