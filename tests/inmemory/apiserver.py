"""An in-memory kube-apiserver: what the plugin and the emulator rely on, and nothing more.

- every object has a ``resourceVersion`` (one counter for the whole store, as etcd's revision), custom resources a
  ``generation`` that moves with their ``spec`` only, and a ``uid``;
- JSON Patch (RFC 6902, the ``jsonpatch`` library) with ``test``: a failed test or a path that does not exist is
  422, as kube-apiserver answers; a ``metadata.resourceVersion`` that differs from the stored one (a merge patch or a
  replace that carries it, a delete precondition) is 409;
- the status subresource: a status write changes neither ``spec`` nor ``generation``;
- every write is a watch event (ADDED, MODIFIED, DELETED) with the object as it was then, kept in one log that
  watches read from, as a watch from a resourceVersion would.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import jsonpatch

from kubectl_offsets.core.online.recording import merge_patch  # RFC 7386, as the dry run applies it

Key = tuple[str, str, str]  # (kind, namespace, name)


class Rejected(Exception):
    """The API server's refusal: ``status`` is the HTTP code (404, 409, 422)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class Event:
    type: str  # ADDED, MODIFIED, DELETED
    kind: str
    object: dict[str, Any]

    @property
    def key(self) -> Key:
        meta = self.object["metadata"]
        return self.kind, meta["namespace"], meta["name"]


class ApiServer:
    def __init__(self, clock) -> None:
        self.clock = clock
        self.objects: dict[Key, dict[str, Any]] = {}
        self.log: list[Event] = []  # every write, in order: what watches read
        self._revision = itertools.count(1)
        # An admission webhook or a CRD schema: reject(kind, object after the write) -> a refusal's message or None
        self.reject: Callable[[str, dict[str, Any]], str | None] = lambda kind, obj: None

    # --- reads ---------------------------------------------------------------------------------------------------
    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        found = self.objects.get((kind, namespace, name))
        if found is None:
            raise Rejected(404, f'{kind.lower()}s "{name}" not found')
        return clone(found)

    def find(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        found = self.objects.get((kind, namespace, name))
        return clone(found) if found is not None else None

    def list(self, kind: str, namespace: str | None = None, selector: str | None = None) -> list[dict[str, Any]]:
        return [clone(obj) for (k, ns, _), obj in sorted(self.objects.items())
                if k == kind and (namespace is None or ns == namespace) and matches(selector, obj)]

    # --- writes --------------------------------------------------------------------------------------------------
    def create(self, kind: str, namespace: str, body: dict[str, Any]) -> dict[str, Any]:
        obj = clone(body)
        meta = obj.setdefault("metadata", {})
        meta["namespace"] = namespace
        key = (kind, namespace, meta["name"])
        if key in self.objects:
            raise Rejected(409, f'{kind.lower()}s "{meta["name"]}" already exists')
        obj["kind"] = kind
        meta.update(uid=str(uuid.uuid4()), creationTimestamp=self.clock.now().isoformat().replace("+00:00", "Z"))
        if kind != "ConfigMap":
            meta["generation"] = 1
        return self._store("ADDED", key, obj)

    def patch(self, kind: str, namespace: str, name: str, operations: list[dict[str, Any]]) -> dict[str, Any]:
        """A JSON Patch; 422 when a ``test`` fails or a path is missing."""
        current = self.get(kind, namespace, name)
        try:
            patched = jsonpatch.apply_patch(current, operations)
        except jsonpatch.JsonPatchTestFailed as failure:
            raise Rejected(422, f"the server rejected our request due to an error in our request: {failure}") from None
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as failure:
            raise Rejected(422, f"the server rejected our request: {failure}") from None
        patched["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]  # not ours to change
        return self._replace(kind, current, patched)

    def merge(self, kind: str, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        """A merge patch (the strategic merge of a ConfigMap is one for the maps we write); 409 when the body's
        ``metadata.resourceVersion`` is not the stored one."""
        current = self.get(kind, namespace, name)
        wanted = (body.get("metadata") or {}).get("resourceVersion")
        if wanted is not None and wanted != current["metadata"]["resourceVersion"]:
            raise Rejected(409, "the object has been modified; please apply your changes to the latest version")
        patched = merge_patch(current, body)
        patched["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
        return self._replace(kind, current, patched)

    def replace(self, kind: str, body: dict[str, Any]) -> dict[str, Any]:
        meta = body["metadata"]
        current = self.get(kind, meta["namespace"], meta["name"])
        if meta.get("resourceVersion") not in (None, current["metadata"]["resourceVersion"]):
            raise Rejected(409, "the object has been modified; please apply your changes to the latest version")
        patched = clone(body)
        patched["metadata"] = {**current["metadata"], **{k: v for k, v in meta.items() if k in ("labels",
                                                                                              "annotations",
                                                                                              "ownerReferences")}}
        if kind != "ConfigMap":
            patched["status"] = current.get("status")
        return self._replace(kind, current, patched)

    def write_status(self, kind: str, namespace: str, name: str, status: dict[str, Any]) -> dict[str, Any]:
        current = self.get(kind, namespace, name)
        patched = clone(current)
        patched["status"] = clone(status)
        return self._replace(kind, current, patched, status_only=True)

    def delete(self, kind: str, namespace: str, name: str, resource_version: str | None = None) -> None:
        current = self.get(kind, namespace, name)
        if resource_version is not None and resource_version != current["metadata"]["resourceVersion"]:
            raise Rejected(409, "Precondition failed: the object has been modified")
        del self.objects[(kind, namespace, name)]
        current["metadata"]["resourceVersion"] = str(next(self._revision))
        self.log.append(Event("DELETED", kind, current))

    # --- bookkeeping ---------------------------------------------------------------------------------------------
    def _replace(self, kind: str, current: dict[str, Any], patched: dict[str, Any], *, status_only: bool = False
                 ) -> dict[str, Any]:
        meta = patched["metadata"]
        if not status_only and kind != "ConfigMap":
            patched["status"] = current.get("status")  # the main resource does not write the status subresource
            if patched.get("spec") != current.get("spec"):
                meta["generation"] = (current["metadata"].get("generation") or 0) + 1
        for fixed in ("uid", "creationTimestamp", "name", "namespace"):
            meta[fixed] = current["metadata"].get(fixed)
        if patched == current:
            return clone(patched)  # kube-apiserver: a no-op write is no event, and no new resourceVersion
        return self._store("MODIFIED", (kind, meta["namespace"], meta["name"]), patched)

    def _store(self, event: str, key: Key, obj: dict[str, Any]) -> dict[str, Any]:
        refusal = self.reject(key[0], obj)
        if refusal:
            raise Rejected(422, f'admission webhook "policy.example.com" denied the request: {refusal}')
        if obj.get("status") is None:
            obj.pop("status", None)
        for emptied in ("annotations", "labels"):  # ObjectMeta's maps are omitempty: an empty one is not stored
            if obj["metadata"].get(emptied) == {}:
                del obj["metadata"][emptied]
        obj["metadata"]["resourceVersion"] = str(next(self._revision))
        self.objects[key] = obj
        self.log.append(Event(event, key[0], clone(obj)))
        return clone(obj)


def clone(value: Any) -> Any:
    """A deep copy of JSON data (what the API server stores), several times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value


def matches(selector: str | None, obj: dict[str, Any]) -> bool:
    """A label selector of ``k=v``, ``k!=v`` and ``k`` terms."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key.rstrip("=")) != value.lstrip("="):
                return False
        elif term not in labels:
            return False
    return True
