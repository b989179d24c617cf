"""Issue 15 end to end: the MirrorMaker 2 pre-flight (check, and the warnings of alter/reset), the full reset with
the offset-syncs topic, and the lag gates, against a real MirrorMaker 2 on the real Connect worker and broker.

One mirror (v1 layout, unique aliases) replicates three topics. While its source connector is stopped the test
damages them the way retention and people do: DeleteRecords past the stored offset of ``gap`` (records never
replicated are gone), deletes ``gone``, and deletes and recreates ``again`` with fewer records. The tests run in
file order: read-only checks first, then the gates, then the full reset, then the shared-topic refusal.
"""
from __future__ import annotations

import json
import time
import uuid
from datetime import datetime

import pytest

from kubectl_offsets import schemas, strimzi
from tests.env.clients import create_topic, kafka_conf, produce, producer_conf
from tests.env.kind.shared import cluster_bootstrap

from tests.waits import eventually

from .conftest import GROUP, JOURNAL, PLURAL, PROFILE, READ_VERSION, Mirror, topic_values
from .one_mirror import LAYOUT, OTHER_LAYOUT, MirrorUnderTest, connectors_of, mirror_resource, running_mirror, watermarks


class Damaged(MirrorUnderTest):
    """The mirror plus the names of its three topics and what the test did to them."""

    def __init__(self, mirror: Mirror, gap: str, gone: str, again: str):
        super().__init__(mirror)
        self.gap, self.gone, self.again = gap, gone, again


def _source_stored(m, connector):
    """What Connect stores for the source connector, by (topic, partition)."""
    return {(e["partition"]["topic"], e["partition"]["partition"]): (e["offset"] or {}).get("offset")
            for e in m.judge.stored(connector)}


def _recreate(admin, bootstrap, topic):
    """Delete ``topic`` (which holds records) and create it again, empty; return once the broker serves the new
    partition. The controller answers both requests before the broker has applied them: until it has, the broker
    still serves the old partition, appends to it and reports its watermarks."""
    admin.delete_topics([topic])[topic].result(timeout=30)
    # KRaft deletes asynchronously: creating too early says "already exists" (TOPIC_ALREADY_EXISTS)
    eventually(f"{topic} created again", lambda: create_topic(admin, topic), 60, 0.5, tolerate=(Exception,))
    # an unknown partition while the broker catches up: no answer yet
    eventually(f"the broker to serve the recreated {topic}", lambda: watermarks(bootstrap, topic) == (0, 0), 60, 0.5,
               tolerate=(Exception,))


@pytest.fixture(scope="module")
def damaged(env, kube_api, kafka_admin):
    from confluent_kafka import Producer, TopicPartition

    tag = uuid.uuid4().hex[:6]
    gap, gone, again = f"gap-{tag}", f"gone-{tag}", f"again-{tag}"
    for topic in (gap, gone, again):
        create_topic(kafka_admin, topic)
    producer = Producer(producer_conf(env.bootstrap_servers))
    produce(producer, gap, [f"g{i}" for i in range(10)])
    produce(producer, gone, [f"x{i}" for i in range(3)])
    produce(producer, again, [f"a{i}" for i in range(5)])
    with running_mirror(env, kube_api, "mm2-integrity", [gap, gone, again]) as m:
        assert len(topic_values(env.bootstrap_servers, f"{m.src}.{gap}", 10, timeout=120)) == 10
        topic_values(env.bootstrap_servers, f"{m.src}.{again}", 5, timeout=120)
        d = Damaged(m, gap, gone, again)
        # Connect flushes source offsets every second or so: wait until all three are stored, then stop.
        eventually("stored offsets", lambda: _source_stored(m, d.source) == {
            (gap, 0): 9, (gone, 0): 2, (again, 0): 4}, timeout=120, interval=1)
        m.set_state(0, "sourceConnector", "stopped")
        m.wait_state(d.source, "STOPPED")
        # The operator reports the connector STOPPED from Connect's status; its task may still be polling until
        # Connect removes it (realistic cadence): only then is it safe to damage the topics behind its back.
        eventually("the source task gone", lambda: not _tasks_of(m, d.source), timeout=120)
        eventually("Connect to have stopped the source's task", lambda: _stopped_in_connect(m, d.source), timeout=60)
        # The damage, while the mirror is stopped:
        produce(producer, gap, [f"g{i}" for i in range(10, 20)])  # offsets 10..19, never replicated
        kafka_admin.delete_records([TopicPartition(gap, 0, 15)])[TopicPartition(gap, 0, 15)].result(timeout=30)
        kafka_admin.delete_topics([gone])[gone].result(timeout=30)
        _recreate(kafka_admin, env.bootstrap_servers, again)
        _produce_into_recreated(env.bootstrap_servers, again, ["b0", "b1"])  # offsets 0..1; 4 was stored
        yield d


