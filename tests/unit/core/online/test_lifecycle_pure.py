"""The pure parts of create/delete and time travel: manifests, operator versions from images, bootstrap addresses,
flag combinations, leftovers under --from-scratch."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.core.online import lifecycle
from kubectl_offsets.core.online.timetravel import TimeTravel, _parse_topic
from kubectl_offsets.errors import InputError
from kubectl_offsets.model import OffsetEntry, OffsetsDocument


def connector(**changes) -> dict:
    body = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
            "metadata": {"name": "my-sink", "labels": {"strimzi.io/cluster": "connect"}},
            "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
                     "config": {"topics": "orders, audit", "file": "/tmp/x"}}}
    for path, value in changes.items():
        node = body
        *parents, last = path.split("__")
        for key in parents:
            node = node[key]
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return body


def write(tmp_path, body) -> str:
    path = tmp_path / "c.yaml"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return str(path)


@pytest.mark.parametrize("image, version", [
    ("quay.io/strimzi/operator:1.2.0", (1, 2, 0)),
    ("registry.local:5000/strimzi/operator:0.45.1", (0, 45, 1)),
    ("quay.io/strimzi/operator:1.1.0-rc1", (1, 1, 0)),
    ("quay.io/strimzi/operator:latest", None),
    ("quay.io/strimzi/operator@sha256:abcd", None),
    (None, None),
])
def test_operator_version_from_image(image, version):
    assert strimzi.operator_version_from_image(image) == version


def test_bootstrap_of_a_kafkaconnector_is_its_kafkaconnects():
    body = {**connector(), "metadata": {"name": "s", "namespace": "k", "labels": {"strimzi.io/cluster": "c"}}}
    target = strimzi.connector_target(body)
    assert strimzi.bootstrap_servers_of(target, body, {"spec": {"bootstrapServers": "kafka:9092"}}) == "kafka:9092"
    assert strimzi.bootstrap_servers_of(target, body, None) is None


@pytest.mark.parametrize("layout", ["v1", "v1beta2"])
def test_bootstrap_of_a_mirror_source_connector_is_its_source_cluster(layout):
    mirror = {"sourceConnector": {}}
    if layout == "v1":
        mirror["source"] = {"alias": "east", "bootstrapServers": "east:9092"}
        spec = {"target": {"alias": "west", "bootstrapServers": "west:9092"}, "mirrors": [mirror]}
    else:
        mirror.update({"sourceCluster": "east", "targetCluster": "west"})
        spec = {"connectCluster": "west", "mirrors": [mirror],
                "clusters": [{"alias": "west", "bootstrapServers": "west:9092"},
                             {"alias": "east", "bootstrapServers": "east:9092"}]}
    resource = {"metadata": {"name": "m", "namespace": "k"}, "spec": spec}
    target = strimzi.resolve_mm2_target(resource, "source")
    assert strimzi.bootstrap_servers_of(target, resource, None) == "east:9092"


def test_a_good_manifest_is_read(tmp_path):
    manifest = lifecycle.read_manifest(write(tmp_path, connector(spec__state="paused")))
    assert manifest.name == "my-sink" and manifest.requested_state == "paused"
    assert manifest.namespace(None, "default") == "default"
    assert manifest.namespace("kafka", "default") == "kafka"


@pytest.mark.parametrize("changes, message", [
    ({"kind": "KafkaConnect"}, "not a KafkaConnector"),
    ({"apiVersion": "v1"}, "not a KafkaConnector"),
    ({"metadata__labels": None}, "strimzi.io/cluster"),
    ({"metadata__name": "Bad_Name"}, "not a valid resource name"),
    ({"spec__class": None}, "spec.class"),
    ({"spec__state": "Running"}, "is not one of"),
    ({"spec__alterOffsets": {"fromConfigMap": {"name": "x"}}}, "managed by kubectl offsets create"),
    ({"metadata__annotations": {"strimzi.io/pause-reconciliation": "true"}}, "pauses reconciliation"),
    ({"metadata__annotations": {"strimzi.io/connector-offsets": "list"}}, "strimzi.io/connector-offsets"),
])
def test_bad_manifests_are_refused_with_the_reason(tmp_path, changes, message):
    with pytest.raises(InputError, match=message):
        lifecycle.read_manifest(write(tmp_path, connector(**changes)))


def test_a_file_with_two_resources_or_none_is_refused(tmp_path):
    two = json.dumps(connector()) + "\n---\n" + json.dumps(connector())
    with pytest.raises(InputError, match="exactly one KafkaConnector"):
        lifecycle.read_manifest(write(tmp_path, two))
    with pytest.raises(InputError, match="no such file"):
        lifecycle.read_manifest(str(tmp_path / "missing.yaml"))


def test_namespace_of_the_file_and_the_flag_must_agree(tmp_path):
    body = connector()
    body["metadata"]["namespace"] = "a"
    manifest = lifecycle.read_manifest(write(tmp_path, body))
    assert manifest.namespace(None, "default") == "a"
    with pytest.raises(InputError, match="namespace a, but -n/--namespace says b"):
        manifest.namespace("b", "default")


@pytest.mark.parametrize("flags, ok", [
    ({"to_latest": True}, True),
    ({"to_datetime": "2026-11-21T09:00:00Z"}, True),
    ({}, False),
    ({"to_latest": True, "to_earliest": True}, False),
    ({"by_duration": "PT1H", "to_datetime": "2026-11-21T09:00:00Z"}, False),
])
def test_exactly_one_time_travel_question(flags, ok):
    travel = TimeTravel(**flags)
    if ok:
        travel.check_combination()
    else:
        with pytest.raises(InputError, match="exactly one"):
            travel.check_combination()


def test_times_are_utc_unless_zoned_and_durations_count_back_from_now():
    assert TimeTravel(to_datetime="2026-11-21T09:00:00").at_ms() == 1795251600000
    assert TimeTravel(to_datetime="2026-11-21T10:00:00+01:00").at_ms() == 1795251600000
    now = dt.datetime(2026, 11, 21, 11, 0, tzinfo=dt.timezone.utc)
    assert TimeTravel(by_duration="PT2H").at_ms(now) == 1795251600000
    assert TimeTravel(to_latest=True).at_ms() is None
    with pytest.raises(InputError, match="not an ISO-8601"):
        TimeTravel(to_datetime="21/11/2026").at_ms()


def test_topic_selection_forms():
    assert _parse_topic("orders") == ("orders", None)
    assert _parse_topic("orders:0,2") == ("orders", [0, 2])
    for bad in ("orders:", "orders:a", ":1", "orders:1,,2"):
        with pytest.raises(InputError, match="not of the form"):
            _parse_topic(bad)


def test_time_travel_for_a_new_sink_defaults_to_its_topics(tmp_path):
    manifest = lifecycle.read_manifest(write(tmp_path, connector()))
    assert lifecycle.travel_with_default_topics(TimeTravel(to_latest=True), manifest).topics == ("orders", "audit")
    assert lifecycle.travel_with_default_topics(TimeTravel(to_latest=True, topics=("x:1",)), manifest).topics == (
        "x:1",)
    source = lifecycle.read_manifest(write(tmp_path, connector(spec__config={"topic": "t"})))
    with pytest.raises(InputError, match="needs the topics"):
        lifecycle.travel_with_default_topics(TimeTravel(to_latest=True), source)


def sink(topic: str, partition: int, offset: int | None) -> OffsetEntry:
    return OffsetEntry({"kafka_topic": topic, "kafka_partition": partition},
                       None if offset is None else {"kafka_offset": offset})


def test_from_scratch_resets_every_leftover_the_change_does_not_name():
    leftovers = OffsetsDocument.of([sink("t", 0, 7), sink("t", 1, 9), sink("old", 0, 3)])
    change = OffsetsDocument.of([sink("t", 0, 2)])
    merged = lifecycle._with_reset_of_leftovers(change, leftovers)
    assert merged.to_json() == OffsetsDocument.of([sink("t", 0, 2), sink("t", 1, None), sink("old", 0, None)]
                                                  ).to_json()
    assert leftovers.merged_with(merged).same_offsets(change)
    assert lifecycle._with_reset_of_leftovers(None, leftovers) is None  # no change: a plain reset


FUTURE = "2062-11-21T09:00:00Z"  # a typo of 2026: no record is that new


def test_a_future_time_travel_is_refused_unless_meant():
    with pytest.raises(InputError, match="is in the future"):
        TimeTravel(to_datetime=FUTURE).at_ms()
    assert TimeTravel(to_datetime=FUTURE, allow_future=True).at_ms() == 2931325200000


@pytest.mark.parametrize("command", [["alter", "my-sink"], ["create", "-f", "MANIFEST"],
                                     ["compute", "--bootstrap-server", "b:1", "--topic", "t", "--column", "offset=o"]])
def test_every_command_with_to_datetime_refuses_a_future_one_before_touching_anything(tmp_path, command):
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root

    args = [str(write(tmp_path, connector())) if a == "MANIFEST" else a for a in command]
    unreachable = ["--kubeconfig", str(tmp_path / "no-kubeconfig"), "--yes"] if command[0] != "compute" else []
    result = CliRunner().invoke(root, [*args, "--to-datetime", FUTURE, *unreachable])
    assert result.exit_code == 2, result.output
    assert f"--to-datetime {FUTURE} is in the future" in result.stderr and "--allow-future" in result.stderr
    meant = CliRunner().invoke(root, [*args, "--to-datetime", FUTURE, "--allow-future", *unreachable])
    assert "is in the future" not in meant.stderr and "No such option" not in meant.stderr, meant.output


# --- the delete itself: the operator's status writes are no reason to refuse ----------------------------------------

class StatusWritingKube:
    """Stands in for the API server: every ``get`` is followed by the operator writing the status (a new
    resourceVersion), ``writes`` times; ``delete`` honours the resourceVersion precondition as the server does."""

    def __init__(self, writes: int, change=None):
        self.resource = connector()
        self.resource["metadata"].update({"resourceVersion": "1", "annotations": {"team": "payments"}})
        self.writes, self.change, self.deleted = writes, change, False

    def get(self, kind, name, namespace):
        current = json.loads(json.dumps(self.resource))
        if self.writes:
            self.writes -= 1
            version = int(self.resource["metadata"]["resourceVersion"]) + 1
            self.resource["metadata"]["resourceVersion"] = str(version)
            self.resource["status"] = {"observedGeneration": version}
            if self.change:
                self.change(self.resource)
        return current

    def delete(self, kind, name, namespace, *, resource_version=None):
        from kubectl_offsets.adapters.kube import ConflictError

        if resource_version != self.resource["metadata"]["resourceVersion"]:
            raise ConflictError(f"kafkaconnector/{name} changed while we worked on it: the ResourceVersion in the "
                                "precondition does not match")
        self.deleted = True


def _target():
    return strimzi.ConnectorTarget(strimzi.KIND_CONNECTOR, "kafka", "my-sink", "my-sink")


def test_delete_goes_ahead_when_only_the_operators_status_changed_in_between():
    kube = StatusWritingKube(writes=2)  # the status is written right after each of our reads, twice

    lifecycle._delete(kube, _target(), lifecycle.SilentProgress(), after_reset=True)

    assert kube.deleted


@pytest.mark.parametrize("change", [
    lambda r: r["spec"].update(tasksMax=3),  # someone applied a new spec
    lambda r: r["metadata"]["annotations"].update({"kubectl-offsets.io/journal": "{}"}),  # someone claimed it
], ids=["spec", "annotations"])
def test_delete_refuses_when_the_resource_itself_changed_in_between(change):
    from kubectl_offsets.errors import OffsetsError

    kube = StatusWritingKube(writes=1, change=change)

    with pytest.raises(OffsetsError, match="was not deleted: its offsets are reset and it is STOPPED"):
        lifecycle._delete(kube, _target(), lifecycle.SilentProgress(), after_reset=True)
    assert not kube.deleted
