"""The release archive installed by the real krew, and run through kubectl's own plugin discovery."""

from __future__ import annotations

import hashlib
import re
import stat
import subprocess
import sys

from .krewtools import ROOT, fill_manifest, krew_environment, serve_directory
from ruamel.yaml import YAML

from kubectl_offsets import __version__, schemas


def test_the_archive_holds_the_executable_its_helper_license_and_readme(archive_members):
    names = {m.name for m in archive_members}
    assert {"kubectl-offsets", "kubectl_complete-offsets", "LICENSE", "README.md"} <= names
    assert any(name.startswith("_internal/") for name in names)  # PyInstaller onedir: the runtime beside it
    # krew unpacks regular files and directories only ("unable to handle file type" otherwise).
    assert all(m.isfile() or m.isdir() for m in archive_members)
    executable = next(m for m in archive_members if m.name == "kubectl-offsets")
    assert executable.mode & stat.S_IXUSR


def test_the_archive_leaves_the_spark_extra_out(archive_members):
    assert not [m.name for m in archive_members if re.search(r"pyspark|pyarrow|py4j", m.name)]


def test_the_manifest_filled_for_this_archive_is_valid(installed, release_archive):
    manifest = YAML(typ="safe").load(installed.manifest.read_text())
    assert schemas.errors("krew-plugin", manifest) == []
    entry = next(p for p in manifest["spec"]["platforms"] if p["uri"].endswith("/" + release_archive.name))
    assert entry["sha256"] == hashlib.sha256(release_archive.read_bytes()).hexdigest()


def test_krew_installs_it_and_shows_the_caveats(installed):
    assert "Installed plugin: offsets" in installed.install_output
    assert "kubectl_complete-offsets" in installed.install_output  # the completion caveat
    assert "kubectl-offsets[spark]" in installed.install_output  # the Spark caveat


def test_kubectl_discovers_the_plugin(installed):
    result = installed.run("kubectl", "plugin", "list")
    assert str(installed.root / "bin" / "kubectl-offsets") in result.stdout


def test_help_through_kubectl(installed):
    result = installed.run("kubectl", "offsets", "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage:\n  kubectl offsets [OPTIONS] COMMAND [ARGS]...\n" in result.stdout  # kubectl's order: usage last
    assert "version" in result.stdout and "completion" in result.stdout and "Exit codes:" in result.stdout
    sub = installed.run("kubectl", "offsets", "version", "-h")
    assert sub.returncode == 0 and "Usage:\n  kubectl offsets version" in sub.stdout and "Examples:" in sub.stdout


def test_version_through_kubectl_without_a_cluster(installed):
    result = installed.run("kubectl", "offsets", "version", "--client")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"Plugin Version: v{__version__} (executable, Python ")


def test_version_through_kubectl_with_the_cluster(installed, env, namespace):
    result = installed.run("kubectl", "offsets", "version", "-n", namespace, extra_env={"KUBECONFIG": env.kubeconfig})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"Plugin Version: v{__version__} (executable")
    assert lines[1].startswith("Strimzi API: kafka.strimzi.io ")
    assert lines[2] == f"Kafka Connect Version: unknown (no KafkaConnect in namespace {namespace})"


def test_completion_after_the_link_the_caveats_give(installed):
    """The caveat's one-liner, run as written, makes kubectl find the completion helper (the same binary, which
    answers completion requests when started under that name)."""
    caveat = next(line.strip() for line in installed.install_output.splitlines() if "ln -sf" in line)
    command = caveat[caveat.index("ln -sf"):]
    assert installed.run("sh", "-c", command).returncode == 0
    result = installed.run("kubectl", "__complete", "offsets", "vers")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("version\t")
    assert result.stdout.splitlines()[-1] == ":4"


def test_the_archives_helper_script_completes_too(installed):
    """For users who put the plugin's directory on PATH instead of linking."""
    store = installed.root / "store" / "offsets" / f"v{__version__}"
    path = f"{store}:{installed.env['PATH']}"
    result = installed.run("kubectl", "__complete", "offsets", "completion", "", extra_env={"PATH": path})
    assert result.stdout.splitlines() == ["bash", "zsh", "fish", ":4"], result.stderr


def test_install_from_a_custom_index_then_uninstall(tmp_path, krew_binary, release_archive, kubectl):
    """What users do before the plugin is in krew's central index: a git repository with plugins/offsets.yaml
    added with `krew index add`, the archive downloaded over HTTP (here from a loopback server)."""
    with serve_directory(release_archive.parent) as base_url:
        own = krew_environment(tmp_path, krew_binary)
        index = tmp_path / "index"
        (index / "plugins").mkdir(parents=True)
        fill_manifest(release_archive.parent, index / "plugins" / "offsets.yaml", base_url=base_url)
        for command in (["git", "init", "-q"], ["git", "add", "."],
                        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "index"]):
            subprocess.run(command, cwd=index, check=True, capture_output=True)
        added = own.run("kubectl", "krew", "index", "add", "local", str(index))
        assert added.returncode == 0, added.stderr
        install = own.run("kubectl", "krew", "install", "local/offsets")
        assert install.returncode == 0, install.stderr
    assert own.run("kubectl", "krew", "list").stdout.split() == ["local/offsets"]
    assert own.run("kubectl", "offsets", "version", "--client").stdout.startswith(f"Plugin Version: v{__version__}")
    result = own.run("kubectl", "krew", "uninstall", "offsets")
    assert result.returncode == 0, result.stderr
    assert own.run("kubectl", "offsets", "--help").returncode != 0
    assert not (own.root / "store" / "offsets").exists()


def test_make_krew_install_installs_from_a_checkout_and_reinstalls(tmp_path, krew_binary, release_archive, kubectl):
    """`make krew-install` (packaging/krew_install.py), the README's first install line: the checkout's archive
    installed by the real krew with a manifest written for it, no download; run again, it replaces that install
    (krew alone refuses to install over it)."""
    own = krew_environment(tmp_path, krew_binary)
    # A user's krew has its default index (krew's installer fetches it; uninstall needs one): an empty one here.
    index = tmp_path / "index"
    (index / "plugins").mkdir(parents=True)
    (index / "plugins" / ".keep").write_text("")
    for git in (["git", "init", "-q"], ["git", "add", "."],
                ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "index"]):
        subprocess.run(git, cwd=index, check=True, capture_output=True)
    added = own.run("kubectl", "krew", "index", "add", "default", str(index))
    assert added.returncode == 0, added.stderr
    command = [sys.executable, str(ROOT / "packaging" / "krew_install.py"), "--archive", str(release_archive),
               "--dist", str(tmp_path / "dist")]
    first = own.run(*command)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Installed plugin: offsets" in first.stdout + first.stderr
    again = own.run(*command)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "removing the earlier install" in again.stderr and "Installed plugin: offsets" in again.stdout + again.stderr
    assert own.run("kubectl", "krew", "list").stdout.split() == ["detached/offsets"]  # krew: from a manifest
    assert own.run("kubectl", "offsets", "version", "--client").stdout.startswith(f"Plugin Version: v{__version__}")
