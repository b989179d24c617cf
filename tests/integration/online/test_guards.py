"""Issue 10's guards: what the online commands refuse before the first change, and what they leave behind.

- trigger fires only what a GitOps phase 1 record asks for, and then backs up and journals like alter (defect 2);
- undo --backup accepts only a backup of the same connector (defect 5);
- a connector named past 63 characters gets cut+hashed labels the API server accepts (defect 8);
- list leaves no spec.listOffsets it added; alter never writes a <name>-offsets-alter it did not create (defect 9);
  an alter or reset changes the spec only where it must (each change is an operator pass under the Connect lock);
- a partition that does not exist is refused where the brokers or a KafkaTopic can tell, else flagged (defect 7);
- local backups are 0600 files in 0700 folders, one folder per context, that alter -f and undo --from-file take
  (defect 10).

Every test makes its own connectors (unique names) in the module's namespace (the ``lab`` fixture).
"""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.core.gitops import trigger_command as gitops_trigger
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online import operations
from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.errors import ExitStatus
from kubectl_offsets.model import Options, WaitSettings

from tests.env.clients import create_topic, unique_name
from tests.judges import canonical

from .conftest import (FILE_SINK, GROUP, JOURNAL, VERSION, Connector, annotations, assert_unchanged,
                       snapshot, spec_state)

GITOPS = "kubectl-offsets.io/gitops"
TRIGGERED = "kubectl-offsets.io/triggered"


def sink_offsets(lab, conn) -> dict[int, int]:
    """The consumer group's committed offsets of the static partitions (tests/judges.py): the live one
    (``conn.live_partition``, fed during the whole test) moves on its own, so what a guard left unchanged is judged
    on the others."""
    return lab.judge.sink_offsets(conn.name, but=conn.live_partition)


def consumed(lab, conn, wanted: dict[int, int], *, settled: bool = False) -> None:
    """Wait until the sink has committed ``wanted`` (Connect commits sink offsets periodically); ``settled``: also
    until the operator has reconciled the last spec change, so a snapshot taken next is not overtaken by a late
    status write."""
    lab.judge.wait_sink_offsets(conn.name, wanted, but=conn.live_partition)
    if settled:
        settle(lab, conn)


def settle(lab, conn) -> None:
    def reconciled(obj):
        return (obj.get("status") or {}).get("observedGeneration") == obj["metadata"]["generation"]
    lab.cluster.watch_until(conn.ns, conn.name, reconciled, "the operator to reconcile the last spec change")


def sink_document(topic: str, offsets: dict[int, int]) -> str:
    return json.dumps({"offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": p},
                                    "offset": {"kafka_offset": o}} for p, o in offsets.items()]})


def stop(lab, conn, **spec) -> None:
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "stopped", **spec}})
    lab.wait_state(conn, "STOPPED")
    settle(lab, conn)


def backups_of(lab, conn) -> list[dict]:
    return [cm for name, cm in lab.cluster.configmaps(conn.ns).items()
            if (cm["metadata"].get("labels") or {}).get("kubectl-offsets.io/role") == "backup"
            and (cm["metadata"].get("annotations") or {}).get("kubectl-offsets.io/connector") == conn.name]


# ---- defect 2: trigger needs the record GitOps phase 1 committed --------------------------------------------------

def test_trigger_without_a_gitops_record_refuses_and_changes_nothing(lab, cli):
    conn = lab.sink("trg-norecord", records=4)
    consumed(lab, conn, {0: 4})
    stop(lab, conn)
    before = snapshot(lab.cluster, conn)

    result = cli("trigger", conn.name, "-n", conn.ns, "--timeout", "60s")

    assert result.exit_code != 0, str(result)
    assert "no kubectl-offsets.io/gitops record" in result.stderr, str(result)
    assert "kubectl offsets alter" in result.stderr  # how to proceed
    assert_unchanged(lab.cluster, conn, before)
    assert sink_offsets(lab, conn) == {0: 4}  # today: reset to nothing


