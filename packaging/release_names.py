"""Names shared by the release scripts: the project version and the archive name per platform.

Standard library only: the build scripts run before the project's dependencies are installed anywhere.
"""

from __future__ import annotations

import hashlib
import platform
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "kubectl-offsets"
# krew's os/arch words (Go's GOOS/GOARCH) for what Python reports.
OS_NAMES = {"linux": "linux", "darwin": "darwin", "win32": "windows"}
ARCH_NAMES = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}


def project_version() -> str:
    """``0.1.0``: the package's ``__version__`` (what ``kubectl offsets version`` prints); pyproject must agree."""
    package = (ROOT / "kubectl_offsets" / "__init__.py").read_text()
    version = re.search(r'^__version__ = "([^"]+)"', package, re.M).group(1)
    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    if declared != version:
        raise SystemExit(f"version mismatch: kubectl_offsets/__init__.py says {version}, pyproject.toml {declared}")
    return version


def host_platform() -> tuple[str, str]:
    """(os, arch) of this machine in krew's words, e.g. ("linux", "amd64")."""
    try:
        return OS_NAMES[sys.platform], ARCH_NAMES[platform.machine().lower()]
    except KeyError as missing:
        raise SystemExit(f"no release archive is defined for {sys.platform}/{platform.machine()} ({missing})") from None


def archive_name(version: str, os_name: str, arch: str) -> str:
    """``kubectl-offsets-0.1.0-linux-amd64.tar.gz``; Windows gets a ``.zip``, which its users can open natively."""
    extension = "zip" if os_name == "windows" else "tar.gz"
    return f"{PROJECT}-{version}-{os_name}-{arch}.{extension}"


# What goes into an archive: tests rebuild the archive when the digest of these differs from the one recorded at
# build time (an mtime comparison would miss an edit made while a build was running).
SOURCES = ("kubectl_offsets", "schemas", "packaging", "pyproject.toml", "LICENSE", "README.md")


def source_digest() -> str:
    digest = hashlib.sha256()
    for name in SOURCES:
        path = ROOT / name
        files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if path.is_dir() else [path]
        for file in files:
            digest.update(file.relative_to(ROOT).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def digest_path(archive: Path) -> Path:
    return archive.with_name(archive.name + ".source-digest")


def host_archive(dist: Path) -> Path:
    """This host's release archive under ``dist``."""
    os_name, arch = host_platform()
    return dist / archive_name(project_version(), os_name, arch)


def archive_is_fresh(dist: Path) -> bool:
    """Whether this host's archive under ``dist`` was built from the sources as they are now."""
    archive = host_archive(dist)
    stamp = digest_path(archive)
    return archive.is_file() and stamp.is_file() and stamp.read_text().strip() == source_digest()


def executable_name(os_name: str, stem: str = PROJECT) -> str:
    return f"{stem}.exe" if os_name == "windows" else stem
