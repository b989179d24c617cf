"""Fleet logic without a cluster: selection of members, lanes, import placement, the fleet document, --since,
the CLI's usage errors, and the lane runner's parallelism bound and interrupt behaviour."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time

import pytest
from click.testing import CliRunner

from kubectl_offsets import strimzi
from kubectl_offsets.cli.fleet import parse_since
from kubectl_offsets.cli.root import root
from kubectl_offsets.core.online import fleet
from kubectl_offsets.errors import InputError, NotFoundError
from kubectl_offsets.model import ClusterConfig, OffsetsDocument
from kubectl_offsets.output.fleet import render_fleet
from tests.signals import ctrl_c_raises

SINK = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
        "metadata": {"name": "orders-sink", "namespace": "kafka", "labels": {"strimzi.io/cluster": "c"}},
        "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "config": {"topics": "orders"}}}
MM2 = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaMirrorMaker2",
       "metadata": {"name": "mirror", "namespace": "kafka"},
       "spec": {"target": {"alias": "west", "bootstrapServers": "x:9092"},
                "mirrors": [{"source": {"alias": "east", "bootstrapServers": "y:9092"}, "sourceConnector": {},
                             "checkpointConnector": {}}]}}


class FakeKube:
    """Only what ``fleet.select`` asks: list_selected per kind (a kind may be unserved)."""

    namespace = "kafka"

    def __init__(self, by_kind, unserved=()):
        self.by_kind, self.unserved, self.asked = by_kind, unserved, []

    def list_selected(self, kind, namespace, selector=None):
        self.asked.append((kind, namespace, selector))
        if kind in self.unserved:
            raise NotFoundError(f"{kind} is not served")
        return self.by_kind.get(kind, [])


def test_select_expands_mirrormaker2_into_its_connectors_and_sorts():
    kube = FakeKube({strimzi.KIND_CONNECTOR: [SINK], strimzi.KIND_MM2: [MM2]})
    members = fleet.select(kube, fleet.Selection(selector="team=a"))
    assert [(m.kind, m.name, m.connector) for m in members] == [
        (strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink"),
        (strimzi.KIND_MM2, "mirror", "east->west.MirrorCheckpointConnector"),
        (strimzi.KIND_MM2, "mirror", "east->west.MirrorSourceConnector"),
    ]
    assert kube.asked == [(strimzi.KIND_CONNECTOR, "kafka", "team=a"), (strimzi.KIND_MM2, "kafka", "team=a")]


def test_select_all_namespaces_asks_cluster_wide_and_skips_unserved_kinds():
    kube = FakeKube({strimzi.KIND_CONNECTOR: [SINK]}, unserved=(strimzi.KIND_MM2,))
    members = fleet.select(kube, fleet.Selection(namespace="ignored", all_namespaces=True))
    assert [m.name for m in members] == ["orders-sink"]
    assert {namespace for _, namespace, _ in kube.asked} == {None}


def test_members_of_one_mirrormaker2_share_a_lane_and_connectors_do_not():
    a = fleet.Member("ns", strimzi.KIND_MM2, "mirror", "east->west.MirrorSourceConnector")
    b = fleet.Member("ns", strimzi.KIND_MM2, "mirror", "north->west.MirrorSourceConnector")
    c = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink-a", "sink-a")
    d = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink-b", "sink-b")
    assert a.lane == b.lane and c.lane != d.lane
    assert a.spec.text == "kafkamirrormaker2/mirror" and a.spec.connector == a.connector
    assert c.spec.text == "kafkaconnector/sink-a" and c.spec.connector is None
    assert a.command("recover") == ("kubectl offsets recover kafkamirrormaker2/mirror "
                                    "--connector 'east->west.MirrorSourceConnector' -n ns")


def test_import_placement_map_then_namespace_then_recorded_and_only():
    member = fleet.Member("old", strimzi.KIND_CONNECTOR, "sink", "sink")
    assert fleet.ImportMapping().place(member).namespace == "old"
    assert fleet.ImportMapping(namespace="dr").place(member).namespace == "dr"
    assert fleet.ImportMapping(namespace="dr", namespaces={"old": "new"}).place(member).namespace == "new"
    assert fleet.ImportMapping(only=("other",)).place(member) is None
    assert fleet.ImportMapping(only=("sink",)).place(member) is not None


@pytest.mark.parametrize("pairs", [["old"], ["=new"], ["old="]])
def test_namespace_map_needs_old_equals_new(pairs):
    with pytest.raises(InputError, match="OLD=NEW"):
        fleet.parse_namespace_map(pairs)


def test_fleet_document_round_trips_through_its_schema(tmp_path):
    member = fleet.Member("kafka", strimzi.KIND_CONNECTOR, "sink", "sink")
    offsets = OffsetsDocument.from_json({"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0},
                                                      "offset": {"kafka_offset": 5}}]})
    document = fleet.FleetDocument([fleet.FleetEntry(member, offsets)], {"context": "prod", "exportedAt":
                                                                         "2026-11-23T10:00:00Z"})
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps(document.to_json()))
    read = fleet.read_fleet_file(str(path))
    assert read.to_json() == document.to_json()
    yaml_path = tmp_path / "fleet.yaml"
    yaml_path.write_text(render_fleet(document.to_json(), [], "yaml"))
    assert fleet.read_fleet_file(str(yaml_path)).to_json() == document.to_json()


@pytest.mark.parametrize("text, message", [
    ('{"offsets": []}', "not a fleet document"),
    ('{"connectors": [{"kind": "Deployment", "namespace": "a", "name": "b", "connector": "b", "offsets": []}]}',
     "is not valid"),
    ("{", "not valid JSON"),
])
def test_bad_fleet_files_are_refused_with_the_reason(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        fleet.read_fleet_file(str(path))


def test_since_takes_an_iso_time_or_a_duration_ago():
    assert parse_since("2026-11-23T10:00:00Z") == dt.datetime(2026, 11, 23, 10, tzinfo=dt.timezone.utc)
    assert parse_since("2026-11-23T10:00:00") == dt.datetime(2026, 11, 23, 10, tzinfo=dt.timezone.utc)
    before = dt.datetime.now(dt.timezone.utc)
    since = parse_since("2h")
    after = dt.datetime.now(dt.timezone.utc)
    assert before - dt.timedelta(hours=2) <= since <= after - dt.timedelta(hours=2)
    with pytest.raises(InputError, match="neither an ISO 8601 time nor a duration"):
        parse_since("yesterday")


@pytest.mark.parametrize("argv, message", [
    (["reset", "--yes"], "missing TARGET"),  # (list without TARGET lists the namespace's connectors)
    (["list", "--lag"], "--bootstrap-server"),
    (["list", "sink", "--all"], "not both"),
    (["reset", "-l", "a=b", "--connector", "source", "--yes"], "--connector names a connector of one kafkamirrormaker2"),
    (["undo", "--all", "--yes"], "needs --since"),
    (["undo", "--all", "--backup", "x", "--since", "1h", "--yes"], "--backup names one connector"),
    (["undo", "sink", "--since", "1h", "--yes"], "--since goes with"),
    (["alter", "--all", "-f", "-", "--yes"], "cannot be read once per connector"),
])
def test_cli_usage_errors_change_nothing_and_exit_2(argv, message, tmp_path):
    # An unreachable kubeconfig: any attempt to talk to a cluster would fail differently (exit 1, "cannot load").
    result = CliRunner().invoke(root, [*argv, "--kubeconfig", str(tmp_path / "none")])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


class _StandInKube:
    """What _run_lanes needs of a client: a sibling per worker thread."""

    def sibling(self) -> "_StandInKube":
        return _StandInKube()


def test_lanes_never_run_more_than_parallel_at_once_and_keep_mirrormaker2_members_in_order(monkeypatch):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    members = [fleet.Member("ns", strimzi.KIND_CONNECTOR, f"sink-{i}", f"sink-{i}") for i in range(9)]
    members += [fleet.Member("ns", strimzi.KIND_MM2, "mirror", f"c{i}") for i in range(3)]
    running, peak, order, lock = set(), [0], [], threading.Lock()

    def work(kube, member):
        with lock:
            running.add(member)
            peak[0] = max(peak[0], len(running))
            order.append(member.connector)
        time.sleep(0.05)
        with lock:
            running.discard(member)

    assert fleet._run_lanes(ClusterConfig(), members, work, 3, threading.Event()).interrupted is False
    assert peak[0] == 3
    assert [c for c in order if c.startswith("c")] == ["c0", "c1", "c2"]
    assert len(order) == 12


def test_a_set_stop_event_starts_nothing_new_but_lets_running_members_finish(monkeypatch):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    members = [fleet.Member("ns", strimzi.KIND_MM2, "mirror", f"c{i}") for i in range(5)]
    stop, finished = threading.Event(), []

    def work(kube, member):
        stop.set()  # "Ctrl-C" while the first member runs
        time.sleep(0.05)
        finished.append(member.connector)

    assert fleet._run_lanes(ClusterConfig(), members, work, 2, stop).interrupted is True
    assert finished == ["c0"]


def test_parallel_must_be_positive():
    with pytest.raises(InputError, match="at least 1"):
        fleet._run_lanes(ClusterConfig(), [], lambda k, m: None, 0, threading.Event())


def test_the_example_fleet_document_is_one_import_accepts():
    from pathlib import Path

    example = Path(__file__).resolve().parents[4] / "examples" / "fleet" / "fleet-offsets.json"
    document = fleet.read_fleet_file(str(example))
    assert [(e.member.kind, e.member.connector) for e in document.entries] == [
        ("KafkaConnector", "orders-sink"), ("KafkaMirrorMaker2", "east->west.MirrorSourceConnector")]
    assert document.source["strimziApiVersions"] == ["v1"]


# --- interrupts and unexpected failures (issue 22) ---------------------------------------------------------------

class _StandInLive:
    """What _plan and a plan_one need of a resolved target."""

    def __init__(self, member):
        from kubectl_offsets.connect import ConnectorKind

        self.kind = ConnectorKind.SINK
        self.target = strimzi.connector_target({"metadata": {"name": member.name, "namespace": member.namespace}})


def _sinks(count, namespace="ns"):
    return [fleet.Member(namespace, strimzi.KIND_CONNECTOR, f"sink-{i}", f"sink-{i}") for i in range(count)]


def _stand_in_cluster(monkeypatch, listed):
    """_plan without a cluster: every member resolves; "listing" one records it (and may set the stop event)."""
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    monkeypatch.setattr(fleet, "resolve", lambda kube, spec, namespace: _StandInLive(
        fleet.Member(namespace, strimzi.KIND_CONNECTOR, spec.text.split("/")[-1], spec.text.split("/")[-1])))

    def current(kube, live, options, progress):
        listed(live.target.resource_name)
        return OffsetsDocument()

    monkeypatch.setattr(fleet, "_current", current)


def test_an_interrupt_while_planning_raises_and_plans_no_further_member(monkeypatch):
    from kubectl_offsets.errors import InterruptedOperationError

    stop, listed = threading.Event(), []

    def listing(name):
        listed.append(name)
        stop.set()  # "Ctrl-C" while the first connector is listed
        time.sleep(0.05)

    _stand_in_cluster(monkeypatch, listing)
    with pytest.raises(InterruptedOperationError, match="interrupted while planning .*nothing was changed"):
        fleet.plan_reset(ClusterConfig(), _sinks(6), fleet.Options(), parallel=1, stop=stop)
    assert listed == ["sink-0"]


def test_an_interrupt_while_listing_a_fleet_returns_no_partial_document(monkeypatch):
    from kubectl_offsets.errors import InterruptedOperationError

    stop, listed = threading.Event(), []
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())

    def list_offsets(kube, spec, **kw):
        listed.append(spec.text)
        stop.set()
        return fleet.operations.ListResult(None, None, OffsetsDocument())

    monkeypatch.setattr(fleet.operations, "list_offsets", list_offsets)
    with pytest.raises(InterruptedOperationError, match="nothing was written"):
        fleet.list_fleet(ClusterConfig(), _sinks(5), fleet.Options(), parallel=1, stop=stop)
    assert len(listed) == 1


def _ctrl_c_main_thread(times, sent, gap=0.05):
    """Send SIGINT to this process `times` times from another thread, then set `sent`: Python raises
    KeyboardInterrupt in the main thread (the default handler), as a user's Ctrl-C does."""
    import os
    import signal

    def send():
        for _ in range(times):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(gap)
        sent.set()

    threading.Thread(target=send, daemon=True).start()


