"""`gitops alter --to-datetime/--by-duration/--to-earliest/--to-latest`: resolved from the broker as online alter
does, the resolved offsets in the phase-1 ConfigMap, and the commit message saying what time was asked and what
it resolved to. The broker is a stand-in with a known index (partitions 0 and 1, records 10..49, record i at
second i)."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from kubectl_offsets.core.online import timetravel

from .helpers import cli, copy_fixture

AT = "1970-01-01T00:00:20Z"  # record 20 is the first at or after it


class IndexBroker:
    bootstrap_servers = "b:9092"

    def __init__(self):
        self.asked = []

    def partitions(self, topics):
        return {t: [0, 1] for t in topics}

    def earliest(self, tps):
        return {tp: 10 for tp in tps}

    def end(self, tps):
        return {tp: 50 for tp in tps}

    def records_at_time(self, tps, ts_ms):
        self.asked.append(ts_ms)
        offset = -(-ts_ms // 1000)
        return {tp: (offset, offset * 1000) if offset < 50 else None for tp in tps}


@pytest.fixture
def broker(monkeypatch):
    fake = IndexBroker()
    opened = []

    def probe(address, where, travel, progress):
        opened.append(address)
        return fake
    monkeypatch.setattr(timetravel, "probe_broker", probe)
    fake.opened = opened
    return fake


def phase1_configmap(repo):
    for path in repo.rglob("*.yaml"):
        for document in yaml.safe_load_all(path.read_text()):
            labels = ((document or {}).get("metadata") or {}).get("labels") or {}
            if labels.get("kubectl-offsets.io/role") == "gitops-offsets":
                return document
    return None


def test_to_datetime_puts_the_resolved_offsets_into_the_phase1_configmap(tmp_path, broker):
    repo = copy_fixture("plain", tmp_path)
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--to-datetime", AT, "--topic", "orders",
                 "--bootstrap-server", "b:9092")
    assert result.exit_code == 0, result.output + result.stderr
    assert broker.opened == ["b:9092"] and broker.asked == [20_000]
    data = phase1_configmap(repo)["data"]
    offsets = json.loads(next(iter(data.values())))["offsets"]
    assert sorted((o["partition"]["kafka_partition"], o["offset"]["kafka_offset"]) for o in offsets) == [(0, 20),
                                                                                                          (1, 20)]
    assert AT in result.stderr  # what was asked, in the report


def test_to_earliest_without_bootstrap_server_is_refused_and_writes_nothing(tmp_path, broker):
    repo = copy_fixture("plain", tmp_path)
    before = sorted(p.read_bytes() for p in repo.rglob("*") if p.is_file())
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--to-earliest", "--topic", "orders")
    assert result.exit_code == 2 and "--bootstrap-server" in result.stderr
    assert sorted(p.read_bytes() for p in repo.rglob("*") if p.is_file()) == before and broker.opened == []


def test_time_travel_and_set_together_are_refused(tmp_path, broker):
    repo = copy_fixture("plain", tmp_path)
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--to-latest", "--set", "orders:0=1",
                 "--bootstrap-server", "b:9092")
    assert result.exit_code == 2, result.output + result.stderr
    assert "--to-latest cannot be combined with" in result.stderr and broker.opened == []


def test_the_commit_message_says_what_time_was_asked_and_what_it_resolved_to(tmp_path, broker):
    repo = copy_fixture("plain", tmp_path)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    result = cli("gitops", "alter", "orders-sink", "--repo", str(repo), "--to-datetime", AT, "--topic", "orders:0",
                 "--bootstrap-server", "b:9092", "--commit")
    assert result.exit_code == 0, result.output + result.stderr
    branch = subprocess.run(["git", "branch", "--format=%(refname:short)", "--list", "kubectl-offsets/*"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout.split()[0]
    message = subprocess.run(["git", "log", "-1", "--format=%B", branch], cwd=repo, capture_output=True, text=True,
                             check=True).stdout
    assert f"--to-datetime {AT}" in message
    assert "orders:0 resumes at 20" in message
