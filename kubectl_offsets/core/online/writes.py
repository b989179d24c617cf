"""The one guarded write: read, build the change from what was read, write it with that read's resourceVersion as a
precondition, and on a conflict read again and decide again, within a bound. Every write of ours to a custom
resource or a ConfigMap goes through here (``OperatorClient.guarded_patch``, ``guarded_delete``,
``configmaps.put_document``), so "someone wrote in between" is handled once, the same way everywhere.

The precondition fails in two ways: 409 (a ``resourceVersion`` in a merge body or a delete's preconditions) and 422
(a JSON Patch ``test`` of ``/metadata/resourceVersion``). A 422 is also what the API server answers to a change it
refuses (a CRD schema, an admission webhook): the object read again tells them apart, since when its resourceVersion
has not moved our ``test`` cannot have failed, and that refusal is raised as it is instead of being retried.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, TypeVar

from ... import clock as clocks
from ...errors import ConflictError, InvalidError, OffsetsError

T = TypeVar("T")
R = TypeVar("R", bound="Mapping[str, Any] | None")
Resource = Mapping[str, Any]

# Conflicts tolerated in a row before giving up: each one is somebody else's write landing between our read and ours
# (most often the operator's status write), so a few are normal and many mean a writer that never stops.
WRITE_ATTEMPTS = 8


def resource_version(resource: Resource) -> str:
    return resource["metadata"]["resourceVersion"]


def precondition(resource: Resource) -> list[dict[str, Any]]:
    """The JSON Patch op that makes a patch apply only to the version read."""
    return [{"op": "test", "path": "/metadata/resourceVersion", "value": resource_version(resource)}]


def guarded(read: Callable[[], R], write: Callable[[R], T], *, exhausted: Callable[[], OffsetsError],
            deadline: float | None = None, clock: clocks.Clock = clocks.SYSTEM,
            attempts: int = WRITE_ATTEMPTS) -> T:
    """``write(read())`` until it lands: ``write`` builds its change from the object given and sends it with that
    object's resourceVersion as a precondition (``precondition``, or a delete's/merge's resourceVersion; None: the
    object does not exist, and a create is its own precondition); it may return without writing when there is
    nothing (left) to do, and raise to refuse. A conflict reads again, up to
    ``attempts`` times and until ``deadline`` (``clock``'s monotonic seconds); then ``exhausted()`` is raised."""
    for _ in range(attempts):
        resource = read()
        try:
            return write(resource)
        except ConflictError:
            pass
        except InvalidError:
            again = read()
            if isinstance(resource, Mapping) and isinstance(again, Mapping) and \
                    resource_version(again) == resource_version(resource):
                raise  # refused as it is, not because the object moved
        if deadline is not None and clock.monotonic() >= deadline:
            break
    raise exhausted()