def test_trigger_refuses_a_stale_alter_offsets_stanza_without_record(lab, cli):
    conn = lab.sink("trg-stale", records=4)
    consumed(lab, conn, {0: 4})
    old = f"{conn.name}-old-offsets"
    lab.cluster.put_configmap(conn.ns, old, {"offsets.json": sink_document(conn.topic, {0: 1})})
    stop(lab, conn, alterOffsets={"fromConfigMap": {"name": old}})
    before = snapshot(lab.cluster, conn)

    result = cli("trigger", conn.name, "-n", conn.ns, "--timeout", "60s")

    assert result.exit_code != 0, str(result)
    assert old in result.stderr, str(result)  # names the stanza it will not re-apply
    # listed=True: only the operator's own status writes (which lag under the real cadence) may move resourceVersion
    assert_unchanged(lab.cluster, conn, before, listed=True)
    assert sink_offsets(lab, conn) == {0: 4}


def _phase1_on_cluster(lab, conn, wanted: dict[int, int], operation_id: str) -> dict:
    """What a synced GitOps phase 1 alter leaves on the cluster: the ConfigMap, alterOffsets, state stopped and the
    record annotation."""
    configmap = f"{conn.name}-offsets-{operation_id[:8]}"
    lab.cluster.put_configmap(conn.ns, configmap, {"offsets.json": sink_document(conn.topic, wanted)})
    record = {"id": operation_id, "phase": 1, "operation": "alter", "connector": conn.name, "configMap": configmap}
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {GITOPS: json.dumps(record)}}})
    stop(lab, conn, alterOffsets={"fromConfigMap": {"name": configmap}})
    return record


def test_trigger_with_the_record_backs_up_first_and_undo_restores(lab, cli):
    conn = lab.sink("trg-record", records=6)
    consumed(lab, conn, {0: 6})
    record = _phase1_on_cluster(lab, conn, {0: 2}, "0123456789abcdef")

    result = cli("trigger", conn.name, "-n", conn.ns, "--timeout", "90s")

    assert result.exit_code == 0, str(result)
    obj = lab.cr(conn)
    assert annotations(obj)[TRIGGERED] == record["id"] and JOURNAL not in annotations(obj)
    assert spec_state(obj) == "stopped"  # phase 2 resumes it, not the trigger
    saved = backups_of(lab, conn)
    assert len(saved) == 1, saved
    backed_up = {e["partition"]["kafka_partition"]: e["offset"]["kafka_offset"]
                 for e in json.loads(saved[0]["data"]["offsets.json"])["offsets"]}
    assert backed_up[0] == 6 and backed_up[conn.live_partition] > 0  # the live partition as it was at the stop
    assert sink_offsets(lab, conn) == {0: 2}

    # The backup makes the trigger undoable, like any alter.
    undone = cli("undo", conn.name, "-n", conn.ns, "--yes", "--timeout", "90s")
    assert undone.exit_code == 0, str(undone)
    assert sink_offsets(lab, conn) == {0: 6}


def test_an_interrupted_trigger_is_journaled_and_recover_finishes_it(lab, cli, kube):
    conn = lab.sink("trg-crash", records=5)
    consumed(lab, conn, {0: 5})
    record = _phase1_on_cluster(lab, conn, {0: 1}, "fedcba9876543210")

    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        gitops_trigger.trigger(kube, TargetSpec(conn.name), namespace=conn.ns,
                               options=Options(wait=WaitSettings(timeout=60)))
    journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
    assert journal["operation"] == "alter" and journal["offsets_configmap"] == record["configMap"]

    result = cli("recover", conn.name, "-n", conn.ns, "--timeout", "90s", "--force")  # the crash left a fresh heartbeat

    assert result.exit_code == 0, str(result)
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) == "stopped"
    assert annotations(obj)[TRIGGERED] == record["id"]
    assert sink_offsets(lab, conn) == {0: 1}


# ---- defect 5: undo --backup must be this connector's backup --------------------------------------------------------

def test_undo_refuses_another_connectors_backup_of_the_same_topic(lab, cli):
    first = lab.sink("undo-a", records=3)
    second_name = first.name.replace("undo-a", "undo-b")
    spec = lab._connector(second_name, FILE_SINK, {"file": str(lab.workdir / f"{second_name}.out"),
                                                   "topics": first.topic}, None, None)
    lab.cluster.create(spec)
    second = Connector(first.ns, second_name, first.topic, lab.workdir / f"{second_name}.out", first.live_partition)
    lab.wait_state(second, "RUNNING")
    consumed(lab, first, {0: 3})
    consumed(lab, second, {0: 3}, settled=True)
    altered = cli("alter", first.name, "-n", first.ns, "--set", f"{first.topic}:0=1", "--yes", "-q")
    assert altered.exit_code == 0, str(altered)
    backup = backups_of(lab, first)[0]["metadata"]["name"]
    before = snapshot(lab.cluster, second)

    result = cli("undo", second.name, "-n", second.ns, "--backup", backup, "--yes")

    assert result.exit_code != 0, str(result)
    assert f"configmap/{backup} is a backup of connector '{first.name}'" in result.stderr, str(result)
    assert_unchanged(lab.cluster, second, before)
    assert sink_offsets(lab, second) == {0: 3}


