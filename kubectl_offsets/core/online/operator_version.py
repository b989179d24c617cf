"""Which Strimzi cluster operator manages a namespace, as far as the caller may see it: does it create a new
connector directly in its requested state (1.2.0+, ``initial_state``), or running first (older)?

Evidence, best first: the image tag of the cluster operator's pods (in the namespace, then in any namespace the
caller may list); then the served API versions (v1beta2 is served only before 1.0.0). Anything else is "unknown",
which ``create`` treats like an older operator: it never assumes the safe behaviour it cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ... import strimzi
from ...errors import ClusterError, ForbiddenError, NotFoundError

if TYPE_CHECKING:
    from ...adapters.kube import Kube


@dataclass(frozen=True)
class OperatorVersion:
    version: str | None  # "1.2.0"; None when unknown
    creates_stopped: bool | None  # True: 1.2.0+; False: older; None: unknown
    evidence: str  # how we know, for the messages

    def describe(self) -> str:
        if self.version:
            return f"Strimzi {self.version} ({self.evidence})"
        if self.creates_stopped is False:
            return f"Strimzi older than 1.0 ({self.evidence})"
        return f"an operator of unknown version ({self.evidence})"


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
    except (ClusterError, NotFoundError, ForbiddenError):
        served = []
    if strimzi.LEGACY_API_VERSION in served:
        return OperatorVersion(None, False, f"the API server serves {strimzi.GROUP}/{strimzi.LEGACY_API_VERSION}")
    return OperatorVersion(None, None, "no cluster operator pod visible to you "
                                       f"(label {strimzi.OPERATOR_POD_SELECTOR})")


def _pod_versions(kube: Kube, namespace: str | None) -> list[tuple[int, int, int]]:
    try:
        pods = kube.list_pods(strimzi.OPERATOR_POD_SELECTOR, namespace)
    except (ForbiddenError, NotFoundError, ClusterError):
        return []  # not allowed to look there: other evidence, or unknown
    versions = []
    for pod in pods:
        for container in (pod.get("spec") or {}).get("containers") or []:
            version = strimzi.operator_version_from_image(container.get("image"))
            if version:
                versions.append(version)
    return versions