def test_three_ctrl_c_while_lanes_run_still_wait_for_the_running_members_and_return(monkeypatch):
    """The Ctrl-C come the moment the second lane starts: while the main thread may still be submitting it, or
    waiting for the pool. Each round, the run returns only after both members finished, whatever the main thread
    was doing when the Ctrl-C came (one round in about fifteen returned with a member still at work, and some let
    a KeyboardInterrupt escape, before the pool had a thread of its own and Ctrl-C set ``stop``; 2026-11-28)."""
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    for _ in range(20):
        members = _sinks(6)
        started, finished, sent, lock = [], [], threading.Event(), threading.Lock()

        def work(kube, member, started=started, finished=finished, sent=sent, lock=lock):
            with lock:
                started.append(member.name)
                if len(started) == 2:
                    _ctrl_c_main_thread(3, sent)
            assert sent.wait(30)  # both members run until every Ctrl-C is sent...
            time.sleep(0.05)  # ...and then some
            finished.append(member.name)

        try:
            with ctrl_c_raises():  # also when the runner was started with SIGINT ignored (tests/signals.py)
                run = fleet._run_lanes(ClusterConfig(), members, work, 2, threading.Event())
        except KeyboardInterrupt:
            pytest.fail("Ctrl-C escaped _run_lanes while members were still running")
        assert run.interrupted is True and not run.failures
        assert sorted(finished) == sorted(started) == ["sink-0", "sink-1"]


