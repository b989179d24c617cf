"""krew installation helpers shared by the krew tests (a plain module: conftest.py is not importable by name)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


# Set by tests/suite.py when it builds the release archive in the background: the file its exit status goes to.
BACKGROUND_BUILD = "KO_RELEASE_ARCHIVE_BUILD"


def build_log(status: Path) -> Path:
    """The background build's output, beside its status file."""
    return status.with_name("release-archive.log")


def wait_for_background_build(status: Path, timeout: float = 3600, poll: float = 5.0) -> None:
    """Until the suite's background build of the release archive has ended (its exit status in ``status``); a failed
    build fails the test with the end of its log (``release-archive.log`` beside ``status``)."""
    deadline = time.monotonic() + timeout
    while not status.exists():
        assert time.monotonic() < deadline, f"the release archive's background build did not end in {timeout:.0f}s"
        time.sleep(poll)
    code = status.read_text().strip()
    log = build_log(status)
    tail = log.read_text()[-4000:] if log.exists() else "(no log)"
    assert code == "0", f"building the release archive failed (exit {code}):\n{tail}"


@dataclass
class KrewInstall:
    root: Path  # KREW_ROOT
    env: dict[str, str]  # PATH with krew's bin dir, as krew tells users to set it
    manifest: Path
    install_output: str

    def run(self, *command: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(list(command), capture_output=True, text=True, env={**self.env, **(extra_env or {})},
                              stdin=subprocess.DEVNULL, timeout=300)


def krew_environment(base: Path, krew_binary: Path) -> KrewInstall:
    """An empty KREW_ROOT under ``base`` and a PATH on which kubectl finds krew (itself a kubectl plugin) and,
    as krew tells users to set up, krew's bin directory."""
    tools = base / "tools"
    tools.mkdir(parents=True)
    (tools / "kubectl-krew").symlink_to(krew_binary)
    root = base / "krew-root"
    env = {**os.environ, "KREW_ROOT": str(root),
           "PATH": os.pathsep.join([str(root / "bin"), str(tools), os.environ["PATH"]])}
    return KrewInstall(root=root, env=env, manifest=base / "plugin.yaml", install_output="")


def fill_manifest(archives: Path, output: Path, base_url: str | None = None) -> Path:
    """plugin.yaml for the archives present (packaging/fill_manifest.py --partial)."""
    command = [sys.executable, str(ROOT / "packaging" / "fill_manifest.py"), "--archives", str(archives), "--partial",
               "-o", str(output)] + (["--base-url", base_url] if base_url else [])
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return output


def krew_install(base: Path, krew_binary: Path, release_archive: Path) -> KrewInstall:
    """``kubectl krew install --manifest=<filled manifest> --archive=<archive>`` into ``base/krew-root``."""
    install = krew_environment(base, krew_binary)
    fill_manifest(release_archive.parent, install.manifest)
    result = install.run("kubectl", "krew", "install", f"--manifest={install.manifest}",
                         f"--archive={release_archive}")
    assert result.returncode == 0, f"krew install failed:\n{result.stdout}\n{result.stderr}"
    install.install_output = result.stdout + result.stderr
    return install


@contextlib.contextmanager
def serve_directory(directory: Path):
    """Serve ``directory`` over HTTP on a free loopback port; yields the base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
