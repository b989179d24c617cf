"""Fleet operations against the real environment: twelve connectors in two namespaces (see conftest.py).

In order (one module, one worker): selection narrows to what the selector says; a fleet reset never has more
connectors STOPPED at once than --parallel; export -> reset --all -> import puts every offset back exactly, and a
sink then continues from the imported position; undo --since restores the backups a fleet operation took.

What changed is judged by Connect's stored offsets, the sinks' consumer groups and their files (tests/judges.py);
the plugin's list and export are compared with those, never with themselves.
"""
from __future__ import annotations

import json
import threading
import time

from tests.integration.online.conftest import GROUP, VERSION, eventually, live_state
from tests.waits import nudger


def _offsets_by_connector(document: dict) -> dict[tuple[str, str], list]:
    return {(e["namespace"], e["connector"]): _canonical(e["offsets"]) for e in document["connectors"]}


def _canonical(entries: list) -> list[str]:
    return sorted(json.dumps(o, sort_keys=True) for o in entries)


def _stored(judge, keys) -> dict[tuple[str, str], list]:
    """What Connect stores for each (namespace, connector), in the plugin's document's terms."""
    return {(ns, connector): _canonical(judge.stored(connector)) for ns, connector in keys}


def _list(cli, fleet, *extra) -> dict:
    result = cli("list", "-A", "-l", fleet.selector, "-o", "json", *extra)
    assert result.exit_code == 0, result
    return json.loads(result.stdout)


def test_list_by_selector_across_namespaces_names_every_connector(cli, fleet, judge):
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
    # every sink's partition 0 as its consumer group has it (3, 4, 5 records in namespace a, 3, 4 in b)...
    assert {row[3]: int(row[-1]) for row in rows if row[5] == "0"} == \
        {c.name: judge.sink_offsets(c.name)[0] for c in fleet.sinks}
    assert sorted(judge.sink_offsets(c.name)[0] for c in fleet.sinks) == [3, 3, 4, 4, 5]
    # ...and is reading its live partition, which a producer feeds the whole time
    assert len([row for row in rows if row[5] == "1" and int(row[-1]) > 0]) == 5
    table = cli("list", "--all", "-n", fleet.labs["b"].ns)
    assert table.exit_code == 0, table
    assert table.stdout.splitlines()[0].split() == ["NAMESPACE", "RESOURCE", "CONNECTOR", "PARTITION", "OFFSET"]
    assert {line.split()[0] for line in table.stdout.splitlines()[1:]} == {fleet.labs["b"].ns}


class FleetWatch:
    """Every version of the selected connectors, from the watch stream of every change (a poll could miss a list the
    operator completes within its interval, or a stop shorter than the interval):

    - ``counts``: per connector, the one-shot requests placed on it; a request is counted when the value of
      strimzi.io/connector-offsets appears on a resource that did not carry it in its previous version;
    - ``peak``: the most connectors held stopped (spec.state) at once. The plugin's promise is about what it holds
      stopped; the status may show one more: the real operator can reconcile a connector's events out of order
      (tests/env/emulator/README.md), so Connect may get stop, then resume again, after the plugin had already seen
      it RUNNING and moved on;
    - ``seen_stopped``: the connectors held stopped or reported STOPPED at some point."""

    def __init__(self, cluster, selector: str):
        from kubernetes import watch

        self.cluster, self.selector = cluster, selector
        self.counts: dict[str, list[str]] = {}  # connector -> the requests placed on it, in order
        self._last: dict[str, str | None] = {}
        self.held: set[str] = set()
        self.peak, self.seen_stopped = 0, set()
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
            if (obj.get("spec") or {}).get("state") == "stopped":
                self.held.add(name)
            else:
                self.held.discard(name)
            self.peak = max(self.peak, len(self.held))
            if name in self.held or live_state(obj) == "STOPPED":
                self.seen_stopped.add(name)


