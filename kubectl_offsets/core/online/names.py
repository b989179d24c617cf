"""Names that live in the cluster, for shell completion: namespaces, contexts, KafkaConnectors, KafkaMirrorMaker2s
and the connectors Strimzi generates from them.

Every look-up takes the words already typed (:class:`LineWords`) and the word being completed, and returns
``(candidate, description)`` pairs; the caller filters by prefix, applies the deadline and swallows failures.
"""

from __future__ import annotations

from typing import Any, Callable

from ... import strimzi
from ...model import ClusterConfig

Names = list[tuple[str, str]]


def load_client() -> None:
    """Import the kube adapter (and so the kubernetes client) now, outside any deadline."""
    from ...adapters import kube  # noqa: F401


class LineWords:
    """The parameters on the command line so far (click's names: namespace, context, kubeconfig, target, ...)."""

    def __init__(self, params: dict[str, Any], timeout: float, words: list[str] | None = None):
        self.params = params
        self.words = words or []  # the raw words too: click may not have assigned the positional arguments yet
        self.timeout = timeout

    def cluster_config(self) -> ClusterConfig:
        return ClusterConfig(kubeconfig=self.params.get("kubeconfig"), context=self.params.get("context"),
                             namespace=self.params.get("namespace"))

    def kube(self):
        from ...adapters.kube import Kube  # heavy: only now that a name is really being completed

        return Kube(self.cluster_config(), request_timeout=self.timeout)

    def mm2_name(self) -> str | None:
        """The KafkaMirrorMaker2 a ``--connector`` belongs to: the first ``kind/NAME`` word that names one."""
        for value in [*self.params.values(), *self.words]:
            if not isinstance(value, str) or "/" not in value:
                continue
            try:
                kind, name = strimzi.parse_target(value)
            except Exception:  # noqa: BLE001 - not a target; keep looking
                continue
            if kind == strimzi.KIND_MM2:
                return name
        return None


def namespaces(line: LineWords, incomplete: str) -> Names:
    return [(name, "") for name in line.kube().list_namespaces(timeout=line.timeout)]


def contexts(line: LineWords, incomplete: str) -> Names:
    from ...adapters.kube import list_contexts

    return [(name, "") for name in list_contexts(line.params.get("kubeconfig"))]


def resources(kind: str) -> Callable[[LineWords, str], Names]:
    def lookup(line: LineWords, incomplete: str) -> Names:
        kube = line.kube()
        return [(item["metadata"]["name"], kind) for item in kube.list(kind, kube.namespace, timeout=line.timeout)]
    return lookup


def targets(line: LineWords, incomplete: str) -> Names:
    """TARGET is ``NAME`` (a KafkaConnector) or ``KIND/NAME``. Before a slash: connectors and ``kmm2/NAME``; after
    one: the resources of that kind, keeping the kind word the user typed (``kafkamirrormaker2/``, ``kmm2/``)."""
    if "/" in incomplete:
        prefix = incomplete.split("/", 1)[0]
        kind = strimzi.parse_kind(prefix)
        return [(f"{prefix}/{name}", help_) for name, help_ in resources(kind)(line, incomplete)]
    kube = line.kube()
    connectors = kube.list(strimzi.KIND_CONNECTOR, kube.namespace, timeout=line.timeout)
    mirrors = kube.list(strimzi.KIND_MM2, kube.namespace, timeout=line.timeout)
    short = strimzi.KIND_ALIASES[strimzi.KIND_MM2][-1]  # "kmm2", as the help examples write it
    return ([(item["metadata"]["name"], strimzi.KIND_CONNECTOR) for item in connectors]
            + [(f"{short}/{item['metadata']['name']}", strimzi.KIND_MM2) for item in mirrors])


def mm2_connectors(line: LineWords, incomplete: str) -> Names:
    """The connectors Strimzi generates from the KafkaMirrorMaker2 on the line: the short forms (``source``,
    ``checkpoint``, ``heartbeat``) that name exactly one of them, then the full names."""
    name = line.mm2_name()
    if name is None:
        return []
    kube = line.kube()
    generated = strimzi.mm2_targets(kube.get(strimzi.KIND_MM2, name, kube.namespace))
    short = [(word, f"the only {mm2_type}") for word, (_, mm2_type) in strimzi.MM2_TYPES.items()
             if sum(1 for t in generated if t.mm2_type == mm2_type) == 1]
    return short + [(t.connector_name, t.mm2_type or "") for t in generated]


LOOKUPS: dict[str, Callable[[LineWords, str], Names]] = {
    "namespace": namespaces,
    "context": contexts,
    "target": targets,
    "kafkaconnector": resources(strimzi.KIND_CONNECTOR),
    "kafkamirrormaker2": resources(strimzi.KIND_MM2),
    "mm2-connector": mm2_connectors,
}
