"""Every bad input is refused before anything changes: non-zero exit, a clear message, and the custom resource
(resourceVersion, annotations, spec) and every ConfigMap in the namespace exactly as before.
"""
from __future__ import annotations

import json

import pytest
import yaml
from kubernetes import client as k8s

from kubectl_offsets.errors import ExitStatus
from tests.judges import canonical

from .conftest import EXAMPLES, assert_unchanged, bind_documented_role, eventually, snapshot


@pytest.fixture(scope="module")
def sink(lab, cli):
    """A running sink that consumed 3 records, listed once (so its list ConfigMap exists), and settled."""
    conn = lab.sink("bad", records=3, live=False)  # "nothing changed" includes the list ConfigMap's data
    lab.judge.wait_sink_offsets(conn.name, {0: 3})
    result = cli("list", conn.name, "-n", conn.ns, "-o", "json", "-q")  # the list ConfigMap now exists
    assert result.exit_code == 0 and canonical(json.loads(result.stdout)["offsets"]) == canonical(lab.judge.stored(conn.name)), str(result)
    return conn


def _sink_doc(topic, partition=0, offset=1) -> str:
    return json.dumps({"offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": partition},
                                    "offset": {"kafka_offset": offset}}]})


# (id, argv after "alter NAME -n NS --yes", stdin (with -f -), exit status, substrings of stderr)
CASES = [
    ("malformed-json", ["-f", "-"], '{"offsets": [ {"partition": ', ExitStatus.USAGE,
     ["error: standard input is not valid JSON"]),
    ("malformed-yaml", ["-f", "-"], "offsets:\n  - partition: {kafka_topic: [\n", ExitStatus.USAGE,
     ["error: standard input is neither valid JSON nor valid YAML"]),
    ("yaml-not-a-document", ["-f", "-"], "just some words\n", ExitStatus.USAGE,
     ["does not hold an offsets document", "topic,partition,offset CSV"]),
    ("malformed-csv", ["-f", "-"], "{topic},0,1\n{topic},zero,2\n", ExitStatus.USAGE,
     ["error: standard input"]),
    ("csv-negative", ["-f", "-"], "{topic},0,-4\n", ExitStatus.USAGE,
     ["offset must not be negative (got -4)"]),
    ("csv-foreign-topic", ["-f", "-"], "not-my-topic,0,1\n", ExitStatus.USAGE,
     ["the connector does not consume topic 'not-my-topic'", "its topics: {topic}"]),
    ("schema-missing-partition", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"kafka_topic": "{topic}"}}, "offset": {{"kafka_offset": 1}}}}]}}',
     ExitStatus.USAGE, ["kafka_partition"]),
    ("schema-wrong-shape", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"filename": "/x"}}, "offset": {{"position": 1}}}}]}}', ExitStatus.USAGE,
     ["a FileStreamSource document (filename/position) given to a sink connector"]),
    ("schema-string-offset", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"kafka_topic": "{topic}", "kafka_partition": 0}}, '
     '"offset": {{"kafka_offset": "ten"}}}}]}}', ExitStatus.USAGE,
     ["is not valid (offsets-sink)", "'ten' is not of type 'integer'"]),
    ("json-negative", ["-f", "-"], "NEGATIVE", ExitStatus.USAGE, ["-1"]),
    # Connect parses a sink's offset and partition as integers only (issue 28): refused before the stop.
    ("json-float-offset", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"kafka_topic": "{topic}", "kafka_partition": 0}}, '
     '"offset": {{"kafka_offset": 1000.0}}}}]}}', ExitStatus.USAGE,
     ["at $.offsets[0].offset.kafka_offset: 1000.0 is not of type 'integer'"]),
    ("json-exponent-offset", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"kafka_topic": "{topic}", "kafka_partition": 0}}, '
     '"offset": {{"kafka_offset": 1e3}}}}]}}', ExitStatus.USAGE, ["1000.0 is not of type 'integer'"]),
    ("json-float-partition", ["-f", "-"],
     '{{"offsets": [{{"partition": {{"kafka_topic": "{topic}", "kafka_partition": 1.0}}, '
     '"offset": {{"kafka_offset": 1}}}}]}}', ExitStatus.USAGE,
     ["at $.offsets[0].partition.kafka_partition: 1.0 is not of type 'integer'"]),
    ("yaml-float-offset", ["-f", "-"],
     "offsets:\n- partition: {{kafka_topic: {topic}, kafka_partition: 0}}\n  offset: {{kafka_offset: 2.0}}\n",
     ExitStatus.USAGE, ["2.0 is not of type 'integer'"]),
    ("empty-document", ["-f", "-"], '{"offsets": []}', ExitStatus.USAGE, ["the offsets document is empty"]),
    ("set-negative", ["--set", "{topic}:0=-1"], None, ExitStatus.USAGE, ["must not be negative (got -1)"]),
    ("set-malformed", ["--set", "{topic}=5"], None, ExitStatus.USAGE, ["is not of the form TOPIC:PARTITION=OFFSET"]),
    ("set-foreign-topic", ["--set", "elsewhere:0=1"], None, ExitStatus.USAGE,
     ["the connector does not consume topic 'elsewhere'"]),
    ("skip-negative", ["--skip-record", "{topic}:0:-3"], None, ExitStatus.USAGE, ["must not be negative"]),
    ("to-offset-negative", ["--to-offset", "-2", "--topic", "{topic}:0"], None, ExitStatus.USAGE,
     ["--to-offset must not be negative"]),
    ("shift-below-zero", ["--shift-by", "-10", "--topic", "{topic}"], None, ExitStatus.USAGE,
     ["--shift-by -10 moves {topic}:0 below zero (current 3)"]),
    ("shift-unknown-partition", ["--shift-by", "1", "--topic", "{topic}:7"], None, ExitStatus.USAGE,
     ["no current offset for {topic}:7"]),
    ("file-and-set", ["-f", "-", "--set", "{topic}:0=1"], "{}", ExitStatus.USAGE, ["-f cannot be combined"]),
    ("nothing-to-alter", [], None, ExitStatus.USAGE, ["nothing to alter"]),
    ("missing-file", ["-f", "/nonexistent/offsets.json"], None, ExitStatus.USAGE, ["no such file"]),
    ("bad-timeout", ["--set", "{topic}:0=1", "--timeout", "soon"], None, ExitStatus.USAGE, ["is not a duration"]),
]


