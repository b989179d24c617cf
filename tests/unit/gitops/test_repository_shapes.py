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
