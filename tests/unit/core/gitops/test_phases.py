"""Phase 1 and phase 2 over every fixture repository, through the CLI: only intended lines change, phase 2 gives
back the original bytes, kustomize still builds, bad input changes no file."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

from .helpers import cli, copy_fixture, snapshot, unexpected_changes

SET = ("--set",)
CASES = {
    "plain-multidoc-sink": ("plain", ["alter", "orders-sink", "--set", "orders:0=42"]),
    "plain-flow-style-paused": ("plain", ["alter", "payments-sink", "--set", "refunds:1=7"]),
    "plain-reset": ("plain", ["reset", "files-source"]),
    "kustomize-dev-overlay": ("kustomize", ["alter", "dev-orders-sink", "--set", "orders:0=42"]),
    "kustomize-prod-pinned-state": ("kustomize", ["alter", "orders-sink", "-n", "prod", "--set", "orders:0=42"]),
    "argocd-app-dir": ("argocd", ["reset", "orders-sink"]),
    "kustomize-new-patch-connector": ("kustomize-mm2", ["reset", "archive-sink", "-n", "prod"]),
    "kustomize-new-patch-mm2": ("kustomize-mm2", ["alter", "kmm2/mirror", "--connector", "source", "-n", "prod",
                                                  "--set", "orders:0=9"]),
    "mm2-v1-east": ("mm2-v1", ["alter", "kmm2/mirror", "--connector", "source", "--source-cluster", "east",
                               "--set", "orders:0=41"]),
    "mm2-v1-central-paused": ("mm2-v1", ["alter", "kmm2/mirror", "--connector",
                                         "central->west.MirrorSourceConnector", "--set", "payments:0=5"]),
    "mm2-v1beta2-source": ("mm2-v1beta2", ["alter", "kmm2/legacy-mirror", "--connector", "source",
                                           "--set", "orders:0=1"]),
    "mm2-v1beta2-heartbeat": ("mm2-v1beta2", ["reset", "kmm2/legacy-mirror", "--connector", "heartbeat",
                                              "--force"]),
}


def _target_args(args: list[str]) -> list[str]:
    """The TARGET and connector flags of a phase-1 command line (what `gitops next` needs)."""
    out, i = [args[1]], 2
    while i < len(args):
        if args[i] in ("--connector", "--source-cluster", "-n"):
            out += args[i:i + 2]
        i += 2 if args[i].startswith("-") and args[i] != "--force" else 1
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_phase1_touches_only_intended_lines_and_phase2_restores_bytes(case, tmp_path):
    fixture, args = CASES[case]
    repo = copy_fixture(fixture, tmp_path)
    original = snapshot(repo)

    result = cli("gitops", *args, "--repo", str(repo))
    assert result.exit_code == 0, result.output + result.stderr
    phase1 = snapshot(repo)
    assert phase1 != original
    for rel, text in original.items():
        if phase1.get(rel) != text:
            assert unexpected_changes(text.decode(), phase1[rel].decode()) == [], rel
    new_files = set(phase1) - set(original)
    for rel in new_files:
        for doc in yaml.safe_load_all(phase1[rel]):
            assert "strimzi.io/connector-offsets" not in json.dumps(doc)
    assert not any(b"strimzi.io/connector-offsets" in v or b"strimzi.io/mirrormaker-connector" in v
                   for v in phase1.values() if v not in original.values())

    result = cli("gitops", "next", *_target_args(args), "--repo", str(repo))
    assert result.exit_code == 0, result.output + result.stderr
    assert snapshot(repo) == original


def test_keep_record_keeps_the_configmap_and_its_kustomization_entry(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    original = snapshot(repo)
    assert cli("gitops", "alter", "orders-sink", "-n", "prod", "--repo", str(repo), "--set", "orders:0=42"
               ).exit_code == 0
    assert cli("gitops", "next", "orders-sink", "-n", "prod", "--repo", str(repo), "--keep-record").exit_code == 0
    after = snapshot(repo)
    kept = sorted(set(after) - set(original))
    assert len(kept) == 1 and kept[0].startswith("overlays/prod/orders-sink-offsets-")
    assert after["overlays/prod/connector-patch.yaml"] == original["overlays/prod/connector-patch.yaml"]
    assert kept[0].split("/")[-1] in after["overlays/prod/kustomization.yaml"].decode()


@pytest.mark.parametrize("overlay,target,namespace,prefix", [("dev", "dev-orders-sink", "dev", "dev-"),
                                                             ("prod", "orders-sink", "prod", "")])
def test_kustomize_builds_phase1_with_matching_configmap(overlay, target, namespace, prefix, tmp_path):
    kubectl = shutil.which("kubectl") or "/usr/bin/kubectl"
    repo = copy_fixture("kustomize", tmp_path)
    args = ["gitops", "alter", target, "--repo", str(repo), "--set", "orders:0=42", "--trigger", "job"]
    assert cli(*args, *(["-n", namespace] if overlay == "prod" else [])).exit_code == 0
    built = subprocess.run([kubectl, "kustomize", str(repo / "overlays" / overlay)], capture_output=True, text=True,
                           check=True).stdout
    docs = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(built)}
    connector = docs[("KafkaConnector", target)]
    assert connector["spec"]["state"] == "stopped"
    assert connector["metadata"]["namespace"] == namespace
    configmap_name = connector["spec"]["alterOffsets"]["fromConfigMap"]["name"]
    configmap = docs[("ConfigMap", configmap_name)]
    assert configmap["metadata"]["namespace"] == namespace
    assert json.loads(configmap["data"]["offsets.json"])["offsets"][0]["offset"] == {"kafka_offset": 42}
    role = next(d for (kind, _), d in docs.items() if kind == "Role")
    assert role["rules"][0]["resourceNames"] == [target]  # exactly the resource, by its cluster name
    binding = next(d for (kind, _), d in docs.items() if kind == "RoleBinding")
    job = next(d for (kind, _), d in docs.items() if kind == "Job")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert job["spec"]["template"]["spec"]["serviceAccountName"] == binding["subjects"][0]["name"]
    assert json.loads(connector["metadata"]["annotations"]["kubectl-offsets.io/gitops"])["configMap"] == \
        configmap_name
    assert "strimzi.io/connector-offsets" not in connector["metadata"]["annotations"]


@pytest.mark.parametrize("fixture,args", [
    ("plain", ["alter", "no-such-sink", "--set", "orders:0=1"]),
    ("duplicate", ["alter", "orders-sink", "--set", "orders:0=1"]),
    ("broken", ["alter", "orders-sink", "--set", "orders:0=1"]),
    ("helm", ["reset", "orders-sink"]),
    ("plain", ["alter", "orders-sink", "--set", "payments:0=1"]),  # a topic the sink does not consume
    ("plain", ["alter", "orders-sink", "--set", "orders:0=-1"]),
    ("plain", ["alter", "orders-sink", "--shift-by", "-5", "--topic", "orders"]),  # needs --before
    ("mm2-v1", ["alter", "kmm2/mirror", "--connector", "source", "--set", "orders:0=1"]),  # ambiguous connector
    ("mm2-v1", ["reset", "kmm2/mirror", "--connector", "heartbeat"]),  # v1 has none
    ("mm2-v1", ["alter", "kmm2/mirror", "--connector", "source", "--source-cluster", "east",
                "--set", "payments:0=1"]),  # not in topicsPattern
])
def test_bad_input_changes_no_file(fixture, args, tmp_path):
    repo = copy_fixture(fixture, tmp_path)
    before = snapshot(repo)
    result = cli("gitops", *args, "--repo", str(repo))
    assert result.exit_code != 0
    assert result.stderr.startswith("error: "), result.stderr
    assert snapshot(repo) == before


def test_diff_output_writes_nothing_and_out_writes_a_copy(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    before = snapshot(repo)
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=42", "-o", "diff")
    assert result.exit_code == 0
    assert result.stdout.startswith("--- a/connect/connectors.yaml\n+++ b/connect/connectors.yaml\n")
    assert "+++ b/connect/orders-sink-offsets-" in result.stdout
    assert snapshot(repo) == before
    out = tmp_path / "copy"
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=42", "--out", str(out))
    assert result.exit_code == 0
    assert snapshot(repo) == before
    assert b"state: stopped" in (out / "connect" / "connectors.yaml").read_bytes()


def test_shift_by_uses_before_file(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    before = tmp_path / "before.json"
    before.write_text(json.dumps({"offsets": [
        {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 100}},
        {"partition": {"kafka_topic": "orders", "kafka_partition": 1}, "offset": {"kafka_offset": 7}}]}))
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--shift-by", "-5", "--topic", "orders",
                 "--before", str(before))
    assert result.exit_code == 0, result.stderr
    configmap = next((repo / "connect").glob("orders-sink-offsets-*.yaml"))
    offsets = json.loads(yaml.safe_load(configmap.read_text())["data"]["offsets.json"])["offsets"]
    assert [o["offset"]["kafka_offset"] for o in offsets] == [95, 2]


def test_rerun_is_idempotent_and_a_second_operation_is_refused(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    assert cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=42").exit_code == 0
    once = snapshot(repo)
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=42")
    assert result.exit_code == 0 and "already holds this phase" in result.stderr
    assert snapshot(repo) == once
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=43")
    assert result.exit_code != 0 and "gitops next" in result.stderr
    assert snapshot(repo) == once


def test_next_without_phase1_is_refused(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    before = snapshot(repo)
    result = cli("gitops", "next", "orders-sink", "--repo", str(repo))
    assert result.exit_code != 0 and "no GitOps operation in phase 1" in result.stderr
    assert snapshot(repo) == before


def test_committed_one_shot_annotation_is_refused(tmp_path):
    repo = copy_fixture("argocd", tmp_path)
    sink = repo / "deploy/orders/sink.yaml"
    sink.write_text(sink.read_text().replace("  name: orders-sink\n", "  name: orders-sink\n  annotations:\n"
                                             "    strimzi.io/connector-offsets: reset\n"))
    before = snapshot(repo)
    result = cli("gitops", "reset", "orders-sink", "--repo", str(repo))
    assert result.exit_code != 0 and "fires on every sync" in result.stderr
    assert snapshot(repo) == before


def test_new_overlay_patch_for_mm2_builds_with_the_whole_mirror_list(tmp_path):
    kubectl = shutil.which("kubectl") or "/usr/bin/kubectl"
    repo = copy_fixture("kustomize-mm2", tmp_path)
    base = yaml.safe_load((repo / "base/mirror.yaml").read_text())
    assert cli("gitops", "alter", "kmm2/mirror", "--connector", "source", "-n", "prod", "--repo", str(repo),
               "--set", "orders:0=9").exit_code == 0
    built = subprocess.run([kubectl, "kustomize", str(repo / "overlays/prod")], capture_output=True, text=True,
                           check=True).stdout
    mirror = next(d for d in yaml.safe_load_all(built) if d["kind"] == "KafkaMirrorMaker2")
    expected = base["spec"]["mirrors"]
    expected[0]["sourceConnector"].update(state="stopped", alterOffsets={"fromConfigMap": {
        "name": mirror["spec"]["mirrors"][0]["sourceConnector"]["alterOffsets"]["fromConfigMap"]["name"]}})
    assert mirror["spec"]["mirrors"] == expected  # only the source connector's stanza differs from the base
    assert mirror["spec"]["target"] == base["spec"]["target"]
