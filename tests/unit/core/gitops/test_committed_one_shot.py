"""A repository that commits one of Strimzi's one-shot annotations is refused, whatever the annotation's value and
wherever in what the GitOps controller applies together it sits, before anything is written.

Why (docs/gitops.md, "A one-shot annotation in git, under Flux"): Flux re-applies the committed value after the
operator removes it, so the operation fires again on every reconcile; an empty or misspelled value ("", "Alter")
makes Strimzi's case-sensitive valueOf fail and the resource NotReady, reconciled no more."""

from __future__ import annotations

import pytest

from .helpers import cli, copy_fixture, snapshot

KEYS = ("strimzi.io/connector-offsets", "strimzi.io/mirrormaker-connector")
# Valid actions, an empty string in both quotings, YAML null in both spellings, a wrong case, a typo, a boolean.
VALUES = ("alter", "reset", "list", "''", '""', "", "~", "Alter", "resett", "true")
COMMANDS = {"alter": ["--set", "orders:0=5"], "reset": []}


def _annotate_target(repo, key: str, value: str) -> None:
    sink = repo / "connect" / "connectors.yaml"
    text = sink.read_text()
    edited = text.replace("        strimzi.io/cluster: connect\nspec:\n    class",
                          f"        strimzi.io/cluster: connect\n    annotations:\n        {key}: {value}\n"
                          "spec:\n    class", 1)
    assert edited != text
    sink.write_text(edited)


def _annotate_neighbour(repo, key: str, value: str) -> None:
    """payments-sink, in the same file as orders-sink (the same build, the same sync)."""
    sink = repo / "connect" / "connectors.yaml"
    text = sink.read_text()
    before = "metadata: {name: payments-sink, labels: {strimzi.io/cluster: connect}}"
    assert before in text
    sink.write_text(text.replace(before, "metadata: {name: payments-sink, labels: {strimzi.io/cluster: connect}, "
                                         f"annotations: {{{key}: {value or repr('')}}}}}"))


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_phase1_refuses_the_annotation_on_the_target_for_any_value(tmp_path, command, key, value):
    repo = copy_fixture("plain", tmp_path)
    _annotate_target(repo, key, value)
    before = snapshot(repo)
    result = cli("gitops", command, "orders-sink", "--repo", str(repo), *COMMANDS[command])
    assert result.exit_code == 5, result.stderr
    assert key in result.stderr and "fires on every sync" in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize("value", ("alter", "", "Alter"))
@pytest.mark.parametrize("key", KEYS)
def test_phase2_refuses_an_annotation_committed_after_phase1(tmp_path, key, value):
    repo = copy_fixture("plain", tmp_path)
    assert cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--set", "orders:0=5").exit_code == 0
    _annotate_neighbour(repo, key, value)  # the neighbour: phase 2 rewrites the same file
    before = snapshot(repo)
    result = cli("gitops", "next", "orders-sink", "--repo", str(repo))
    assert result.exit_code == 5, result.stderr
    assert "kafkaconnector/payments-sink" in result.stderr and key in result.stderr
    assert snapshot(repo) == before


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_phase1_refuses_the_annotation_on_another_connector_of_the_same_build(tmp_path, command, key, value):
    """Flux applies the whole path in one sync: our phase-1 commit would go out beside a resource that re-fires its
    operation on every reconcile (or, empty or misspelled, is refused by the operator)."""
    repo = copy_fixture("plain", tmp_path)
    _annotate_neighbour(repo, key, value)
    before = snapshot(repo)
    result = cli("gitops", command, "orders-sink", "--repo", str(repo), *COMMANDS[command])
    assert result.exit_code == 5, result.stderr
    assert "kafkaconnector/payments-sink" in result.stderr and key in result.stderr
    assert "nothing was written" in result.stderr
    assert snapshot(repo) == before


def test_an_overlay_patch_that_adds_the_annotation_is_named(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    patch = repo / "overlays" / "prod" / "connector-patch.yaml"
    patch.write_text(patch.read_text().replace("  name: orders-sink\n",
                                               "  name: orders-sink\n  annotations:\n    "
                                               "strimzi.io/connector-offsets: ''\n", 1))
    before = snapshot(repo)
    result = cli("gitops", "reset", "orders-sink", "-n", "prod", "--repo", str(repo))
    assert result.exit_code == 5 and "strimzi.io/connector-offsets" in result.stderr
    assert snapshot(repo) == before
