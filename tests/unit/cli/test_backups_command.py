"""`kubectl offsets backups` without a cluster: the listing in each format, and the prune's safety (dry run, no
terminal without --yes, nothing foreign), with the plugin's Kube replaced by a fake that records deletions."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.root import root
from kubectl_offsets.core.online import operations
from tests.unit.core.online.test_backup_catalog import MM2_SRC, SINK_MID, SINK_NEW, SINK_OLD, FakeKube


def recent(configmap, hours_ago):
    """A copy taken ``hours_ago`` before now (the command measures ages against the real clock)."""
    copy = json.loads(json.dumps(configmap))
    when = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=hours_ago)
    copy["metadata"]["annotations"]["kubectl-offsets.io/taken-at"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return copy


@pytest.fixture
def kube(monkeypatch):
    fake = FakeKube([recent(SINK_OLD, 24 * 40), recent(SINK_MID, 24 * 6), recent(SINK_NEW, 1), MM2_SRC])
    monkeypatch.setattr(operations, "connect", lambda cluster: fake)
    return fake


def run(*args, input=None):
    return CliRunner().invoke(root, ["backups", *args], input=input)


def test_list_table_has_the_columns_and_one_row_per_backup(kube):
    result = run("--all")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "CONNECTOR", "OPERATION", "AGE", "SIZE"]
    assert len(lines) == 5
    newest = next(line for line in lines if SINK_NEW["metadata"]["name"] in line)
    assert newest.split()[1:4] == ["sink", "alter", "60m"]


def test_list_name_and_json(kube):
    names = run("sink", "-o", "name")
    assert names.stdout.split() == [f"configmap/{SINK_NEW['metadata']['name']}", f"configmap/{SINK_MID['metadata']['name']}",
                                    f"configmap/{SINK_OLD['metadata']['name']}"]
    document = json.loads(run("--all", "-o", "json").stdout)
    assert {b["connector"] for b in document["backups"]} == {"sink", "east->west.MirrorSourceConnector"}
    assert all(isinstance(b["size"], int) and b["size"] > 0 for b in document["backups"])


def test_empty_namespace_says_so_like_kubectl_and_exits_zero(monkeypatch):
    monkeypatch.setattr(operations, "connect", lambda cluster: FakeKube([]))
    result = run("-n", "empty")
    assert result.exit_code == 0
    assert "No resources found in empty namespace." in result.stderr


def test_prune_without_a_terminal_or_yes_refuses_and_deletes_nothing(kube):
    result = run("--all", "--prune", "--keep", "1")
    assert result.exit_code == 2, result.output
    assert "--yes" in result.stderr
    assert kube.deleted == []


def test_prune_dry_run_shows_what_it_would_delete_and_deletes_nothing(kube):
    result = run("--all", "--prune", "--keep", "1", "--dry-run")
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.splitlines()) == sorted(
        f"configmap/{cm['metadata']['name']} deleted (dry run)" for cm in (SINK_OLD, SINK_MID))
    assert kube.deleted == []


def test_prune_yes_deletes_all_but_the_newest_per_connector(kube):
    result = run("--all", "--prune", "--keep", "1", "--yes")
    assert result.exit_code == 0, result.output
    assert sorted(name for _, name, _ in kube.deleted) == sorted(cm["metadata"]["name"] for cm in (SINK_OLD, SINK_MID))


def test_prune_older_than_keeps_the_newest_even_when_old(kube):
    result = run("--all", "--prune", "--older-than", "30d", "--yes")
    assert result.exit_code == 0, result.output
    # SINK_OLD is 40 days old; MM2_SRC is older but the only backup of its connector
    assert [name for _, name, _ in kube.deleted] == [SINK_OLD["metadata"]["name"]]


@pytest.mark.parametrize("args, says", [
    (["--all", "--keep", "1"], "--prune"),
    (["--all", "--dry-run"], "--prune"),
    (["--prune", "--keep", "1", "--yes"], "TARGET"),
    (["--all", "--prune", "--older-than", "soon", "--yes"], "--older-than"),
    (["--all", "--prune", "--yes"], "--keep"),
])
def test_bad_prune_flags_are_usage_errors_that_delete_nothing(kube, args, says):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert says in result.stderr
    assert kube.deleted == []


# --- issue 28 ---------------------------------------------------------------------------------------------------------

def test_pruning_a_kafkaconnector_leaves_the_mirror_of_the_same_name_alone(monkeypatch):
    from tests.unit.core.online.test_backup_catalog import APP_MIRROR, APP_SINK

    fake = FakeKube([recent(APP_SINK, 24 * 40), recent(APP_MIRROR, 24 * 40)])
    monkeypatch.setattr(operations, "connect", lambda cluster: fake)
    result = run("kafkaconnector/app", "--prune", "--keep", "0", "--yes")
    assert result.exit_code == 0, result.output
    assert [name for _, name, _ in fake.deleted] == [APP_SINK["metadata"]["name"]]


def test_a_prune_that_meets_a_conflict_reports_what_it_deleted_and_fails(monkeypatch):
    from kubectl_offsets.adapters.kube import ConflictError

    changed = SINK_MID["metadata"]["name"]
    fake = FakeKube([recent(SINK_OLD, 24 * 40), recent(SINK_MID, 24 * 6), recent(SINK_NEW, 1)],
                    fail={changed: ConflictError("changed")})
    monkeypatch.setattr(operations, "connect", lambda cluster: fake)
    result = run("--all", "--prune", "--keep", "1", "--yes")
    assert result.exit_code == 5, result.output
    assert result.stdout == f"configmap/{SINK_OLD['metadata']['name']} deleted\n"
    assert f"configmap/{changed}" in result.stderr and "1 deleted" in result.stderr


def test_a_prune_keeps_the_backup_of_an_unfinished_operation(monkeypatch):
    from tests.unit.core.online.test_backup_catalog import sink_resource

    old = SINK_OLD["metadata"]["name"]
    fake = FakeKube([recent(SINK_OLD, 24 * 40), recent(SINK_NEW, 1)], resources=[sink_resource(old)])
    monkeypatch.setattr(operations, "connect", lambda cluster: fake)
    result = run("--all", "--prune", "--keep", "0", "--yes")
    assert result.exit_code == 0, result.output
    assert [name for _, name, _ in fake.deleted] == [SINK_NEW["metadata"]["name"]]
    assert f"kept configmap/{old}: an unfinished operation's journal names it" in result.stderr
