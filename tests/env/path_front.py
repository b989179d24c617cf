"""A front for a Connect worker's REST API that percent-encodes what Strimzi before 0.46 sends raw in a path.

Strimzi 0.44-0.45 put a MirrorMaker 2 connector's name into the request path as it is
(``/connectors/east->west.MirrorSourceConnector/config``; later releases send ``%2D%3E``). Kafka Connect 4 (Jetty 12),
which every worker of this environment runs whatever ``spec.version`` says, answers a raw ``>`` in a path with
"400 Illegal Path Character"; the Connect 3.8-3.9 that those releases run in production (Jetty 9) takes it. So for
a pod of such a release the kubelet stand-in (tests/env/kubelet.py) serves this front on the pod's REST port, the
one the operator calls, and runs the worker behind it; nothing else changes on the way.
"""
from __future__ import annotations

from http.server import ThreadingHTTPServer

from .connect_router import error_answer, forward, proxy_handler, serve_in_thread

# What Jetty 12 refuses in a path and the old operator sends raw.
RAW = {">": "%3E", "<": "%3C"}


def encoded(path: str) -> str:
    for raw, escaped in RAW.items():
        path = path.replace(raw, escaped)
    return path


def _answer_of(backend: str):
    def answer(method: str, path: str, body: bytes | None, ctype: str | None) -> tuple[int, str, bytes]:
        try:
            return forward(backend, method, encoded(path), body, ctype)
        except OSError as e:  # the worker is not (or no longer) up
            return error_answer(503, f"Connect worker unreachable: {e}")
    return answer


def serve(address: str, port: int, backend: str) -> ThreadingHTTPServer:
    """Serve the front on address:port in a daemon thread, forwarding to ``backend``; ``stop(server)`` ends it."""
    return serve_in_thread((address, port), proxy_handler(_answer_of(backend.rstrip("/"))), f"path-front-{address}")


def stop(server: ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()