# ---- defect 10: local backups are private, per context, and a document alter -f and undo --from-file take ---------

def _current_context(kubeconfig: str) -> str:
    from kubernetes import config

    return config.list_kube_config_contexts(config_file=kubeconfig)[1]["name"]


def test_local_backup_is_private_per_context_and_restorable(lab, cli, _local_backups):
    conn = lab.sink("local-bak", records=5)
    consumed(lab, conn, {0: 5})
    # --no-resume: a running sink would re-read records 2..4 and commit 5 again before we look.
    altered = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=2", "--no-resume", "--yes", "-q")
    assert altered.exit_code == 0, str(altered)
    assert sink_offsets(lab, conn) == {0: 2}

    root = _local_backups / "kubectl-offsets" / "backups"
    files = [p for p in root.rglob("*") if p.is_file() and conn.name in p.name]
    assert len(files) == 1, files
    local = files[0]
    context = _current_context(lab.env.kubeconfig)
    assert local.relative_to(root).parts[0] == context, local  # one folder per cluster context
    assert local.stat().st_mode & 0o777 == 0o600
    for folder in [root.parent, root, *local.relative_to(root).parents]:
        path = root / folder
        assert path.stat().st_mode & 0o777 == 0o700, path

    # A document alter -f takes as it is ...
    preview = cli("alter", conn.name, "-n", conn.ns, "-f", str(local), "--dry-run")
    assert preview.exit_code == 0, str(preview)
    # ... and undo --from-file restores it through the journaled flow (with a backup of its own).
    undone = cli("undo", conn.name, "-n", conn.ns, "--from-file", str(local), "--yes", "--timeout", "90s")
    assert undone.exit_code == 0, str(undone)
    assert sink_offsets(lab, conn) == {0: 5}
    assert JOURNAL not in annotations(lab.cr(conn))
    assert len(backups_of(lab, conn)) == 2


def test_undo_from_file_refuses_another_connectors_backup(lab, cli, _local_backups):
    first = lab.sink("local-a", records=2)
    other = lab.sink("local-b", records=2)
    consumed(lab, first, {0: 2})
    assert cli("alter", first.name, "-n", first.ns, "--set", f"{first.topic}:0=1", "--yes", "-q").exit_code == 0
    local = next(p for p in (_local_backups / "kubectl-offsets").rglob("*") if p.is_file() and first.name in p.name)
    settle(lab, other)
    before = snapshot(lab.cluster, other)

    result = cli("undo", other.name, "-n", other.ns, "--from-file", str(local), "--yes")

    assert result.exit_code != 0, str(result)
    assert f"is a backup of connector '{first.name}'" in result.stderr, str(result)
    assert_unchanged(lab.cluster, other, before)


# ---- defect 8: names past Kubernetes' limits --------------------------------------------------------------------

def test_a_connector_named_past_63_characters_gets_configmaps_the_api_server_accepts(lab, cli):
    """Our ConfigMaps for a 70-character KafkaConnector: what alter would create (printed by --dry-run) is accepted
    by the API server (a server-side dry run), with its target label cut and hashed."""
    import yaml

    conn = lab.sink("a-sink-whose-name-is-longer-than-any-kubernetes-label-value-may-be", state="stopped")
    assert len(conn.name) > 63

    preview = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--dry-run")

    assert preview.exit_code == 0, str(preview)
    documents = [d for d in yaml.safe_load_all(preview.stdout) if isinstance(d, dict)]
    configmaps = [d for d in documents if d.get("kind") == "ConfigMap"]  # the backup's and the alter's
    assert len(configmaps) == 2, configmaps
    for configmap in configmaps:
        label = configmap["metadata"]["labels"]["kubectl-offsets.io/target"]
        assert len(label) <= 63 and label.startswith(conn.name[:20]), label
        lab.cluster.core.create_namespaced_config_map(conn.ns, configmap, dry_run="All")  # 422 before the fix


