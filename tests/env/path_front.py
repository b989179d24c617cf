"""A front for a Connect worker's REST API that percent-encodes what Strimzi before 0.46 sends raw in a path.

Strimzi 0.44-0.45 put a MirrorMaker 2 connector's name into the request path as it is
(``/connectors/east->west.MirrorSourceConnector/config``; later releases send ``%2D%3E``). Kafka Connect 4 (Jetty 12),
which every worker of this environment runs whatever ``spec.version`` says, answers a raw ``>`` in a path with
"400 Illegal Path Character"; the Connect 3.8-3.9 that those releases run in production (Jetty 9) takes it. So for
a pod of such a release the kubelet stand-in (tests/env/kubelet.py) serves this front on the pod's REST port, the
one the operator calls, and runs the worker behind it; nothing else changes on the way.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .connect_router import forward

# What Jetty 12 refuses in a path and the old operator sends raw.
RAW = {">": "%3E", "<": "%3C"}


def encoded(path: str) -> str:
    for raw, escaped in RAW.items():
        path = path.replace(raw, escaped)
    return path


def _handler(backend: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            try:
                status, ctype, raw = forward(backend, self.command, encoded(self.path), body,
                                             self.headers.get("Content-Type"))
            except OSError as e:  # the worker is not (or no longer) up
                status, ctype = 503, "application/json"
                raw = json.dumps({"error_code": 503, "message": f"Connect worker unreachable: {e}"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_PUT = do_POST = do_DELETE = do_PATCH = _serve

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    return Handler


def serve(address: str, port: int, backend: str) -> ThreadingHTTPServer:
    """Serve the front on address:port in a daemon thread, forwarding to ``backend``; ``stop(server)`` ends it."""
    server = ThreadingHTTPServer((address, port), _handler(backend.rstrip("/")))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=f"path-front-{address}", daemon=True).start()
    return server


def stop(server: ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()
