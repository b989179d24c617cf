"""The dry run's cluster: the same engine runs against it, so the preview is what a real run would write.

``Recorder`` stands in for the cluster client (``adapters.kube.Kube``):
- reads go to the cluster, and see the dry run's own writes (a local overlay of the objects it wrote);
- writes are recorded (with the step that made them) and applied to the overlay, never sent; with ``server`` each is
  also sent with ``dryRun=All``, as kubectl's ``--dry-run=server`` does, so that admission, RBAC and the CRD schema
  judge it (as the object will then be: the overlay's state, sent as a patch of the stored object);
- the local backup file is recorded, not written;
- waits on the operator are answered "assumed done" (``OperatorClient`` asks ``assume_done``): the request's
  annotations are removed from the overlay and its effect is assumed on the offsets. Lists answer with the
  connector's last list (the list ConfigMap as it is; empty when it was never listed), then with the offsets as
  assumed after the change, so the verification of a dry run compares what a real run would.

The first write that needs the operator's answer (the stop's wait) is where assumption starts: writes up to there
are exactly a real run's; after it they are a real run's when the operator does what it is asked.
"""

from __future__ import annotations

import builtins  # Recorder.list shadows list in the class body
import itertools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

import jsonpatch

from ... import clock as clocks
from ... import strimzi
from ...errors import InvalidError, NotFoundError, OperationTimeoutError
from ...model import OffsetsDocument
from ...strimzi import OffsetsAction
from .engine import hooks

if TYPE_CHECKING:
    from ...adapters.kube import Kube

Key = tuple[str, str, str]  # (kind, namespace, name)
_GONE: dict[str, Any] = {}  # an object the dry run deleted


@dataclass(frozen=True)
class Write:
    step: str  # the engine's step when it was made ("" before the first)
    verb: str  # patch, create, merge, delete, local file
    kind: str
    name: str
    body: Any

    @property
    def description(self) -> str:
        what = "local file" if self.kind == "file" else f"{self.kind.lower()}/{self.name}"
        return f"{self.verb} {what}" + (f" (step {self.step})" if self.step else "")