def test_strimzi_cannot_list_a_connector_named_past_63_characters_and_we_say_why(lab, cli, env):
    """Strimzi 1.x labels the list ConfigMap strimzi.io/name=<resource name> (AbstractConnectOperator
    #generateListOffsetsConfigMap, rewritten in 1.0; the emulator does the same), which the API server rejects
    past 63 characters: the list fails, and the advice says why. Before 1.0 the ConfigMap carried only the
    resource's own labels, so the same name lists fine there."""
    conn = lab.sink("another-sink-whose-name-is-longer-than-kubernetes-label-values-may-be", state="stopped")
    before = snapshot(lab.cluster, conn)

    result = cli("list", conn.name, "-n", conn.ns, "--timeout", "60s", "-o", "json")

    if not env.profile.list_configmap_1x:
        assert result.exit_code == 0, str(result)
        # The list works. (What it holds depends on the era: before initial_state the connector is created
        # running and reads its live partition until the operator stops it.)
        listed = json.loads(result.stdout)["offsets"]
        assert {e["partition"]["kafka_topic"] for e in listed} <= {conn.topic}, str(result)
        assert canonical(listed) == canonical(lab.judge.stored(conn.name))  # stopped: what Connect holds now, as listed
        return
    assert result.exit_code != 0, str(result)
    assert "63 characters" in result.stderr and "shorter name" in result.stderr, str(result)
    assert_unchanged(lab.cluster, conn, before, listed=True)


# ---- defect 9: no drift from list, no writes to a ConfigMap we did not create --------------------------------------

def test_list_removes_the_list_offsets_stanza_it_added(lab, cli):
    conn = lab.sink("list-drift", records=2)
    consumed(lab, conn, {0: 2})
    for _ in range(3):  # each list adds the stanza, and must remove it again
        listed = cli("list", conn.name, "-n", conn.ns, "-o", "json", "-q")
        assert listed.exit_code == 0, str(listed)
        assert {e["partition"]["kafka_partition"]: e["offset"]["kafka_offset"] for e in json.loads(listed.stdout)[
            "offsets"] if e["partition"]["kafka_partition"] == 0} == {0: 2}  # what the group holds
    obj = lab.cr(conn)
    assert "listOffsets" not in obj["spec"], obj["spec"]
    assert annotations(obj).get("strimzi.io/connector-offsets") is None


def test_list_keeps_a_list_offsets_stanza_that_was_there(lab, cli):
    conn = lab.sink("list-keep", records=2, extra={"listOffsets": {"toConfigMap": {"name": "my-own-list"}}})
    consumed(lab, conn, {0: 2})
    assert cli("list", conn.name, "-n", conn.ns, "-q").exit_code == 0
    obj = lab.cr(conn)
    assert obj["spec"]["listOffsets"] == {"toConfigMap": {"name": "my-own-list"}}
    assert "my-own-list" in lab.cluster.configmaps(conn.ns)


def test_an_alter_and_a_reset_change_the_spec_no_more_than_they_must(lab, cli):
    """Every spec change is a reconcile of every connector of the KafkaConnect, one after another under its lock
    (and a wait for the operator to observe it): the flow's own lists (backup, verify) use a listOffsets stanza the
    stop adds and the resume removes, instead of adding and removing one per list. Counted by metadata.generation:
    the preview's list (while running: 2), the stop, the alter's request (alterOffsets), the resume."""
    conn = lab.sink("spec-changes", records=3)
    consumed(lab, conn, {0: 3}, settled=True)
    start = lab.cr(conn)["metadata"]["generation"]

    alter = cli("alter", conn.name, "-n", conn.ns, "--yes", "-f", "-", input=sink_document(conn.topic, {0: 1}))
    assert alter.exit_code == 0, str(alter)
    after_alter = lab.cr(conn)
    assert after_alter["metadata"]["generation"] - start == 5, after_alter["metadata"]
    reset = cli("reset", conn.name, "-n", conn.ns, "--yes")
    assert reset.exit_code == 0, str(reset)
    after_reset = lab.cr(conn)
    assert after_reset["metadata"]["generation"] - after_alter["metadata"]["generation"] == 4, after_reset["metadata"]

    assert "listOffsets" not in after_reset["spec"] and "alterOffsets" not in after_reset["spec"], after_reset["spec"]
    assert JOURNAL not in annotations(after_reset)


