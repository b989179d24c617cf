"""Install the plugin with krew from a checkout, before any release exists: ``make krew-install``.

    python packaging/krew_install.py                      # build if needed, then kubectl krew install
    python packaging/krew_install.py --archive dist/kubectl-offsets-0.1.0-linux-amd64.tar.gz   # a prebuilt one

Builds this machine's release archive (packaging/build_archive.py: PyInstaller, a few minutes the first time)
unless dist/ already holds one built from the current sources, writes a manifest for it (dist/plugin.yaml,
packaging/fill_manifest.py --partial: only this platform's entry is filled) and runs

    kubectl krew install --manifest=dist/plugin.yaml --archive=dist/kubectl-offsets-<version>-<os>-<arch>.tar.gz

krew never downloads anything here: ``--archive`` hands it the local file, whose sha256 the manifest carries. An
earlier install of the plugin is uninstalled first (krew refuses to install over it). krew itself must be installed
(``kubectl krew version``); KREW_ROOT is honoured as krew honours it.

The committed plugin.yaml names release URLs and placeholder checksums: it works only once a release has filled
it (``kubectl krew install --manifest-url=<release>/plugin.yaml``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from release_names import ROOT, archive_name, digest_path, host_platform, project_version, source_digest

PLUGIN = "offsets"  # metadata.name in plugin.yaml


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--archive", help="install this archive instead of building one")
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="where archives and the manifest go (default: dist/)")
    args = parser.parse_args(argv)
    dist = Path(args.dist).resolve()
    archive = Path(args.archive).resolve() if args.archive else fresh_archive(dist)
    if not archive.is_file():
        raise SystemExit(f"no archive at {archive}")
    manifest = write_manifest(archive, dist / "plugin.yaml")
    if PLUGIN in installed_plugins():
        _run(["kubectl", "krew", "uninstall", PLUGIN], "removing the earlier install")
    _run(["kubectl", "krew", "install", f"--manifest={manifest}", f"--archive={archive}"],
         f"installing {archive.name}")
    print("kubectl offsets version --client   # check it", file=sys.stderr)
    return 0


def fresh_archive(dist: Path) -> Path:
    """This platform's archive in ``dist``, built unless the one there was built from the current sources."""
    archive = dist / archive_name(project_version(), *host_platform())
    stamp = digest_path(archive)
    if archive.is_file() and stamp.is_file() and stamp.read_text().strip() == source_digest():
        print(f"==> {archive.name} is up to date", file=sys.stderr)
        return archive
    _run([sys.executable, str(ROOT / "packaging" / "build_archive.py"), "--dist", str(dist)],
         "building the release archive (packaging/build_archive.py)")
    return archive


def write_manifest(archive: Path, output: Path) -> Path:
    """plugin.yaml with this archive's entry filled (uri and sha256); krew checks the archive against it."""
    output.parent.mkdir(parents=True, exist_ok=True)
    _run([sys.executable, str(ROOT / "packaging" / "fill_manifest.py"), "--archives", str(archive.parent),
          "--partial", "-o", str(output)], f"writing {output}")
    return output


def installed_plugins() -> list[str]:
    """The plugins krew has installed: one receipt each under KREW_ROOT (``kubectl krew list`` would need a krew
    index, which an install from a manifest does not)."""
    result = subprocess.run(["kubectl", "krew", "version"], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit("`kubectl krew version` failed: is krew installed? (https://krew.sigs.k8s.io/docs/user-guide/"
                         f"setup/install/)\n{result.stderr.strip()}")
    root = Path(os.environ.get("KREW_ROOT") or Path.home() / ".krew")
    return [receipt.stem for receipt in (root / "receipts").glob("*.yaml")]


def _run(command: list[str], what: str) -> None:
    print(f"==> {what}", file=sys.stderr)
    if subprocess.run(command).returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}")


if __name__ == "__main__":
    sys.exit(main())
