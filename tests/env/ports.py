"""Free loopback ports for the components.

Binding port 0 lets the kernel pick a free port. There is a small window between closing the probe socket and
the component binding the port; we keep all probe sockets of one reservation open until every port is chosen,
so one call never hands out the same port twice, and the window to other processes is milliseconds.
"""
from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_ports(count: int) -> list[int]:
    """Return `count` distinct free TCP ports on 127.0.0.1."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((HOST, 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def accepts_connections(port: int, host: str = HOST, timeout: float = 0.5) -> bool:
    """True when something listens on host:port (a cheap check before a protocol-level probe)."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