def _plan_of(members, run):
    return fleet.Plan([fleet.PlanItem(m, "reset", run=run) for m in members])


def test_a_member_failing_with_a_bug_is_reported_and_stops_new_starts_like_an_interrupt(monkeypatch):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    calls = []

    def run(kube, options, progress):
        calls.append(1)
        raise RuntimeError("boom")

    report = fleet.execute(ClusterConfig(), _plan_of(_sinks(4), run), fleet.Options(), parallel=1)
    assert len(calls) == 1
    assert [r.status for r in report.results] == ["failed", "not started", "not started", "not started"]
    assert "unexpected failure: RuntimeError: boom" in report.results[0].error.message
    assert report.stopped_by_failure and not report.interrupted
    assert fleet.exit_status(report) == 1


def test_an_interrupted_run_reports_and_exits_130(monkeypatch):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())
    stop = threading.Event()

    def run(kube, options, progress):
        stop.set()
        return None

    report = fleet.execute(ClusterConfig(), _plan_of(_sinks(3), run), fleet.Options(), parallel=1, stop=stop)
    assert [r.status for r in report.results] == ["done", "not started", "not started"]
    assert report.interrupted and fleet.exit_status(report) == 130


@pytest.fixture
def signal_handlers():
    """The process's signal handlers as they were before the test (the CLI's leave theirs once interrupted)."""
    import signal

    names = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
    saved = {number: signal.getsignal(number) for number in names}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_the_cli_signal_handlers_set_the_stop_event_instead_of_raising(signal_handlers):
    import os
    import signal

    from kubectl_offsets.cli.exits import signals_set

    quiet, before = threading.Event(), signal.getsignal(signal.SIGTERM)
    with signals_set(quiet):
        pass
    assert signal.getsignal(signal.SIGTERM) == before  # not interrupted: the handlers are put back

    stop = threading.Event()
    with signals_set(stop):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)  # the handler runs in the main thread between bytecodes
    assert stop.is_set()
    os.kill(os.getpid(), signal.SIGINT)  # interrupted: on its way out, a late Ctrl-C changes nothing
    time.sleep(0.05)


