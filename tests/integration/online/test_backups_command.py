"""`kubectl offsets backups` against the real environment: backups taken by real alters are listed, and a prune
with --keep 1 deletes all but the newest of each connector; a ConfigMap that only looks like a backup (a similar
name, or our role label without our managed-by label) is never touched."""
from __future__ import annotations

import json

import pytest

BACKUP_ROLE = "kubectl-offsets.io/role"


@pytest.fixture(scope="module")
def backed_up(lab, cli):
    """Two paused sinks: the first altered three times, the second once, each alter leaving one backup."""
    first = lab.sink("bk-first", records=2, live=False, state="paused", wait_for=0)
    second = lab.sink("bk-second", records=2, live=False, state="paused", wait_for=0)
    for conn, offsets in ((first, (0, 1, 2)), (second, (1,))):
        for offset in offsets:
            result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0={offset}", "--yes", "-q")
            assert result.exit_code == 0, str(result)
    return first, second


def backups_of(lab, conn) -> list[str]:
    """Our backups of ``conn``, read with the plain kubernetes client, oldest first (their names sort by time)."""
    return sorted(name for name, cm in lab.cluster.configmaps(conn.ns).items()
                  if name.startswith(f"{conn.name}-offsets-backup-")
                  and (cm["metadata"].get("labels") or {}).get("app.kubernetes.io/managed-by") == "kubectl-offsets")


def test_backups_lists_what_the_alters_left(lab, cli, backed_up):
    first, second = backed_up
    assert len(backups_of(lab, first)) == 3 and len(backups_of(lab, second)) == 1

    names = cli("backups", first.name, "-n", first.ns, "-o", "name")
    assert names.exit_code == 0, str(names)
    assert names.stdout.split() == [f"configmap/{n}" for n in reversed(backups_of(lab, first))]  # newest first

    listed = cli("backups", "-n", first.ns, "-o", "json")
    assert listed.exit_code == 0, str(listed)
    rows = json.loads(listed.stdout)["backups"]
    assert {(r["connector"], r["operation"]) for r in rows} == {(first.name, "alter"), (second.name, "alter")}
    assert all(r["size"] > 0 and r["ageSeconds"] >= 0 for r in rows)

    table = cli("backups", "-n", first.ns)
    assert table.stdout.splitlines()[0].split() == ["NAME", "CONNECTOR", "OPERATION", "AGE", "SIZE"]


def test_prune_keep_1_leaves_the_newest_of_each_connector_and_nothing_foreign(lab, cli, backed_up):
    first, second = backed_up
    newest_first, only_second = backups_of(lab, first)[-1], backups_of(lab, second)[0]
    # A ConfigMap named like our oldest possible backup but not ours, and one with our role label only.
    lookalike = f"{first.name}-offsets-backup-20000101t000000z"
    half_labelled = f"{first.name}-offsets-backup-20000102t000000z"
    lab.cluster.put_configmap(first.ns, lookalike, {"offsets.json": "{}"})
    lab.cluster.core.create_namespaced_config_map(first.ns, {
        "metadata": {"name": half_labelled, "labels": {BACKUP_ROLE: "backup"}}, "data": {"offsets.json": "{}"}})

    dry = cli("backups", "--all", "-n", first.ns, "--prune", "--keep", "1", "--dry-run")
    assert dry.exit_code == 0, str(dry)
    assert len(dry.stdout.splitlines()) == 2 and len(backups_of(lab, first)) == 3

    refused = cli("backups", "--all", "-n", first.ns, "--prune", "--keep", "1")  # no terminal, no --yes
    assert refused.exit_code == 2 and len(backups_of(lab, first)) == 3

    pruned = cli("backups", "--all", "-n", first.ns, "--prune", "--keep", "1", "--yes")
    assert pruned.exit_code == 0, str(pruned)
    assert backups_of(lab, first) == [newest_first] and backups_of(lab, second) == [only_second]
    left = lab.cluster.configmaps(first.ns)
    assert lookalike in left and half_labelled in left
    assert sorted(pruned.stdout.splitlines()) == sorted(
        f"configmap/{n} deleted" for n in set(dry.stdout.replace(" deleted (dry run)", "").replace("configmap/", "")
                                               .split()))
