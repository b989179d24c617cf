"""Talking to the Strimzi operator through one custom resource: JSON Patches of our fields, the one-shot
annotations, and waiting (by watching) until the operator has done what we asked or reported why not.

Completion is "the annotation(s) are gone" (the operator removes them only on success:
KafkaConnectAssemblyOperator#removeAnnotation, KafkaMirrorMaker2AssemblyOperator#removeAnnotations; Strimzi's own
ConnectorMockTest waits the same way); failure is a Warning condition with the action's reason (ListOffsets,
AlterOffsets, ResetOffsets, ManageOffsets: AbstractConnectOperator#manageConnectorOffsets) or a NotReady
IllegalArgumentException (an invalid annotation value). Class names are Strimzi's (strimzi.py says where).

The real operator's cadence (KafkaConnectAssemblyOperator#connectorEventHandler, AbstractOperator#withLock,
OC/model/StatusDiff.java, CO/ClusterOperatorConfig.java): it reconciles on watch events, drops an event when the
KafkaConnect's lock stays busy for 10 s, retries a failed action once at once (its own status write is an event)
and otherwise only on its periodic pass, up to 120 s later. So a Warning is not the end of a request the operator
will still complete (a 409 during a rebalance, a sink whose tasks have not stopped yet), and a status that does not
move may only mean a dropped event. Every wait therefore *nudges* the operator when it has no answer after
``OperatorClient.nudge_after()`` seconds (8 s, later on a MirrorMaker 2 or a slow operator: a nudge during the
operator's pass would make it fail): a new value of our own annotation ``kubectl-offsets.io/nudge`` is a watch event,
and the operator reconciles on every event. A Warning is final at once when its cause cannot heal (a missing
ConfigMap), after ``UNSURE_NUDGES`` nudged retries when Connect's status code cannot tell, and for a conflict only
when --timeout runs out. NotReady conditions are read during every wait: a cause the user must fix (replicas: 0, a
missing annotation or label, paused reconciliation) ends the wait at once with its advice; the others are named if the wait times out.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ... import clock as clocks
from ... import strimzi
from ...conventions import ANNOTATION_NUDGE, offsets_configmap_name
from ...errors import ClusterError, OffsetsError, OperationTimeoutError, OperatorError, PreconditionError
from ...model import OffsetsDocument, WaitSettings
from ...progress import Progress
from . import configmaps
from .journal import refuse_other_operation
from .writes import guarded, precondition

if TYPE_CHECKING:
    from ...adapters.kube import Kube

# Seconds without the answer after which a wait gives the operator a harmless event: long enough for the operator's
# own work on one event (a stop, an alter) to finish first, short against its 120 s periodic pass.
NUDGE_AFTER = 8.0
# A nudge that lands while the operator is at work on the resource makes its pass end in a conflict, a Warning and
# the action applied twice (strimzi.PASS_SECONDS_P99 says why). So a wait nudges only after the operator has taken
# clearly longer than a pass takes: PASS_MARGIN times the kind's usual pass, or times the longest this client has
# seen the operator take to answer one of our writes (a slow cluster shows in the first answer), and never later
# than NUDGE_CEILING after our last write (a dropped event must not cost much more than that).
PASS_MARGIN = 1.5
NUDGE_CEILING = 30.0
# An "unsure" Warning ("returned 500" may heal or not) that survives this many nudged retries is final.
UNSURE_NUDGES = 3
# The bound of the waits while making a connector safe after a failure: a few nudged passes, within --timeout.
SAFE_WAIT = 60.0
# While we wait for Connect to stop or resume the connector, the journal's heartbeat is renewed at least this often
# (the lease it grants is a few times longer, see steps.HEARTBEAT_LEASE).
HEARTBEAT_EVERY = 10.0


def list_stanza(configmap: str) -> dict[str, Any]:
    """``listOffsets`` naming ``configmap``: where the operator writes the list."""
    return {strimzi.FIELD_TO_CONFIGMAP: {"name": configmap}}


def _escape(key: str) -> str:
    """JSON Pointer escaping (RFC 6901) for annotation keys, which contain '/'."""
    return key.replace("~", "~0").replace("/", "~1")


class OperatorClient:
    def __init__(self, kube: Kube, target: strimzi.ConnectorTarget, wait: WaitSettings, progress: Progress):
        self.kube, self.target, self.wait, self.progress = kube, target, wait, progress
        self.clock = clocks.of(kube)
        self._known_warnings: set[tuple[Any, Any]] = set()  # (reason, message) as the condition has them
        self._latest: dict[str, Any] | None = None  # the object as our last read or patch returned it
        self._nudged = False  # our nudge annotation is on the resource
        self._slowest_answer = 0.0  # seconds: the longest the operator took to answer one of our writes
        # The id of the operation (journal) this client's requests belong to, if any: engine.Run sets it. Any other
        # operation's journal refuses them (place_request).
        self.operation_id: Callable[[], str | None] = lambda: None

    # --- the operator's pace -------------------------------------------------------------------------------------
    def nudge_after(self) -> float:
        """Seconds after our last write to the resource before a wait may nudge (see PASS_MARGIN)."""
        usual = strimzi.PASS_SECONDS_P99.get(self.target.kind, 0.0)
        return min(NUDGE_CEILING, max(NUDGE_AFTER, PASS_MARGIN * usual, PASS_MARGIN * self._slowest_answer))

    def answered_after(self, seconds: float) -> None:
        """The operator answered a write of ours after ``seconds``: later waits nudge no sooner than it takes."""
        self._slowest_answer = max(self._slowest_answer, seconds)

    # --- reading and patching ----------------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        latest = self._latest = self.kube.get(self.target.kind, self.target.resource_name, self.target.namespace)
        return latest

    def patch(self, operations: list[dict[str, Any]], *, dry_run: bool = False) -> dict[str, Any]:
        """Apply JSON Patch ops after the guard ops that pin the MirrorMaker 2 stanza we computed them for."""
        if not operations:
            return self.read()
        guard = self.target.stanza_guard(self.read()) if self.target.kind == strimzi.KIND_MM2 else []
        patched = self.kube.patch(self.target.kind, self.target.resource_name, self.target.namespace,
                                  guard + operations, dry_run=dry_run)
        if not dry_run:
            self._latest = patched
        return patched

    def guarded_patch(self, build: Callable[[Mapping[str, Any]], "list[dict[str, Any]] | None"], *,
                      exhausted: Callable[[], OffsetsError] | None = None) -> dict[str, Any] | None:
        """The guarded write (``writes.guarded``) of a JSON Patch: ``build(resource)`` returns the ops for the object
        just read (None: nothing to write; it may raise to refuse), sent after a ``test`` of its resourceVersion.
        Returns the patched object (None when nothing was written)."""
        def write(resource: Mapping[str, Any]) -> dict[str, Any] | None:
            ops = build(resource)
            return None if ops is None else self.patch(precondition(resource) + ops)

        return guarded(self.read, write, clock=self.clock, deadline=self.clock.monotonic() + self.wait.timeout,
                       exhausted=exhausted or self._kept_changing)

    def _kept_changing(self) -> OffsetsError:
        return ClusterError(f"{self.target.display} kept changing while we tried to write to it",
                            advice="another controller may be writing to the resource; retry in a moment")

    def annotation_ops(self, changes: Mapping[str, str | None], resource: Mapping[str, Any] | None = None
                       ) -> list[dict[str, Any]]:
        """Set (value) or remove (None) annotations, touching no other key. ``resource``: the object just read (saves
        a read when several op lists are built for one patch)."""
        current = ((resource or self.read()).get("metadata") or {}).get("annotations")
        ops: list[dict[str, Any]] = []
        if current is None:
            additions = {k: v for k, v in changes.items() if v is not None}
            return [{"op": "add", "path": "/metadata/annotations", "value": additions}] if additions else []
        for key, value in changes.items():
            path = f"/metadata/annotations/{_escape(key)}"
            if value is None:
                if key in current:
                    ops.append({"op": "remove", "path": path})
            else:
                ops.append({"op": "add", "path": path, "value": value})
        return ops

    def stanza_ops(self, changes: Mapping[str, Any], resource: Mapping[str, Any] | None = None
                   ) -> list[dict[str, Any]]:
        """Set (value) or remove (None) fields of the connector's stanza only (``spec`` for a KafkaConnector,
        ``spec.mirrors[i].<type>Connector`` for MirrorMaker 2)."""
        stanza = self.target.stanza(resource or self.read())
        base = self.target.stanza_pointer()
        ops = []
        for field, value in changes.items():
            if value is None:
                if field in stanza:
                    ops.append({"op": "remove", "path": f"{base}/{field}"})
            else:
                ops.append({"op": "add", "path": f"{base}/{field}", "value": value})
        return ops

    def place_request(self, action: str, build_ops, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Patch the one-shot annotation(s) for ``action`` onto the resource, with ``build_ops(resource)`` (stanza
        changes, journal) in the same patch.

        Requests must never overwrite each other: a MirrorMaker 2's connectors share one annotation pair, so a
        list of connector B placed while an alter of connector A annotates would silently become A's alter. The
        patch therefore first ``test``s that the resourceVersion is the one just read (optimistic concurrency; a
        ``test`` of the annotations themselves cannot work, because the API server compares raw JSON and stores
        '>' as '\\u003e'); if anything changed in between, we read again, and refuse if a request is now pending.

        Nor may a request land inside another kubectl-offsets operation, which may have claimed the resource since
        our preflight (journal.refuse_other_operation): the check is made on the object the patch is based on."""
        def request(resource: Mapping[str, Any]) -> list[dict[str, Any]]:
            refuse_other_operation(self.target, resource, own_id=self.operation_id(), interrupted_ok=action == "list",
                                   now=self.clock.now())
            pending = self.target.pending_annotations(resource)
            if pending:
                shown = ", ".join(f"{k}={v}" for k, v in pending.items())
                raise PreconditionError(f"another offsets request is pending on {self.target.display} ({shown})",
                                        advice="wait for it to complete (one request at a time), then retry")
            ops = build_ops(resource) + self.annotation_ops({**self.target.trigger_annotations(action), **(extra or {})},
                                                            resource)
            self.remember_warnings(resource)
            return ops

        patched = self.guarded_patch(request, exhausted=lambda: PreconditionError(
            f"{self.target.display} keeps changing under us",
            advice="another tool or person is editing the resource; retry in a moment"))
        assert patched is not None  # request() always has ops: the annotations
        return patched

    # --- list ---------------------------------------------------------------------------------------------------
    def list_offsets(self, with_ops: Callable[[Mapping[str, Any]], list] | None = None) -> OffsetsDocument:
        """Ask the operator to list (setting listOffsets if it is absent) and read the ConfigMap it writes.
        ``with_ops(resource)``: more ops for the request's patch (the flow's journal step).

        A listOffsets stanza we added is removed again afterwards: left on the live resource it is drift that
        Argo CD and Flux report (or revert) against the manifests in git. One that was there is kept (the flow
        adds one for a whole alter/reset, engine.Run.claim, so that its lists change no spec)."""
        named: list[str] = []  # filled in by list_stanza_ops, which runs inside the patch
        added: list[bool] = []

        def list_stanza_ops(resource):
            stanza = self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS) or {}
            existing = (stanza.get(strimzi.FIELD_TO_CONFIGMAP) or {}).get("name")
            named[:] = [existing or offsets_configmap_name(self.target.resource_name)]
            added[:] = [not existing]
            ops = list(with_ops(resource)) if with_ops else []
            return ops if existing else ops + self.stanza_ops({strimzi.FIELD_LIST_OFFSETS: list_stanza(named[0])},
                                                              resource)

        self.place_request("list", list_stanza_ops)
        configmap = named[0]
        try:
            self.wait_until_done("list")
        except (OffsetsError, KeyboardInterrupt):
            self._withdraw_quietly("list")  # a list request left behind would block every later operation (preflight)
            if added[0]:
                self._remove_list_stanza_quietly(configmap)
            raise
        try:
            return configmaps.get_document(self.kube, self.target, configmap, written_by="the operator")
        finally:
            if added[0]:
                self._remove_list_stanza(configmap)

    def _remove_list_stanza(self, configmap: str) -> None:
        """Remove the listOffsets stanza we added, once the operator has finished with it.

        It must not race the operator: while any offsets request is pending (ours is done, but a colleague's list
        of another MirrorMaker 2 connector may have been placed since) the operator still needs the stanza, so we
        leave it and say so. The patch ``test``s the resourceVersion it read, so a request placed in between makes
        it fail and we look again; and it only removes the stanza while it still names our ConfigMap."""
        needed: list[bool] = []

        def removal(resource: Mapping[str, Any]) -> list[dict[str, Any]] | None:
            if (self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS) or None) != list_stanza(configmap):
                return None  # someone changed or removed it: it is no longer ours to remove
            if self.target.pending_annotations(resource):
                needed.append(True)
                return None
            return self.stanza_ops({strimzi.FIELD_LIST_OFFSETS: None}, resource)

        patched = self.guarded_patch(removal)
        if patched is not None:
            self._await_observed(patched)
        if not needed:
            return
        self.progress.warn(f"left spec.{strimzi.FIELD_LIST_OFFSETS} (naming configmap/{configmap}) on "
                           f"{self.target.display}: another offsets request needs it now; remove it when that is done")

    def _await_observed(self, patched: dict[str, Any], timeout: float = 10.0) -> None:
        """Wait (bounded, forgiving, without nudges: the removal is itself a spec change the operator reconciles)
        until the operator has observed the generation of ``patched`` (what our patch returned, which the watch
        starts from), so its status write for it cannot land in the middle of whatever the user (or our next
        step) does next."""
        generation = patched["metadata"].get("generation")

        def observed(resource: Mapping[str, Any]):
            seen = (resource.get("status") or {}).get("observedGeneration")
            return generation is None or (isinstance(seen, int) and seen >= generation)

        try:
            self.kube.watch_until(self.target.kind, self.target.resource_name, self.target.namespace, observed,
                                  timeout=min(timeout, self.wait.timeout), chunk=timeout,
                                  what="the operator to observe the removal of listOffsets", initial=patched)
        except OperationTimeoutError:
            pass  # the operator is slow; the removal itself is done

    def _remove_list_stanza_quietly(self, configmap: str) -> None:
        try:
            self._remove_list_stanza(configmap)
        except OffsetsError:
            pass  # the original failure is what the user needs to see

    # --- waiting -----------------------------------------------------------------------------------------------
    def remember_warnings(self, resource: Mapping[str, Any] | None = None) -> None:
        """Note the Warning conditions present now, so that only new ones count as the answer to our request."""
        self._known_warnings = {(c.get("reason"), c.get("message"))
                                for c in self._conditions(resource or self.read())}

    @property
    def assumed(self) -> bool:
        """A dry run's cluster (``recording.Recorder``): waits on the operator are answered "assumed done"."""
        return bool(getattr(self.kube, "dry_run", False))

    def wait_until_done(self, action: str) -> None:
        if self.assumed:
            self.kube.assume_done(self.target, action)  # type: ignore[attr-defined]  # a Recorder (assumed)
            return
        self.progress.waiting(f"waiting for the operator to {action} the offsets of '{self.target.connector_name}'")
        wait = _Wait(self, f"the operator to {action} the offsets")
        first_seen: dict[tuple[Any, Any], int] = {}  # Warning -> the number of nudges sent when it appeared

        def done(resource: Mapping[str, Any]):
            if not self.target.pending_annotations(resource):
                return "done"
            wait.check_blocks(resource)
            warning = self._new_warning(resource, action)
            if warning is None:
                return None
            key = (warning.get("reason"), warning.get("message"))
            first_seen.setdefault(key, wait.nudges)
            wait.last_warning = warning
            outlook = strimzi.warning_outlook(str(warning.get("message", "")))
            if outlook == "final" or (action != "list" and self._stop_undone(resource)):
                return warning
            if outlook == "unsure" and wait.nudges - first_seen[key] >= UNSURE_NUDGES:
                return warning
            return None

        try:
            result = wait.run(done)
        except OperationTimeoutError:
            if wait.last_warning is None:
                raise
            result = wait.last_warning  # still failing when the time was up: the operator's reason says most
        finally:
            self.progress.done()
        if result != "done":
            raise operator_error(action, result, self.target)

    def _stop_undone(self, resource: Mapping[str, Any]) -> bool:
        """Someone (a GitOps self-heal) set the state away from stopped: "not in STOPPED state" will not heal."""
        return self.target.spec_state(resource) != strimzi.STATE_STOPPED

    def wait_for_connect_state(self, state: str, heartbeat=None) -> None:
        """Wait until Connect (as the operator reports it in status) shows ``state``; FAILED ends the wait.

        The status the operator writes right after a pause/resume may still show the old state (Connect answers
        202 before it is done) and nothing is written again until its next pass: the nudges bring that pass.
        STOPPED also waits until every task Connect still lists has closed (strimzi.ConnectorTarget.tasks_not_ended):
        offsets listed after that can no longer move, because no task is left to commit. ``heartbeat()``, if given, is
        called at least every ``HEARTBEAT_EVERY`` seconds of waiting (the journal owner's proof of life)."""
        if self.assumed:
            return
        self.progress.waiting(f"waiting for connector '{self.target.connector_name}' to be {state} in Connect")
        wait = _Wait(self, f"the connector to be {state}")

        def done(resource: Mapping[str, Any]):
            live = self.target.live_state(resource)
            open_tasks = self.target.tasks_not_ended(resource) if live == "STOPPED" == state else []
            if open_tasks:  # stopped, but a task has not closed yet: it may still commit offsets
                wait.detail = "; Connect reports the connector STOPPED but " + ", ".join(
                    f"task {task.get('id')} is still {task.get('state')}" for task in open_tasks)
                return None
            wait.detail = ""
            if live in (state, "FAILED"):
                return live
            wait.check_blocks(resource)
            return None

        try:
            live = wait.run(done, heartbeat=heartbeat)
        finally:
            self.progress.done()
        if live == "FAILED" and state != "FAILED":
            raise OperatorError(f"connector '{self.target.connector_name}' FAILED in Connect while we waited for {state}",
                                advice="see status.connectorStatus (or status.connectors) for Connect's trace")

    # --- nudging -------------------------------------------------------------------------------------------------
    def nudge(self) -> None:
        """Give the operator a watch event that changes nothing it reads: a new value of our own annotation."""
        self.guarded_patch(lambda resource: self.annotation_ops({ANNOTATION_NUDGE: str(self.clock.time_ns())},
                                                                resource))
        self._nudged = True

    def clear_nudge(self) -> None:
        """Remove the nudge annotation once a wait is over (best effort: a leftover value is harmless)."""
        if not self._nudged:
            return
        try:
            self.guarded_patch(lambda resource: self.annotation_ops({ANNOTATION_NUDGE: None}, resource) or None)
            self._nudged = False
        except OffsetsError:
            pass

    def try_wait_for_connect_state(self, state: str, timeout: float = SAFE_WAIT) -> bool:
        """Like wait_for_connect_state but bounded and forgiving: used while making things safe."""
        with self._bounded(timeout):
            try:
                self.wait_for_connect_state(state)
                return True
            except (OperationTimeoutError, OperatorError, PreconditionError):
                return False

    def try_list_offsets(self, timeout: float = SAFE_WAIT) -> OffsetsDocument:
        """list_offsets with a bounded wait (an operator that is down must not hold up making things safe);
        a request the operator does not complete in time is withdrawn again."""
        with self._bounded(timeout):
            try:
                return self.list_offsets()
            except OperationTimeoutError:
                self.withdraw_request("list")
                raise

    @contextlib.contextmanager
    def _bounded(self, timeout: float):
        saved = self.wait
        self.wait = WaitSettings(timeout=min(timeout, saved.timeout), watch_chunk=saved.watch_chunk)
        try:
            yield
        finally:
            self.wait = saved

    def withdraw_request(self, action: str) -> bool:
        """Remove our pending one-shot ``action`` request so the operator can never act on it later.

        Only a request exactly like ours is withdrawn (someone else's, e.g. another MirrorMaker 2 connector's, is
        left alone). Returns True if it was still pending, False if the operator had already completed it. The
        patch ``test``s the resourceVersion just read, so it cannot race the operator's own removal (a ``test`` of
        the values cannot be used: the API server compares raw JSON and stores the '>' of '->' as '\\u003e')."""
        def withdrawal(resource: Mapping[str, Any]) -> list[dict[str, Any]] | None:
            pending = self.target.pending_annotations(resource)
            if not pending or pending != self.target.trigger_annotations(action):
                return None  # completed by the operator meanwhile, or not ours
            return [{"op": "remove", "path": f"/metadata/annotations/{_escape(key)}"} for key in pending]

        still_changing = ClusterError(f"{self.target.display} kept changing")
        try:  # a conflict is most often the operator completing the request just now: look again
            return self.guarded_patch(withdrawal, exhausted=lambda: still_changing) is not None
        except ClusterError as error:
            if error is not still_changing:
                raise
            return False  # it kept changing: the operator is at work on it

    def _withdraw_quietly(self, action: str) -> None:
        try:
            self.withdraw_request(action)
        except OffsetsError:
            pass  # the original failure is what the user needs to see

    # --- conditions --------------------------------------------------------------------------------------------
    @staticmethod
    def _conditions(resource: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        return [c for c in (resource.get("status") or {}).get("conditions") or []
                if c.get("type") in (strimzi.CONDITION_WARNING, strimzi.CONDITION_NOT_READY)]

    def _new_warning(self, resource: Mapping[str, Any], action: str) -> Mapping[str, Any] | None:
        warning = self.target.warning_for(resource, action)
        if warning is None or (warning.get("reason"), warning.get("message")) in self._known_warnings:
            return None
        return warning


class _Wait:
    """One wait for the operator: watch until ``done``, nudge after ``nudge_after()`` seconds without it, stop early
    on a NotReady cause the user must fix, and time out after --timeout with the most specific advice."""

    def __init__(self, client: OperatorClient, what: str):
        self.client, self.what = client, what
        self.nudges = 0
        self.last_warning: Mapping[str, Any] | None = None
        self.last_block: tuple[Mapping[str, Any], strimzi.ReconcileBlock] | None = None
        self.last_seen: Mapping[str, Any] | None = None
        self.detail = ""  # what the last state seen lacked, for the timeout's message
        self._known_blocks: set[tuple[Any, Any]] | None = None

    def check_blocks(self, resource: Mapping[str, Any]) -> None:
        """Raise for a lasting NotReady cause; remember the others for the timeout's advice. A cause already on the
        resource when the wait began counts once a nudge has made the operator look again (it may be stale)."""
        target = self.client.target
        if strimzi.reconciliation_paused(resource):
            raise PreconditionError(f"reconciliation of {target.kind.lower()}/{target.resource_name} was paused "
                                    f"({strimzi.ANNOTATION_PAUSE_RECONCILIATION}) while we waited for {self.what}",
                                    advice="the operator does nothing until the annotation is removed; remove it "
                                    "(kubectl annotate ... strimzi.io/pause-reconciliation-) and retry")
        blocks = strimzi.reconcile_blocks(resource)
        if self._known_blocks is None:
            self._known_blocks = {(c.get("reason"), c.get("message")) for c, _ in blocks}
        for condition, block in blocks:
            fresh = (condition.get("reason"), condition.get("message")) not in self._known_blocks or self.nudges > 0
            if block.lasting and fresh:
                raise OperatorError(f"the operator cannot reconcile {target.display}: "
                                    f"{condition.get('reason')}: {condition.get('message')}", advice=block.advice)
            self.last_block = (condition, block)

    def run(self, done, heartbeat=None):
        """``heartbeat()``, if given, runs after every chunk without the answer (at most HEARTBEAT_EVERY apart)."""
        client, clock = self.client, self.client.clock
        deadline = clock.monotonic() + client.wait.timeout
        last_write = clock.monotonic()  # the write the wait is for was made just before it
        # Start from the object our last read/patch returned (watching from its resourceVersion misses nothing),
        # which saves a read per wait; later chunks read afresh.
        initial, client._latest = client._latest, None
        try:
            while True:
                now = clock.monotonic()
                if now >= deadline:
                    raise self._timeout()
                # The heartbeat keeps its own beat (the journal's lease); a nudge waits for the operator's pace.
                beat = HEARTBEAT_EVERY if heartbeat is not None else max(0.0, last_write + client.nudge_after() - now)
                chunk = max(min(deadline - now, beat, client.wait.watch_chunk), 0.05)
                try:
                    answer = client.kube.watch_until(client.target.kind, client.target.resource_name,
                                                     client.target.namespace, self._seen(done), timeout=chunk,
                                                     chunk=chunk, what=self.what, initial=initial)
                    client.answered_after(clock.monotonic() - last_write)
                    return answer
                except OperationTimeoutError:
                    initial = None
                now = clock.monotonic()
                if heartbeat is not None:
                    # The heartbeat is a journal write, so itself a watch event: it nudges the operator, and a
                    # second patch would only queue one more reconcile behind the KafkaConnect's lock.
                    heartbeat()
                    self.nudges += 1
                    last_write = now
                elif now >= last_write + client.nudge_after():
                    if deadline - now > 1.0:  # one closer to the deadline would come too late to help
                        self._nudge()
                    last_write = now
        finally:
            client.clear_nudge()

    def _seen(self, done):
        def wrapped(resource):
            self.last_seen = resource
            return done(resource)
        return wrapped

    def _nudge(self) -> None:
        try:
            self.client.nudge()
            self.nudges += 1
        except OffsetsError:
            pass  # best effort: the operator's periodic pass still comes

    def _timeout(self) -> OperationTimeoutError:
        target = self.client.target
        message = (f"timed out after {self.client.wait.timeout:.0f}s waiting for {self.what} on {target.display}"
                   f"{self.detail}")
        if self.last_block is not None:
            condition, block = self.last_block
            return OperationTimeoutError(f"{message}; the operator reports {condition.get('reason')}: "
                                         f"{condition.get('message')}", advice=block.advice)
        advice = "is the Strimzi cluster operator running? Check its logs; retry with a larger --timeout"
        if self.last_seen is not None and strimzi.observed_generation_behind(self.last_seen):
            advice = ("is the Strimzi cluster operator running? It has not reconciled the resource's latest spec "
                      "(status.observedGeneration is behind metadata.generation): check that it watches namespace "
                      f"{target.namespace} (STRIMZI_NAMESPACE) and that the resource matches its "
                      "STRIMZI_CUSTOM_RESOURCE_SELECTOR; retry with a larger --timeout")
        return OperationTimeoutError(message, advice=advice)


# --- Warning conditions -> advice ---------------------------------------------------------------------------------

_ADVICE = (
    ("not in STOPPED state", "the connector is not STOPPED in Connect; kubectl-offsets stops it first, so the "
     "operator had not applied spec.state: stopped yet. Retry; if it persists check the operator's logs"),
    ("missing property", "the resource lacks the listOffsets/alterOffsets stanza the operator needs"),
    ("does not exist", "the offsets ConfigMap the stanza names does not exist in the resource's namespace"),
    ("is missing", "the offsets ConfigMap lacks the key the operator reads"),
    ("Failed to parse contents", "the offsets ConfigMap does not hold valid JSON"),
    ("must be no more than 63 characters", "Strimzi 1.x labels the list ConfigMap with the resource's own name "
     "(strimzi.io/name, strimzi.io/cluster), and Kubernetes allows at most 63 characters in a label value, so the "
     "operator cannot list the offsets of a resource with a longer name. Recreate it with a shorter name "
     "(63 characters or fewer)"),
    ("returned 4", "Connect rejected the request (400/404/409): the offsets do not fit this connector, or a "
     "rebalance was under way. Check the Connect worker's log"),
    ("returned 5", "Connect failed to apply the offsets (5xx). Likely causes: a partition that does not exist "
     "(check the topic's partition count, or give --bootstrap-server so alter checks it first); a sink whose tasks "
     "had not stopped yet (retry); connector-specific validation such as negative offsets or MirrorMaker 2 "
     "checkpoint/heartbeat offsets other than 0. Connect's worker log has the cause"),
    ("No enum constant", "the offsets annotation has a value the operator does not know; only list, alter and "
     "reset are valid (case-sensitive)"),
)


def operator_error(action: str, condition: Mapping[str, Any], target: strimzi.ConnectorTarget) -> OperatorError:
    message = str(condition.get("message", ""))
    advice = next((text for needle, text in _ADVICE if needle in message), "see the resource's status conditions")
    return OperatorError(f"the operator could not {action} the offsets of '{target.connector_name}': "
                         f"{condition.get('reason')}: {message}", advice=advice)
