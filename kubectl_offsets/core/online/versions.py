"""What ``kubectl offsets version`` reports: this plugin, the Strimzi API the cluster serves, and Kafka Connect.

Kafka Connect's REST API is usually not reachable from where kubectl runs (Strimzi publishes it as a cluster-internal
Service, ``status.url``), so its version is best effort: try the URL with a short deadline, say "unknown" and why
otherwise. The call is one unauthenticated ``GET /`` (Connect answers ``{"version": ..., "commit": ...}``), so the
standard library is enough and nothing heavy is imported for it.
"""

from __future__ import annotations

import json
import platform
import sys
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from ... import __version__, strimzi
from ...deadline import within
from ...errors import NotFoundError
from ...model import ClusterConfig

if TYPE_CHECKING:
    from ...adapters.kube import Kube

CONNECT_TIMEOUT = 2.0  # seconds for DNS + connect + answer; the whole command must stay snappy


@dataclass(frozen=True)
class PluginVersion:
    version: str
    python: str
    packaging: str  # "executable" (the krew archive) or "python package" (pip)

    @classmethod
    def current(cls) -> "PluginVersion":
        frozen = getattr(sys, "frozen", False)  # set by PyInstaller in the release executable
        return cls(version=f"v{__version__}", python=platform.python_version(),
                   packaging="executable" if frozen else "python package")


@dataclass(frozen=True)
class ConnectVersion:
    name: str  # the KafkaConnect resource
    namespace: str
    url: str | None
    version: str | None  # None = unknown
    reason: str = ""  # why unknown


@dataclass(frozen=True)
class StrimziApi:
    served: list[str]  # the versions of kafka.strimzi.io the API server serves
    used: dict[str, str | None]  # kind -> the version the plugin reads it through; None = that kind is not served


@dataclass
class VersionReport:
    plugin: PluginVersion
    strimzi: StrimziApi | None = None  # None = client only
    connect: list[ConnectVersion] = field(default_factory=list)
    namespace: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"plugin": asdict(self.plugin)}
        if self.strimzi is not None:
            data["strimzi"] = {"group": strimzi.GROUP, **asdict(self.strimzi)}
            data["namespace"] = self.namespace
            data["kafkaConnect"] = [asdict(c) for c in self.connect]
        return data


def client_report() -> VersionReport:
    return VersionReport(plugin=PluginVersion.current())


def cluster_report(cluster: ClusterConfig, connect_url: str | None = None, request_timeout: float = 10.0,
                   timeout: float = CONNECT_TIMEOUT) -> VersionReport:
    """Plugin version + served Strimzi versions + the version of each KafkaConnect in the namespace.

    ``connect_url`` (e.g. a ``kubectl port-forward`` address) replaces every KafkaConnect's ``status.url``.
    """
    from ...adapters.kube import Kube

    return report_for(Kube(cluster, request_timeout=request_timeout), connect_url, timeout)


def report_for(kube: Kube, connect_url: str | None, timeout: float) -> VersionReport:
    api = strimzi_api(kube)
    report = VersionReport(plugin=PluginVersion.current(), strimzi=api, namespace=kube.namespace)
    if api.used.get(strimzi.KIND_CONNECT):
        for resource in kube.list(strimzi.KIND_CONNECT, kube.namespace):
            meta = resource["metadata"]
            url = connect_url or (resource.get("status") or {}).get("url")
            report.connect.append(_probe(meta["name"], meta.get("namespace", kube.namespace), url, timeout))
    if connect_url and not report.connect:  # asked for: asked, whether or not the namespace has a KafkaConnect
        report.connect.append(_probe("", "", connect_url, timeout))
    return report


def strimzi_api(kube: Kube) -> StrimziApi:
    """Which Strimzi versions are served, and through which one each kind is read. The per-kind look-up goes
    first: it is the one that reports an unreachable API server as a ClusterError."""
    used: dict[str, str | None] = {}
    for kind in (strimzi.KIND_CONNECTOR, strimzi.KIND_MM2, strimzi.KIND_CONNECT):
        try:
            used[kind] = kube.served_version(kind)
        except NotFoundError:
            used[kind] = None
    served = kube.served_versions() if any(used.values()) else []
    return StrimziApi(served=list(served), used=used)


def _probe(name: str, namespace: str, url: str | None, timeout: float) -> ConnectVersion:
    if not url:
        return ConnectVersion(name, namespace, None, None, "no status.url yet")
    try:
        version = within(timeout, lambda: connect_version(url, timeout))
    except Exception as error:  # noqa: BLE001 - any failure only means "unknown", with the reason shown
        return ConnectVersion(name, namespace, url, None, _reason(error))
    return ConnectVersion(name, namespace, url, version)


def connect_version(url: str, timeout: float) -> str:
    """``GET <url>/`` on Kafka Connect's REST API -> its ``version``."""
    import urllib.request  # ~15 ms (http.client, email, ssl): only when a cluster is asked

    request = urllib.request.Request(url.rstrip("/") + "/", headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the URL is Strimzi's
        document = json.loads(response.read(65536))
    version = document.get("version") if isinstance(document, dict) else None
    if not version:
        raise ValueError("the answer has no 'version' (is this Kafka Connect's REST API?)")
    return str(version)


def _reason(error: BaseException) -> str:
    reason = getattr(error, "reason", None)  # urllib.error.URLError wraps the socket error
    text = str(reason if reason is not None else error) or error.__class__.__name__
    return f"not reachable from here ({text})"
