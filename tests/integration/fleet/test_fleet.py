"""Fleet operations against the real environment: twelve connectors in two namespaces (see conftest.py).

In order (one module, one worker): selection narrows to what the selector says; a fleet reset never has more
connectors STOPPED at once than --parallel; export -> reset --all -> import puts every offset back exactly, and a
sink then continues from the imported position; undo --since restores the backups a fleet operation took.
"""
from __future__ import annotations

import json
import threading
import time

from tests.integration.online.conftest import GROUP, VERSION, eventually, live_state


def _offsets_by_connector(document: dict) -> dict[tuple[str, str], list]:
    return {(e["namespace"], e["connector"]): sorted(json.dumps(o, sort_keys=True) for o in e["offsets"])
            for e in document["connectors"]}


def _list(cli, fleet, *extra) -> dict:
    result = cli("list", "-A", "-l", fleet.selector, "-o", "json", *extra)
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def test_list_by_selector_across_namespaces_names_every_connector(cli, fleet):
    document = _list(cli, fleet)
    found = sorted((e["namespace"], e["kind"], e["connector"]) for e in document["connectors"])
    expected = sorted([(c.ns, "KafkaConnector", c.name) for c in fleet.sinks + fleet.sources]
                      + [(fleet.mirror["ns"], "KafkaMirrorMaker2", c) for c in fleet.mirror["connectors"]])
    assert found == expected and len(found) == 12
    sinks = cli("list", "-A", "-l", f"{fleet.selector},role=sink", "-o", "csv")
    assert sinks.exit_code == 0, sinks
    lines = sinks.stdout.splitlines()
    assert lines[0] == "namespace,kind,name,connector,topic,partition,offset"
    rows = [line.split(",") for line in lines[1:]]
    # every sink consumed all its records from partition 0: 3, 4, 5 in namespace a and 3, 4 in namespace b...
    assert sorted(int(row[-1]) for row in rows if row[5] == "0") == [3, 3, 4, 4, 5]
    # ...and is reading its live partition, which a producer feeds the whole time
    assert len([row for row in rows if row[5] == "1" and int(row[-1]) > 0]) == 5
    table = cli("list", "--all", "-n", fleet.labs["b"].ns)
    assert table.exit_code == 0, table
    assert table.stdout.splitlines()[0].split() == ["NAMESPACE", "RESOURCE", "CONNECTOR", "PARTITION", "OFFSET"]
    assert {line.split()[0] for line in table.stdout.splitlines()[1:]} == {fleet.labs["b"].ns}


class RequestCounter:
    """Counts, per connector, the one-shot requests placed on it, from the watch stream of every change (a poll
    could miss a list the operator completes within its interval): a request is counted when the value of
    strimzi.io/connector-offsets appears on a resource that did not carry it in its previous version."""

    def __init__(self, cluster, selector: str):
        from kubernetes import watch

        self.cluster, self.selector = cluster, selector
        self.counts: dict[str, list[str]] = {}  # connector -> the requests placed on it, in order
        self._last: dict[str, str | None] = {}
        self._watch = watch.Watch()
        self._stopping, self._failure = False, None
        start = cluster.custom.list_cluster_custom_object(GROUP, VERSION, "kafkaconnectors", label_selector=selector)
        self._since = start["metadata"]["resourceVersion"]
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stopping = True
        self._watch.stop()
        self._thread.join(10)
        if self._failure is not None:  # the counts would be incomplete: say why instead of a wrong comparison
            raise AssertionError(f"the watch of the requests broke: {self._failure!r}")

    def _run(self) -> None:
        try:
            self._count()
        except Exception as failure:  # noqa: BLE001 - closing the stream at the end raises too
            if not self._stopping:
                self._failure = failure

    def _count(self) -> None:
        for event in self._watch.stream(self.cluster.custom.list_cluster_custom_object, GROUP, VERSION,
                                        "kafkaconnectors", label_selector=self.selector,
                                        resource_version=self._since, timeout_seconds=600):
            obj = event["object"]
            name = obj["metadata"]["name"]
            value = (obj["metadata"].get("annotations") or {}).get("strimzi.io/connector-offsets")
            if value is not None and self._last.get(name) != value:
                self.counts.setdefault(name, []).append(value)
            self._last[name] = value


