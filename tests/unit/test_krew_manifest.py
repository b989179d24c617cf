"""plugin.yaml: the committed krew manifest and the one the release fills in, against schemas/krew-plugin.schema.json
and the krew-index rules a schema cannot say (one entry per platform, archive names that match the selector)."""

from __future__ import annotations

import copy
import hashlib
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from kubectl_offsets import __version__, schemas

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import fill_manifest  # noqa: E402  (a script directory, not a package)
import release_names  # noqa: E402

sys.path.pop(0)

PLATFORMS = {("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")}


def load(text: str) -> dict:
    return YAML(typ="safe").load(text)


def committed() -> dict:
    return load((ROOT / "plugin.yaml").read_text())


def platform_keys(manifest: dict) -> list[tuple[str, str]]:
    return [(p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"])
            for p in manifest["spec"]["platforms"]]


def test_the_committed_manifest_is_valid():
    assert schemas.errors("krew-plugin", committed()) == []


def test_the_short_description_fits_krew_search():
    # `kubectl krew search` cuts descriptions at 50 characters (and krew-index reviewers ask for short ones).
    assert len(committed()["spec"]["shortDescription"]) <= 50


def test_one_entry_per_released_platform_without_overlap():
    keys = platform_keys(committed())
    assert len(keys) == len(set(keys)) and set(keys) == PLATFORMS


def test_the_committed_manifest_names_this_version_and_its_archives():
    manifest = committed()
    assert manifest["metadata"]["name"] == "offsets" and manifest["spec"]["version"] == f"v{__version__}"
    for platform, (os_name, arch) in zip(manifest["spec"]["platforms"], platform_keys(manifest)):
        assert platform["uri"].endswith("/" + release_names.archive_name(__version__, os_name, arch))
        assert platform["bin"] == release_names.executable_name(os_name)


@pytest.mark.parametrize("breakage, where", [
    (lambda m: m["spec"]["platforms"][0].update(sha256="ABC"), "sha256"),
    (lambda m: m["spec"]["platforms"][0]["selector"]["matchLabels"].update(distro="debian"), "matchLabels"),
    (lambda m: m["spec"]["platforms"][4].update(bin="kubectl-offsets"), "bin"),
    (lambda m: m["spec"].update(shortDescription="two\nlines"), "shortDescription"),
    (lambda m: m["spec"].update(shortDescription="x" * 51), "shortDescription"),  # krew search cuts at 50
    (lambda m: m["spec"].update(version="0.1.0"), "version"),
    (lambda m: m["spec"].update(platforms=[]), "platforms"),
    (lambda m: m["spec"]["platforms"][0].update(selector={}), "selector"),
    (lambda m: m.update(kind="Plugins"), "kind"),
])
def test_the_schema_catches_what_krew_rejects(breakage, where):
    manifest = copy.deepcopy(committed())
    breakage(manifest)
    problems = schemas.errors("krew-plugin", manifest)
    assert problems and any(where in p for p in problems), problems


def _fake_archives(directory: Path) -> dict[str, str]:
    """One small file per platform archive name -> {name: sha256}."""
    digests = {}
    for os_name, arch in sorted(PLATFORMS):
        name = release_names.archive_name(__version__, os_name, arch)
        (directory / name).write_bytes(name.encode())
        digests[name] = hashlib.sha256(name.encode()).hexdigest()
    return digests


def test_the_filled_manifest_is_valid_and_changes_only_version_uri_and_sha(tmp_path):
    digests = _fake_archives(tmp_path)
    base = "https://example.invalid/releases/v9"
    filled = load(fill_manifest.fill((ROOT / "plugin.yaml").read_text(), __version__, tmp_path, base))
    assert schemas.errors("krew-plugin", filled) == []
    for platform in filled["spec"]["platforms"]:
        name = platform["uri"].rsplit("/", 1)[1]
        assert platform["uri"] == f"{base}/{name}" and platform["sha256"] == digests[name]
    original = committed()
    for manifest in (original, filled):
        for platform in manifest["spec"]["platforms"]:
            del platform["uri"], platform["sha256"]
    assert filled == original


def test_filling_keeps_the_comments(tmp_path):
    _fake_archives(tmp_path)
    text = fill_manifest.fill((ROOT / "plugin.yaml").read_text(), __version__, tmp_path, "https://x.invalid/r")
    assert text.startswith("# krew plugin manifest.")


def test_a_missing_archive_stops_the_release_unless_partial(tmp_path):
    _fake_archives(tmp_path)
    (tmp_path / release_names.archive_name(__version__, "darwin", "arm64")).unlink()
    template = (ROOT / "plugin.yaml").read_text()
    with pytest.raises(SystemExit, match="darwin-arm64"):
        fill_manifest.fill(template, __version__, tmp_path, "https://x.invalid/r")
    partial = load(fill_manifest.fill(template, __version__, tmp_path, "https://x.invalid/r", partial=True))
    untouched = [p for p in partial["spec"]["platforms"] if p["selector"]["matchLabels"] == {"os": "darwin",
                                                                                             "arch": "arm64"}]
    assert untouched[0]["sha256"] == "0" * 64