def _produce_into_recreated(bootstrap, topic, values):
    """Right after a delete + create, the broker can acknowledge records for the old partition that then vanish
    with it (KRaft finishes the deletion asynchronously): produce with a fresh producer until they are really in."""
    from confluent_kafka import Producer

    def landed() -> bool:
        produce(Producer(producer_conf(bootstrap)), topic, values)
        try:
            return bool(eventually(f"{values} in {topic}", lambda: _holds(bootstrap, topic, len(values)), 10, 0.5))
        except AssertionError:
            return False  # gone with the old partition: produce again

    eventually(f"{topic} to keep {values}", landed, 60, 0)


def _holds(bootstrap, topic, count: int) -> bool:
    seen = watermarks(bootstrap, topic)
    if seen[1] > 0 and seen != (0, count):
        pytest.fail(f"{topic}: unexpected watermarks {seen}")
    return seen == (0, count)


def _stopped_in_connect(m, connector) -> bool:
    """Connect's own status: the connector STOPPED and no task left (one still listed may still poll)."""
    status, body = m.judge.connect.get(m.judge.connect.connector_path(connector, "/status"))
    return status == 200 and body["connector"]["state"] == "STOPPED" and not body.get("tasks")


def _tasks_of(m, connector):
    for entry in (m.get().get("status") or {}).get("connectors") or []:
        if entry.get("name") == connector:
            return entry.get("tasks") or []
    return []


# ------------------------------------------------------------------------------------------ the pre-flight

def test_check_reports_gap_ahead_and_missing_exactly(damaged, cli, env):
    d, m = damaged, damaged.m
    run = cli("check", m.target_arg, "-n", m.ns, "--source-bootstrap-server", env.bootstrap_servers, "-o", "json")
    assert run.code == 9, run.err
    assert "3 source partition(s)" in run.err
    report = json.loads(run.out)
    assert not schemas.errors("mm2-check", report)
    assert report["ok"] is False and [c["connector"] for c in report["connectors"]] == [d.source]
    rows = {p["topic"]: p for p in report["connectors"][0]["partitions"]}
    assert rows[d.gap] == {"topic": d.gap, "partition": 0, "stored": 9, "logStart": 15, "logEnd": 20,
                           "status": "gap"}
    assert rows[d.gone] == {"topic": d.gone, "partition": 0, "stored": 2, "logStart": None, "logEnd": None,
                            "status": "missing"}
    assert rows[d.again] == {"topic": d.again, "partition": 0, "stored": 4, "logStart": 0, "logEnd": 2,
                             "status": "ahead"}
    # The addresses in the spec are reachable here too: the same verdict without the flag, as a table.
    table = cli("check", m.target_arg, "-n", m.ns, "--source-bootstrap-server", env.bootstrap_servers)
    assert table.code == 9 and "gap" in table.out and "ahead" in table.out and "missing" in table.out


