"""gitops alter --to-datetime/--to-latest against a real broker: the phase-1 ConfigMap holds what the broker's
index answers, and the commit message says what was asked and what it resolved to."""

from __future__ import annotations

import datetime as dt
import json

import yaml
from click.testing import CliRunner

from kubectl_offsets.cli.root import root as cli_root
from tests.env.clients import produce, unique_name

from .conftest import git, sink_repo


def phase1_offsets(directory) -> dict[int, int]:
    for path in directory.rglob("*.yaml"):
        for document in yaml.safe_load_all(path.read_text()):
            labels = ((document or {}).get("metadata") or {}).get("labels") or {}
            if labels.get("kubectl-offsets.io/role") == "gitops-offsets":
                offsets = json.loads(next(iter(document["data"].values())))["offsets"]
                return {o["partition"]["kafka_partition"]: o["offset"]["kafka_offset"] for o in offsets}
    return {}


def gitops_alter(repo, name, namespace, topic, env, *flags, check=True):
    result = CliRunner().invoke(cli_root, ["gitops", "alter", name, "--repo", str(repo), "-n", namespace, "--topic",
                                           topic, "--bootstrap-server", env.bootstrap_servers, *flags])
    if check:
        assert result.exit_code == 0, result.output + result.stderr
    return result


def test_time_travel_resolves_at_the_broker_and_is_recorded(env, namespace, kafka_producer, topic, tmp_path):
    name = unique_name("tt-sink")
    repo = sink_repo(tmp_path / "repo", namespace, name, topic, tmp_path / "sink.out")
    produce(kafka_producer, topic, [f"record-{i}" for i in range(10)])

    before_all = gitops_alter(repo, name, namespace, topic, env, "--to-datetime", "2000-01-01T00:00:00Z",
                              "--out", str(tmp_path / "early"))
    assert phase1_offsets(tmp_path / "early") == {0: 0}
    assert f"{topic}:0 resumes at 0" in before_all.stderr
    future = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    refused = gitops_alter(repo, name, namespace, topic, env, "--to-datetime", future, "--out", str(tmp_path / "late"),
                           check=False)
    assert refused.exit_code == 2 and "is in the future" in refused.stderr and not (tmp_path / "late").exists()
    gitops_alter(repo, name, namespace, topic, env, "--to-datetime", future, "--allow-future",
                 "--out", str(tmp_path / "late"))
    assert phase1_offsets(tmp_path / "late") == {0: 10}  # no record at or after it: the end

    gitops_alter(repo, name, namespace, topic, env, "--to-latest", "--commit")
    branch = git(repo, "branch", "--format=%(refname:short)", "--list", "kubectl-offsets/*").split()[0]
    message = git(repo, "log", "-1", "--format=%B", branch)
    assert "asked: --to-latest" in message and f"{topic}:0 resumes at 10 (latest (end))" in message
