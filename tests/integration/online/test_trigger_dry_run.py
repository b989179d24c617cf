"""Issue 28: `trigger --dry-run` checks what its help says it checks, the phase-1 ConfigMap included. Before, it said
"would fire" for an alter whose ConfigMap was missing or held no offsets document; the real trigger would then have
stopped at that ConfigMap after its backup and journal."""

from __future__ import annotations

import json

from .conftest import assert_unchanged, snapshot
from .test_guards import GITOPS, sink_document, stop


def test_trigger_dry_run_reads_the_phase1_configmap(lab, cli):
    conn = lab.sink("trg-dry", records=2)
    configmap = f"{conn.name}-offsets-0a1b2c3d"
    record = {"id": "0a1b2c3d4e5f6a7b", "phase": 1, "operation": "alter", "connector": conn.name,
              "configMap": configmap}
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {GITOPS: json.dumps(record)}}})
    stop(lab, conn, alterOffsets={"fromConfigMap": {"name": configmap}})
    before = snapshot(lab.cluster, conn)

    missing = cli("trigger", conn.name, "-n", conn.ns, "--dry-run", "--timeout", "60s")

    assert missing.exit_code == 5, str(missing)
    assert f"configmap/{configmap}" in missing.stderr and "would fire" not in missing.stdout, str(missing)
    assert "  hint: " in missing.stderr
    assert_unchanged(lab.cluster, conn, before, listed=True)

    lab.cluster.put_configmap(conn.ns, configmap, {"offsets.json": '{"offsets": "not a list"}'})
    before = snapshot(lab.cluster, conn)
    broken = cli("trigger", conn.name, "-n", conn.ns, "--dry-run", "--timeout", "60s")

    assert broken.exit_code == 5, str(broken)
    assert f"configmap/{configmap}" in broken.stderr and "would fire" not in broken.stdout, str(broken)
    assert_unchanged(lab.cluster, conn, before, listed=True)

    lab.cluster.put_configmap(conn.ns, configmap, {"offsets.json": sink_document(conn.topic, {0: 1})})
    before = snapshot(lab.cluster, conn)
    good = cli("trigger", conn.name, "-n", conn.ns, "--dry-run", "--timeout", "60s")

    assert good.exit_code == 0, str(good)
    assert "would fire the alter" in good.stdout and f"1 offset from configmap/{configmap}" in good.stdout
    assert_unchanged(lab.cluster, conn, before, listed=True)
    # The engine's writes, recorded (issue 29): the hand-over carries the one-shot annotation and the marker.
    assert f"# patch kafkaconnector/{conn.name}" in good.stdout and "connector-offsets" in good.stdout, good.stdout
    assert "kubectl-offsets.io~1triggered" in good.stdout, good.stdout

    judged = cli("trigger", conn.name, "-n", conn.ns, "--dry-run=server", "--timeout", "60s")

    assert judged.exit_code == 0, str(judged)
    assert "server-side dry run: the API server accepted" in judged.stderr, judged.stderr
    assert "no server-side dry run" not in judged.stderr
    assert_unchanged(lab.cluster, conn, before, listed=True)
