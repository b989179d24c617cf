"""A loopback TCP proxy in front of a server (the kube-apiserver), which a test can cut: every open connection is
closed at once and, for ``outage`` seconds, new ones are closed as soon as they are accepted. That is what a client
sees when an API server restarts or a load balancer drops its streams: a watch fails mid-stream (urllib3
ProtocolError) and requests fail until it is back. TLS passes through untouched (the proxy only copies bytes).

    with TcpProxy("127.0.0.1", 6443) as proxy:
        kubeconfig = proxy.kubeconfig_for(env.kubeconfig, tmp_path)   # same credentials, server = the proxy
        proxy.cut(outage=2.0)

The kubelet stand-in (tests/env/kubelet.py) also uses one, never cut, as the in-cluster address of a Strimzi Kafka
cluster's bootstrap Service: ``TcpProxy(broker_host, broker_port, listen=("127.x.y.z", 9092))``.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit


class TcpProxy:
    def __init__(self, host: str, port: int, listen: tuple[str, int] = ("127.0.0.1", 0)):
        """Forward ``listen`` (default: a free port of 127.0.0.1) to ``host:port``."""
        self.upstream = (host, port)
        self._listener = socket.create_server(listen)
        self.address, self.port = self._listener.getsockname()[:2]
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._refuse_until = 0.0
        self._closed = False
        self.cuts = 0
        threading.Thread(target=self._accept, name="tcpproxy-accept", daemon=True).start()

    # --- control -------------------------------------------------------------------------------------------------
    def cut(self, outage: float = 0.0) -> int:
        """Close every open connection; refuse new ones for ``outage`` seconds. Returns how many were cut."""
        with self._lock:
            self._refuse_until = time.monotonic() + outage
            victims, self._sockets = self._sockets, set()
            self.cuts += 1
        for sock in victims:
            _close(sock)
        return len(victims) // 2

    def open_connections(self) -> int:
        with self._lock:
            return len(self._sockets) // 2

    def kubeconfig_for(self, kubeconfig: str, folder: Path) -> str:
        """A copy of ``kubeconfig`` whose server is this proxy (the API server's certificate names 127.0.0.1)."""
        import yaml

        config = yaml.safe_load(Path(kubeconfig).read_text())
        for cluster in config["clusters"]:
            url = urlsplit(cluster["cluster"]["server"])
            assert url.port == self.upstream[1], f"{kubeconfig} names {url.netloc}, not the proxied server"
            cluster["cluster"]["server"] = f"{url.scheme}://127.0.0.1:{self.port}"
        path = folder / f"kubeconfig-proxy-{self.port}"
        path.write_text(json.dumps(config, indent=2))
        path.chmod(0o600)  # it names the same credentials
        return str(path)

    def close(self) -> None:
        self._closed = True
        _close(self._listener)
        self.cut()

    def __enter__(self) -> "TcpProxy":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- copying -------------------------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if time.monotonic() < self._refuse_until:
                _close(client)
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=10)
                server.settimeout(None)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._sockets |= {client, server}
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        with self._lock:
            self._sockets -= {source, sink}
        _close(source)
        _close(sink)


def _close(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