@pytest.mark.parametrize("argv, stdin, status, needles", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_alter_input_changes_nothing(lab, cli, sink, argv, stdin, status, needles):
    topic = sink.topic
    if stdin == "NEGATIVE":
        stdin = _sink_doc(topic, offset=-1)
    elif stdin is not None:
        stdin = stdin.format(topic=topic) if "{topic}" in stdin or "{{" in stdin else stdin
    argv = [a.format(topic=topic) for a in argv]
    before = snapshot(lab.cluster, sink)

    result = cli("alter", sink.name, "-n", sink.ns, "--yes", *argv, input=stdin)

    assert result.exit_code == status, str(result)
    assert result.exception is None, str(result)
    for needle in needles:
        assert needle.format(topic=topic) in result.stderr, str(result)
    assert result.stdout == ""
    # --shift-by and --topic without partitions are relative to the current offsets, which only a list can tell.
    relative = "--shift-by" in argv
    assert_unchanged(lab.cluster, sink, before, listed=relative)


def test_unknown_connector(lab, cli, sink):
    before = snapshot(lab.cluster, sink)
    for argv in (["alter", "nosuch", "--set", f"{sink.topic}:0=1", "--yes"], ["reset", "nosuch", "--yes"],
                 ["list", "nosuch"], ["undo", "nosuch", "--yes"], ["recover", "nosuch"]):
        result = cli(*argv, "-n", sink.ns)
        assert result.exit_code == ExitStatus.NOT_FOUND, str(result)
        assert f"error: kafkaconnector/nosuch not found in namespace {sink.ns}" in result.stderr
        assert f"hint: KafkaConnector resources in {sink.ns}: " in result.stderr and sink.name in result.stderr
    assert_unchanged(lab.cluster, sink, before)


def test_wrong_namespace(lab, cli, sink):
    before = snapshot(lab.cluster, sink)
    result = cli("alter", sink.name, "-n", "default", "--set", f"{sink.topic}:0=1", "--yes")
    assert result.exit_code == ExitStatus.NOT_FOUND, str(result)
    assert f"error: kafkaconnector/{sink.name} not found in namespace default" in result.stderr
    assert "hint: no KafkaConnector in namespace default; check -n/--namespace and --context" in result.stderr
    assert_unchanged(lab.cluster, sink, before)


def test_bad_target_words(lab, cli, sink):
    before = snapshot(lab.cluster, sink)
    result = cli("alter", f"deployment/{sink.name}", "-n", sink.ns, "--set", f"{sink.topic}:0=1", "--yes")
    assert result.exit_code == ExitStatus.USAGE and "unknown resource type 'deployment'" in result.stderr, str(result)
    result = cli("reset", "Not_A_Name", "-n", sink.ns, "--yes")
    assert result.exit_code == ExitStatus.USAGE and "is not a valid resource name" in result.stderr, str(result)
    assert_unchanged(lab.cluster, sink, before)


def test_no_permission_at_all(env, lab, cli, sink):
    before = snapshot(lab.cluster, sink)
    result = cli("alter", sink.name, "-n", sink.ns, "--set", f"{sink.topic}:0=1", "--yes",
                 kubeconfig=env.limited_kubeconfig)
    assert result.exit_code == ExitStatus.FORBIDDEN, str(result)
    assert "error: not allowed: " in result.stderr and "limited-user" in result.stderr
    assert_unchanged(lab.cluster, sink, before)


@pytest.fixture(scope="module")
def read_only_user(env, lab, cluster):
    """limited-user may read KafkaConnectors, KafkaConnects and ConfigMaps in the lab namespace, nothing more."""
    rbac = k8s.RbacAuthorizationV1Api(cluster.api)
    rbac.create_namespaced_role(lab.ns, {
        "metadata": {"name": "offsets-read-only"},
        "rules": [{"apiGroups": ["kafka.strimzi.io"], "resources": ["kafkaconnectors", "kafkaconnects"],
                   "verbs": ["get", "list", "watch"]},
                  {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})
    rbac.create_namespaced_role_binding(lab.ns, {
        "metadata": {"name": "offsets-read-only"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "offsets-read-only"},
        "subjects": [{"kind": "User", "name": "limited-user", "apiGroup": "rbac.authorization.k8s.io"}]})
    return env.limited_kubeconfig


def test_read_only_user_is_refused_by_the_access_review(lab, cli, sink, read_only_user):
    before = snapshot(lab.cluster, sink)
    for argv in (["alter", sink.name, "--set", f"{sink.topic}:0=1", "--yes"], ["reset", sink.name, "--yes"],
                 ["list", sink.name]):
        result = cli(*argv, "-n", sink.ns, kubeconfig=read_only_user)
        assert result.exit_code == ExitStatus.FORBIDDEN, str(result)
        assert (f"error: you may not patch kafkaconnectors/{sink.name}, create configmaps, patch configmaps in "
                f"namespace {sink.ns}") in result.stderr
        assert "hint: ask for a Role granting these verbs" in result.stderr
    assert_unchanged(lab.cluster, sink, before)


def test_paused_reconciliation_is_refused(lab, cli):
    conn = lab.source("recpaused", lines=1)
    lab.cluster.merge(conn.ns, conn.name, {"metadata": {"annotations": {"strimzi.io/pause-reconciliation": "true"}}})
    eventually("ReconciliationPaused condition", lambda: any(
        c.get("reason") == "ReconciliationPaused" or c.get("type") == "ReconciliationPaused"
        for c in (lab.cr(conn).get("status") or {}).get("conditions") or []))
    before = snapshot(lab.cluster, conn)
    result = cli("reset", conn.name, "-n", conn.ns, "--yes")
    assert result.exit_code == ExitStatus.PRECONDITION, str(result)
    assert f"reconciliation of kafkaconnector/{conn.name} is paused" in result.stderr
    assert_unchanged(lab.cluster, conn, before)


def test_without_a_terminal_and_without_yes_alter_refuses(lab, cli, sink):
    before = snapshot(lab.cluster, sink)
    for argv in (["alter", sink.name, "--set", f"{sink.topic}:0=1"], ["reset", sink.name], ["undo", sink.name]):
        result = cli(*argv, "-n", sink.ns)
        assert result.exit_code == ExitStatus.USAGE, str(result)
        assert "there is no terminal to confirm on" in result.stderr
        assert "hint: pass --yes to proceed without confirmation, or --dry-run to only preview" in result.stderr
    assert_unchanged(lab.cluster, sink, before)


# ---- the documented Role and examples (docs/online.md) ------------------------------------------------------------



def test_the_documented_role_is_enough(env, lab, cli, cluster, sink):
    """examples/online/rbac.yaml, bound to a user with nothing else, is enough for list, alter and undo."""
    bind_documented_role(cluster, lab.ns, "offsets-operator", "offsets-operator")
    kubeconfig = env.kubeconfig_for("offsets-operator")

    for argv in (["list", sink.name], ["alter", sink.name, "--set", f"{sink.topic}:0=1", "--yes"],
                 ["undo", sink.name, "--yes"]):
        result = cli(*argv, "-n", sink.ns, "-q", kubeconfig=kubeconfig)
        assert result.exit_code == 0, str(result)


@pytest.mark.parametrize("name", ["kafkaconnect.yaml", "file-sink.yaml", "file-source.yaml"])
def test_examples_are_valid_resources(lab, cluster, name):
    """The API server (with the Strimzi CRDs' schemas) accepts each example (server-side dry run). The examples are
    written for v1; on an era that does not serve v1 (0.45) the same spec is checked as that era's version."""
    body = yaml.safe_load((EXAMPLES / name).read_text())
    body["metadata"]["namespace"] = lab.ns
    plural = {"KafkaConnect": "kafkaconnects", "KafkaConnector": "kafkaconnectors"}[body["kind"]]
    group, version = body["apiVersion"].split("/")
    if version not in lab.env.profile.served:
        version = lab.env.profile.preferred_version
        body["apiVersion"] = f"{group}/{version}"
    cluster.custom.create_namespaced_custom_object(group, version, lab.ns, plural, body, dry_run="All")


def test_example_offsets_files_are_accepted_by_alter_dry_run(lab, cli):
    conn = lab.source("example", lines=2)
    document = json.loads((EXAMPLES / "file-source-offsets.json").read_text())
    document["offsets"][0]["partition"]["filename"] = str(conn.file)
    result = cli("alter", conn.name, "-n", conn.ns, "-f", "-", "--dry-run", input=json.dumps(document))
    assert result.exit_code == 0, str(result)
    assert "dry run: nothing was changed" in result.stderr
