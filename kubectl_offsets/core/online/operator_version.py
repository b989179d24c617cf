"""Which Strimzi cluster operator manages a namespace, as far as the caller may see it: does it create a new
connector directly in its requested state (1.2.0+, ``initial_state``), or running first (older)?

Evidence, best first: the image tag of the cluster operator's pods (in the namespace, then in any namespace the
caller may list), which few users may see; then what every authenticated user may read: the served API versions
(v1beta2 is served only before 1.0.0) and the KafkaConnect schema the API server publishes for v1 (1.2.0's CRDs add
a field, ``strimzi.creates_stopped_by_schema``). Anything else is "unknown", which ``create`` treats like an older
operator: it never assumes the safe behaviour it cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ... import strimzi
from ...errors import ClusterError, ForbiddenError, NotFoundError

if TYPE_CHECKING:
    from ...adapters.kube import Kube

QUERY_ERRORS = (ClusterError, NotFoundError, ForbiddenError)


@dataclass(frozen=True)
class OperatorVersion:
    version: str | None  # "1.2.0"; None when not known exactly
    creates_stopped: bool | None  # True: 1.2.0+; False: older; None: unknown
    evidence: str  # how we know, for the messages
    releases: str | None = None  # what is known without the exact version: "1.2.0 or newer", "before 1.0"

    def describe(self) -> str:
        if self.version:
            return f"Strimzi {self.version} ({self.evidence})"
        if self.releases:
            return f"Strimzi {self.releases} ({self.evidence})"
        return f"a Strimzi of unknown version ({self.evidence})"


def detect(kube: Kube, namespace: str) -> OperatorVersion:
    for where in (namespace, None):
        found = _pod_versions(kube, where)
        if found:
            oldest = min(found)  # several operators (one per watched namespace set): assume the least capable
            text = ".".join(map(str, oldest))
            place = f"namespace {where}" if where else "the cluster"
            return OperatorVersion(text, oldest >= strimzi.INITIAL_STATE_SINCE,
                                   f"the image of the cluster operator pod in {place}")
    try:
        served = kube.served_versions()
    except QUERY_ERRORS:
        served = []
    if strimzi.LEGACY_API_VERSION in served:
        return OperatorVersion(None, False, f"the API server serves {strimzi.GROUP}/{strimzi.LEGACY_API_VERSION}",
                               releases="before 1.0")
    by_schema = _by_schema(kube) if "v1" in served else None
    if by_schema is not None:
        return by_schema
    return OperatorVersion(None, None, "no cluster operator pod visible to you "
                                       f"(label {strimzi.OPERATOR_POD_SELECTOR}), and the KafkaConnect schema the "
                                       "API server publishes does not tell the release")


def _by_schema(kube: Kube) -> OperatorVersion | None:
    """The release range the installed CRDs show (the OpenAPI document of kafka.strimzi.io/v1), or None."""
    try:
        document = kube.openapi_document(strimzi.OPENAPI_V1_PATH)
    except QUERY_ERRORS:
        return None
    creates_stopped = strimzi.creates_stopped_by_schema(document)
    if creates_stopped is None:
        return None
    kind, path, mark = strimzi.INITIAL_STATE_SCHEMA_MARK
    field = ".".join((*path, mark))
    if creates_stopped:
        return OperatorVersion(None, True, f"the {kind} schema the API server publishes has {field}, first in "
                                           "Strimzi 1.2.0's CRDs", releases="1.2.0 or newer")
    return OperatorVersion(None, False, f"the {kind} schema the API server publishes lacks {field}, which "
                                        "Strimzi 1.2.0's CRDs add", releases="before 1.2.0")


def _pod_versions(kube: Kube, namespace: str | None) -> list[tuple[int, int, int]]:
    try:
        pods = kube.list_pods(strimzi.OPERATOR_POD_SELECTOR, namespace)
    except QUERY_ERRORS:
        return []  # not allowed to look there: other evidence, or unknown
    versions = []
    for pod in pods:
        for container in (pod.get("spec") or {}).get("containers") or []:
            version = strimzi.operator_version_from_image(container.get("image"))
            if version:
                versions.append(version)
    return versions