def test_alter_preview_warns_and_bad_input_changes_nothing(damaged, cli, env):
    d, m = damaged, damaged.m
    before = m.wait_steady()
    target = (m.target_arg, "-n", m.ns, "--connector", d.source)
    here = ("--source-bootstrap-server", env.bootstrap_servers)
    # An alter that repairs the gap (resume at the log start, 15) still warns about the other two partitions.
    dry = cli("alter", *target, "--to-offset", "15", "--topic", f"{d.gap}:0", "--dry-run", *here).ok()
    assert f"{d.gone}:0 missing" in dry.err and f"{d.again}:0 ahead: stored 4, log end 2" in dry.err
    assert f"{d.gap}:0 gap" not in dry.err, "stored 14 resumes at the log start: no gap"
    # One that keeps the gap says which records are lost.
    lost = cli("alter", *target, "--set", f"{d.gap}:0=3", "--dry-run", *here).ok()
    assert f"{d.gap}:0 gap: stored 3, log start 15: records 4 to 14 (11)" in lost.err
    # An unreachable broker: one line, and the operation goes on (here: the dry run)...
    away = cli("alter", *target, "--set", f"{d.gap}:0=14", "--dry-run", "--source-bootstrap-server", "127.0.0.1:1")
    skipped = [line for line in away.ok().err.splitlines() if "pre-flight skipped" in line]
    assert len(skipped) == 1 and "127.0.0.1:1" in skipped[0]
    # ...unless the user insists: refused before anything is written.
    cli("alter", *target, "--set", f"{d.gap}:0=14", "--yes", "--require-check",
        "--source-bootstrap-server", "127.0.0.1:1").refused("--require-check", "127.0.0.1:1")
    # check refuses what it cannot judge.
    cli("check", m.target_arg, "-n", m.ns, "--connector", "checkpoint").refused("MirrorSourceConnector")
    cli("check", "some-sink", "-n", m.ns).refused("KafkaConnector")
    cli("check", m.target_arg, "-n", m.ns, "--source-bootstrap-server", "127.0.0.1:1").refused("127.0.0.1:1")
    # Full-reset input that cannot work: refused, nothing changed.
    cli("reset", *target, "--allow-shared-offset-syncs", "--yes").refused("--with-offset-syncs")
    cli("reset", m.target_arg, "-n", m.ns, "--connector", "checkpoint", "--force", "--with-offset-syncs",
        "--yes").refused("MirrorSourceConnector")
    assert m.snapshot() == before, "bad input changed the resource or a ConfigMap"


# ------------------------------------------------------------------------------------------ lag gates

def test_lag_gates_pass_and_fail(damaged, cli, env, kafka_admin, tmp_path):
    d, m = damaged, damaged.m
    # `gap` resumes at 10 (stored 9) but its log starts at 15: 5 records pending, the oldest produced just now.
    base = ("lag", m.target_arg, "-n", m.ns, "--connector", d.source, "--bootstrap-server", env.bootstrap_servers,
            "--topic", d.gap)
    run = cli(*base, "-o", "json").ok()
    report = json.loads(run.out)
    assert not schemas.errors("lag", report)
    rows = {p["topic"]: p for p in report["partitions"]}
    assert rows[d.gap]["lag"] == 5 and rows[d.gap]["position"] == 10
    assert f"topic '{d.gone}' does not exist" in run.err  # said so, and reported the partition as missing
    assert rows[d.gone]["status"] == "missing" and rows[d.gone]["end"] is None
    assert rows[d.again]["status"] == "ahead" and rows[d.again]["lag"] == 0 and rows[d.gap]["status"] == "ok"
    assert 0 <= rows[d.gap]["timeLagSeconds"] < 600 and rows[d.gap]["oldestPending"].endswith("Z")
    # A gate fails closed: the gap partition is within --max-lag 5, but the lag of the other two cannot be measured.
    closed = cli(*base, "--max-lag", "5", "-o", "json")
    assert closed.code == 9, closed.err
    assert f"{d.again}:0 (ahead: resumes at 5, past the log end 2)" in closed.err
    assert f"{d.gone}:0 (missing: the partition does not exist)" in closed.err
    assert sorted(e["reason"] for e in json.loads(closed.out)["thresholds"]["exceeded"]) == ["ahead", "missing"]
    # Only the gap partition's offsets (--current), as Connect stores them: the gates pass and fail on its figures.
    current = tmp_path / "gap.json"
    current.write_text(json.dumps({"offsets": [e for e in m.judge.stored(d.source) if e["partition"]["topic"] == d.gap]}))
    only_gap = (*base, "--current", str(current))
    assert cli(*only_gap, "--max-lag", "5").code == 0
    over = cli(*only_gap, "--max-lag", "4", "-o", "json")
    assert over.code == 9 and f"{d.gap}:0 (lag)" in over.err
    assert json.loads(over.out)["thresholds"]["exceeded"] == [{"topic": d.gap, "partition": 0, "reason": "lag"}]
    assert cli(*only_gap, "--max-age", "1h").code == 0
    oldest = datetime.fromisoformat(rows[d.gap]["oldestPending"].replace("Z", "+00:00")).timestamp()
    eventually("the oldest pending record older than 2s", lambda: time.time() - oldest > 2.5, timeout=10)
    old = cli(*only_gap, "--max-age", "2s")
    assert old.code == 9 and "(age)" in old.err
    cli(*base, "--max-age", "soon").refused("--max-age 'soon' is not a duration")


