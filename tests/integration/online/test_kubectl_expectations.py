"""What a kubectl user expects of alter against a real cluster (issue 23 section 4): kubectl's --dry-run forms,
-o honoured by a dry run, the backup's name in every output format."""
from __future__ import annotations

import json

import re

import pytest
import yaml

from .conftest import assert_unchanged, snapshot


@pytest.fixture(scope="module")
def paused_sink(lab, cli):
    conn = lab.sink("kubectl", records=0, partitions=2, live=False)
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "paused"}})
    lab.wait_state(conn, "PAUSED")
    assert cli("list", conn.name, "-n", conn.ns, "-q").exit_code == 0  # the dry run previews the last list
    return conn


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_dry_run_prints_the_writes_in_the_format_asked(lab, cli, paused_sink, fmt):
    conn = paused_sink
    before = snapshot(lab.cluster, conn)
    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--dry-run=client", "-o", fmt)
    assert result.exit_code == 0, str(result)
    document = json.loads(result.stdout) if fmt == "json" else yaml.safe_load(result.stdout)
    assert document["dryRun"] == "client" and document["operation"] == "alter"
    assert document["change"] == {"offsets": [
        {"partition": {"kafka_topic": conn.topic, "kafka_partition": 0}, "offset": {"kafka_offset": 1}}]}
    # Every write of a real alter, named with its step, in order (the alter ConfigMap exists from an earlier test:
    # a merge of its key).
    steps = [w["description"].rsplit("(step ", 1)[-1].rstrip(")") for w in document["writes"]]
    assert steps == ["stop", "backup", "backup", "backup", "write-configmap", "write-configmap", "annotate", "verify",
                     "resume", "cleanup"], steps
    assert [w["description"].split(" ")[0] for w in document["writes"]][:4] == ["patch", "patch", "create", "write"]
    assert_unchanged(lab.cluster, conn, before)


def test_dry_run_csv_prints_the_offsets_after(lab, cli, paused_sink):
    conn = paused_sink
    result = cli("alter", "--dry-run", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "-o", "csv")
    assert result.exit_code == 0, str(result)
    assert f"{conn.topic},0,1" in result.stdout.split()


def test_server_dry_run_sends_the_writes_to_the_api_server(lab, cli, paused_sink):
    conn = paused_sink
    before = snapshot(lab.cluster, conn)
    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--dry-run=server")
    assert result.exit_code == 0, str(result)
    accepted = re.search(r"server-side dry run: the API server accepted (\d+) write\(s\)", result.stderr)
    assert accepted and int(accepted.group(1)) >= 6, result.stderr  # the claim, lists, backup, alter, request, ...
    assert "dry run: nothing was changed" in result.stderr
    assert_unchanged(lab.cluster, conn, before)


def test_server_dry_run_where_there_is_none_says_it_was_client_side(lab, cli, paused_sink):
    conn = paused_sink
    before = snapshot(lab.cluster, conn)
    # (a fleet dry run lists the offsets through the operator, as its plan does: only delete's leaves all as it was)
    for argv in (["delete", conn.name], ["alter", "--all", "--to-offset", "0", "--topic", f"{conn.topic}:0"]):
        result = cli(*argv, "-n", conn.ns, "--dry-run=server")
        assert result.exit_code == 0, str(result)
        assert "warning: --dry-run=server is not available for this command" in result.stderr, str(result)
        if argv[0] == "delete":
            assert_unchanged(lab.cluster, conn, before)
    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--dry-run=server")
    assert result.exit_code == 0 and "not available" not in result.stderr, str(result)


@pytest.mark.parametrize("fmt", ["table", "json", "yaml", "csv"])
def test_alter_names_the_backup_in_every_format(lab, cli, paused_sink, fmt):
    conn = paused_sink
    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:1=0", "--yes", "-o", fmt)
    assert result.exit_code == 0, str(result)
    assert f"backup: configmap/{conn.name}-offsets-backup-" in result.stderr
