"""Git and pull requests, for real: a bare remote, pushes, branch idempotence (same input -> same branch, one
commit, no second request), and the pull/merge request HTTP calls.

CONTRACT TEST: the local HTTP server below stands in for GitHub and GitLab. It asserts the documented endpoints,
methods, headers and JSON fields (GitHub REST "Create a pull request": POST /repos/{owner}/{repo}/pulls with
title/head/base/body, "List pull requests" with head=owner:branch&state=open; GitLab "Create MR": POST
/projects/:id/merge_requests with source_branch/target_branch/title/description, "List MRs" with
source_branch&state=opened). It proves we send what those APIs document, not that github.com accepts it.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.unit.core.gitops.helpers import cli

from .conftest import branches, git

TOKEN = "tok-SECRET-123"


class FakeForge:
    """Records requests; answers like the real APIs (list -> [] or the open request, create -> 201 + URL)."""

    def __init__(self, forge: str):
        self.forge, self.requests, self.open = forge, [], []
        forge_self = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                forge_self.requests.append(("GET", self.path, dict(self.headers), None))
                self._reply(200, forge_self.open)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                forge_self.requests.append(("POST", self.path, dict(self.headers), body))
                url = f"https://forge.example/{forge_self.forge}/1"
                created = {"html_url": url} if forge_self.forge == "github" else {"web_url": url}
                forge_self.open.append(created)
                self._reply(201, created)

            def _reply(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()


def test_push_to_bare_remote_is_idempotent_and_leaves_checkout_alone(repos):
    work, remote = repos
    status_before = git(work, "status", "--porcelain")
    args = ["gitops", "alter", "orders-sink", "--repo", str(work), "--set", "orders:0=42", "--push",
            "-m", "replay orders after the outage"]
    first = cli(*args)
    assert first.exit_code == 0, first.stderr
    heads = branches(remote)
    branch = next(b for b in heads if b.startswith("kubectl-offsets/orders-sink-alter-"))
    assert git(work, "status", "--porcelain") == status_before and git(work, "branch", "--show-current") == "main"
    log = git(remote, "log", "--format=%s%n%b", f"main..{branch}")
    assert log.count("Offsets-Operation:") == 1  # one commit on top of main
    assert "stop orders-sink and alter its offsets (phase 1 of 2)" in log
    assert "Why: replay orders after the outage." in log and "NOT committed" in log
    files = git(remote, "diff", "--name-only", f"main...{branch}").splitlines()
    assert files[0] == "deploy/connect/connectors.yaml" and files[1].startswith("deploy/connect/orders-sink-offsets-")

    second = cli(*args)
    assert second.exit_code == 0 and "unchanged: same input as before" in second.stdout
    assert branches(remote) == heads  # same branch, same single commit

    other = cli("gitops", "alter", "orders-sink", "--repo", str(work), "--set", "orders:0=43", "--push")
    assert other.exit_code == 0
    assert len(branches(remote)) == len(heads) + 1  # different content, different branch


def test_phase2_branch_after_merging_phase1(repos):
    work, remote = repos
    assert cli("gitops", "reset", "files-source", "--repo", str(work), "--push").exit_code == 0
    branch = next(b for b in branches(remote) if "files-source-reset" in b)
    git(work, "fetch", "--quiet", "origin")
    git(work, "merge", "--quiet", "--ff-only", f"origin/{branch}")
    result = cli("gitops", "next", "files-source", "--repo", str(work), "--push")
    assert result.exit_code == 0, result.stderr
    phase2 = next(b for b in branches(remote) if b.endswith("-phase2"))
    assert git(remote, "show", f"{phase2}:deploy/connect/source.yml") == git(remote, "show",
                                                                              "main:deploy/connect/source.yml")


@pytest.mark.parametrize("forge", ["github", "gitlab"])
def test_pull_request_contract(forge, repos, monkeypatch, tmp_path):
    work, remote = repos
    fake = FakeForge(forge)
    try:
        monkeypatch.setenv("GITHUB_TOKEN" if forge == "github" else "GITLAB_TOKEN", TOKEN)
        before = tmp_path / "before.json"
        before.write_text(json.dumps({"offsets": [
            {"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 100}}]}))
        args = ["gitops", "alter", "orders-sink", "--repo", str(work), "--set", "orders:0=42", "--pr",
                "--before", str(before), "--forge", forge, "--forge-url", fake.url, "--forge-project",
                "team/deploy", "--pr-base", "main"]
        result = cli(*args)
        assert result.exit_code == 0, result.stderr
        assert TOKEN not in result.output + result.stderr
        listing, create = fake.requests
        project = "team/deploy" if forge == "github" else "team%2Fdeploy"
        if forge == "github":
            assert listing[0] == "GET" and listing[1].startswith(f"/repos/{project}/pulls?")
            assert "head=team%3Akubectl-offsets%2Forders-sink-alter-" in listing[1] and "state=open" in listing[1]
            assert create[:2] == ("POST", f"/repos/{project}/pulls")
            assert create[2]["Authorization"] == f"Bearer {TOKEN}"
            assert create[2]["Accept"] == "application/vnd.github+json"
            assert set(create[3]) == {"title", "head", "base", "body"}
            text, head, base = create[3]["body"], create[3]["head"], create[3]["base"]
        else:
            assert listing[0] == "GET" and listing[1].startswith(f"/projects/{project}/merge_requests?")
            assert "source_branch=kubectl-offsets%2Forders-sink-alter-" in listing[1] and "state=opened" in listing[1]
            assert create[:2] == ("POST", f"/projects/{project}/merge_requests")
            assert create[2]["Private-Token"] == TOKEN
            assert set(create[3]) == {"source_branch", "target_branch", "title", "description"}
            text, head, base = create[3]["description"], create[3]["source_branch"], create[3]["target_branch"]
        assert base == "main" and head in branches(remote)
        assert "| TOPIC | PARTITION | BEFORE | AFTER |  |" in text and "| orders | 0 | 100 | 42 | changed |" in text
        assert "Phase: **1 of 2**" in text and "kubectl offsets trigger orders-sink" in text
        assert "kubectl offsets gitops next orders-sink" in text
        assert "opened https://forge.example/" in result.stdout

        again = cli(*args)  # the same input: the open request is found, no second one
        assert again.exit_code == 0 and "already open: https://forge.example/" in again.stdout
        assert [r[0] for r in fake.requests] == ["GET", "POST", "GET"]
    finally:
        fake.close()


def test_without_token_prints_compare_url(repos, monkeypatch):
    work, _ = repos
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    result = cli("gitops", "reset", "files-source", "--repo", str(work), "--pr", "--forge-project", "team/deploy",
                 "--pr-base", "main")
    assert result.exit_code == 0, result.stderr
    assert "https://github.com/team/deploy/compare/main...kubectl-offsets/files-source-reset-" in result.stderr
    assert "expand=1" in result.stderr
