"""kubectl's output conventions against the real environment: -o name, -o jsonpath, --no-headers on list and
alter, and -v 6 logging every API request (method, URL, status, latency) without headers or credentials."""
from __future__ import annotations

import re

REQUEST_LINE = re.compile(r"^(GET|PATCH|POST|PUT|DELETE) https?://\S+ \d{3}( [A-Za-z ]+)? in \d+ milliseconds$")


def test_name_jsonpath_no_headers_and_request_log(lab, cli):
    conn = lab.sink("kout", records=3, live=False, state="paused", wait_for=0)

    name = cli("list", conn.name, "-n", conn.ns, "-o", "name", "-q")
    assert name.exit_code == 0, str(name)
    assert name.stdout == f"kafkaconnector/{conn.name}\n"

    altered = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=2", "--yes", "-q",
                  "-o", "jsonpath={.offsets[0].offset.kafka_offset}")
    assert altered.exit_code == 0, str(altered)
    assert altered.stdout == "2"

    table = cli("list", conn.name, "-n", conn.ns, "--no-headers", "-q")
    assert table.exit_code == 0, str(table)
    assert table.stdout.split() == [conn.topic, "0", "2"]

    logged = cli("list", conn.name, "-n", conn.ns, "-q", "-v", "6")
    assert logged.exit_code == 0, str(logged)
    requests = [line for line in logged.stderr.splitlines() if REQUEST_LINE.match(line)]
    assert any(line.startswith("PATCH ") and f"/kafkaconnectors/{conn.name}" in line for line in requests)
    assert any(line.startswith("GET ") and "/configmaps/" in line for line in requests)
    assert "authorization:" not in logged.stderr.lower() and "bearer" not in logged.stderr.lower()  # no headers
    assert all(REQUEST_LINE.match(line) for line in logged.stderr.splitlines()), logged.stderr  # -q: only requests

    quiet = cli("list", conn.name, "-n", conn.ns, "-q")  # without -v nothing is logged (the log does not linger)
    assert quiet.stderr == ""
