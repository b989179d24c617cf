"""Build the release archive for this machine's platform: a PyInstaller executable that needs no Python on the host.

    python packaging/build_archive.py            # -> dist/kubectl-offsets-<version>-<os>-<arch>.tar.gz (.zip on Windows)
    python packaging/build_archive.py --mode onefile --dist /tmp/out

The archive holds, at its root: ``kubectl-offsets`` (``.exe``) with its ``_internal/`` directory, the completion
helper ``kubectl_complete-offsets`` (a shell script; ``.cmd`` on Windows) that calls it, LICENSE and README.md.
Next to the archive: ``<archive>.sha256`` in sha256sum format, and ``<archive>.source-digest`` (what the sources
were when the build started; the krew tests rebuild when it differs). The last line printed is the archive's path.

Why PyInstaller ``onedir`` (docs/install.md has the figures): ``onefile`` unpacks ~35 MB into a temporary
directory on every run, which costs about 1 s more per start than ``onedir`` on the same machine, on each
``kubectl offsets <TAB>`` too. krew unpacks the archive into its own directory and links the executable, so a
directory costs users nothing. PyInstaller resolves the link to find ``_internal/`` (Linux, macOS, and Windows
since PyInstaller 6.6).

The build runs in its own virtual environment (``build/release-venv-<os>-<arch>``) with only the project, its
``kafka`` extra (broker look-ups work from the krew install) and PyInstaller: the Spark extra stays out, and so does
anything else the developer's environment happens to hold.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import time
import venv
import zipfile
from pathlib import Path

from release_names import (PROJECT, ROOT, archive_name, digest_path, executable_name, host_platform, project_version,
                           source_digest)

HERE = Path(__file__).resolve().parent
EXTRAS = "kafka,release"  # never "spark": PySpark is hundreds of MB and needs a JVM
DOCUMENTS = ("LICENSE", "README.md")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    version, (os_name, arch) = project_version(), host_platform()
    sources = source_digest()  # before anything is built: an edit made during the build makes it stale
    python = Path(args.python) if args.python else build_venv(ROOT / "build" / f"release-venv-{os_name}-{arch}")
    frozen = run_pyinstaller(python, args.mode, ROOT / "build" / "pyinstaller")
    stage = stage_files(frozen, os_name, ROOT / "build" / "stage" / f"{PROJECT}-{version}-{os_name}-{arch}")
    smoke_test(stage, os_name, version)
    archive = make_archive(stage, Path(args.dist).resolve() / archive_name(version, os_name, arch))
    write_checksum(archive)
    digest_path(archive).write_text(sources + "\n")
    print(archive)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("onedir", "onefile"), default="onedir",
                        help="PyInstaller layout (default: onedir, see this script's docstring)")
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="where the archive goes (default: dist/)")
    parser.add_argument("--python", help="use this interpreter (with the project and PyInstaller installed) "
                                         "instead of a fresh build venv")
    return parser


def log(message: str) -> None:
    print(f"[build] {message}", file=sys.stderr, flush=True)


def build_venv(path: Path) -> Path:
    """A venv with exactly the project (+kafka extra) and PyInstaller; reused across builds, refreshed each time."""
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        log(f"creating {path}")
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
    log(f"installing .[{EXTRAS}] into {path}")
    _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{ROOT}[{EXTRAS}]"])
    return python


def run_pyinstaller(python: Path, mode: str, work: Path) -> Path:
    """Freeze the CLI; returns the directory (onedir) or file (onefile) PyInstaller made."""
    log(f"PyInstaller ({mode})")
    dist = work / f"dist-{mode}"
    environment = {**os.environ, "KO_PYINSTALLER_MODE": mode}
    _run([str(python), "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
          "--distpath", str(dist), "--workpath", str(work / f"work-{mode}"), str(HERE / "kubectl-offsets.spec")],
         env=environment)
    return dist / PROJECT if mode == "onedir" else dist / executable_name(_os_name())


def stage_files(frozen: Path, os_name: str, stage: Path) -> Path:
    """Lay out the archive's contents in ``stage``; links are copied as files (krew unpacks no symlinks)."""
    if stage.exists():
        shutil.rmtree(stage)
    if frozen.is_dir():
        shutil.copytree(frozen, stage, symlinks=False)
    else:
        stage.mkdir(parents=True)
        shutil.copy2(frozen, stage / frozen.name)
    helper = "kubectl_complete-offsets" + (".cmd" if os_name == "windows" else "")
    shutil.copy2(HERE / helper, stage / helper)
    for document in DOCUMENTS:
        shutil.copy2(ROOT / document, stage / document)
    return stage


def smoke_test(stage: Path, os_name: str, version: str) -> None:
    """The executable starts, knows its version and answers a completion request, before anything is archived."""
    exe = str(stage / executable_name(os_name))
    checks = [([exe, "--help"], "kubectl offsets"), ([exe, "version", "--client"], f"v{version}"),
              ([exe, "__complete", "vers"], "version")]
    for command, expected in checks:
        output = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
        if expected not in output:
            raise SystemExit(f"smoke test failed: {' '.join(command[1:])} printed {output!r}")
    # A scan needs the 'spark' extra, which the archive leaves out: it must say so (exit 2), not fail to import.
    scan = subprocess.run([exe, "compute", "--data", str(stage), "--find", "true"], capture_output=True, text=True,
                          timeout=120)
    if scan.returncode != 2 or "'spark' extra" not in scan.stderr:
        raise SystemExit(f"smoke test failed: compute without Spark exited {scan.returncode}: {scan.stderr!r}")
    log("smoke test passed")


def make_archive(stage: Path, archive: Path) -> Path:
    """tar.gz (zip for Windows) of the staged files at the archive's root, owner-neutral and in a stable order."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(p for p in stage.rglob("*") if p.is_file())
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
            for path in files:
                out.write(path, path.relative_to(stage).as_posix())
        return archive
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))

    def neutral(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = mtime
        return info

    with tarfile.open(archive, "w:gz") as out:
        for path in files:
            out.add(path, path.relative_to(stage).as_posix(), recursive=False, filter=neutral)
    log(f"{archive.name}: {archive.stat().st_size / 1e6:.1f} MB, {len(files)} files")
    return archive


def write_checksum(archive: Path) -> Path:
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    target = archive.with_name(archive.name + ".sha256")
    target.write_text(f"{digest}  {archive.name}\n")
    return target


def _os_name() -> str:
    return host_platform()[0]


def _run(command: list[str], env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, env=env)
    if result.returncode:
        raise SystemExit(f"failed ({result.returncode}): {' '.join(command)}")


if __name__ == "__main__":
    sys.exit(main())
