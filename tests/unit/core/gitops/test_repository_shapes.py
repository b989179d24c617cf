"""Repositories with the odd shapes users have (issue 11, cases 7-13): symlinks, line endings and encodings,
anchors and aliases, JSON inside YAML files, annotations injected by kustomize, JSON manifests. Each case is either
edited exactly (phase 1 touches only the intended lines, phase 2 gives back the original bytes) or refused with one
line saying why, and nothing is written."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from .helpers import FIXTURES, cli, copy_fixture, snapshot, unexpected_changes


def phase1_then_phase2(repo, phase1: list[str], target: list[str]):
    original = snapshot(repo)
    result = cli("gitops", *phase1, "--repo", str(repo))
    assert result.exit_code == 0, result.output + result.stderr
    after_phase1 = snapshot(repo)
    result = cli("gitops", "next", *target, "--repo", str(repo))
    assert result.exit_code == 0, result.output + result.stderr
    return original, after_phase1, snapshot(repo)


# --- 9: line endings and encodings ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["crlf-sink", "latin1-sink", "bom-sink"])
def test_line_endings_bom_and_encoding_survive_both_phases(tmp_path, name):
    repo = copy_fixture("encodings", tmp_path)
    rel = f"connect/{name.removesuffix('-sink')}.yaml"
    original, phase1, phase2 = phase1_then_phase2(repo, ["alter", name, "--set", "orders:0=42"], [name])
    before, edited = original[rel], phase1[rel]
    assert edited != before
    if name == "crlf-sink":
        assert edited.count(b"\n") == edited.count(b"\r\n")  # every line, old and new, ends in CRLF
    if name == "latin1-sink":
        assert b"caf\xe9" in edited and "\ufffd".encode() not in edited and b"\xc3\xa9" not in edited
        edited_text, before_text = edited.decode("latin-1"), before.decode("latin-1")
    if name == "bom-sink":
        assert edited.startswith(b"\xef\xbb\xbf") and edited.count(b"\xef\xbb\xbf") == 1
    if name != "latin1-sink":
        edited_text, before_text = edited.decode("utf-8-sig"), before.decode("utf-8-sig")
    assert unexpected_changes(before_text.replace("\r\n", "\n"), edited_text.replace("\r\n", "\n")) == []
    assert phase2 == original  # byte for byte


def test_diff_of_a_crlf_file_keeps_its_line_endings(tmp_path):
    repo = copy_fixture("encodings", tmp_path)
    result = cli("gitops", "alter", "crlf-sink", "--set", "orders:0=42", "--repo", str(repo), "-o", "diff")
    assert result.exit_code == 0, result.stderr
    stdout = result.stdout_bytes.decode()  # click's Result.stdout turns CRLF into LF
    section = stdout.split("b/connect/crlf.yaml", 1)[1].split("\n--- ", 1)[0]
    added = [line for line in section.split("\n") if line.startswith("+") and not line.startswith("+++")]
    assert added and all(line.endswith("\r") for line in added)  # the patch re-creates CRLF lines


def test_a_file_mixing_line_endings_is_refused_and_nothing_is_written(tmp_path):
    repo = copy_fixture("encodings", tmp_path)
    path = repo / "connect" / "crlf.yaml"
    path.write_bytes(path.read_bytes().replace(b"tasksMax: 1\r\n", b"tasksMax: 1\n"))
    before = snapshot(repo)
    result = cli("gitops", "alter", "crlf-sink", "--set", "orders:0=42", "--repo", str(repo))
    assert result.exit_code != 0 and "mixes" in result.stderr
    assert snapshot(repo) == before


# --- 7: symlinked manifests ---------------------------------------------------------------------------------------

def test_a_manifest_linked_to_a_file_outside_the_repository_is_refused(tmp_path):
    fixture = copy_fixture("symlinks", tmp_path)
    repo, outside = fixture / "repo", fixture / "outside" / "connector.yaml"
    before, outside_before = snapshot(fixture), outside.read_bytes()
    result = cli("gitops", "alter", "outside-sink", "--set", "orders:0=1", "--repo", str(repo))
    assert result.exit_code != 0 and "outside the repository" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2  # one line why (and a hint)
    assert outside.read_bytes() == outside_before and snapshot(fixture) == before


def test_a_manifest_linked_into_a_shared_file_is_refused_without_an_overlay(tmp_path):
    fixture = copy_fixture("symlinks", tmp_path)
    repo = fixture / "repo"
    before = snapshot(fixture)
    result = cli("gitops", "alter", "shared-sink", "--set", "orders:0=1", "--repo", str(repo), "--path", "apps/prod")
    assert result.exit_code != 0
    assert "symlink to shared/connector.yaml" in result.stderr and "every place" in result.stderr
    assert snapshot(fixture) == before


def test_a_symlinked_manifest_in_a_kustomization_is_edited_through_a_patch_in_the_overlay(tmp_path):
    """The link stays inside the kustomization root (kustomize's own rule), yet the file it points to is shared
    by two overlays: the edit must go into a patch of the overlay being changed, never into the shared file."""
    repo = tmp_path / "repo"
    for env in ("prod", "dev"):
        overlay = repo / "overlays" / env
        (overlay / "shared").mkdir(parents=True)
        (overlay / "kustomization.yaml").write_text(f"namespace: {env}\nresources:\n- connector.yaml\n")
    shared = repo / "overlays" / "prod" / "shared" / "connector.yaml"
    shutil.copy(FIXTURES / "symlinks" / "repo" / "shared" / "connector.yaml", shared)
    os.symlink("shared/connector.yaml", repo / "overlays" / "prod" / "connector.yaml")
    os.symlink("../../prod/shared/connector.yaml", repo / "overlays" / "dev" / "shared" / "connector.yaml")
    os.symlink("shared/connector.yaml", repo / "overlays" / "dev" / "connector.yaml")
    shared_before = shared.read_bytes()
    result = cli("gitops", "alter", "shared-sink", "-n", "prod", "--set", "orders:0=1", "--repo", str(repo),
                 "--path", "overlays/prod")
    assert result.exit_code == 0, result.stderr
    assert shared.read_bytes() == shared_before
    assert (repo / "overlays" / "prod" / "shared-sink.offsets-patch.yaml").exists()
    built = subprocess.run(["kubectl", "kustomize", str(repo / "overlays" / "prod")], capture_output=True,
                           text=True, check=True).stdout
    connector = next(d for d in yaml.safe_load_all(built) if d["kind"] == "KafkaConnector")
    assert connector["spec"]["state"] == "stopped"


# --- 8: validation copies only what the build needs ---------------------------------------------------------------

def test_validation_survives_a_link_loop_and_never_follows_links_out(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    elsewhere = tmp_path / "elsewhere"  # stands for a large directory outside the repository (it filled 11 GB)
    elsewhere.mkdir()
    for i in range(20):
        (elsewhere / f"blob-{i}.bin").write_bytes(b"\0" * 1024)
    os.symlink(".", repo / "loop")
    os.symlink(elsewhere, repo / "overlays" / "prod" / "usr")
    os.symlink(elsewhere / "blob-0.bin", repo / "hostname")
    result = cli("gitops", "alter", "orders-sink", "-n", "prod", "--set", "orders:0=42", "--repo", str(repo),
                 "-o", "diff")
    assert result.exit_code == 0, result.stderr
    assert "+++ b/overlays/prod/" in result.stdout

    out = tmp_path / "out"
    result = cli("gitops", "alter", "orders-sink", "-n", "prod", "--set", "orders:0=42", "--repo", str(repo),
                 "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert os.readlink(out / "loop") == "." and not (out / "overlays" / "prod" / "usr").exists()
    assert not (out / "hostname").exists()
    assert sum(1 for _ in out.rglob("*")) < 50


def test_validation_in_a_git_checkout_copies_the_files_git_knows(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    subprocess.run(["git", "init", "--quiet"], cwd=repo, check=True)
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "huge.bin").write_bytes(b"\0" * 1024)
    out = tmp_path / "out"
    result = cli("gitops", "alter", "orders-sink", "-n", "prod", "--set", "orders:0=42", "--repo", str(repo),
                 "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert not (out / "build").exists() and (out / "overlays" / "prod" / "kustomization.yaml").exists()


# --- 10: anchors and aliases --------------------------------------------------------------------------------------

def _built_mirrors(repo) -> dict[str, str]:
    """Each mirror of the built KafkaMirrorMaker2, as its own YAML text (what the operator sees per connector)."""
    built = subprocess.run(["kubectl", "kustomize", str(repo)], capture_output=True, text=True, check=True).stdout
    mirror = next(d for d in yaml.safe_load_all(built) if d["kind"] == "KafkaMirrorMaker2")
    return {m["source"]["alias"]: yaml.safe_dump(m, sort_keys=True) for m in mirror["spec"]["mirrors"]}


@pytest.mark.parametrize("edited, untouched", [("central", "east"), ("east", "central")])
def test_an_aliased_stanza_is_edited_for_one_mirror_only(tmp_path, edited, untouched):
    repo = copy_fixture("anchors", tmp_path)
    before = _built_mirrors(repo)
    result = cli("gitops", "alter", "kmm2/mirror", "--connector", "source", "--source-cluster", edited,
                 "--set", "orders:0=5", "--repo", str(repo))
    if result.exit_code != 0:  # refusing is allowed, but then nothing may have changed
        assert "alias" in result.stderr and snapshot(repo) == snapshot(copy_fixture("anchors", tmp_path / "again"))
        return
    after = _built_mirrors(repo)
    assert after[untouched] == before[untouched]  # byte-identical: nobody asked to stop it
    assert "state: stopped" in after[edited] and "alterOffsets" in after[edited]
    result = cli("gitops", "next", "kmm2/mirror", "--connector", "source", "--source-cluster", edited,
                 "--repo", str(repo))
    assert result.exit_code == 0, result.stderr
    assert _built_mirrors(repo) == before


# --- 11: flow style and JSON inside YAML files --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["flow-sink", "comment-sink"])
def test_flow_style_documents_are_restored_exactly_or_refused(tmp_path, name):
    repo = copy_fixture("flow-json", tmp_path)
    original = snapshot(repo)
    result = cli("gitops", "alter", name, "--set", "orders:0=5", "--repo", str(repo))
    if result.exit_code != 0:
        assert snapshot(repo) == original and "nothing was written" in result.stderr
        assert len(result.stderr.strip().splitlines()) <= 2
        return
    edited = next(rel for rel in original if snapshot(repo)[rel] != original[rel])
    text = snapshot(repo)[edited].decode()
    if name == "flow-sink":
        assert text.lstrip().startswith("{") and '"state": "stopped"' in text  # still JSON
    result = cli("gitops", "next", name, "--repo", str(repo))
    assert result.exit_code == 0, result.stderr
    assert snapshot(repo) == original


# --- 12: one-shot annotations injected by kustomize ---------------------------------------------------------------

@pytest.mark.parametrize("overlay, namespace", [("common", "common"), ("patched", "patched")])
def test_a_one_shot_annotation_in_the_built_output_is_refused(tmp_path, overlay, namespace):
    repo = copy_fixture("injected-annotation", tmp_path)
    original = snapshot(repo)
    result = cli("gitops", "alter", "orders-sink", "-n", namespace, "--set", "orders:0=5", "--repo", str(repo),
                 "--path", f"overlays/{overlay}")
    assert result.exit_code != 0
    assert "strimzi.io/connector-offsets" in result.stderr and "built" in result.stderr
    assert snapshot(repo) == original


# --- 13: JSON manifests -------------------------------------------------------------------------------------------

def test_a_connector_in_a_json_manifest_is_named_and_not_edited(tmp_path):
    repo = copy_fixture("json-manifest", tmp_path)
    original = snapshot(repo)
    result = cli("gitops", "alter", "json-sink", "--set", "orders:0=5", "--repo", str(repo))
    assert result.exit_code != 0
    assert "connector.json" in result.stderr and ".json" in result.stderr and "not edited" in result.stderr
    assert "no KafkaConnector" not in result.stderr
    assert snapshot(repo) == original


def test_a_failing_build_names_the_users_paths_not_the_scratch_copy(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    kustomization = repo / "overlays" / "prod" / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("resources:\n", "resources:\n  - missing.yaml\n", 1))
    result = cli("gitops", "alter", "orders-sink", "-n", "prod", "--set", "orders:0=42", "--repo", str(repo),
                 "-o", "diff")
    assert result.exit_code != 0 and "kubectl kustomize" in result.stderr
    assert "kubectl-offsets-check-" not in result.stderr and "missing.yaml" in result.stderr
