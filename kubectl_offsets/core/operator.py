"""Talking to the Strimzi operator through one custom resource: JSON Patches of our fields, the one-shot
annotations, and waiting (by watching) until the operator has done what we asked or reported why not.

Completion is "the annotation(s) are gone" (the operator removes them only on success, research 2.8); failure is a
Warning condition with the action's reason (ListOffsets, AlterOffsets, ResetOffsets, ManageOffsets) or a NotReady
IllegalArgumentException (research 2.11). The operator retries a failed action on every reconcile and its own
status write triggers one, so a Warning must persist for ``WARNING_GRACE`` seconds before we call it final: a
transient "tasks haven't stopped completely yet" from Connect then heals by itself.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, Mapping

from .. import strimzi
from ..conventions import offsets_configmap_name
from ..errors import OffsetsError, OperationTimeoutError, OperatorError, PreconditionError
from ..model import OffsetsDocument, WaitSettings
from ..output.progress import Progress
from . import configmaps

WARNING_GRACE = 10.0
# While we wait for Connect to stop or resume the connector, the journal's heartbeat is renewed this often (the
# lease it grants is a few times longer, see steps.HEARTBEAT_LEASE).
HEARTBEAT_EVERY = 10.0


def _escape(key: str) -> str:
    """JSON Pointer escaping (RFC 6901) for annotation keys, which contain '/'."""
    return key.replace("~", "~0").replace("/", "~1")


class OperatorClient:
    def __init__(self, kube, target: strimzi.ConnectorTarget, wait: WaitSettings, progress: Progress):
        self.kube, self.target, self.wait, self.progress = kube, target, wait, progress
        self._known_warnings: set[tuple[str, str]] = set()
        self._latest: dict[str, Any] | None = None  # the object as our last read or patch returned it

    # --- reading and patching ----------------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        self._latest = self.kube.get(self.target.kind, self.target.resource_name, self.target.namespace)
        return self._latest

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
        '>' as '\\u003e'); if anything changed in between, we read again, and refuse if a request is now pending."""
        from ..adapters.kube import InvalidError

        for _ in range(5):
            resource = self.read()
            pending = self.target.pending_annotations(resource)
            if pending:
                shown = ", ".join(f"{k}={v}" for k, v in pending.items())
                raise PreconditionError(f"another offsets request is pending on {self.target.display} ({shown})",
                                        advice="wait for it to complete (one request at a time), then retry")
            guard = [{"op": "test", "path": "/metadata/resourceVersion",
                      "value": resource["metadata"]["resourceVersion"]}]
            ops = build_ops(resource) + self.annotation_ops({**self.target.trigger_annotations(action), **(extra or {})},
                                                            resource)
            self.remember_warnings(resource)
            try:
                return self.patch(guard + ops)
            except InvalidError:
                continue  # the resource changed between our read and our patch (often a status write): look again
        raise PreconditionError(f"{self.target.display} keeps changing under us",
                                advice="another tool or person is editing the resource; retry in a moment")

    # --- list ---------------------------------------------------------------------------------------------------
    def list_offsets(self) -> OffsetsDocument:
        """Ask the operator to list (setting listOffsets if it is absent) and read the ConfigMap it writes."""
        named = []

        def list_stanza_ops(resource):
            stanza = self.target.stanza(resource).get(strimzi.FIELD_LIST_OFFSETS) or {}
            existing = (stanza.get(strimzi.FIELD_TO_CONFIGMAP) or {}).get("name")
            named[:] = [existing or offsets_configmap_name(self.target.resource_name)]
            return [] if existing else self.stanza_ops(
                {strimzi.FIELD_LIST_OFFSETS: {strimzi.FIELD_TO_CONFIGMAP: {"name": named[0]}}}, resource)

        self.place_request("list", list_stanza_ops)
        configmap = named[0]
        try:
            self.wait_until_done("list")
        except (OffsetsError, KeyboardInterrupt):
            self._withdraw_quietly("list")  # a list request left behind would block every later operation (preflight)
            raise
        return configmaps.get_document(self.kube, self.target, configmap, written_by="the operator")

    # --- waiting -----------------------------------------------------------------------------------------------
    def remember_warnings(self, resource: Mapping[str, Any] | None = None) -> None:
        """Note the Warning conditions present now, so that only new ones count as the answer to our request."""
        self._known_warnings = {(c.get("reason"), c.get("message"))
                                for c in self._conditions(resource or self.read())}

    def wait_until_done(self, action: str) -> None:
        self.progress.waiting(f"waiting for the operator to {action} the offsets of '{self.target.connector_name}'")
        first_seen: dict[tuple[str, str], float] = {}

        def done(resource: Mapping[str, Any]):
            if not self.target.pending_annotations(resource):
                return "done"
            warning = self._new_warning(resource, action)
            if warning is not None:
                key = (warning.get("reason"), warning.get("message"))
                first_seen.setdefault(key, time.monotonic())
                if time.monotonic() - first_seen[key] >= WARNING_GRACE:
                    return warning
            return None

        def next_check() -> float:
            """Re-read when the oldest pending Warning has lasted WARNING_GRACE, not a whole chunk later."""
            if not first_seen:
                return WARNING_GRACE
            return max(0.5, min(first_seen.values()) + WARNING_GRACE - time.monotonic() + 0.1)

        try:
            result = self._watch(done, f"the operator to {action} the offsets", chunk_for=next_check)
        finally:
            self.progress.done()
        if result != "done":
            raise operator_error(action, result, self.target)

    def _watch(self, done, what: str, chunk_for=None, heartbeat=None):
        """Watch with a bounded chunk (``chunk_for()`` seconds, if given) so a persisting Warning is re-checked even
        without new events; with ``heartbeat``, chunks last at most HEARTBEAT_EVERY and it is called after each."""
        deadline = time.monotonic() + self.wait.timeout
        # Start from the object our last read/patch returned (watching from its resourceVersion misses nothing),
        # which saves a read per wait; later chunks read afresh.
        initial, self._latest = self._latest, None
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OperationTimeoutError(
                    f"timed out after {self.wait.timeout:.0f}s waiting for {what} on {self.target.display}",
                    advice="is the Strimzi cluster operator running? Check its logs; retry with a larger --timeout")
            chunk = min(remaining, chunk_for() if chunk_for else self.wait.watch_chunk)
            if heartbeat is not None:
                chunk = min(chunk, HEARTBEAT_EVERY)
            try:
                return self.kube.watch_until(self.target.kind, self.target.resource_name, self.target.namespace,
                                             done, timeout=chunk, chunk=chunk, what=what, initial=initial)
            except OperationTimeoutError:
                initial = None
                if heartbeat is not None:
                    heartbeat()
                continue

    def wait_for_connect_state(self, state: str, heartbeat=None) -> None:
        """Wait until Connect (as the operator reports it in status) shows ``state``; FAILED ends the wait.

        STOPPED also waits for the task list to be empty (Connect removes a stopped connector's tasks): offsets
        listed after that can no longer move, because no task is left to commit. ``heartbeat()``, if given, is
        called at least every ``HEARTBEAT_EVERY`` seconds of waiting (the journal owner's proof of life)."""
        self.progress.waiting(f"waiting for connector '{self.target.connector_name}' to be {state} in Connect")

        def done(resource: Mapping[str, Any]):
            live = self.target.live_state(resource)
            if live == "STOPPED" == state and ((self.target.connector_status(resource) or {}).get("tasks") or []):
                return None
            return live if live in (state, "FAILED") else None

        try:
            live = self._watch(done, f"the connector to be {state}", heartbeat=heartbeat)
        finally:
            self.progress.done()
        if live == "FAILED" and state != "FAILED":
            raise OperatorError(f"connector '{self.target.connector_name}' FAILED in Connect while we waited for {state}",
                                advice="see status.connectorStatus (or status.connectors) for Connect's trace")

    def try_wait_for_connect_state(self, state: str, timeout: float = 30.0) -> bool:
        """Like wait_for_connect_state but bounded and forgiving: used while making things safe."""
        with self._bounded(timeout):
            try:
                self.wait_for_connect_state(state)
                return True
            except (OperationTimeoutError, OperatorError):
                return False

    def try_list_offsets(self, timeout: float = 30.0) -> OffsetsDocument:
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
        from ..adapters.kube import InvalidError

        for _ in range(5):
            resource = self.read()
            pending = self.target.pending_annotations(resource)
            if not pending or pending != self.target.trigger_annotations(action):
                return False
            ops = [{"op": "test", "path": "/metadata/resourceVersion", "value": resource["metadata"]["resourceVersion"]}]
            ops += [{"op": "remove", "path": f"/metadata/annotations/{_escape(key)}"} for key in pending]
            try:
                self.patch(ops)
                return True
            except InvalidError:
                continue  # changed since we read it (perhaps the operator just completed the request): look again
        return False

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