# ------------------------------------------------------------------------------------------ the full reset

def test_full_reset_truncates_the_offset_syncs_and_replicates_again(damaged, cli, env):
    from confluent_kafka.admin import AdminClient

    d, m = damaged, damaged.m
    admin = AdminClient(kafka_conf(env.bootstrap_servers))
    start_before, end_before = watermarks(env.bootstrap_servers, d.syncs_topic)
    assert end_before > start_before, "the source task wrote offset syncs while it ran"
    before = m.wait_steady()
    target = (m.target_arg, "-n", m.ns, "--connector", "source", "--source-bootstrap-server", env.bootstrap_servers)
    dry = cli("reset", *target, "--with-offset-syncs", "--dry-run").ok()
    assert d.syncs_topic in dry.err and f"{end_before - start_before} record(s)" in dry.err
    assert d.checkpoint in dry.err and "the topic itself is kept" in dry.err
    assert m.snapshot() == before, "--dry-run changed something"

    m.set_state(0, "sourceConnector", None)  # running again (the damage stays); the reset stops it itself
    m.wait_state(d.source, "RUNNING")
    # What the damage costs on its own: g10..g14 never arrive (gap); the recreated topic is copied from its start.
    assert topic_values(env.bootstrap_servers, f"{m.src}.{d.gap}", 15)[10:] == [f"g{i}" for i in range(15, 20)]
    assert topic_values(env.bootstrap_servers, f"{m.src}.{d.again}", 7)[5:] == ["b0", "b1"]
    # A sync that is not urgent waits for the task's next commit, at the worker's offset flush (60 s by default, and
    # these mirrors keep the default): a wait of 60 s met that bound exactly (Strimzi 0.51.0 at load, 2026-11-28).
    eventually("syncs of the new replication", lambda: watermarks(env.bootstrap_servers, d.syncs_topic)[1] > end_before,
               timeout=150)
    _, end_before = watermarks(env.bootstrap_servers, d.syncs_topic)
    run = cli("reset", *target, "--with-offset-syncs", "--yes").ok()
    assert "truncating " + d.syncs_topic in run.err
    # Old syncs are gone; the topic is still there.
    start_after, _ = watermarks(env.bootstrap_servers, d.syncs_topic)
    assert start_after >= end_before
    obj = m.get()
    assert JOURNAL not in (obj["metadata"].get("annotations") or {})
    assert "state" not in obj["spec"]["mirrors"][0]["sourceConnector"]
    assert "state" not in obj["spec"]["mirrors"][0]["checkpointConnector"]
    m.wait_state(d.source, "RUNNING")
    m.wait_state(d.checkpoint, "RUNNING")
    # Replication starts over from each partition's log start: gap's 15..19 and again's b0, b1 arrive again.
    values = topic_values(env.bootstrap_servers, f"{m.src}.{d.gap}", 20)
    assert values[15:] == [f"g{i}" for i in range(15, 20)]
    assert topic_values(env.bootstrap_servers, f"{m.src}.{d.again}", 9)[7:] == ["b0", "b1"]
    # cleanup.policy is back as MirrorMaker 2 created it.
    from confluent_kafka.admin import ConfigResource, ResourceType

    resource = ConfigResource(ResourceType.TOPIC, d.syncs_topic)
    policy = admin.describe_configs([resource])[resource].result()["cleanup.policy"].value
    assert policy == "compact"
    # Now the check is clean: gone has no offset any more, the others are stored again within their logs.
    eventually("a clean check", lambda: cli("check", m.target_arg, "-n", m.ns, "--source-bootstrap-server",
                                          env.bootstrap_servers).code == 0, timeout=90, interval=2)



