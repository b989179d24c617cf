"""Apply the project's CRDs for one Strimzi profile (tests/env/crds/<profile>/*.yaml) and wait until the API server
serves them."""
from __future__ import annotations

import os
from pathlib import Path

import yaml

from .kuberest import KubeRest
from .processes import ComponentError, Proc, wait_until

# KO_CRD_DIR points elsewhere only for experiments; the project's CRDs live next to this file, one dir per profile.
CRD_ROOT = Path(__file__).resolve().parent / "crds"


def crd_dir(profile: str) -> Path:
    return Path(os.environ["KO_CRD_DIR"]) if os.environ.get("KO_CRD_DIR") else CRD_ROOT / profile
CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
CRD_READY_TIMEOUT = 60.0


def load_crds(directory: Path) -> list[dict]:
    docs = []
    for path in sorted([*directory.glob("*.yaml"), *directory.glob("*.yml")]):
        for doc in yaml.safe_load_all(path.read_text()):
            if not doc:
                continue
            if doc.get("kind") != "CustomResourceDefinition":
                raise ComponentError("crds", f"{path} holds a {doc.get('kind')!r}, not a CustomResourceDefinition")
            docs.append(doc)
    return docs


def apply_crds(admin: KubeRest, apiserver: Proc, directory: Path) -> list[str]:
    """Server-side apply every CRD, then wait for Established and for each served version to list."""
    crds = load_crds(directory)
    if not crds:
        raise ComponentError("crds", f"no CustomResourceDefinition YAML in {directory}")
    for crd in crds:
        name = crd["metadata"]["name"]
        status, body = admin.apply(f"{CRD_PATH}/{name}", crd)
        if status not in (200, 201):
            raise ComponentError("crds", f"applying CRD {name} failed with HTTP {status}: {body}")
    for crd in crds:
        _wait_served(admin, apiserver, crd)
    return [c["metadata"]["name"] for c in crds]


def _wait_served(admin: KubeRest, apiserver: Proc, crd: dict) -> None:
    name = crd["metadata"]["name"]
    wait_until(apiserver, f"reporting CRD {name} Established", lambda: _established(admin, name), CRD_READY_TIMEOUT)
    group, plural = crd["spec"]["group"], crd["spec"]["names"]["plural"]
    for version in (v["name"] for v in crd["spec"]["versions"] if v.get("served")):
        # Established can precede discovery/handler readiness by a moment; a list proves the version is served.
        path = f"/apis/{group}/{version}/{plural}?limit=1"
        wait_until(apiserver, f"serving {path}", lambda p=path: admin.get(p)[0] == 200, CRD_READY_TIMEOUT)


def _established(admin: KubeRest, name: str) -> bool:
    status, body = admin.get(f"{CRD_PATH}/{name}")
    if status != 200:
        return False
    conditions = body.get("status", {}).get("conditions", [])
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)