def test_an_export_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    target = tmp_path / "fleet.json"
    target.write_text('{"connectors": []}\n')
    target.chmod(0o640)
    fleet.write_fleet_file(str(target), '{"connectors": [1]}\n')
    assert target.read_text() == '{"connectors": [1]}\n' and target.stat().st_mode & 0o777 == 0o640

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(fleet.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fleet.write_fleet_file(str(target), '{"connectors": [2, "half')
    assert target.read_text() == '{"connectors": [1]}\n'  # the previous export, intact
    assert [p.name for p in tmp_path.iterdir()] == ["fleet.json"]  # no temporary file left behind


# --- undo --since: never an undo's own backup (issue 22) ------------------------------------------------------

class _BackupsKube:
    def __init__(self, configmaps):
        self.configmaps = configmaps

    def list_configmaps(self, namespace, selector):
        return self.configmaps


def _backup(name, taken, operation):
    return {"metadata": {"name": name, "annotations": {"kubectl-offsets.io/taken-at": taken,
                                                        "kubectl-offsets.io/operation": operation,
                                                        "kubectl-offsets.io/connector": "sink"}}}


def test_since_picks_the_newest_backup_not_taken_by_an_undo():
    target = strimzi.connector_target({"metadata": {"name": "sink", "namespace": "ns"}})
    kube = _BackupsKube([_backup("sink-offsets-backup-1", "2026-11-23T10:00:05Z", "reset"),
                         _backup("sink-offsets-backup-2", "2026-11-23T10:03:00Z", "undo"),
                         _backup("sink-offsets-backup-3", "2026-11-23T10:04:00Z", "undo")])
    since = dt.datetime(2026, 11, 23, 10, tzinfo=dt.timezone.utc)
    assert fleet.backup_since(kube, target, since) == "sink-offsets-backup-1"
    later = dt.datetime(2026, 11, 23, 10, 1, tzinfo=dt.timezone.utc)
    assert fleet.backup_since(kube, target, later) is None  # only undo's own backups since then


# --- import: collisions and mappings that match nothing (issue 22) ----------------------------------------------

def _document(*entries, origin="fleet.json"):
    return fleet.FleetDocument([fleet.FleetEntry(fleet.Member(ns, kind, name, connector), OffsetsDocument())
                                for ns, kind, name, connector in entries], origin=origin)


class _NoCluster:
    def sibling(self):
        raise AssertionError("the cluster was asked before the import was refused")


@pytest.mark.parametrize("entries, mapping, message", [
    ([("team-a", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink"),
      ("team-b", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")], fleet.ImportMapping(namespace="dr"),
     r"#1 \(team-a/kafkaconnector/orders-sink\) and #2 \(team-b/kafkaconnector/orders-sink\) would all go to "
     r"dr/kafkaconnector/orders-sink"),
    ([("team-a", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink"),
      ("team-b", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")],
     fleet.ImportMapping(namespaces={"team-a": "dr", "team-b": "dr"}), "would all go to dr/kafkaconnector/orders-sink"),
    ([("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink"),
      ("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "renamed")], fleet.ImportMapping(),
     r"entry #2 of fleet.json .* names connector 'renamed', but a KafkaConnector's connector has the resource's name"),
    ([("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")],
     fleet.ImportMapping(namespaces={"kafak": "kafka-new"}),
     r"--map-namespace kafak=kafka-new: no entry of fleet.json is in namespace kafak \(its entries are in: kafka\)"),
    ([("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")], fleet.ImportMapping(only=("orders-snk",)),
     "--only orders-snk: no entry of fleet.json has that resource or connector name"),
])
def test_an_import_that_would_merge_duplicate_or_skip_entries_is_refused_before_the_cluster_is_asked(
        monkeypatch, entries, mapping, message):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _NoCluster())
    with pytest.raises(InputError, match=message):
        fleet.plan_import(ClusterConfig(), _document(*entries), mapping, fleet.Options())


def test_namespaces_of_a_mirrormaker2_and_distinct_names_may_share_a_target_namespace():
    document = _document(("team-a", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink"),
                         ("team-b", strimzi.KIND_CONNECTOR, "billing-sink", "billing-sink"),
                         ("team-b", strimzi.KIND_MM2, "mirror", "east->west.MirrorSourceConnector"),
                         ("team-b", strimzi.KIND_MM2, "mirror", "north->west.MirrorSourceConnector"))
    placed = fleet.place_entries(document, fleet.ImportMapping(namespace="dr"))
    assert sorted(m.where for m in placed) == ["dr/kafkaconnector/billing-sink", "dr/kafkaconnector/orders-sink",
                                               "dr/kafkamirrormaker2/mirror 'east->west.MirrorSourceConnector'",
                                               "dr/kafkamirrormaker2/mirror 'north->west.MirrorSourceConnector'"]


def test_a_namespace_mapped_twice_to_different_places_is_refused():
    with pytest.raises(InputError, match="maps old twice"):
        fleet.parse_namespace_map(["old=a", "old=b"])


def test_an_import_whose_connectors_all_do_not_exist_is_an_error_not_a_run_that_skips_everything(monkeypatch):
    monkeypatch.setattr(fleet.operations, "connect", lambda cluster: _StandInKube())

    def absent(kube, spec, namespace):
        raise NotFoundError(f"{spec.text} not found in namespace {namespace}")

    monkeypatch.setattr(fleet, "resolve", absent)
    document = _document(("kafka", strimzi.KIND_CONNECTOR, "a", "a"), ("kafka", strimzi.KIND_CONNECTOR, "b", "b"))
    with pytest.raises(NotFoundError, match="not one of the 2 connectors of fleet.json exists"):
        fleet.plan_import(ClusterConfig(), document, fleet.ImportMapping(namespace="kafka-nwe"), fleet.Options())


def test_a_plan_never_holds_one_connector_twice():
    member = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink", "sink")
    same = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink", "other-name")  # a KafkaConnector's connector: "sink"
    with pytest.raises(InputError, match="the same connector is selected more than once: ns/kafkaconnector/sink"):
        fleet.Plan([fleet.PlanItem(member), fleet.PlanItem(same)])
    with pytest.raises(InputError, match="more than once"):
        fleet._run_lanes(ClusterConfig(), [member, member], lambda kube, m: None, 2, threading.Event())


def test_a_ctrl_c_while_the_summary_prints_does_not_cut_it_short(monkeypatch, capsys, signal_handlers):
    """The run is over, the summary prints, the user presses Ctrl-C once more: the summary (with its undo and
    recover commands) still comes whole, and the exit status is the run's."""
    import os
    import signal

    from kubectl_offsets.cli import fleet as cli_fleet
    from kubectl_offsets.output import fleet as output_fleet

    member = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink", "sink")
    plan = fleet.Plan([fleet.PlanItem(member, "reset", run=lambda kube, options, progress: None)])
    report = fleet.FleetReport([fleet.MemberResult(plan.items[0], started=True)], interrupted=True)
    monkeypatch.setattr(fleet, "execute", lambda *args, **kwargs: report)
    render = output_fleet.render_summary

    def render_with_ctrl_c(rows, **flags):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, in the main thread
        return render(rows, **flags)

    monkeypatch.setattr(output_fleet, "render_summary", render_with_ctrl_c)
    monkeypatch.setattr(cli_fleet, "_show_plan", lambda plan: None)
    with pytest.raises(SystemExit) as exited:
        cli_fleet.run_plan(lambda stop: plan, ClusterConfig(), fleet.Options(yes=True), 1, False, "reset", None)
    assert exited.value.code == 130
    out, err = capsys.readouterr()
    assert "kafkaconnector/sink" in out and "interrupted: connectors not started are unchanged" in err


@pytest.mark.parametrize("short, full", [
    ("source", "east->west.MirrorSourceConnector"),
    ("checkpoint", "east->west.MirrorCheckpointConnector"),
])
def test_import_entries_naming_one_mirror_connector_two_ways_collide(short, full):
    """Issue 28: a short name resolves to the only connector of its type (or is ambiguous and refused), so a short
    and a full name of that type on one mirror are one connector, altered twice (the last entry winning)."""
    document = _document(("kafka", strimzi.KIND_MM2, "mirror", short), ("kafka", strimzi.KIND_MM2, "mirror", full))
    with pytest.raises(InputError, match="collide"):
        fleet.place_entries(document, fleet.ImportMapping())


def test_import_entries_of_two_full_names_of_one_type_are_two_connectors():
    document = _document(("kafka", strimzi.KIND_MM2, "mirror", "east->west.MirrorSourceConnector"),
                         ("kafka", strimzi.KIND_MM2, "mirror", "south->west.MirrorSourceConnector"),
                         ("kafka", strimzi.KIND_MM2, "mirror", "checkpoint"))
    assert len(fleet.place_entries(document, fleet.ImportMapping())) == 3