def test_an_interrupted_full_reset_is_finished_by_recover(damaged, cli, env):
    """The process dies after the checkpoint reset, before the truncation: the journal says the truncation has not
    happened, and recover does it (and only then resumes both connectors)."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.core.online.mm2_check import Mm2Settings
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
    from kubectl_offsets.core.online.targets import TargetSpec
    from kubectl_offsets.model import ClusterConfig, Options

    d, m = damaged, damaged.m
    # The replication after the previous reset wrote new syncs.
    eventually("new offset syncs", lambda: (lambda w: w[1] > w[0])(watermarks(env.bootstrap_servers, d.syncs_topic)))
    kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=m.ns))
    options = Options(yes=True, mm2=Mm2Settings(source_bootstrap=env.bootstrap_servers, with_offset_syncs=True))
    with pytest.raises(SimulatedCrash), hooks.crash_after("reset-checkpoint"):
        operations.reset_offsets(kube, TargetSpec(m.target_arg, connector="source"), options=options)
    journal = json.loads(m.get()["metadata"]["annotations"][JOURNAL])
    assert journal["step"] == "reset-checkpoint" and journal["offset_syncs"]["truncated"] is False
    start, end = watermarks(env.bootstrap_servers, d.syncs_topic)
    assert end > start, "not truncated yet"
    assert m.live_state(d.source) == "STOPPED" and m.live_state(d.checkpoint) == "STOPPED"
    # A second full reset is refused while the journal is there, naming the recover command.
    cli("reset", m.target_arg, "-n", m.ns, "--connector", "source", "--with-offset-syncs", "--yes",
        "--source-bootstrap-server", env.bootstrap_servers).refused("in progress", "kubectl offsets recover")
    done = cli("recover", m.target_arg, "-n", m.ns, "--connector", "source", "--force").ok()  # fresh heartbeat
    assert "offset-syncs truncated" in done.out
    assert watermarks(env.bootstrap_servers, d.syncs_topic)[0] >= end
    assert JOURNAL not in (m.get()["metadata"].get("annotations") or {})
    m.wait_state(d.source, "RUNNING")
    m.wait_state(d.checkpoint, "RUNNING")


def test_a_shared_offset_syncs_topic_is_refused_naming_the_pairs(damaged, cli, env, kafka_admin):
    """Another KafkaMirrorMaker2 (v1beta2 layout) mirrors from the same source cluster to a target with the same
    alias: MirrorMaker 2 puts both mirrors' syncs into one topic on the source cluster."""
    d, m = damaged, damaged.m
    other, north = f"other-{uuid.uuid4().hex[:6]}", f"north{uuid.uuid4().hex[:6]}"
    topic = create_topic(kafka_admin, f"north-{uuid.uuid4().hex[:6]}")
    m.custom.create_namespaced_custom_object(GROUP, OTHER_LAYOUT, m.ns, PLURAL, mirror_resource(
        OTHER_LAYOUT, m.ns, other, cluster_bootstrap(env), north, m.tgt, f"^{topic}$", checkpoint=False,
        state="stopped"))
    try:
        before = m.wait_steady()
        refused = cli("reset", m.target_arg, "-n", m.ns, "--connector", "source", "--with-offset-syncs", "--yes",
                      "--source-bootstrap-server", env.bootstrap_servers)
        refused.refused("is shared", d.syncs_topic, f"kafkamirrormaker2/{other} '{north}->{m.tgt}'",
                        "--allow-shared-offset-syncs")
        dry = cli("reset", m.target_arg, "-n", m.ns, "--connector", "source", "--with-offset-syncs",
                  "--allow-shared-offset-syncs", "--dry-run", "--source-bootstrap-server", env.bootstrap_servers).ok()
        assert d.syncs_topic in dry.err
        assert m.snapshot() == before
    finally:
        m.custom.delete_namespaced_custom_object(GROUP, READ_VERSION, m.ns, PLURAL, other)
        eventually("the other mirror's connectors deleted", lambda: not connectors_of(env, north), 60)