def test_an_interrupted_alter_leaves_no_list_offsets_stanza_after_recover(lab, cli, kube):
    """The stanza the stop added is in the journal, so recover (finishing) removes it with the resume."""
    conn = lab.sink("spec-recover", records=3)
    consumed(lab, conn, {0: 3}, settled=True)
    path = lab.workdir / f"{conn.name}.json"
    path.write_text(sink_document(conn.topic, {0: 2}))
    with pytest.raises(SimulatedCrash), hooks.crash_after("verify"):
        operations.alter_offsets(kube, TargetSpec(conn.name), AlterRequest(file=str(path)), namespace=conn.ns,
                                 options=Options(yes=True, wait=WaitSettings(timeout=120)))
    journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
    assert lab.cr(conn)["spec"]["listOffsets"] == {"toConfigMap": {"name": journal["list_offsets_added"]}}

    result = cli("recover", conn.name, "-n", conn.ns, "--force")  # the crash left a fresh heartbeat
    assert result.exit_code == 0, str(result)
    assert "finished: offsets verified, connector running" in result.stdout, str(result)
    obj = lab.cr(conn)
    assert "listOffsets" not in obj["spec"] and JOURNAL not in annotations(obj), obj


def test_alter_refuses_to_write_a_foreign_alter_configmap(lab, cli):
    conn = lab.sink("foreign-cm", records=3)
    consumed(lab, conn, {0: 3}, settled=True)
    foreign = f"{conn.name}-offsets-alter"
    lab.cluster.put_configmap(conn.ns, foreign, {"offsets.json": "someone else's data", "other": "keep"})
    before = snapshot(lab.cluster, conn)

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=1", "--yes", "--timeout", "60s")

    assert result.exit_code != 0, str(result)
    assert f"configmap/{foreign}" in result.stderr and "not created by kubectl-offsets" in result.stderr, str(result)
    assert_unchanged(lab.cluster, conn, before)
    assert sink_offsets(lab, conn) == {0: 3}


def test_a_foreign_configmap_of_the_list_name_is_refused_and_left_alone(lab, cli):
    """Issue 28: the <name>-offsets ConfigMap a list makes the operator write to. A ConfigMap of that name the
    operator did not write for this connector is refused by every command before anything changes; the end of the
    test shows, with the real operator, what the refusal spares it."""
    conn = lab.sink("foreign-list", records=3, live=False)
    name = f"{conn.name}-offsets"
    lab.cluster.put_configmap(conn.ns, name, {"offsets.json": "my own notes", "other": "keep"})
    before = snapshot(lab.cluster, conn)

    for argv in (["list", conn.name], ["alter", conn.name, "--set", f"{conn.topic}:0=1", "--yes"],
                 ["alter", conn.name, "--set", f"{conn.topic}:0=1", "--dry-run"], ["reset", conn.name, "--yes"]):
        result = cli(*argv, "-n", conn.ns, "--timeout", "60s")
        assert result.exit_code == ExitStatus.PRECONDITION, str(result)
        assert f"configmap/{name}" in result.stderr and "the operator did not write it" in result.stderr, str(result)
        assert "listOffsets.toConfigMap.name" in result.stderr, str(result)
        assert_unchanged(lab.cluster, conn, before)

    # What Strimzi does with it (AbstractConnectOperator#generateListOffsetsConfigMap): the connector's key is
    # overwritten, the other keys kept, and an owner reference added (so it would be deleted with the connector).
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"listOffsets": {"toConfigMap": {"name": name}}},
                                           "metadata": {"annotations": {"strimzi.io/connector-offsets": "list"}}})
    lab.cluster.watch_until(conn.ns, conn.name, lambda obj: "strimzi.io/connector-offsets" not in annotations(obj),
                            "the operator to list into the foreign ConfigMap")
    written = lab.cluster.configmap(conn.ns, name)
    assert written["data"]["other"] == "keep"
    assert "offsets" in json.loads(written["data"]["offsets.json"]), written["data"]  # "my own notes" is gone
    assert any(ref["kind"] == "KafkaConnector" and ref["name"] == conn.name
               for ref in written["metadata"].get("ownerReferences") or []), written["metadata"]


# ---- defect 7: a partition that does not exist ------------------------------------------------------------------