def test_a_fleet_reset_never_stops_more_connectors_than_parallel(cli, fleet, cluster):
    """...and asks the operator for one list per connector fewer than single resets would: the plan's list (the
    preview) also serves the run, which lists only after the stop (the backup) and after the reset (verify)."""
    selector = f"{fleet.selector},role=sink"
    peak, seen, stop = [0], set(), threading.Event()

    def watch():
        while not stop.is_set():
            items = fleet.connector_resources(cluster, "role=sink")
            # The plugin's promise is about what it holds stopped (spec.state). The status may show one more: the real
            # operator can reconcile a connector's events out of order (tests/env/emulator/README.md), so Connect
            # may get stop, then resume again, after the plugin had already seen it RUNNING and moved on.
            held = {o["metadata"]["name"] for o in items if (o.get("spec") or {}).get("state") == "stopped"}
            seen.update(held | {o["metadata"]["name"] for o in items if live_state(o) == "STOPPED"})
            peak[0] = max(peak[0], len(held))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with RequestCounter(cluster, selector) as requests:
            result = cli("reset", "-A", "-l", selector, "--yes", "--parallel", "2")
    finally:
        stop.set()
        watcher.join(10)
    assert result.exit_code == 0, result
    assert "5 done" in result.stderr
    assert requests.counts == {c.name: ["list", "list", "reset", "list"] for c in fleet.sinks}, requests.counts
    assert seen == {c.name for c in fleet.sinks}  # every sink really went through STOPPED
    assert 1 <= peak[0] <= 2, f"{peak[0]} sinks were stopped at the same time with --parallel 2"
    for conn in fleet.sinks:  # each is back to running, and re-consumed its topic from the start
        lab = fleet.labs["a"] if conn.ns == fleet.labs["a"].ns else fleet.labs["b"]
        lab.wait_state(conn, "RUNNING")


def test_export_reset_all_import_restores_every_offset_exactly(cli, fleet, cluster, connect, tmp_path):
    # The sinks the test before reset read their topics again: wait until Connect has their new offsets (the
    # next flush), so that the export has every connector's.
    fleet.wait_until_connect_has_offsets(connect)
    exported = tmp_path / "fleet.json"
    result = cli("export", "-A", "-l", fleet.selector, "--out", str(exported))
    assert result.exit_code == 0, result
    document = json.loads(exported.read_text())
    assert document["source"]["strimziApiVersions"] and document["source"]["selector"] == fleet.selector
    before = _offsets_by_connector(document)
    assert len(before) == 12 and all(offsets for key, offsets in before.items() if "Checkpoint" not in key[1])

    reset = cli("reset", "-A", "-l", fleet.selector, "--yes", "--no-resume", "--parallel", "4")
    assert reset.exit_code == 0, reset
    assert "11 done" in reset.stderr and "1 skipped" in reset.stderr  # the checkpoint connector: --force
    wiped = _offsets_by_connector(_list(cli, fleet))
    assert all(not offsets for key, offsets in wiped.items() if "Checkpoint" not in key[1]), wiped

    dry = cli("import", "-f", str(exported), "--dry-run")
    assert dry.exit_code == 0, dry
    assert "dry run: nothing was changed" in dry.stderr
    assert _offsets_by_connector(_list(cli, fleet)) == wiped

    imported = cli("import", "-f", str(exported), "--yes", "--parallel", "4")
    assert imported.exit_code == 0, imported
    assert _offsets_by_connector(_list(cli, fleet)) == before

    # The connectors stayed stopped (their state before the import); a sink set running continues exactly after
    # the imported position: only the new records reach its file.
    sink = fleet.sinks[0]
    lab = fleet.labs["a"]
    lines = len(sink.file_lines())
    lab.produce(sink.topic, ["new-1", "new-2"])
    _set_running(cluster, sink)
    eventually("the two new records in the sink's file", lambda: len(sink.file_lines()) >= lines + 2)
    time.sleep(2)
    assert sink.file_lines()[lines:] == ["new-1", "new-2"]


