"""The release archive, the krew binary and a krew installation into a temporary KREW_ROOT.

The archive is built by packaging/build_archive.py when it is missing or was built from other sources (a fresh
clone builds it once, a few minutes); KO_RELEASE_ARCHIVE points at a prebuilt one instead. `make test` starts that
build in the background at its start (tests/suite.py) and names its status file in KO_RELEASE_ARCHIVE_BUILD: the
tests wait for it to end, then use what it built. krew comes from
packaging/provision-krew.sh (built from sigs.k8s.io/krew into the test cache, instant when cached). Neither is ever
skipped: a failing build or provision fails the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from .krewtools import BACKGROUND_BUILD, KrewInstall, krew_install, wait_for_background_build

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "packaging"))
import release_names  # noqa: E402  (a script directory, not a package)

sys.path.pop(0)

@pytest.fixture(scope="session")
def release_archive() -> Path:
    if os.environ.get("KO_RELEASE_ARCHIVE"):
        archive = Path(os.environ["KO_RELEASE_ARCHIVE"])
        assert archive.is_file(), f"KO_RELEASE_ARCHIVE={archive} does not exist"
        return archive
    if os.environ.get(BACKGROUND_BUILD):
        wait_for_background_build(Path(os.environ[BACKGROUND_BUILD]))
    if not release_names.archive_is_fresh(ROOT / "dist"):
        result = subprocess.run([sys.executable, str(ROOT / "packaging" / "build_archive.py")],
                                capture_output=True, text=True, timeout=3600)
        assert result.returncode == 0, f"building the release archive failed:\n{result.stderr[-4000:]}"
    return release_names.host_archive(ROOT / "dist")


@pytest.fixture(scope="session")
def krew_binary() -> Path:
    result = subprocess.run(["bash", str(ROOT / "packaging" / "provision-krew.sh")], capture_output=True, text=True,
                            timeout=1800)
    assert result.returncode == 0, f"provisioning krew failed:\n{result.stderr[-4000:]}"
    return Path(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def kubectl() -> str:
    found = shutil.which("kubectl")
    assert found, "kubectl must be on PATH: the plugin is run through kubectl's own plugin discovery"
    return found


@pytest.fixture(scope="session")
def installed(tmp_path_factory, krew_binary, release_archive, kubectl) -> KrewInstall:
    return krew_install(tmp_path_factory.mktemp("krew"), krew_binary, release_archive)


@pytest.fixture(scope="session")
def archive_members(release_archive) -> list[tarfile.TarInfo]:
    with tarfile.open(release_archive) as archive:
        return archive.getmembers()