def test_a_fleet_reset_never_stops_more_connectors_than_parallel(cli, fleet, cluster):
    """...and asks the operator for one list per connector fewer than single resets would: the plan's list (the
    preview) also serves the run, which lists only after the stop (the backup) and after the reset (verify)."""
    selector = f"{fleet.selector},role=sink"
    with FleetWatch(cluster, selector) as watched:
        result = cli("reset", "-A", "-l", selector, "--yes", "--parallel", "2")
    assert result.exit_code == 0, result
    assert "5 done" in result.stderr
    assert watched.counts == {c.name: ["list", "list", "reset", "list"] for c in fleet.sinks}, watched.counts
    assert watched.seen_stopped == {c.name for c in fleet.sinks}  # every sink really went through STOPPED
    assert 1 <= watched.peak <= 2, f"{watched.peak} sinks were stopped at the same time with --parallel 2"
    for conn in fleet.sinks:  # each is back to running, and re-consumed its topic from the start
        lab = fleet.labs["a"] if conn.ns == fleet.labs["a"].ns else fleet.labs["b"]
        lab.wait_state(conn, "RUNNING")


def test_export_reset_all_import_restores_every_offset_exactly(cli, fleet, cluster, connect, judge, tmp_path):
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
    wiped = _stored(judge, before)
    assert all(not offsets for key, offsets in wiped.items() if "Checkpoint" not in key[1]), wiped

    dry = cli("import", "-f", str(exported), "--dry-run")
    assert dry.exit_code == 0, dry
    assert "dry run: nothing was changed" in dry.stderr
    assert _stored(judge, before) == wiped

    imported = cli("import", "-f", str(exported), "--yes", "--parallel", "4")
    assert imported.exit_code == 0, imported
    assert _stored(judge, before) == before  # Connect holds exactly what was exported

    # The connectors stayed stopped (their state before the import); a sink set running continues exactly after
    # the imported position: only the new records reach its file.
    sink = fleet.sinks[0]
    lab = fleet.labs["a"]
    lines = len(sink.file_lines())
    imported_at = judge.sink_offsets(sink.name, but=sink.live_partition)[0]
    lab.produce(sink.topic, ["new-1", "new-2"])
    _set_running(cluster, sink)
    judge.wait_sink_offsets(sink.name, {0: imported_at + 2}, but=sink.live_partition)  # flushed what it read
    assert sink.file_lines()[lines:] == ["new-1", "new-2"]


def _set_running(cluster, conn, timeout: float = 90.0) -> None:
    """``spec.state: running``, as a user sets it, then wait until Connect reports RUNNING.

    Under Strimzi's cadence the event of this change is dropped when it waits more than 10 s for its KafkaConnect's
    lock, which the operator may still hold for the trailing reconciles of the lists just before (each list's
    annotation, its removal and the status writes are events of their own); it is then retried only by the periodic
    pass, 120 s later. So, like the plugin's own waits, give the operator a fresh event every 10 s (an annotation
    that nothing reads) until the connector runs."""
    cluster.merge(conn.ns, conn.name, {"spec": {"state": "running"}})
    eventually(f"{conn.name} RUNNING after spec.state: running", lambda: live_state(cluster.get(conn.ns, conn.name))
               == "RUNNING", timeout, nudge=nudger(cluster.custom, VERSION, conn.ns, "kafkaconnectors", conn.name))


def test_undo_since_restores_what_a_fleet_reset_took(cli, fleet, judge, tmp_path):
    sources = f"{fleet.selector},role=source"
    keys = [(c.ns, c.name) for c in fleet.sources]
    before = _stored(judge, keys)
    assert all(before.values())
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
    assert cli("reset", "-A", "-l", sources, "--yes", "--no-resume").exit_code == 0
    assert not any(_stored(judge, keys).values())
    result = cli("undo", "-A", "-l", sources, "--since", started, "--yes")
    assert result.exit_code == 0, result
    after = _stored(judge, keys)
    assert after == before
    # The same command again (after a partial failure, a user reruns it): it restores the reset's backups again,
    # never the backups the first undo took of the reset state, so nothing moves.
    again = cli("undo", "-A", "-l", sources, "--since", started, "--yes")
    assert again.exit_code == 0, again
    assert _stored(judge, keys) == after
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