def _set_running(cluster, conn, timeout: float = 90.0) -> None:
    """``spec.state: running``, as a user sets it, then wait until Connect reports RUNNING.

    Under Strimzi's cadence the event of this change is dropped when it waits more than 10 s for its KafkaConnect's
    lock, which the operator may still hold for the trailing reconciles of the lists just before (each list's
    annotation, its removal and the status writes are events of their own); it is then retried only by the periodic
    pass, 120 s later. So, like the plugin's own waits, give the operator a fresh event every 10 s (an annotation
    that nothing reads) until the connector runs."""
    cluster.merge(conn.ns, conn.name, {"spec": {"state": "running"}})
    deadline, nudges, next_nudge = time.monotonic() + timeout, 0, time.monotonic() + 10
    while live_state(cluster.get(conn.ns, conn.name)) != "RUNNING":
        assert time.monotonic() < deadline, f"{conn.name} not RUNNING {timeout:.0f}s after spec.state: running " \
                                            f"({nudges} nudges)"
        if time.monotonic() >= next_nudge:
            nudges, next_nudge = nudges + 1, time.monotonic() + 10
            cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {"test-nudge": str(nudges)}}})
        time.sleep(0.25)


def test_undo_since_restores_what_a_fleet_reset_took(cli, fleet, tmp_path):
    sources = f"{fleet.selector},role=source"
    before = _offsets_by_connector(json.loads(cli("list", "-A", "-l", sources, "-o", "json").stdout))
    assert all(before.values())
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
    assert cli("reset", "-A", "-l", sources, "--yes", "--no-resume").exit_code == 0
    result = cli("undo", "-A", "-l", sources, "--since", started, "--yes")
    assert result.exit_code == 0, result
    after = _offsets_by_connector(json.loads(cli("list", "-A", "-l", sources, "-o", "json").stdout))
    assert after == before
    # The same command again (after a partial failure, a user reruns it): it restores the reset's backups again,
    # never the backups the first undo took of the reset state, so nothing moves.
    again = cli("undo", "-A", "-l", sources, "--since", started, "--yes")
    assert again.exit_code == 0, again
    assert _offsets_by_connector(json.loads(cli("list", "-A", "-l", sources, "-o", "json").stdout)) == after
    assert again.stderr.count("already at the offsets of configmap/") == 4 and "nothing to undo" in again.stderr


def test_a_target_that_fails_validation_changes_nothing_unless_skip_invalid(cli, fleet, cluster):
    victim = fleet.sources[-1]
    cluster.merge(victim.ns, victim.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": "true"}}})
    try:
        selector = f"{fleet.selector},role=source"
        specs = {c.name: cluster.get(c.ns, c.name)["spec"] for c in fleet.sources}
        backups = {ns: {n for n in cluster.configmaps(ns) if "-offsets-backup-" in n} for ns in fleet.namespaces}
        refused = cli("reset", "-A", "-l", selector, "--yes")
        assert refused.exit_code == 2, refused
        assert "failed validation" in refused.stderr and victim.name in refused.stderr
        assert "nothing was changed" in refused.stderr
        # The plan listed the valid ones (through the operator, as `list` does); nothing else moved: no connector
        # was stopped or started, no journal, no backup.
        for conn in fleet.sources:
            obj = cluster.get(conn.ns, conn.name)
            assert obj["spec"] == specs[conn.name]
            assert "kubectl-offsets.io/journal" not in (obj["metadata"].get("annotations") or {})
        assert {ns: {n for n in cluster.configmaps(ns) if "-offsets-backup-" in n} for ns in fleet.namespaces} \
            == backups
        skipped = cli("reset", "-A", "-l", selector, "--yes", "--skip-invalid")
        assert skipped.exit_code == 0, skipped
        assert "1 invalid" in skipped.stderr and "3 done" in skipped.stderr
    finally:
        cluster.merge(victim.ns, victim.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": None}}})
