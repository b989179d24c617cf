"""Fault-injection knobs, re-read from the ``--faults`` JSON file on every reconcile.

File format (every key optional; a missing or empty file means no faults)::

    {"delay_seconds": 5.0,            # sleep before handling an offsets annotation (a slow operator); a write
                                      # of the file without it ends the sleep (offsets._delay)
     "connect_busy_seconds": 15.0,    # a KafkaConnect reconcile holds its lock this long first (a build or rolling
                                      # update), so connector events wait for the lock and are dropped after 10 s
     "ignore_offsets": true,          # operator alive but never acts on offsets annotations
     "connect_failures": [            # answer matching Connect calls with this HTTP error instead of calling Connect
        {"method": "PATCH", "path_regex": "/offsets$", "status": 500, "times": 1}]}

``times`` is optional (absent = fail every matching call).  Consumption is counted per rule and per *write* of the
file: re-reading an unchanged file does not start a fresh count, but every write does (environment.write_faults
replaces the file by a rename, so each write is a new file), even with the same rules: a test's rerun, or the next
test writing the same rule, meets its faults again.  "Operator not running" is not a knob: the environment stops the
process.
"""
import json
import os
import re
import threading
from urllib.parse import unquote


class FaultConfigError(ValueError):
    pass


class Faults:
    def __init__(self, path):
        self._path = path
        self._lock = threading.Lock()
        self._used = {}  # rule fingerprint -> number of calls already failed by it
        self._rules = []
        self._version = None  # the file's write whose counts _used holds
        self.delay_seconds = 0.0
        self.connect_busy_seconds = 0.0
        self.ignore_offsets = False

    def reload(self):
        """Re-read the file; called at the start of every reconcile so tests can flip knobs at run time."""
        version = self._file_version()
        data = self._read()
        with self._lock:
            self.delay_seconds = float(data.get("delay_seconds") or 0.0)
            self.connect_busy_seconds = float(data.get("connect_busy_seconds") or 0.0)
            self.ignore_offsets = bool(data.get("ignore_offsets", False))
            self._rules = [_validate_rule(r) for r in data.get("connect_failures") or []]
            if version != self._version:  # a new write of the file: every rule's count starts afresh
                self._used, self._version = {}, version

    def _file_version(self):
        """Which write of the file this is: its inode and modification time (None: no file)."""
        try:
            stat = os.stat(self._path) if self._path else None
        except FileNotFoundError:
            return None
        return (stat.st_ino, stat.st_mtime_ns) if stat else None

    def _read(self):
        if not self._path:
            return {}
        try:
            with open(self._path, encoding="utf-8") as fh:
                text = fh.read()
        except FileNotFoundError:
            return {}
        if not text.strip():
            return {}
        data = json.loads(text)
        if not isinstance(data, dict):
            raise FaultConfigError(f"{self._path}: top level must be a JSON object")
        return data

    def connect_failure(self, method, path):
        """HTTP status to answer instead of calling Connect, or None.  Counts the use against ``times``."""
        with self._lock:
            for rule in self._rules:
                if rule["method"] not in ("*", method.upper()):
                    continue
                # Match the path as sent (`->` encoded as %2D%3E) or decoded, whichever the test author wrote.
                if not (re.search(rule["path_regex"], path) or re.search(rule["path_regex"], unquote(path))):
                    continue
                key = _fingerprint(rule)
                used = self._used.get(key, 0)
                if rule.get("times") is not None and used >= rule["times"]:
                    continue
                self._used[key] = used + 1
                return int(rule["status"])
        return None


def _fingerprint(rule):
    return json.dumps(rule, sort_keys=True)


def _validate_rule(rule):
    if not isinstance(rule, dict) or "status" not in rule:
        raise FaultConfigError(f"connect_failures entry needs at least 'status': {rule!r}")
    return {
        "method": str(rule.get("method", "*")).upper(),
        "path_regex": str(rule.get("path_regex", "")),
        "status": int(rule["status"]),
        "times": None if rule.get("times") is None else int(rule["times"]),
    }