def test_the_offset_syncs_example_is_accepted_and_names_the_topic_its_comments_say(damaged):
    from pathlib import Path

    import yaml

    from kubectl_offsets import strimzi
    from kubectl_offsets.core.online.mm2_full_reset import _syncs_topic

    m = damaged.m
    folder = Path(__file__).resolve().parents[3] / "examples" / "mirrormaker2"
    path = folder / "kafkamirrormaker2-offset-syncs-target.yaml"
    example = yaml.safe_load(path.read_text())
    example["metadata"]["namespace"] = m.ns
    if "v1" in PROFILE.served:  # the example is in the v1 layout; Strimzi 0.45 does not serve it
        accepted = m.custom.create_namespaced_custom_object(GROUP, "v1", m.ns, PLURAL, example, dry_run="All",
                                                            field_validation="Strict")
        assert accepted["spec"] == example["spec"]
    for short in ("source", "checkpoint"):
        topic = _syncs_topic(example, strimzi.resolve_mm2_target(example, short))
        assert (topic.name, topic.location) == ("mm2-offset-syncs.east.internal", "target")


def _untied_spelling(env, core) -> str:
    """Another address of the broker that names nothing the plugin can tie to the mirror's own (no shared address,
    no Strimzi Service name): the test's stand-in for a MirrorMaker 2 outside Kubernetes."""
    address = cluster_bootstrap(env)
    host, _, port = address.rpartition(":")
    if host == "127.0.0.1":
        return f"localhost:{port}"
    cluster, namespace = strimzi.kafka_cluster_of_bootstrap(address) or (None, None)
    assert cluster and namespace, f"no other spelling known for {address}"
    service = core.read_namespaced_service(f"{cluster}-kafka-bootstrap", namespace)
    return f"{service.spec.cluster_ip}:{port}"


def test_syncs_written_by_a_mirror_we_cannot_see_are_found_in_the_topic(damaged, cli, env, kafka_admin):
    """A MirrorMaker 2 we cannot tie to this mirror's cluster (in another namespace, with an address of the same
    cluster that no rule relates to ours: as good as outside Kubernetes) replicates from the same source cluster to
    a target with the same alias: its syncs land in our offset-syncs topic. Only the topic's content shows it; the
    full reset refuses, naming its topic."""
    from kubernetes import client

    d, m = damaged, damaged.m
    tag = uuid.uuid4().hex[:6]
    ns, name, south, topic = f"mm2-foreign-{tag}", f"foreign-{tag}", f"south{tag}", f"foreign-{tag}"
    m.core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(
        name=ns, labels={"kubectl-offsets-test": "true"})))
    create_topic(kafka_admin, topic)
    from confluent_kafka import Producer

    produce(Producer(producer_conf(env.bootstrap_servers)), topic, ["f0", "f1"])
    _, end_before = watermarks(env.bootstrap_servers, d.syncs_topic)
    m.custom.create_namespaced_custom_object(GROUP, LAYOUT, ns, PLURAL, mirror_resource(
        LAYOUT, ns, name, _untied_spelling(env, m.core), south, m.tgt, f"^{topic}$", checkpoint=False))
    try:
        topic_values(env.bootstrap_servers, f"{south}.{topic}", 2, timeout=90)
        eventually("the foreign mirror's offset syncs",
                 lambda: watermarks(env.bootstrap_servers, d.syncs_topic)[1] > end_before, timeout=60)
        before = m.wait_steady()
        cli("reset", m.target_arg, "-n", m.ns, "--connector", "source", "--with-offset-syncs", "--yes",
            "--source-bootstrap-server", env.bootstrap_servers).refused(
            "holds syncs of topics this mirror does not replicate", topic, "--allow-shared-offset-syncs")
        assert m.snapshot() == before
    finally:
        m.custom.delete_namespaced_custom_object(GROUP, READ_VERSION, ns, PLURAL, name)
        try:
            eventually("the foreign mirror's connectors deleted", lambda: not connectors_of(env, south), 60)
        finally:
            m.core.delete_namespace(ns)
