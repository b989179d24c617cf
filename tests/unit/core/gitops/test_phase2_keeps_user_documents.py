"""Issue 28: `gitops next` removes what phase 1 added, and only that. A document the user appended to a file phase 1
created (the offsets ConfigMap, the trigger Job's file, the overlay's patch) stays, with the file and its
kustomization entry; before, phase 2 deleted the whole file."""

from __future__ import annotations

import pytest
import yaml

from .helpers import cli, copy_fixture, snapshot

APPENDED = "---\n# added by the team after phase 1\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-notes\n" \
           "data:\n  owner: team-data\n"
# In a patches: file a document is a patch of a resource the overlay builds.
APPENDED_PATCH = "---\n# added by the team after phase 1\napiVersion: kafka.strimzi.io/v1\nkind: KafkaMirrorMaker2\n" \
                 "metadata:\n  name: mirror\n  labels:\n    owner: team-data\n"

CASES = {  # phase 1 command, the file it adds (glob, relative to the repository), the kustomization listing it
    "plain-configmap": ("plain", ["alter", "orders-sink", "--set", "orders:0=42"], "connect/orders-sink-offsets-*",
                        None),
    "overlay-configmap": ("kustomize", ["alter", "orders-sink", "-n", "prod", "--set", "orders:0=42"],
                          "overlays/prod/orders-sink-offsets-*", "overlays/prod/kustomization.yaml"),
    "trigger-job": ("kustomize", ["reset", "orders-sink", "-n", "prod", "--trigger", "job"],
                    "overlays/prod/orders-sink-offsets-trigger-*", "overlays/prod/kustomization.yaml"),
    "overlay-patch": ("kustomize-mm2", ["reset", "archive-sink", "-n", "prod"], "overlays/prod/*.offsets-patch.yaml",
                      "overlays/prod/kustomization.yaml"),  # APPENDED_PATCH, not APPENDED
}


def _next_args(args: list[str]) -> list[str]:
    return [args[1], *(args[args.index("-n"):args.index("-n") + 2] if "-n" in args else [])]


@pytest.mark.parametrize("case", sorted(CASES))
def test_next_keeps_a_document_appended_to_a_file_phase1_added(case, tmp_path):
    fixture, args, pattern, kustomization = CASES[case]
    repo = copy_fixture(fixture, tmp_path)
    original = snapshot(repo)
    assert cli("gitops", *args, "--repo", str(repo)).exit_code == 0
    added = next(repo.glob(pattern))
    appended = APPENDED_PATCH if case == "overlay-patch" else APPENDED
    added.write_text(added.read_text() + appended)

    result = cli("gitops", "next", *_next_args(args), "--repo", str(repo))

    assert result.exit_code == 0, result.stderr
    assert added.exists(), "the file with the user's document was deleted"
    documents = [d for d in yaml.safe_load_all(added.read_text()) if d]
    assert documents == [yaml.safe_load(appended.split("---\n", 1)[1])]
    assert added.read_text().endswith(appended)
    assert f"kept {added.relative_to(repo)}" in result.stderr  # said, not silent
    after = snapshot(repo)
    if kustomization:
        assert added.name in after[kustomization].decode()
    others = {rel for rel in set(after) | set(original) if rel not in (str(added.relative_to(repo)), kustomization)}
    assert {rel: after.get(rel) for rel in others} == {rel: original.get(rel) for rel in others}


def test_next_still_deletes_a_file_holding_only_what_phase1_wrote(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    original = snapshot(repo)
    assert cli("gitops", "alter", "orders-sink", "-n", "prod", "--repo", str(repo), "--set", "orders:0=42").exit_code == 0
    added = next(repo.glob("overlays/prod/orders-sink-offsets-*"))
    added.write_text(added.read_text() + "# reviewed\n")  # a comment is not a document

    assert cli("gitops", "next", "orders-sink", "-n", "prod", "--repo", str(repo)).exit_code == 0

    assert snapshot(repo) == original
