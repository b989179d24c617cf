"""Issue 4 end to end: kubectl offsets list|alter|reset|undo|recover kafkamirrormaker2/NAME --connector ..., against
real MirrorMaker 2 connectors driven by the session's operator, in every layout its era serves.

Tests run in file order for each layout (the ``mirror`` fixture is module-scoped): the ones that must change
nothing come first, the replication scenario last. Judged by what arrives on the target topic and what Connect
stores (``Mirror.stored``); the plugin's list is compared with Connect's offsets only where list is under test.
"""
from __future__ import annotations

import copy
import dataclasses
import json

import pytest


from .conftest import (GROUP, JOURNAL, MM2_CONNECTOR, OFFSETS, PLURAL, Recorder, annotations_of, json_out,
                       live_offset, partition0)


def source_doc(m, offset):
    return {"offsets": [{"partition": {"cluster": m.src, "topic": m.topic, "partition": 0},
                         "offset": None if offset is None else {"offset": offset}}]}


def list_json(cli, m, *connector):
    """The listed offsets of source partition 0 (partition 1 carries live traffic; see live_offset)."""
    return partition0(json_out(cli("list", m.target_arg, *connector, "-n", m.ns, "-o", "json")))


class LiveWatch:
    """Partition 1 of the mirrored topic keeps receiving records: its stored offset may only grow, except through a
    request that names it (a reset). ``check(document)`` after each operation."""

    def __init__(self, m):
        self.m, self.last = m, None

    def check(self, document: dict) -> dict:
        found = live_offset(document, self.m.topic)
        if found is not None:
            assert self.last is None or found >= self.last, f"live partition moved backwards: {self.last} -> {found}"
            self.last = found
        return partition0(document)

    def forget(self) -> None:  # after a reset, which rightly drops it
        self.last = None


# ------------------------------------------------------------------------------------------ bad input

def test_bad_input_is_refused_and_changes_nothing(mirror, cli, tmp_path):
    m = mirror
    before = m.wait_steady()
    valid = [m.connector(), m.connector("MirrorCheckpointConnector"), m.connector(src=m.src2)]
    target = (m.target_arg, "-n", m.ns)

    # An unknown name (a typo the operator would ignore forever): refused, naming every valid connector.
    typo = cli("list", *target, "--connector", f"{m.src}->{m.tgt}.MirrorSourceConnecter")
    typo.refused("has no connector named", *[f"'{name}'" for name in valid])
    # `--connector east->west.MirrorSourceConnector` unquoted: the shell passes `east-` and redirects to a file.
    cli("alter", *target, "--connector", f"{m.src}-", "--set", f"{m.topic}:0=1", "--yes").refused(
        "looks mangled by the shell", "quote the name", f"'{m.connector()}'")
    # A missing alias, in a full name and as --source-cluster.
    cli("list", *target, "--connector", f"nowhere->{m.tgt}.MirrorSourceConnector").refused(
        "has no connector named", f"'{m.connector()}'")
    cli("reset", *target, "--connector", "source", "--source-cluster", "nowhere", "--yes").refused(
        "nowhere", m.src, m.src2)
    cli("list", *target, "--connector", m.connector(), "--source-cluster", m.src2).refused(
        f"not from --source-cluster '{m.src2}'")
    # A connector of a mirror that does not exist: mirror 1 has no checkpoint connector.
    cli("reset", *target, "--connector", "checkpoint", "--source-cluster", m.src2, "--yes", "--force").refused(
        m.src2, f"'{m.connector('MirrorCheckpointConnector')}'")
    # The short form is ambiguous with two mirrors; no --connector at all.
    cli("list", *target, "--connector", "source").refused("ambiguous", "--source-cluster", m.src, m.src2)
    cli("list", *target).refused("needs --connector", f"'{m.connector()}'")
    # Offsets for a topic this mirror does not replicate (one unknown, one replicated by the *other* mirror).
    full = ("--connector", m.connector())
    cli("alter", *target, *full, "--set", "elsewhere:0=1", "--yes").refused(
        "does not replicate topic 'elsewhere'", m.topic)
    cli("alter", *target, *full, "--skip-record", f"{m.topic2}:0:0", "--yes").refused(
        f"does not replicate topic '{m.topic2}'")
    cli("alter", *target, *full, "--set", f"{m.topic}-secret:0=1", "--yes").refused(  # matched, but excluded
        f"does not replicate topic '{m.topic}-secret'", f"except ^{m.topic}-secret$")
    # A document whose partitions name another cluster alias.
    wrong = json.dumps({"offsets": [{"partition": {"cluster": m.src2, "topic": m.topic, "partition": 0},
                                     "offset": {"offset": 1}}]})
    wrong_file = tmp_path / "wrong-cluster.json"
    wrong_file.write_text(wrong)
    cli("alter", *target, *full, "-f", str(wrong_file), "--yes").refused(
        f"names cluster '{m.src2}'", f'"cluster": "{m.src}"')
    # Heartbeat: only the v1beta2 layout has one.
    if m.layout == "v1":
        cli("list", *target, "--connector", "heartbeat").refused("v1 layout", "no heartbeat connector")
    else:
        cli("reset", *target, "--connector", "heartbeat", "--yes").refused("--force")
    # Checkpoint offsets are ignored by the runtime: alter/reset want --force.
    cli("reset", *target, "--connector", "checkpoint", "--yes").refused("never reads them", "--force")
    cli("alter", *target, "--connector", "checkpoint", "-f", str(wrong_file), "--yes").refused("--force")

    # --dry-run prints the patches for this connector's stanza only, and changes nothing either.
    dry = cli("alter", *target, *full, "--set", f"{m.topic}:0=1", "--dry-run").ok()
    assert "/spec/mirrors/0/sourceConnector/state" in dry.out and f"{m.src}--{m.tgt}.MirrorSourceConnector.json" \
        in dry.out and "/spec/mirrors/1" not in dry.out and "dry run: nothing was changed" in dry.err

    after = m.snapshot()
    assert after == before, "bad input changed the resource or a ConfigMap"


