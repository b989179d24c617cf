"""Issue 28, the forge half: `--pr` knows its forge and project before anything is committed or pushed; a forge
call that fails after the push says what was pushed and how to open the request by hand; the token never reaches
another host, and a redirected POST is never re-sent (as a GET or otherwise).

Local HTTP servers play GitHub and GitLab: one answers as the forge's API, a second one (another host name) is
where a redirect points, and records whatever reaches it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import pytest

from tests.unit.core.gitops.helpers import cli

from .conftest import branches, git
from .test_fast_forward_only import error_line

TOKEN = "tok-SECRET-28"
ENV = {"github": "GITHUB_TOKEN", "gitlab": "GITLAB_TOKEN"}
ALTER = ["gitops", "alter", "orders-sink", "--set", "orders:0=42"]

Answer = tuple[int, dict[str, str], object]  # status, headers, JSON body


class Server:
    """Answers every request with ``answer(method, path)`` and records (method, path, headers)."""

    def __init__(self, host: str, answer: Callable[[str, str], Answer]):
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.requests.append((self.command, self.path, dict(self.headers)))
                code, headers, body = answer(self.command, self.path)
                data = json.dumps(body).encode()
                self.send_response(code)
                for key, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://{host}:{self.httpd.server_address[1]}"

    def tokens_seen(self) -> list[str]:
        return [value for _, _, headers in self.requests for key, value in headers.items()
                if key.lower() in ("authorization", "private-token")]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers():
    started: list[Server] = []

    def start(host: str, answer: Callable[[str, str], Answer]) -> Server:
        started.append(Server(host, answer))
        return started[-1]

    yield start
    for server in started:
        server.close()


def pr(work, forge: str, url: str, *extra: str) -> list[str]:
    return [*ALTER, "--repo", str(work), "--pr", "--pr-base", "main", "--forge", forge, "--forge-url", url,
            "--forge-project", "team/deploy", *extra]


def created(forge: str) -> dict[str, str]:
    url = f"https://forge.example/{forge}/1"
    return {"html_url": url} if forge == "github" else {"web_url": url}


# --- before anything is committed or pushed ------------------------------------------------------------------------

def test_pr_without_a_forge_to_talk_to_is_refused_before_the_push(repos, monkeypatch):
    """The remote is a local path: no host, no project. Before: the branch was pushed, then exit 1."""
    work, remote = repos
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)

    result = cli(*ALTER, "--repo", str(work), "--pr", "--pr-base", "main")

    assert result.exit_code == 2, result.stdout + result.stderr
    assert "--forge-project" in result.stderr and "  hint: " in result.stderr
    assert branches(remote).keys() == {"main"} and git(work, "branch", "--list", "kubectl-offsets/*") == ""


# --- a forge call that fails after the push ------------------------------------------------------------------------

@pytest.mark.parametrize("forge", ["github", "gitlab"])
@pytest.mark.parametrize("code", [500, 422, 403])
def test_a_forge_failure_after_the_push_says_what_was_pushed_and_how_to_open_it(repos, monkeypatch, servers, forge,
                                                                                code):
    work, remote = repos
    monkeypatch.setenv(ENV[forge], TOKEN)
    api = servers("127.0.0.1", lambda method, path: (200, {}, []) if method == "GET" else
                  (code, {}, {"message": "Validation Failed"}))

    result = cli(*pr(work, forge, api.url))

    assert result.exit_code != 0
    pushed = next(b for b in branches(remote) if b.startswith("kubectl-offsets/"))
    line = error_line(result)
    assert f"pushed {pushed} ({branches(remote)[pushed][:12]}) to origin" in line, result.stderr
    assert "Validation Failed" in line
    hint = result.stderr.split("  hint: ")[1]
    expected = (f"https://github.com/team/deploy/compare/main...{pushed}" if forge == "github" else
                "https://gitlab.com/team/deploy/-/merge_requests/new?merge_request%5Bsource_branch%5D=")
    assert expected in hint, hint
    assert TOKEN not in result.stdout + result.stderr


# --- redirects -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("forge", ["github", "gitlab"])
@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_to_another_host_never_carries_the_token(repos, monkeypatch, servers, forge, code):
    """Before: urllib followed the redirect with the Authorization (or PRIVATE-TOKEN) header to whatever host the
    forge's answer named."""
    work, _ = repos
    monkeypatch.setenv(ENV[forge], TOKEN)
    elsewhere = servers("localhost", lambda method, path: (200, {}, []) if method == "GET" else (201, {}, created(forge)))
    api = servers("127.0.0.1", lambda method, path: (code, {"Location": elsewhere.url + path}, {}))

    result = cli(*pr(work, forge, api.url))

    assert result.exit_code != 0
    assert elsewhere.requests == [] and elsewhere.tokens_seen() == []
    line = error_line(result)
    assert "another host" in line and "localhost" in line, result.stderr
    assert "  hint: " in result.stderr and TOKEN not in result.stdout + result.stderr


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirected_post_is_not_resent(repos, monkeypatch, servers, code):
    """Before, a 301/302/303 turned the POST into a GET of the new address, whose list answer then failed with a
    TypeError traceback; a 307/308 POST is not re-sent either: the request may have been made already."""
    work, remote = repos
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)

    def answer(method, path):
        if path.startswith("/moved/"):
            return (200, {}, []) if method == "GET" else (201, {}, created("github"))
        if method == "GET":
            return 200, {}, []
        return code, {"Location": "/moved" + path}, {}

    api = servers("127.0.0.1", answer)

    result = cli(*pr(work, "github", api.url))

    assert result.exit_code != 0
    assert [r[:2] for r in api.requests if r[1].startswith("/moved/")] == []
    line = error_line(result)
    assert f"answered {code}" in line and "not sent again" in line, result.stderr
    pushed = next(b for b in branches(remote) if b.startswith("kubectl-offsets/"))
    assert f"pushed {pushed}" in line
    assert "compare/main..." in result.stderr.split("  hint: ")[1]


def test_a_get_redirected_on_the_same_host_is_followed_with_the_token(repos, monkeypatch, servers):
    """A renamed repository: GitHub answers the old path with 301 to the new one on the same host."""
    work, _ = repos
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)

    def answer(method, path):
        if method == "GET" and path.startswith("/repos/team/"):
            return 301, {"Location": path.replace("/repos/team/", "/repos/renamed/")}, {}
        return (200, {}, [created("github")]) if method == "GET" else (500, {}, {})

    api = servers("127.0.0.1", answer)

    result = cli(*pr(work, "github", api.url))

    assert result.exit_code == 0, result.stderr
    assert "already open: https://forge.example/github/1" in result.stdout
    assert [(m, p.split("?")[0]) for m, p, _ in api.requests] == [("GET", "/repos/team/deploy/pulls"),
                                                                  ("GET", "/repos/renamed/deploy/pulls")]
    assert api.tokens_seen() == [f"Bearer {TOKEN}"] * 2
