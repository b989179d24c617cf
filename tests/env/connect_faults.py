"""Connect REST errors for the operator's calls, injected by the front on each Connect worker (tests/env/path_front.py).

Connect answers the operator with 4xx/5xx in real life (a rebalance under way, offsets that do not fit the connector,
a worker failing a stop). To make one answer come on demand, a test writes rules into the environment's
``<run_dir>/connect-faults/`` folder, one file per test; the front on every worker's REST port (the port the operator
calls) answers a matching request with the rule's status and Connect's own error body instead of forwarding it.
Each rule names one connector, so a test fails only its own connector's calls and runs beside the others::

    {"rules": [{"connector": "sink-1a2b", "method": "PATCH", "path_regex": "/offsets$", "status": 400, "times": 2}]}

``path_regex`` is searched in the decoded request path; ``method`` may be ``*``; ``times`` (optional) bounds how many
requests a rule fails. The front records each injected answer in ``<file>.hits`` (one line per answer: method,
path, status), which a test reads to know the operator met the fault.

The tests' own reads (``connect_url``, tests/env/connect_router.py) go to the workers directly, never through the
front: the judges see what Connect really stores.
"""
from __future__ import annotations

import json
import os
import re
import threading
import urllib.parse
from pathlib import Path

FOLDER = "connect-faults"
HITS = ".hits"
REBALANCE = "Request cannot be completed because a rebalance is expected"  # Connect's 409/500 text


def folder(run_dir: str | Path) -> Path:
    return Path(run_dir) / FOLDER


class FaultFile:
    """One test's rules: ``write`` them, read ``hits``, ``clear`` them (a context manager clears on exit)."""

    def __init__(self, run_dir: str | Path, name: str):
        self.path = folder(run_dir) / f"{name}.json"

    def write(self, *rules: dict) -> "FaultFile":
        for rule in rules:
            _check(rule)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(json.dumps({"rules": list(rules)}))
        os.replace(tmp, self.path)  # the front never reads half a file
        return self

    def hits(self) -> list[str]:
        """The answers injected so far, one ``METHOD PATH STATUS`` line each."""
        hits = self.path.with_name(self.path.name + HITS)
        return hits.read_text().splitlines() if hits.exists() else []

    def clear(self) -> None:
        for path in (self.path, self.path.with_name(self.path.name + HITS)):
            path.unlink(missing_ok=True)

    def __enter__(self) -> "FaultFile":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()


def _check(rule: dict) -> None:
    if not rule.get("connector") or not isinstance(rule.get("status"), int) or not rule.get("method"):
        raise ValueError(f"a Connect fault rule needs connector, method and an integer status: {rule}")
    re.compile(rule.get("path_regex", ""))


class Injector:
    """The front's side: which answer (if any) to give instead of forwarding a request."""

    def __init__(self, run_dir: str | Path):
        self.folder = folder(run_dir)
        self.used: dict[tuple[str, int, str], int] = {}  # (file, rule index, rule text) -> answers given
        self.lock = threading.Lock()

    def answer(self, method: str, raw_path: str) -> tuple[int, str] | None:
        """(status, message) for a request the rules fail, else None."""
        path = urllib.parse.unquote(urllib.parse.urlsplit(raw_path).path)
        parts = path.split("/", 3)
        if len(parts) < 3 or parts[1] != "connectors" or not self.folder.is_dir():
            return None
        connector, rest = parts[2], "/" + (parts[3] if len(parts) > 3 else "")
        for file in sorted(self.folder.glob("*.json")):
            try:
                rules = json.loads(file.read_text()).get("rules") or []
            except (OSError, ValueError):
                continue  # removed meanwhile
            for index, rule in enumerate(rules):
                if rule.get("connector") != connector or rule.get("method") not in ("*", method):
                    continue
                if not re.search(rule.get("path_regex", ""), rest):
                    continue
                if self._consume(file, index, rule):
                    with open(file.with_name(file.name + HITS), "a") as hits:
                        hits.write(f"{method} {path} {rule['status']}\n")
                    return rule["status"], rule.get("message") or f"injected by the test ({file.stem})"
        return None

    def _consume(self, file: Path, index: int, rule: dict) -> bool:
        key = (file.name, index, json.dumps(rule, sort_keys=True))  # a rewritten rule counts afresh
        with self.lock:
            used = self.used.get(key, 0)
            if rule.get("times") is not None and used >= rule["times"]:
                return False
            self.used[key] = used + 1
            return True
