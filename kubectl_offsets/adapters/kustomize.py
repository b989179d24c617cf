"""``kubectl kustomize DIR`` (kustomize built into kubectl) through subprocess: the manifests a GitOps controller
would apply from a kustomization, for validation. Works offline; needs only the kubectl binary."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..errors import InputError, PreconditionError


def build(directory: Path, kubectl: str | None = None) -> str:
    binary = kubectl or shutil.which("kubectl")
    if binary is None:
        raise PreconditionError("kubectl is not on PATH, so the kustomization cannot be built for validation",
                                advice="install kubectl (it includes kustomize)")
    result = subprocess.run([binary, "kustomize", str(directory)], capture_output=True, text=True)
    if result.returncode != 0:
        raise InputError(f"kubectl kustomize {directory} fails after the edit: {result.stderr.strip()}",
                         advice="nothing was written; check the kustomization (a patch or resource it names)")
    return result.stdout
