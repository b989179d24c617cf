"""A git server over HTTP on loopback, for GitOps controllers that clone only over http(s) or ssh (Flux's
GitRepository): git's own ``git http-backend`` (the smart HTTP protocol, fetch and push) run as a CGI program behind
a small threaded WSGI server from the standard library.

    python -m tests.env.git_server --root DIR --port PORT

serves every bare repository ``DIR/<name>.git`` at ``http://127.0.0.1:PORT/<name>.git``. Pushes are allowed:
http-backend enables receive-pack for an authenticated user, and every request is taken as user ``gitops-test``
(the server listens on loopback only). A request body is read whole (``Content-Length``; git sends a chunked body
only above ``http.postBuffer``, 1 MiB, far above what the tests push).
"""
from __future__ import annotations

import argparse
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Callable, Iterable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from .ports import HOST, free_ports
from .processes import Proc, spawn, wait_until

READY_TIMEOUT = 30.0
USER = "gitops-test"
# What http-backend reads from a CGI environment, beyond the request line (git-http-backend(1)).
CGI_HEADERS = {"CONTENT_TYPE": "CONTENT_TYPE", "HTTP_CONTENT_ENCODING": "HTTP_CONTENT_ENCODING",
               "HTTP_GIT_PROTOCOL": "GIT_PROTOCOL"}


def http_backend_app(root: Path) -> Callable:
    def app(environ: dict, start_response: Callable) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        cgi = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(root),
               "GIT_HTTP_EXPORT_ALL": "1", "REMOTE_USER": USER, "REMOTE_ADDR": environ.get("REMOTE_ADDR", HOST),
               "REQUEST_METHOD": environ["REQUEST_METHOD"], "PATH_INFO": environ.get("PATH_INFO", ""),
               "QUERY_STRING": environ.get("QUERY_STRING", ""), "CONTENT_LENGTH": str(len(body)),
               "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": environ.get("SERVER_PROTOCOL", "HTTP/1.1")}
        cgi.update({name: environ[key] for key, name in CGI_HEADERS.items() if environ.get(key)})
        result = subprocess.run(["git", "http-backend"], input=body, env=cgi, capture_output=True, timeout=120)
        head, separator, payload = result.stdout.partition(b"\r\n\r\n")
        if not separator or result.returncode != 0:
            start_response("500 Internal Server Error", [("Content-Type", "text/plain")])
            return [b"git http-backend failed: " + result.stderr[-2000:]]
        status, headers = "200 OK", []
        for line in head.decode("latin-1").split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = value.strip()
            elif key:
                headers.append((key, value.strip()))
        start_response(status, headers)
        return [payload]
    return app


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Handler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        print(f"{self.address_string()} {format % args}", flush=True)


def create_repository(root: Path, name: str, branch: str = "main") -> Path:
    """An empty bare repository ``root/<name>.git`` whose HEAD names ``branch``."""
    path = root / f"{name}.git"
    subprocess.run(["git", "init", "--quiet", "--bare", f"--initial-branch={branch}", str(path)], check=True)
    return path


@dataclass
class GitServer:
    proc: Proc
    url: str  # http://127.0.0.1:PORT
    root: Path

    def repository_url(self, name: str) -> str:
        return f"{self.url}/{name}.git"


def start(run_dir: Path, name: str = "git-server") -> GitServer:
    """Start the server as a component process; ready when it answers a request."""
    import sys
    import urllib.error
    import urllib.request

    from .assets import REPO_ROOT

    root = run_dir / "data" / "git"
    root.mkdir(parents=True, exist_ok=True)
    (port,) = free_ports(1)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    proc = spawn(name, [sys.executable, "-m", "tests.env.git_server", "--root", str(root), "--port", str(port)],
                 run_dir / "logs" / f"{name}.log", cwd=REPO_ROOT, env=env)
    url = f"http://{HOST}:{port}"

    def answers() -> bool:
        try:
            urllib.request.urlopen(f"{url}/none.git/info/refs", timeout=2)
        except urllib.error.HTTPError:
            return True  # 404 for a repository that does not exist: the server is up
        return True
    wait_until(proc, f"answering HTTP on {url}", answers, READY_TIMEOUT)
    return GitServer(proc, url, root)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.env.git_server", description=__doc__)
    parser.add_argument("--root", required=True, type=Path, help="the directory holding the bare repositories")
    parser.add_argument("--port", required=True, type=int)
    args = parser.parse_args()
    server = make_server(HOST, args.port, http_backend_app(args.root.resolve()), server_class=_ThreadingServer,
                         handler_class=_Handler)
    print(f"serving {args.root} on http://{HOST}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
