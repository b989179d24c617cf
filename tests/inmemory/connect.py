"""An in-memory Kafka Connect worker behind the emulator's own REST client (``ConnectClient``), so the operator
emulation sends the same requests, and reads the same answers, as against a real worker.

What a real worker does that matters to offsets (KIP-875, KIP-980; Kafka's ``ConnectorsResource``):
- state changes are asynchronous: pause/resume answer 202 and stop 204 at once, and the status shows the new state a
  moment later (``TRANSITION_SECONDS`` of virtual time); a STOPPED connector has no tasks;
- ``GET /offsets`` lists the stored offsets; ``PATCH`` (null removes a partition) and ``DELETE`` need the connector
  STOPPED, else 400;
- a RUNNING sink with ``traffic`` moves its offsets on (one record per partition and second): what a live partition
  does while the plugin lists it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from tests.env.emulator.connect_client import ConnectClient

TRANSITION_SECONDS = 1.0
VERBS = {"pause": "PAUSED", "resume": "RUNNING", "stop": "STOPPED"}


@dataclass
class Connector:
    name: str
    config: dict[str, Any]
    state: str = "RUNNING"
    type: str = "sink"
    offsets: dict[str, dict[str, Any]] = field(default_factory=dict)  # partition JSON -> offset
    pending: tuple[str, float] | None = None  # (state, when it takes effect)
    traffic: bool = False

    @property
    def tasks(self) -> list[dict[str, Any]]:
        if self.state == "STOPPED":
            return []
        return [{"id": 0, "state": self.state, "worker_id": "memory:8083"}]

    def status(self) -> dict[str, Any]:
        return {"name": self.name, "connector": {"state": self.state, "worker_id": "memory:8083"}, "tasks": self.tasks,
                "type": self.type}

    def document(self) -> dict[str, Any]:
        return {"offsets": [{"partition": json.loads(p), "offset": o} for p, o in sorted(self.offsets.items())]}


class Worker:
    """The worker's state and its REST answers: (HTTP status, JSON body)."""

    def __init__(self, clock) -> None:
        self.clock = clock
        self.connectors: dict[str, Connector] = {}
        self.requests: list[tuple[str, str]] = []
        self._last_traffic = clock.monotonic()

    def tick(self) -> None:
        """Let virtual time act: pending state changes take effect, running sinks with traffic move on."""
        now = self.clock.monotonic()
        for connector in self.connectors.values():
            if connector.pending and connector.pending[1] <= now:
                connector.state, connector.pending = connector.pending[0], None
        seconds = int(now - self._last_traffic)
        if seconds >= 1:
            self._last_traffic += seconds
            for connector in self.connectors.values():
                if connector.traffic and connector.state == "RUNNING":
                    for offset in connector.offsets.values():
                        offset["kafka_offset"] = offset.get("kafka_offset", 0) + seconds

    def next_change(self) -> float | None:
        """When the next pending state change takes effect (virtual seconds), if any."""
        times = [c.pending[1] for c in self.connectors.values() if c.pending]
        return min(times) if times else None

    def handle(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        self.requests.append((method, path))
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts == ["connectors"] and method == "POST":
            return self._create(body)
        if len(parts) < 2 or parts[0] != "connectors":
            return 404, {"error_code": 404, "message": f"no such path {path}"}
        name, rest = parts[1], parts[2:]
        connector = self.connectors.get(name)
        if rest == ["config"] and method == "PUT":
            if connector is None:
                self.connectors[name] = Connector(name, dict(body), type=_type(body))
                return 201, {"name": name, "config": body}
            connector.config = dict(body)
            return 200, {"name": name, "config": body}
        if connector is None:
            return 404, {"error_code": 404, "message": f"Connector {name} not found"}
        if not rest and method == "DELETE":
            del self.connectors[name]
            return 204, None
        if rest == ["config"] and method == "GET":
            return 200, connector.config
        if rest == ["status"]:
            return 200, connector.status()
        if rest == ["topics"]:
            topics = [t.strip() for t in str(connector.config.get("topics") or "").split(",") if t.strip()]
            return 200, {name: {"topics": topics if connector.state != "STOPPED" else []}}
        if len(rest) == 1 and rest[0] in VERBS and method == "PUT":
            target = VERBS[rest[0]]
            if connector.state != target:
                connector.pending = (target, self.clock.monotonic() + TRANSITION_SECONDS)
            return (204 if rest[0] == "stop" else 202), None
        if rest == ["offsets"]:
            return self._offsets(connector, method, body)
        return 405, {"error_code": 405, "message": "HTTP 405 Method Not Allowed"}

    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        name = body["name"]
        if name in self.connectors:
            return 409, {"error_code": 409, "message": f"Connector {name} already exists"}
        self.connectors[name] = Connector(name, dict(body["config"]), state=body.get("initial_state") or "RUNNING",
                                          type=_type(body["config"]))
        return 201, {"name": name, "config": body["config"]}

    def _offsets(self, connector: Connector, method: str, body: Any) -> tuple[int, Any]:
        if method == "GET":
            return 200, connector.document()
        if connector.state != "STOPPED":
            return 400, {"error_code": 400, "message": "Connectors must be in the STOPPED state before their offsets "
                                                       "can be modified. This can be done for the specified connector "
                                                       "by issuing a 'PUT' request to the '/connectors/"
                                                       f"{connector.name}/stop' endpoint"}
        if method == "DELETE":
            connector.offsets.clear()
            return 200, {"message": "The offsets for this connector have been reset successfully"}
        for entry in body.get("offsets") or []:
            key = json.dumps(entry["partition"], sort_keys=True)
            if entry.get("offset") is None:
                connector.offsets.pop(key, None)
            else:
                connector.offsets[key] = dict(entry["offset"])
        return 200, {"message": "The offsets for this connector have been altered successfully"}


def _type(config: dict[str, Any]) -> str:
    return "sink" if str(config.get("connector.class", "")).endswith("SinkConnector") else "source"


class WorkerClient(ConnectClient):
    """The emulator's Connect client with the in-memory worker as its transport."""

    def __init__(self, worker: Worker, faults, profile) -> None:
        super().__init__("memory://connect", faults, profile)
        self.worker = worker

    def _request(self, method, path, body=None, raw_body=None):
        injected = self._faults.connect_failure(method, path)
        if injected is not None:
            return injected, {"error_code": injected, "message": "injected by emulator fault knob"}
        if raw_body is not None:
            body = json.loads(raw_body)
        return self.worker.handle(method, path, body)
