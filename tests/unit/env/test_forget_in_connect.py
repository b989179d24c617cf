"""A module that shares a KafkaConnect leaves Connect running none of its connectors (tests/env/clients.forget_in_connect,
at clear_namespace): the operator's deletions may meet a rebalance and wait minutes for its periodic pass,
which would then delete them in the middle of the next module. A Connect REST stand-in on a loopback port plays
Connect: one connector the operator deleted, one it did not."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.env.clients import forget_in_connect


class _Connect(BaseHTTPRequestHandler):
    running: set[str] = set()
    deletes: list[str] = []

    def _name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def do_GET(self):  # noqa: N802 (http.server's names)
        found = self._name() in self.running
        self._answer(200 if found else 404, {"name": self._name()} if found else {"error_code": 404})

    def do_DELETE(self):  # noqa: N802
        self.deletes.append(self._name())
        self.running.discard(self._name())
        self._answer(204, None)

    def _answer(self, status: int, body) -> None:
        raw = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


@pytest.fixture
def connect():
    _Connect.running, _Connect.deletes = set(), []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Connect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Connect
    server.shutdown()


def test_connectors_the_operator_deleted_are_left_alone(connect):
    url, state = connect
    forget_in_connect(url, ["gone-a", "gone-b"], grace=2)
    assert state.deletes == []


def test_a_straggler_is_deleted_after_the_grace_and_only_it(connect):
    url, state = connect
    state.running.add("straggler")
    forget_in_connect(url, ["gone", "straggler"], grace=1, timeout=5)
    assert state.deletes == ["straggler"]
    assert not state.running
