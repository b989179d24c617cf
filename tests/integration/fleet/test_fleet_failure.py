"""A connector that fails in the middle of a fleet reset: the others are done, it is left safe (running again, no
journal, its offsets untouched) with the exact next command, and the exit status says that something failed.

Connect answers the operator's DELETE /offsets of that one connector with 400, through the front on the Connect
workers (``connect_faults``): a rule for the test's own connector, so it runs beside the others. Judged by Connect's
stored offsets, the sinks' consumer groups and their files.
"""
from __future__ import annotations

import json
import uuid

import pytest

from tests.integration.fleet.conftest import _label, _namespace_with_connect
from tests.integration.online.conftest import Cluster, eventually, live_state


@pytest.fixture
def three_sinks(env, kafka_admin, kube_api, tmp_path):
    cluster = Cluster(kube_api)
    lab = _namespace_with_connect(env, cluster, kafka_admin, "fleet-fail", tmp_path)
    tag = uuid.uuid4().hex[:6]
    sinks = []
    for i in range(3):
        conn = lab.sink("sink", records=2 + i)
        _label(cluster, conn, {"kubectl-offsets-fleet": tag})
        sinks.append(conn)
    yield lab, sinks, f"kubectl-offsets-fleet={tag}"
    lab.producer.flush(10)
    lab.producer = None
    cluster.custom.delete_collection_namespaced_custom_object("kafka.strimzi.io", "v1", lab.ns, "kafkaconnectors")
    cluster.core.delete_namespace(lab.ns)


def test_one_failing_connector_leaves_the_others_done_and_itself_safe(cli, cluster, connect_faults, three_sinks):
    lab, sinks, selector = three_sinks
    victim = sinks[1]
    for records, conn in enumerate(sinks, start=2):
        lab.judge.wait_sink_offsets(conn.name, {0: records}, but=conn.live_partition)
    connect_faults.write({"connector": victim.name, "method": "DELETE", "path_regex": "/offsets$", "status": 400})
    result = cli("reset", "-l", selector, "-n", lab.ns, "--yes", "--parallel", "3")
    connect_faults.clear()

    assert result.exit_code != 0, result
    assert "2 done" in result.stderr and "1 failed" in result.stderr, result
    summary = {line.split()[1]: line for line in result.stdout.splitlines()[1:]}
    assert "failed" in summary[f"kafkaconnector/{victim.name}"]
    assert "kubectl offsets" in summary[f"kafkaconnector/{victim.name}"]  # the next command for it
    for records, conn in enumerate(sinks, start=2):
        obj = cluster.get(conn.ns, conn.name)
        assert "kubectl-offsets.io/journal" not in (obj["metadata"].get("annotations") or {}), json.dumps(obj)[:800]
        assert live_state(obj) == "RUNNING" and obj["spec"].get("state") in (None, "running")
        if conn is victim:  # made safe: running again, its offsets and its file untouched
            committed = lab.judge.sink_offsets(conn.name)
            assert committed[0] == records and committed[conn.live_partition] > 0  # the live one moved on
            assert conn.file_lines() == [f"r{i}" for i in range(records)]
        else:  # reset for real: the sink read its topic again from the start
            eventually(f"{conn.name} re-read its topic", lambda c=conn, n=records: len(c.file_lines()) == 2 * n)
