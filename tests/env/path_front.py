"""The front on each Connect worker's REST port (the port the operator calls): Connect errors on demand, and paths
made acceptable to Connect 4.

- Faults: a request that a test's rule in ``<run_dir>/connect-faults/`` matches is answered with the rule's status
  and Connect's own error body instead of being forwarded (tests/env/connect_faults.py): Connect's 4xx/5xx to the
  operator, produced where the operator meets them in production.
- Paths: Strimzi 0.44-0.45 put a MirrorMaker 2 connector's name into the request path as it is
  (``/connectors/east->west.MirrorSourceConnector/config``; later releases send ``%2D%3E``). Kafka Connect 4 (Jetty
  12), which every worker of this environment runs whatever ``spec.version`` says, answers a raw ``>`` in a path with
  "400 Illegal Path Character"; the Connect 3.8-3.9 that those releases run in production (Jetty 9) takes it. For a
  pod of such a release the front percent-encodes what Jetty 12 refuses.

Nothing else changes on the way. The kubelet stand-in (tests/env/kubelet.py) serves one front per pod and runs the
worker behind it; the tests' Connect router calls the workers directly.
"""
from __future__ import annotations

from http.server import ThreadingHTTPServer

from .connect_faults import Injector
from .connect_router import error_answer, forward, proxy_handler, serve_in_thread

# What Jetty 12 refuses in a path and the old operator sends raw.
RAW = {">": "%3E", "<": "%3C"}


def encoded(path: str) -> str:
    for raw, escaped in RAW.items():
        path = path.replace(raw, escaped)
    return path


def _answer_of(backend: str, faults: Injector, encode: bool):
    def answer(method: str, path: str, body: bytes | None, ctype: str | None) -> tuple[int, str, bytes]:
        if encode:
            path = encoded(path)
        injected = faults.answer(method, path)
        if injected is not None:
            return error_answer(*injected)
        try:
            return forward(backend, method, path, body, ctype)
        except OSError as e:  # the worker is not (or no longer) up
            return error_answer(503, f"Connect worker unreachable: {e}")
    return answer


def serve(address: str, port: int, backend: str, faults: Injector, *, encode: bool) -> ThreadingHTTPServer:
    """Serve the front on address:port in a daemon thread, forwarding to ``backend`` (``encode``: percent-encode what
    Jetty 12 refuses); ``stop(server)`` ends it."""
    handler = proxy_handler(_answer_of(backend.rstrip("/"), faults, encode))
    return serve_in_thread((address, port), handler, f"connect-front-{address}")


def stop(server: ThreadingHTTPServer) -> None:
    server.shutdown()
    server.server_close()
