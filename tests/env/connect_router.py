"""One Connect REST URL over several workers (the environment's ``connect_url`` when Strimzi's real operator runs).

With the real operator every KafkaConnect is its own Connect cluster (a worker per pod, tests/env/kubelet.py), but the
tests reach Connect through one URL. This router:

- sends ``/connectors/NAME[/...]`` to the worker that runs NAME (it asks each worker ``GET /connectors/NAME``);
- answers ``GET /connectors`` (with or without ``?expand=``) with the union of every worker's answer;
- sends ``POST /connectors`` for a name no worker has, and everything else, to the environment's own plain worker
  (no operator manages it; tests that create connectors directly on Connect use it).

Connector names are unique across tests, so a name never lives on two workers.
"""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from .ports import HOST

TIMEOUT = 60.0  # some Connect calls (stop, offsets) take seconds while a rebalance runs


def forward(base: str, method: str, path: str, body: bytes | None, content_type: str | None) -> tuple[int, str, bytes]:
    """(status, content type, body) of ``method path`` on ``base``; HTTP errors are answers, not exceptions."""
    req = urllib.request.Request(base + path, data=body, method=method)
    req.add_header("Accept", "application/json")
    if content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, resp.headers.get("Content-Type", "application/json"), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", "application/json"), e.read()


def connector_name(path: str) -> str | None:
    """NAME of ``/connectors/NAME[/...]``, else None."""
    parts = urllib.parse.urlsplit(path).path.split("/")
    if len(parts) >= 3 and parts[1] == "connectors" and parts[2]:
        return urllib.parse.unquote(parts[2])
    return None


def merge_connector_lists(answers: list[object]) -> object:
    """``GET /connectors`` of several workers as one: names in order without repeats, or the expanded maps merged."""
    if any(isinstance(a, dict) for a in answers):
        merged: dict = {}
        for a in answers:
            if isinstance(a, dict):
                merged.update(a)
        return merged
    names: list = []
    for a in answers:
        for name in a if isinstance(a, list) else []:
            if name not in names:
                names.append(name)
    return names


class Router:
    """Finding a connector's worker means asking the workers one by one (a suite runs twenty and more), and the
    tests' waits ask Connect several times a second: so the router remembers where each connector was found, and
    looks again only when that worker no longer has it (deleted, or its worker ended)."""

    def __init__(self, plain_url: str, workers: Callable[[], list[str]]):
        self.plain_url, self.workers = plain_url.rstrip("/"), workers
        self._owners: dict[str, str] = {}  # connector name -> the worker it was last found on
        self._lock = threading.Lock()

    def owner_of(self, name: str) -> str | None:
        quoted = urllib.parse.quote(name, safe="")
        for url in self.workers():
            try:
                if forward(url, "GET", f"/connectors/{quoted}", None, None)[0] == 200:
                    with self._lock:
                        self._owners[name] = url
                    return url
            except OSError:
                continue  # a worker going away
        return None

    @staticmethod
    def name_in(method: str, path: str, body: bytes | None) -> str | None:
        """The connector a request is about: in its path, or the name a ``POST /connectors`` creates."""
        name = connector_name(path)
        if name is None and method == "POST" and urllib.parse.urlsplit(path).path.rstrip("/") == "/connectors":
            try:
                name = json.loads(body or b"{}").get("name")
            except ValueError:
                name = None
        return name

    def target(self, method: str, path: str, body: bytes | None) -> str:
        name = self.name_in(method, path, body)
        return (self.owner_of(name) if name else None) or self.plain_url

    def route(self, method: str, path: str, body: bytes | None, ctype: str | None) -> tuple[int, str, bytes]:
        """Forward the request to the connector's worker: the remembered one while it still has the connector."""
        name = self.name_in(method, path, body)
        with self._lock:
            remembered = self._owners.get(name) if name else None
        if remembered and name:
            try:
                answer = forward(remembered, method, path, body, ctype)
                if answer[0] != 404 or self._has(remembered, name):
                    return answer
            except OSError:
                pass  # its worker ended
            with self._lock:
                self._owners.pop(name, None)
        return forward(self.target(method, path, body), method, path, body, ctype)

    @staticmethod
    def _has(url: str, name: str) -> bool:
        """Whether the worker at ``url`` runs ``name``: a 404 of a sub-resource is the answer, not a move."""
        try:
            return forward(url, "GET", f"/connectors/{urllib.parse.quote(name, safe='')}", None, None)[0] == 200
        except OSError:
            return False

    def list_all(self, path: str) -> tuple[int, str, bytes]:
        answers = []
        for url in [self.plain_url, *self.workers()]:
            try:
                status, _, raw = forward(url, "GET", path, None, None)
            except OSError:
                continue
            if status == 200:
                answers.append(json.loads(raw))
        return 200, "application/json", json.dumps(merge_connector_lists(answers)).encode()


Answer = Callable[[str, str, "bytes | None", "str | None"], "tuple[int, str, bytes]"]


def proxy_handler(answer: Answer) -> type[BaseHTTPRequestHandler]:
    """A request handler that reads the request, asks ``answer(method, path, body, content_type)`` for the reply
    (status, content type, body) and sends it: the router's and tests/env/path_front.py's."""
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            status, ctype, raw = answer(self.command, self.path, body, self.headers.get("Content-Type"))
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = _serve

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    return Handler


def error_answer(status: int, message: str) -> tuple[int, str, bytes]:
    """Connect's own error shape, for what the proxy itself cannot do."""
    return status, "application/json", json.dumps({"error_code": status, "message": message}).encode()


def serve_in_thread(address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                    name: str) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(address, handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=name, daemon=True).start()
    return server


def _answer_of(router: Router) -> Answer:
    def answer(method: str, path: str, body: bytes | None, ctype: str | None) -> tuple[int, str, bytes]:
        if method == "GET" and urllib.parse.urlsplit(path).path.rstrip("/") == "/connectors":
            return router.list_all(path)
        try:
            return router.route(method, path, body, ctype)
        except OSError as e:
            return error_answer(502, f"Connect router: {e}")
    return answer


def serve(port: int, plain_url: str, workers: Callable[[], list[str]]) -> ThreadingHTTPServer:
    """Start the router on HOST:port in a daemon thread; ``shutdown()`` stops it."""
    return serve_in_thread((HOST, port), proxy_handler(_answer_of(Router(plain_url, workers))), "connect-router")
