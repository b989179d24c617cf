"""A minimal HTTPS client for kube-apiserver, used by the environment itself (readiness, CRDs).

The environment does not go through the `kubernetes` package for this: probing /readyz and applying a few
objects need nothing more than urllib, and a tiny client gives exact control over content types (server-side
apply) and status codes. Tests use the real `kubernetes` client via the fixtures.
"""
from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from pathlib import Path


class KubeRest:
    def __init__(self, server: str, ca: Path, cert: Path | None = None, key: Path | None = None,
                 token: str | None = None):
        self.server = server.rstrip("/")
        self._ctx = ssl.create_default_context(cafile=str(ca))
        if cert:
            self._ctx.load_cert_chain(str(cert), str(key))
        self._token = token

    def request(self, method: str, path: str, body=None, content_type: str = "application/json",
                timeout: float = 10.0) -> tuple[int, object]:
        """Return (status, decoded JSON or text). HTTP errors are returned, not raised."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        if self._token:
            req.add_header("Authorization", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(req, context=self._ctx, timeout=timeout) as resp:
                return resp.status, _decode(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, _decode(e.read())

    def get(self, path: str, **kw) -> tuple[int, object]:
        return self.request("GET", path, **kw)

    def apply(self, path: str, obj: dict, manager: str = "kubectl-offsets-tests") -> tuple[int, object]:
        """Server-side apply (JSON is valid YAML, so the apply-patch+yaml content type takes it)."""
        return self.request("PATCH", f"{path}?fieldManager={manager}&force=true", obj,
                            content_type="application/apply-patch+yaml")


def _decode(raw: bytes):
    text = raw.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text
