"""kubeconfig files for the test API server.

Every kubeconfig is self-contained apart from file references to the CA and client certificates in the run dir.
Token kubeconfigs contain a secret, so they are written 0600 and their contents are never printed.
"""
from __future__ import annotations

import json
from pathlib import Path

from .pki import write_private


def write_kubeconfig(path: Path, server: str, ca: Path, user: str, *, cert: Path | None = None,
                     key: Path | None = None, token: str | None = None, namespace: str = "default") -> Path:
    """Write a kubeconfig with one cluster/user/context named after `user`. JSON is valid kubeconfig YAML."""
    if (cert is None) == (token is None):
        raise ValueError("exactly one of cert or token")
    credentials = {"token": token} if token else {"client-certificate": str(cert), "client-key": str(key)}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "kubectl-offsets-test",
                      "cluster": {"server": server, "certificate-authority": str(ca)}}],
        "users": [{"name": user, "user": credentials}],
        "contexts": [{"name": user, "context": {"cluster": "kubectl-offsets-test", "user": user,
                                                "namespace": namespace}}],
        "current-context": user,
    }
    write_private(path, json.dumps(config, indent=2) + "\n")
    return path
