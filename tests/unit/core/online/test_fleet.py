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
    (["reset", "-l", "a=b", "--connector", "source", "--yes"], "not both"),
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

    assert fleet._run_lanes(ClusterConfig(), members, work, 3, threading.Event()) is False
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

    assert fleet._run_lanes(ClusterConfig(), members, work, 2, stop) is True
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