def test_a_stale_mirror_index_is_caught_by_the_patch_guard(mirror, env):
    """The target was computed from an older read: its mirror index no longer exists, or now holds another
    mirror. The guard (`test` of the mirror's source alias) makes the API server reject the patch: no write."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.core.online.operator import OperatorClient
    from kubectl_offsets.core.online.targets import TargetSpec, resolve
    from kubectl_offsets.errors import OffsetsError
    from kubectl_offsets.model import ClusterConfig, WaitSettings
    from kubectl_offsets.progress import SilentProgress

    m = mirror
    before = m.wait_steady()
    kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=m.ns))
    live = resolve(kube, TargetSpec(m.target_arg, connector=m.connector()))
    assert live.target.stanza_path == ("spec", "mirrors", 0, "sourceConnector")
    for index in (7, 1):  # no such mirror; the other mirror
        stale = dataclasses.replace(live.target, stanza_path=("spec", "mirrors", index, "sourceConnector"))
        client = OperatorClient(kube, stale, WaitSettings(timeout=20), SilentProgress())
        with pytest.raises(OffsetsError):
            client.list_offsets()
    assert m.snapshot() == before


# ------------------------------------------------------------------------------------------ checkpoint / heartbeat

def test_checkpoint_and_heartbeat_list_real_offsets_and_need_force(mirror, cli, tmp_path):
    from kubectl_offsets import schemas

    m = mirror
    m.stored_until(m.connector(), lambda d: d == source_doc(m, 4), "source offset 4")
    source = list_json(cli, m, "--connector", m.connector())
    assert source == m.stored(m.connector())  # list shows what Connect stores
    schemas.validate("offsets-mirror-source", source, what="MirrorSourceConnector offsets from Connect")

    m.stored_until(m.connector("MirrorCheckpointConnector"), lambda d: d["offsets"], "a checkpoint offset")
    checkpoint = list_json(cli, m, "--connector", "checkpoint")
    assert checkpoint == m.stored(m.connector("MirrorCheckpointConnector"))
    schemas.validate("offsets-mirror-checkpoint", checkpoint, what="MirrorCheckpointConnector offsets from Connect")
    # The checkpoint's partition names the *target* (renamed) topic the group's offsets translate to.
    assert checkpoint == {"offsets": [{"partition": {"group": m.group, "topic": m.target_topic, "partition": 0},
                                       "offset": {"offset": 0}}]}
    if m.layout == "v1beta2":
        m.stored_until(m.connector("MirrorHeartbeatConnector"), lambda d: d["offsets"], "a heartbeat offset")
        heartbeat = list_json(cli, m, "--connector", "heartbeat")
        assert heartbeat == m.stored(m.connector("MirrorHeartbeatConnector"))
        schemas.validate("offsets-mirror-heartbeat", heartbeat, what="MirrorHeartbeatConnector offsets from Connect")
        assert heartbeat == {"offsets": [{"partition": {"sourceClusterAlias": m.src, "targetClusterAlias": m.tgt},
                                          "offset": {"offset": 0}}]}

    # Without --force: refused before anything changes (the runtime never reads these offsets).
    before = m.wait_steady()
    cli("alter", m.target_arg, "-n", m.ns, "--connector", "checkpoint", "--set", f"{m.topic}:0=0", "--yes"
        ).refused("mirror-checkpoint connector", "--force")
    cli("reset", m.target_arg, "-n", m.ns, "--connector", m.connector("MirrorCheckpointConnector"), "--yes"
        ).refused("--force")
    assert m.snapshot() == before
    # With --force: a real alter through the operator (Connect accepts only 0), state restored.
    listed_file = tmp_path / "checkpoint.json"
    listed_file.write_text(json.dumps(checkpoint))
    done = cli("alter", m.target_arg, "-n", m.ns, "--connector", "checkpoint", "-f", str(listed_file), "--force",
               "--yes", "-o", "json")
    assert json_out(done) == checkpoint == m.stored(m.connector("MirrorCheckpointConnector"))
    assert m.live_state(m.connector("MirrorCheckpointConnector")) == "RUNNING"
    assert "state" not in m.get()["spec"]["mirrors"][0]["checkpointConnector"]


# ------------------------------------------------------------------------------------------ shared list ConfigMap

def test_connectors_share_one_list_configmap_and_other_keys_survive(mirror, cli):
    from kubernetes import client

    m = mirror
    name = f"{m.name}-shared"
    m.core.create_namespaced_config_map(m.ns, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=name), data={"notes.txt": "kept by everyone"}))
    spec = m.get()["spec"]
    patch_mirrors = copy.deepcopy(spec["mirrors"])
    for mirror_spec in patch_mirrors:
        mirror_spec["sourceConnector"]["listOffsets"] = {"toConfigMap": {"name": name}}
    m.merge_patch({"spec": {"mirrors": patch_mirrors}})

    doc2 = {"offsets": [{"partition": {"cluster": m.src2, "topic": m.topic2, "partition": 0}, "offset": {"offset": 1}}]}
    m.stored_until(m.connector(), lambda d: d == source_doc(m, 4), "offset 4 of mirror 0")
    m.stored_until(m.connector(src=m.src2), lambda d: d == doc2, "offset 1 of mirror 1")
    first = list_json(cli, m, "--connector", "source", "--source-cluster", m.src)
    second = list_json(cli, m, "--connector", "source", "--source-cluster", m.src2)
    data = m.core.read_namespaced_config_map(name, m.ns).data
    assert set(data) == {"notes.txt", f"{m.src}--{m.tgt}.MirrorSourceConnector.json",
                         f"{m.src2}--{m.tgt}.MirrorSourceConnector.json"}
    assert data["notes.txt"] == "kept by everyone"
    assert partition0(json.loads(data[f"{m.src}--{m.tgt}.MirrorSourceConnector.json"])) == first == source_doc(m, 4)
    assert json.loads(data[f"{m.src2}--{m.tgt}.MirrorSourceConnector.json"]) == second


# ------------------------------------------------------------------------------------------ one at a time

def test_one_operation_at_a_time_per_kafkamirrormaker2(mirror, cli, env, monkeypatch, tmp_path):
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.core.inputs import AlterRequest
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
    from kubectl_offsets.core.online.targets import TargetSpec
    from kubectl_offsets.model import ClusterConfig, Options

    m = mirror
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=m.ns))
    spec = TargetSpec(m.target_arg, connector=m.connector())
    unchanged = AlterRequest(sets=(f"{m.topic}:0=4",))  # the current offset: replication is not disturbed

    # 1. A run that "dies" right after stopping the connector: its journal stays on the KafkaMirrorMaker2.
    with pytest.raises(SimulatedCrash), hooks.crash_after("stop"):
        operations.alter_offsets(kube, spec, unchanged, options=Options(yes=True))
    journal = json.loads(annotations_of(m.get())[JOURNAL])
    assert journal["connector"] == m.connector() and journal["step"] == "stop"
    assert m.live_state(m.connector()) == "STOPPED"
    busy = ("another kubectl-offsets operation is in progress", f"alter of '{m.connector()}'",
            f"kubectl offsets recover kafkamirrormaker2/{m.name} --connector '{m.connector()}' -n {m.ns}")
    # Another connector of the same KafkaMirrorMaker2 is refused, naming the operation in progress.
    before = m.snapshot()
    cli("alter", m.target_arg, "-n", m.ns, "--connector", m.connector(src=m.src2), "--set", f"{m.topic2}:0=0",
        "--yes").refused(*busy)
    cli("reset", m.target_arg, "-n", m.ns, "--connector", "checkpoint", "--force", "--yes").refused(*busy)
    cli("recover", m.target_arg, "-n", m.ns, "--connector", m.connector(src=m.src2), "--force").refused(
        f"the interrupted operation is on connector '{m.connector()}'")
    # So is a list, even of another connector, while the owner is at work (the crashed run's lease has not run out
    # yet): its request would have the owner's next one refused as pending.
    cli("list", m.target_arg, "-n", m.ns, "--connector", m.connector(src=m.src2), "-o", "json").refused(
        *busy, f"in progress by {journal['id']}, last seen")
    assert m.snapshot() == before
    # recover (before the point of no return) rolls back: state restored, journal gone, offsets untouched.
    out = cli("recover", m.target_arg, "-n", m.ns, "--connector", "source", "--source-cluster", m.src,
              "--force").ok().out
    assert "restored to running" in out and "offsets unchanged" in out
    assert JOURNAL not in annotations_of(m.get())
    m.wait_state(m.connector(), "RUNNING")
    assert "state" not in m.get()["spec"]["mirrors"][0]["sourceConnector"]

    # 2. A run that dies after handing the request to the operator: recover finishes it and verifies.
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        operations.alter_offsets(kube, spec, unchanged, options=Options(yes=True))
    cli("alter", m.target_arg, "-n", m.ns, "--connector", "checkpoint", "--force", "--set", "x:0=0", "--yes"
        ).refused(*busy)
    out = cli("recover", m.target_arg, "-n", m.ns, "--connector", m.connector(), "--force").ok().out
    assert "finished: offsets verified, connector running" in out
    obj = m.get()
    assert not {JOURNAL, OFFSETS, MM2_CONNECTOR} & set(annotations_of(obj))
    assert "alterOffsets" not in obj["spec"]["mirrors"][0]["sourceConnector"]
    m.wait_state(m.connector(), "RUNNING")
    assert m.target_values(5) == m.produced  # nothing was replayed or skipped


# ------------------------------------------------------------------------------------------ the scenario

def test_list_alter_skip_reset_move_replication(mirror, cli):
    """list shows the real source offset; alter --set replays from OFFSET+1 onto the target topic; --skip-record
    skips exactly one record (and a paused mirror stays paused); reset re-replicates everything; undo puts the
    offsets back; --shift-by moves relative to them; --to-offset 0 replicates the partition from the start. Only
    mirrors[0].sourceConnector changes; both annotations always come and go together."""
    m = mirror
    src_connector = m.connector()
    by_short = ("--connector", "source", "--source-cluster", m.src)
    by_name = ("--connector", src_connector)
    original = m.get()
    live = LiveWatch(m)
    with Recorder(m) as recorded:
        m.stored_until(src_connector, lambda d: d == source_doc(m, 4), "offset 4")
        assert list_json(cli, m, *by_name) == source_doc(m, 4)  # list shows the real source offset

        # alter --set: stored = last replicated, so 1 means "resume at 2": r2, r3, r4 arrive again.
        after = live.check(json_out(cli("alter", m.target_arg, "-n", m.ns, *by_short, "--set", f"{m.topic}:0=1",
                                        "--yes", "-o", "json")))
        assert after == source_doc(m, 1)
        assert m.target_values(8) == m.produced + ["r2", "r3", "r4"]
        assert m.live_state(src_connector) == "RUNNING"
        m.stored_until(src_connector, lambda d: d == source_doc(m, 4), "offset 4 after the replay")

        # --skip-record on a paused mirror: r5 is skipped, r6 and r7 arrive once it runs; it stays paused.
        m.set_state(0, "sourceConnector", "paused")
        m.wait_tasks(src_connector, "PAUSED")
        assert m.target_values(8)[-3:] == ["r2", "r3", "r4"]
        m.produce(["r5", "r6", "r7"])
        after = live.check(json_out(cli("alter", m.target_arg, "-n", m.ns, *by_name, "--skip-record",
                                        f"{m.topic}:0:5", "--yes", "-o", "json")))
        assert after == source_doc(m, 5) == m.stored(src_connector)
        assert m.live_state(src_connector) == "PAUSED"
        assert m.get()["spec"]["mirrors"][0]["sourceConnector"]["state"] == "paused"
        assert m.target_values(8)[-3:] == ["r2", "r3", "r4"]  # still paused: nothing new
        m.set_state(0, "sourceConnector", None)
        assert m.target_values(10)[-2:] == ["r6", "r7"]
        m.stored_until(src_connector, lambda d: d == source_doc(m, 7), "offset 7")

        # reset: no stored offset, so the task starts from the beginning (auto.offset.reset=earliest).
        after = json_out(cli("reset", m.target_arg, "-n", m.ns, *by_short, "--yes", "-o", "json"))
        assert after == {"offsets": []}  # every partition, the live one too
        live.forget()
        assert m.target_values(18)[-8:] == [f"r{i}" for i in range(8)]
        m.stored_until(src_connector, lambda d: d == source_doc(m, 7), "offset 7 after the reset")

        # undo restores the reset's backup (offset 7): nothing is replayed.
        after = partition0(json_out(cli("undo", f"kafkamirrormaker2/{m.name}", "-n", m.ns, *by_name, "--yes",
                                        "-o", "json")))
        assert after == source_doc(m, 7)
        m.produce(["r8"])
        assert m.target_values(19)[-1] == "r8"
        m.stored_until(src_connector, lambda d: d == source_doc(m, 8), "offset 8")

        # --shift-by is relative to the stored offset: 8 - 2 = 6, so r7 and r8 are copied again.
        shifted = json_out(cli("alter", m.target_arg, "-n", m.ns, *by_name, "--shift-by", "-2", "--topic",
                               f"{m.topic}:0", "--yes", "-o", "json"))
        after = live.check(shifted)
        assert after == source_doc(m, 6)
        assert m.target_values(21)[-2:] == ["r7", "r8"]
        # --to-offset 0 has no stored form for MirrorMaker 2 (-1 is rejected): a null offset, i.e. from the start.
        after = live.check(json_out(cli("alter", m.target_arg, "-n", m.ns, *by_name, "--to-offset", "0",
                                        "--topic", f"{m.topic}:0", "--yes", "-o", "json")))
        assert after == {"offsets": []}
        assert m.target_values(30)[-9:] == [f"r{i}" for i in range(9)]

    final = m.get()
    _assert_only_the_source_stanza_changed(m, original, final, recorded.objects)


def _without_source_stanza(spec):
    spec = copy.deepcopy(spec)
    del spec["mirrors"][0]["sourceConnector"]
    return spec


# The Warning reasons of the operator's offsets actions (AbstractConnectOperator#manageConnectorOffsets).
OFFSETS_REASONS = {"ListOffsets", "AlterOffsets", "ResetOffsets", "ManageOffsets"}


def _assert_only_the_source_stanza_changed(m, original, final, objects):
    assert len(objects) > 20, "the watch saw too few versions to prove anything"
    base = _without_source_stanza(original["spec"])
    original_stanza = original["spec"]["mirrors"][0]["sourceConnector"]
    for obj in objects:
        assert _without_source_stanza(obj["spec"]) == base, "a write touched another mirror or connector"
        stanza = obj["spec"]["mirrors"][0]["sourceConnector"]
        assert set(stanza) - set(original_stanza) <= {"state", "listOffsets", "alterOffsets"}
        assert {k: stanza[k] for k in ("config", "tasksMax")} == {k: original_stanza[k] for k in ("config", "tasksMax")}
        annotations = annotations_of(obj)
        assert (OFFSETS in annotations) == (MM2_CONNECTOR in annotations), \
            f"only one of the two annotations at resourceVersion {obj['metadata']['resourceVersion']}"
        if MM2_CONNECTOR in annotations:
            assert annotations[MM2_CONNECTOR] == m.connector()
        warnings = [f"{c.get('reason')}: {c.get('message')}" for c in (obj.get("status") or {}).get("conditions") or []
                    if c.get("type") == "Warning" and c.get("reason") in OFFSETS_REASONS]
        # No ManageOffsets (one annotation without the other), and no failed-and-retried List/Alter/ResetOffsets
        # (e.g. a 409 on the operator's annotation removal because we patched the resource while it worked,
        # which makes it apply the alter or reset a second time). Other warnings are not ours: Strimzi 0.49-0.51
        # warns DeprecatedFields on every legacy-layout resource, on every pass.
        assert not warnings, f"operator warnings at resourceVersion {obj['metadata']['resourceVersion']}: {warnings}"
    seen_actions = {annotations_of(o).get(OFFSETS) for o in objects} - {None}  # undo and shift are alters
    assert seen_actions == {"list", "alter", "reset"}
    # Afterwards: the stanza is exactly as before (list removes the listOffsets it added); nothing pending.
    assert final["spec"]["mirrors"][0]["sourceConnector"] == original_stanza
    assert not {JOURNAL, OFFSETS, MM2_CONNECTOR} & set(annotations_of(final))
    assert m.live_state(m.connector()) == "RUNNING"


# ------------------------------------------------------------------------------------------ the examples

def test_the_examples_are_accepted_and_name_the_connectors_the_docs_say(mirror):
    """examples/mirrormaker2: the API server accepts them (strict field validation, dry run) and the plugin derives
    the connector names the comments promise; the offsets file passes the input checks for that mirror."""
    from pathlib import Path

    import yaml

    from kubectl_offsets import strimzi
    from kubectl_offsets.connect import ConnectorKind
    from kubectl_offsets.core.inputs import ConnectorFacts, read_offsets_file, validate_change
    from kubectl_offsets.core.online.targets import topic_filter

    m = mirror
    folder = Path(__file__).resolve().parents[3] / "examples" / "mirrormaker2"
    example = yaml.safe_load((folder / f"kafkamirrormaker2-{m.layout}.yaml").read_text())
    example["metadata"]["namespace"] = m.ns
    accepted = m.custom.create_namespaced_custom_object(GROUP, m.layout, m.ns, PLURAL, example, dry_run="All",
                                                        field_validation="Strict")
    assert accepted["spec"] == example["spec"]  # nothing pruned
    names = sorted(t.connector_name for t in strimzi.mm2_targets(example))
    expected = ["east->west.MirrorCheckpointConnector", "east->west.MirrorSourceConnector"]
    if m.layout == "v1beta2":
        expected.insert(1, "east->west.MirrorHeartbeatConnector")
    assert names == expected
    source = strimzi.resolve_mm2_target(example, "source")
    consumes, description = topic_filter(source, example)
    facts = ConnectorFacts(ConnectorKind.MIRROR_SOURCE, source_alias="east", consumes=consumes,
                           consumes_description=description)
    validate_change(read_offsets_file(str(folder / "source-offsets.json"), facts), facts)


def test_alter_help_explains_the_mirrormaker2_meaning():
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root

    # Issue 30: the help says it in a line and an example; docs/mirrormaker2.md has the whole table.
    text = " ".join(CliRunner().invoke(root, ["alter", "--help"], prog_name="kubectl offsets").output.split())
    for needle in ("a sink reads that record next, MirrorMaker 2 resumes after it",
                   "# A MirrorMaker 2 source connector: replication resumes at record 42 "
                   "kubectl offsets alter kmm2/mirror --connector source --set orders:0=41", "docs/mirrormaker2.md"):
        assert needle in text, needle