# --- Warning conditions -> advice ---------------------------------------------------------------------------------

_ADVICE = (
    ("not in STOPPED state", "the connector is not STOPPED in Connect; kubectl-offsets stops it first, so the "
     "operator had not applied spec.state: stopped yet. Retry; if it persists check the operator's logs"),
    ("missing property", "the resource lacks the listOffsets/alterOffsets stanza the operator needs"),
    ("does not exist", "the offsets ConfigMap the stanza names does not exist in the resource's namespace"),
    ("is missing", "the offsets ConfigMap lacks the key the operator reads"),
    ("Failed to parse contents", "the offsets ConfigMap does not hold valid JSON"),
    ("returned 4", "Connect rejected the request (400/404/409): the offsets do not fit this connector, or a "
     "rebalance was under way. Check the Connect worker's log"),
    ("returned 5", "Connect failed to apply the offsets (500): connector-specific validation, e.g. negative "
     "offsets, MirrorMaker 2 checkpoint/heartbeat offsets other than 0, or a sink whose tasks had not stopped"),
    ("No enum constant", "the offsets annotation has a value the operator does not know; only list, alter and "
     "reset are valid (case-sensitive)"),
)


def operator_error(action: str, condition: Mapping[str, Any], target: strimzi.ConnectorTarget) -> OperatorError:
    message = str(condition.get("message", ""))
    advice = next((text for needle, text in _ADVICE if needle in message), "see the resource's status conditions")
    return OperatorError(f"the operator could not {action} the offsets of '{target.connector_name}': "
                         f"{condition.get('reason')}: {message}", advice=advice)