@pytest.fixture(scope="module")
def three_partitions(lab, cli):
    """A running sink on a 3-partition topic, with committed offsets for all three."""
    conn = lab.sink("parts", partitions=3)
    for partition in range(3):
        lab.producer.produce(conn.topic, value=f"p{partition}".encode(), partition=partition)
    lab.producer.flush(10)
    consumed(lab, conn, {0: 1, 1: 1, 2: 1}, settled=True)
    return conn


def test_alter_refuses_a_partition_the_brokers_do_not_have(lab, cli, three_partitions):
    conn = three_partitions
    before = snapshot(lab.cluster, conn)

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:7=1", "--yes",
                 "--bootstrap-server", lab.env.bootstrap_servers)

    assert result.exit_code != 0, str(result)
    assert f"partition 7 of topic '{conn.topic}' does not exist" in result.stderr, str(result)
    assert "has 4 partitions (0..3)" in result.stderr  # the three static ones and the live one
    assert_unchanged(lab.cluster, conn, before)
    # An existing partition passes, without a warning.
    fine = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:2=0", "--dry-run",
               "--bootstrap-server", lab.env.bootstrap_servers)
    assert fine.exit_code == 0 and "could not be checked" not in fine.stderr, str(fine)


def test_alter_refuses_a_partition_a_kafkatopic_does_not_have(lab, cli):
    """The connector's KafkaConnect names a Strimzi Kafka cluster ('events'), whose Topic Operator manages a
    KafkaTopic for the topic (no Topic Operator runs here: the test writes the status it would)."""
    connect, topic, name = unique_name("kc-events"), unique_name("events-topic"), unique_name("kt-sink")
    create_topic(lab.admin, topic, partitions=3)
    # A KafkaConnect of its own (its own group and topics: a copy of the module's spec would join the module's
    # Connect cluster, and the operator's pass over it would delete every connector it does not own from that
    # cluster), naming the Strimzi Kafka cluster "events" as its bootstrap address.
    lab.own_connect(connect, bootstrap="events-kafka-bootstrap:9092")
    body = lab._connector(name, FILE_SINK, {"file": str(lab.workdir / f"{name}.out"), "topics": topic}, None, None)
    body["metadata"]["labels"]["strimzi.io/cluster"] = connect
    lab.cluster.create(body)
    conn = Connector(lab.ns, name, topic, lab.workdir / f"{name}.out")
    lab.wait_state(conn, "RUNNING")
    kt = lab.cluster.custom.create_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkatopics", {
        "apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaTopic",
        "metadata": {"name": f"{topic}-kt", "labels": {"strimzi.io/cluster": "events"}},
        "spec": {"topicName": topic, "partitions": 3, "replicas": 1}})
    kt["status"] = {"observedGeneration": kt["metadata"]["generation"], "topicName": topic,
                    "conditions": [{"type": "Ready", "status": "True"}]}
    lab.cluster.custom.replace_namespaced_custom_object_status(GROUP, VERSION, lab.ns, "kafkatopics",
                                                              f"{topic}-kt", kt)
    settle(lab, conn)
    before = snapshot(lab.cluster, conn)

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{topic}:7=1", "--yes")

    assert result.exit_code != 0, str(result)
    assert f"partition 7 of topic '{topic}' does not exist: KafkaTopic {lab.ns}/{topic}-kt says the topic has 3 " \
           "partitions (0..2)" in result.stderr, str(result)
    # A freshly started connector's task status is still being written by the operator (resourceVersion moves);
    # spec, annotations and every ConfigMap must be exactly as before.
    assert_unchanged(lab.cluster, conn, before, listed=True)


def test_an_unverifiable_new_partition_is_flagged_and_connects_5xx_names_the_cause(lab, cli, three_partitions):
    conn = three_partitions

    preview = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:7=1", "--dry-run")
    assert preview.exit_code == 0, str(preview)
    assert f"{conn.topic}:7" in preview.stderr and "--yes in scripts, accepts them" in preview.stderr, str(preview)

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:7=1", "--yes", "--timeout", "90s")

    assert result.exit_code != 0, str(result)
    assert "could not be checked" in result.stderr  # said before the change
    assert "a partition that does not exist" in result.stderr, str(result)  # Connect's 5xx, explained
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) is None  # made safe: running again
    assert sink_offsets(lab, conn) == {0: 1, 1: 1, 2: 1}