class Recorder:
    """The cluster for a dry run (see the module's docstring)."""

    dry_run = True

    def __init__(self, kube: Kube, *, server: bool = False) -> None:
        self.kube, self.server = kube, server
        self.clock = clocks.of(kube)
        self.namespace, self.context = kube.namespace, getattr(kube, "context", None)
        self.writes: list[Write] = []
        self.sent = 0  # writes the API server judged (server mode)
        self.listed_at: str | None = None  # when the last list the dry run started from was written
        self.never_listed = False
        self._overlay: dict[Key, dict[str, Any]] = {}
        self._offsets: dict[tuple[str, str], OffsetsDocument] = {}  # (resource, key) -> as assumed
        self._versions = itertools.count(1)
        self._step = ""

    def observe(self):
        """Label each write with the engine's step (a context manager around the run)."""
        def seen(event: str, step: str) -> None:
            if event == "start":
                self._step = step
        return hooks.on_step(seen)

    # --- reads --------------------------------------------------------------------------------------------------
    def served_version(self, kind: str) -> str:
        return self.kube.served_version(kind)

    def get(self, kind: str, name: str, namespace: str) -> dict[str, Any]:
        return _copy(self._read(kind, name, namespace, lambda: self.kube.get(kind, name, namespace)))

    def get_connect(self, name: str, namespace: str) -> dict[str, Any]:
        return self.kube.get_connect(name, namespace)

    def list(self, kind: str, namespace: str, **kwargs: Any) -> builtins.list[dict[str, Any]]:
        return self.kube.list(kind, namespace, **kwargs)

    def get_configmap(self, name: str, namespace: str) -> dict[str, Any]:
        return _copy(self._read("ConfigMap", name, namespace, lambda: self.kube.get_configmap(name, namespace)))

    def find_configmap(self, name: str, namespace: str) -> dict[str, Any] | None:
        try:
            return self.get_configmap(name, namespace)
        except NotFoundError:
            return None

    def list_configmaps(self, namespace: str | None, selector: str) -> builtins.list[dict[str, Any]]:
        return self.kube.list_configmaps(namespace, selector)

    def can_i_all(self, checks):
        return self.kube.can_i_all(checks)

    def list_pods(self, selector: str, namespace: str | None = None):
        return self.kube.list_pods(selector, namespace)

    def _read(self, kind: str, name: str, namespace: str, real: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        found = self._overlay.get((kind, namespace, name))
        if found is _GONE:
            raise NotFoundError(f"{kind.lower()}/{name} not found (deleted by this dry run)")
        return found if found is not None else real()

    # --- writes -------------------------------------------------------------------------------------------------
    def patch(self, kind: str, name: str, namespace: str, operations: builtins.list[dict[str, Any]], *,
              dry_run: bool = False) -> dict[str, Any]:
        current = self.get(kind, name, namespace)
        try:
            patched = jsonpatch.apply_patch(current, operations)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as failure:
            # What the API server answers (422) when a ``test`` fails, the resourceVersion read having moved (an
            # operator's status write): the real run's guarded write reads again and retries, and so must this.
            raise InvalidError(f"the API server would refuse the change to {kind.lower()}/{name}: {failure}") from None
        if patched.get("spec") != current.get("spec"):
            patched["metadata"]["generation"] = (current["metadata"].get("generation") or 0) + 1
        self._record("patch", kind, name, operations)
        if self.server:
            self._judge(kind, name, namespace, patched)
        return self._store(kind, namespace, name, patched)

    def create(self, kind: str, namespace: str, body: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        self._record("create", kind, body["metadata"]["name"], body)
        if self.server:
            self._sent(self.kube.create(kind, namespace, body, dry_run=True))
        return self._store(kind, namespace, body["metadata"]["name"], _copy(body))

    def delete(self, kind: str, name: str, namespace: str, *, resource_version: str | None = None) -> None:
        self._record("delete", kind, name, {"preconditions": {"resourceVersion": resource_version}})
        if self.server:
            self._sent(self.kube.delete(kind, name, namespace, dry_run=True))
        self._overlay[(kind, namespace, name)] = _GONE

    def create_configmap(self, namespace: str, body: dict[str, Any], *, dry_run: bool = False) -> dict[str, Any]:
        self._record("create", "ConfigMap", body["metadata"]["name"], body)
        if self.server:
            self._sent(self.kube.create_configmap(namespace, body, dry_run=True))
        return self._store("ConfigMap", namespace, body["metadata"]["name"], _copy(body))

    def patch_configmap(self, name: str, namespace: str, body: Mapping[str, Any], *, dry_run: bool = False
                        ) -> dict[str, Any]:
        current = self.get_configmap(name, namespace)
        merged = merge_patch(current, {key: value for key, value in body.items() if key != "metadata"})
        self._record("merge", "ConfigMap", name, body)
        if self.server:
            real = self.kube.find_configmap(name, namespace)
            sent = {key: value for key, value in body.items() if key != "metadata"}
            self._sent(self.kube.patch_configmap(name, namespace, sent, dry_run=True) if real is not None
                       else self.kube.create_configmap(namespace, _bare(merged), dry_run=True))
        return self._store("ConfigMap", namespace, name, merged)

    def record_local(self, path: str, text: str) -> None:
        """The local backup file a real run writes."""
        self._record("write", "file", path, text)

    def _record(self, verb: str, kind: str, name: str, body: Any) -> None:
        self.writes.append(Write(self._step, verb, kind, name, _copy(body)))

    def _store(self, kind: str, namespace: str, name: str, obj: dict[str, Any]) -> dict[str, Any]:
        obj.setdefault("metadata", {})["resourceVersion"] = f"dry-run-{next(self._versions)}"
        self._overlay[(kind, namespace, name)] = obj
        return _copy(obj)

    def _judge(self, kind: str, name: str, namespace: str, patched: dict[str, Any]) -> None:
        """Server mode: the stored object as this write leaves it, as one patch of the stored object (the earlier
        writes of the dry run are not stored, so its own ops may not apply to it)."""
        stored = self.kube.get(kind, name, namespace)
        ops = jsonpatch.make_patch(_user_view(stored), _user_view(patched)).patch
        if ops:
            self._sent(self.kube.patch(kind, name, namespace, ops, dry_run=True))

    def _sent(self, answer: Any) -> None:
        self.sent += 1

    # --- the operator's side, assumed ----------------------------------------------------------------------------
    def start_from_last_list(self, target: strimzi.ConnectorTarget, offsets: OffsetsDocument | None,
                             written: str | None) -> None:
        """What lists answer with: the connector's last list (None: never listed, so no offsets)."""
        self.never_listed, self.listed_at = offsets is None, written
        self._offsets[(target.resource_name, target.configmap_key)] = offsets or OffsetsDocument()

    def assume_done(self, target: strimzi.ConnectorTarget, action: str) -> None:
        """The operator did what the pending request asks, and removed the request's annotations."""
        key = (target.resource_name, target.configmap_key)
        resource = self.get(target.kind, target.resource_name, target.namespace)
        stanza = target.stanza(resource)
        if action == "list":
            name = str(((stanza.get(strimzi.FIELD_LIST_OFFSETS) or {}).get(strimzi.FIELD_TO_CONFIGMAP) or {})
                       .get("name"))
            document = self._offsets.get(key, OffsetsDocument())
            found = self.find_configmap(name, target.namespace) or {"apiVersion": "v1", "kind": "ConfigMap",
                                                                    "metadata": {"name": name}}
            found.setdefault("data", {})[target.configmap_key] = document.dumps()
            self._store("ConfigMap", target.namespace, name, found)
        elif action == OffsetsAction.RESET:
            self._offsets[key] = OffsetsDocument()
        elif action == OffsetsAction.ALTER:
            name = str(((stanza.get(strimzi.FIELD_ALTER_OFFSETS) or {}).get(strimzi.FIELD_FROM_CONFIGMAP) or {})
                       .get("name"))
            text = ((self.find_configmap(name, target.namespace) or {}).get("data") or {}).get(target.configmap_key)
            if text:
                self._offsets[key] = self._offsets.get(key, OffsetsDocument()).merged_with(
                    OffsetsDocument.from_json(json.loads(text)))
        annotations = resource["metadata"].get("annotations") or {}
        for pending in target.pending_annotations(resource):
            annotations.pop(pending, None)
        self._store(target.kind, target.namespace, target.resource_name, resource)

    def watch_until(self, kind: str, name: str, namespace: str, done: Callable[[dict[str, Any]], Any], *,
                    timeout: float, what: str = "the change", **kwargs: Any) -> Any:
        """No waiting in a dry run: the answer is what the overlay says now."""
        answer = done(self.get(kind, name, namespace))
        if not answer:
            raise OperationTimeoutError(f"a dry run does not wait for {what}")
        return answer


def _user_view(resource: Mapping[str, Any]) -> dict[str, Any]:
    """What a write of ours may change: labels, annotations, spec."""
    metadata = resource.get("metadata") or {}
    return {"metadata": {key: metadata[key] for key in ("labels", "annotations") if metadata.get(key)},
            "spec": resource.get("spec") or {}}


def _bare(configmap: Mapping[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in (configmap.get("metadata") or {}).items()
                if k in ("name", "namespace", "labels", "annotations")}
    return {**{k: v for k, v in configmap.items() if k != "metadata"}, "metadata": metadata}


def merge_patch(base: Any, change: Any) -> Any:
    """A merge patch (RFC 7386), as the API server applies our ConfigMap patches."""
    if not isinstance(change, Mapping) or not isinstance(base, Mapping):
        return _copy(change)
    out = dict(base)
    for key, value in change.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value)) if value is not None else None
