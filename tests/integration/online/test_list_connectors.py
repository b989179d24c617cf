"""`list` without a target against the real environment: every connector of the namespace from the status, and
with --lag the per-partition log-end offset and lag from the real broker."""
from __future__ import annotations

import json

from tests.env.clients import unique_name


def test_list_without_target_shows_every_connector_and_its_lag(env, lab, cli):
    sink = lab.sink("ov-sink", records=3, live=False)
    source = lab.source("ov-src", lines=2)
    lab.cluster.merge(sink.ns, sink.name, {"spec": {"state": "paused"}})
    lab.wait_state(sink, "PAUSED")
    lab.produce(sink.topic, ["late-1", "late-2"])  # two records the paused sink has not read
    lab.wait_state(source, "RUNNING", tasks=1)  # the table shows the operator's status: its pass that saw the task

    table = cli("list", "-n", lab.ns)
    assert table.exit_code == 0, str(table)
    rows = {line.split()[0]: line.split() for line in table.stdout.splitlines()[1:]}
    assert rows[sink.name][1:] == ["KafkaConnector", sink.name, "sink", "FileStreamSinkConnector", "PAUSED", "0/1"]
    assert rows[source.name][3:] == ["source", "FileStreamSourceConnector", "RUNNING", "1/1"]
    assert "listing the offsets" not in table.stderr and "waiting for the operator" not in table.stderr

    lagged = cli("list", "-n", lab.ns, "--lag", "--bootstrap-server", env.bootstrap_servers, "-o", "json", "-q")
    assert lagged.exit_code == 0, str(lagged)
    by_name = {c["name"]: c for c in json.loads(lagged.stdout)["connectors"]}
    committed, end = lab.judge.sink_offsets(sink.name)[0], lab.judge.end_offsets(sink.topic)[0]
    assert (committed, end) == (3, 5)  # the truth the listed lag reports
    assert by_name[sink.name]["partitions"] == [
        {"topic": sink.topic, "partition": 0, "currentOffset": committed, "logEndOffset": end, "lag": end - committed}]
    assert by_name[source.name]["partitions"] == []  # a file source has no log end to compare with


def test_list_without_target_in_an_empty_namespace(cli):
    empty = unique_name("empty")
    result = cli("list", "-n", empty)
    assert result.exit_code == 0, str(result)
    assert result.stdout == "" and result.stderr.strip() == f"No resources found in {empty} namespace."
