"""The MirrorMaker 2 full reset and the offset-syncs topic's cleanup.policy, against the real broker (with Kafka's
StandardAuthorizer: tests/env/kafka.py) and a real mirror.

To truncate the compacted offset-syncs topic the full reset adds 'delete' to its cleanup.policy for a moment. Left
there, the broker's retention deletes the offset syncs the checkpoint connector needs. So: a missing permission
refuses before anything changes; a refused DeleteRecords puts the policy back and says so; a run killed with
'delete' added cannot be rolled back (journal removed, connectors resumed) without the policy being put back, and
recover reaches the brokers through --bootstrap-server when the recorded address (a port-forward) is gone.

The ACLs are on this module's own offset-syncs topic only, for User:ANONYMOUS (every client here): an ALLOW of
every operation (any ACL on a resource denies what no ACL allows, and the mirror must keep writing) plus the DENY
ACLs under test, which win over it.
"""
from __future__ import annotations

import json
import uuid

import pytest

from kubectl_offsets.adapters.kafka import Broker
from tests.env.clients import create_topic, produce, producer_conf
from tests.env.tcpproxy import TcpProxy

from tests.waits import eventually

from .conftest import JOURNAL, Mirror, topic_values
from .one_mirror import MirrorUnderTest, running_mirror, watermarks

PRINCIPAL = "User:ANONYMOUS"


class Subject(MirrorUnderTest):
    """The mirror, its one replicated topic, and the recover command of its source connector."""

    def __init__(self, mirror: Mirror, topic: str):
        super().__init__(mirror)
        self.topic = topic

    def recover_args(self, *more: str) -> tuple[str, ...]:
        return ("recover", self.m.target_arg, "-n", self.m.ns, "--connector", "source", *more)

    def recover_command(self) -> str:
        return f"kubectl offsets recover kafkamirrormaker2/{self.m.name} --connector '{self.source}' -n {self.m.ns}"


@pytest.fixture(scope="module")
def subject(env, kube_api, kafka_admin):
    from confluent_kafka import Producer

    topic = f"orders-{uuid.uuid4().hex[:6]}"
    create_topic(kafka_admin, topic)
    produce(Producer(producer_conf(env.bootstrap_servers)), topic, [f"r{i}" for i in range(5)])
    with running_mirror(env, kube_api, "mm2-safety", [topic]) as m:
        s = Subject(m, topic)
        try:
            topic_values(env.bootstrap_servers, f"{m.src}.{topic}", 5, timeout=120)
            eventually("offset syncs", lambda: watermarks(env.bootstrap_servers, s.syncs_topic)[1] > 0, timeout=60)
            assert _policy(kafka_admin, s.syncs_topic) == "compact", "MirrorMaker 2 creates it compacted"
            yield s
        finally:
            _remove_acls(kafka_admin, s.syncs_topic)


# --- helpers: the topic's policy, ACLs, the full reset in-process ---------------------------------------------------

def _policy(admin, topic: str) -> str:
    from confluent_kafka.admin import ConfigResource, ResourceType

    resource = ConfigResource(ResourceType.TOPIC, topic)
    return admin.describe_configs([resource])[resource].result(timeout=30)["cleanup.policy"].value


def _policy_becomes(admin, topic: str, expected: str, timeout: float = 20.0) -> str:
    """The topic's cleanup.policy once it reads ``expected`` (or the last value read after ``timeout``): KRaft
    acknowledges a config change when the controller commits it, and the broker that answers DescribeConfigs
    applies it when it replays the metadata, a moment later on a busy machine."""
    try:
        return eventually(f"cleanup.policy {expected} on {topic}",
                          lambda: (lambda value: value if value == expected else None)(_policy(admin, topic)), timeout)
    except AssertionError:
        return _policy(admin, topic)  # the caller's assertion names what it is instead


def _allowed_operations(admin, topic: str) -> set[str]:
    from confluent_kafka import TopicCollection

    future = admin.describe_topics(TopicCollection([topic]), include_authorized_operations=True)[topic]
    return {op.name for op in future.result(timeout=30).authorized_operations or ()}


def _binding(topic: str, operation: str, permission: str):
    from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    return AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, PRINCIPAL, "*",
                      AclOperation[operation], AclPermissionType[permission])


def _deny(admin, topic: str, operations: tuple[str, ...]) -> None:
    """ALLOW everything on the topic, DENY ``operations``; returns once the broker applies them (KRaft: the ACLs
    reach the authorizer when the broker replays the metadata, a moment after the controller acknowledged them)."""
    from confluent_kafka import KafkaException

    bindings = [_binding(topic, "ALL", "ALLOW")] + [_binding(topic, op, "DENY") for op in operations]
    try:
        for future in admin.create_acls(bindings).values():
            future.result(timeout=30)
    except KafkaException as error:
        pytest.fail(f"the broker takes no ACLs ({error}): tests/env/kafka.py must configure the StandardAuthorizer")
    eventually(f"{operations} denied on {topic}",
             lambda: not set(operations) & _allowed_operations(admin, topic), timeout=30)


def _remove_acls(admin, topic: str) -> None:
    from confluent_kafka.admin import AclBindingFilter, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    selector = AclBindingFilter(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, None, None, AclOperation.ANY,
                                AclPermissionType.ANY)
    admin.delete_acls([selector])[selector].result(timeout=30)
    eventually(f"every operation allowed on {topic} again",
             lambda: {"DELETE", "ALTER_CONFIGS"} <= _allowed_operations(admin, topic), timeout=30)


def _full_reset(env, s: Subject, bootstrap: str):
    """reset --with-offset-syncs, in-process (so a test can stand between the policy change and the deletion)."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.core.online.mm2_check import Mm2Settings
    from kubectl_offsets.core.online.targets import TargetSpec
    from kubectl_offsets.model import ClusterConfig, Options

    kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=s.m.ns))
    options = Options(yes=True, mm2=Mm2Settings(source_bootstrap=bootstrap, with_offset_syncs=True))
    return operations.reset_offsets(kube, TargetSpec(s.m.target_arg, connector="source"), options=options)


def _journal(s: Subject) -> dict | None:
    text = (s.m.get()["metadata"].get("annotations") or {}).get(JOURNAL)
    return json.loads(text) if text else None


def _assert_both_stopped(s: Subject) -> None:
    mirror = s.m.get()["spec"]["mirrors"][0]
    assert mirror["sourceConnector"].get("state") == "stopped"
    assert mirror["checkpointConnector"].get("state") == "stopped"
    # The spec says stopped at once; the status follows when the operator's pass reports it (on a busy machine a
    # KafkaMirrorMaker2 pass waits for the resource's lock), as _assert_both_resumed waits for RUNNING.
    s.m.wait_state(s.source, "STOPPED")
    s.m.wait_state(s.checkpoint, "STOPPED")


def _assert_both_resumed(s: Subject) -> None:
    mirror = s.m.get()["spec"]["mirrors"][0]
    assert "state" not in mirror["sourceConnector"] and "state" not in mirror["checkpointConnector"]
    s.m.wait_state(s.source, "RUNNING")
    s.m.wait_state(s.checkpoint, "RUNNING")


# --- the tests, in file order ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("denied, request_name", [(("DELETE",), "DeleteRecords"),
                                                  (("ALTER_CONFIGS",), "AlterConfigs")])
def test_a_missing_permission_refuses_before_anything_changes(subject, cli, env, kafka_admin, denied, request_name):
    s = subject
    _deny(kafka_admin, s.syncs_topic, denied)
    try:
        before = s.m.wait_steady()
        start, _ = watermarks(env.bootstrap_servers, s.syncs_topic)
        run = cli("reset", s.m.target_arg, "-n", s.m.ns, "--connector", "source", "--with-offset-syncs", "--yes",
                  "--source-bootstrap-server", env.bootstrap_servers)
        run.refused(f"denies this client {request_name} on topic '{s.syncs_topic}'", "nothing was changed",
                    "kafka-acls.sh")
        assert run.code == 4, run.err
        assert s.m.snapshot() == before, "the refusal changed the resource or a ConfigMap"
        assert _policy_becomes(kafka_admin, s.syncs_topic, "compact") == "compact"
        assert watermarks(env.bootstrap_servers, s.syncs_topic)[0] == start, "records were deleted"
        assert s.m.live_state(s.source) == "RUNNING" and s.m.live_state(s.checkpoint) == "RUNNING"
    finally:
        _remove_acls(kafka_admin, s.syncs_topic)


def test_a_refused_deletion_puts_the_policy_back_and_says_so(subject, cli, env, kafka_admin, monkeypatch):
    """The permission is revoked between the pre-flight and the DeleteRecords (the broker really refuses it):
    'delete' was added to the policy by then. The failure keeps both connectors stopped and the journal, puts the
    policy back and says so; once allowed again, recover finishes the truncation."""
    from kubectl_offsets.errors import OffsetsError

    s = subject
    real = Broker.delete_records

    def revoked_first(broker, before, **kwargs):
        assert _policy_becomes(kafka_admin, s.syncs_topic, "compact,delete") == "compact,delete"
        _deny(kafka_admin, s.syncs_topic, ("DELETE",))
        return real(broker, before, **kwargs)

    monkeypatch.setattr(Broker, "delete_records", revoked_first)
    start, end = watermarks(env.bootstrap_servers, s.syncs_topic)
    try:
        with pytest.raises(OffsetsError) as failed:
            _full_reset(env, s, env.bootstrap_servers)
        monkeypatch.undo()
        message = failed.value.message
        assert "refused deleting records" in message, message
        assert "Both connectors are left STOPPED and the journal kept" in message, message
        assert f"cleanup.policy of {s.syncs_topic} put back to 'compact'" in message, message
        assert failed.value.next_command == s.recover_command()
        assert _policy_becomes(kafka_admin, s.syncs_topic, "compact") == "compact"
        journal = _journal(s)
        assert journal["step"] == "truncate-offset-syncs" and journal["offset_syncs"]["truncated"] is False
        _assert_both_stopped(s)
        assert watermarks(env.bootstrap_servers, s.syncs_topic)[0] == start, "nothing deleted"
    finally:
        _remove_acls(kafka_admin, s.syncs_topic)
    done = cli(*s.recover_args()).ok()  # the failure ended its lease: no --force
    assert "offset-syncs truncated" in done.out
    assert watermarks(env.bootstrap_servers, s.syncs_topic)[0] >= end
    assert _policy_becomes(kafka_admin, s.syncs_topic, "compact") == "compact"
    assert _journal(s) is None
    _assert_both_resumed(s)


def test_a_rollback_that_cannot_reach_the_topic_keeps_the_journal(subject, cli, env, kafka_admin, monkeypatch):
    """The run reached the brokers through a port-forward (here a proxy) and was killed right after adding
    'delete' to the policy; then the port-forward is gone. recover --rollback must not remove the journal (the only
    record of the original policy) nor resume the connectors as if all were well: it refuses, says why and names
    the commands. With --bootstrap-server it reaches the brokers another way and rolls back, policy included."""
    from kubectl_offsets.core.online.engine import SimulatedCrash

    s = subject
    eventually("new offset syncs since the last truncation",
             lambda: (lambda w: w[1] > w[0])(watermarks(env.bootstrap_servers, s.syncs_topic)), timeout=90)
    start, _ = watermarks(env.bootstrap_servers, s.syncs_topic)
    host, port = env.bootstrap_servers.rsplit(":", 1)
    proxy = TcpProxy(host, int(port))
    forwarded = f"127.0.0.1:{proxy.port}"

    def killed(broker, before, **kwargs):
        raise SimulatedCrash("killed after the policy change, before the deletion")

    monkeypatch.setattr(Broker, "delete_records", killed)
    try:
        with pytest.raises(SimulatedCrash):
            _full_reset(env, s, forwarded)
    finally:
        proxy.close()
        monkeypatch.undo()
    journal = _journal(s)
    assert journal["offset_syncs"]["bootstrap"] == forwarded
    assert journal["offset_syncs"]["cleanup_policy"] == {"value": "compact", "explicit": True}
    assert _policy_becomes(kafka_admin, s.syncs_topic, "compact,delete") == "compact,delete"

    refused = cli(*s.recover_args("--rollback", "--force"))  # --force: the killed run's lease is still fresh
    command = (f"kafka-configs.sh --bootstrap-server {forwarded} --entity-type topics --entity-name {s.syncs_topic} "
               "--alter --add-config cleanup.policy=compact")
    refused.refused("is not complete", "Both connectors are left STOPPED and the journal kept",
                    f"cleanup.policy of {s.syncs_topic} could not be checked or put back", forwarded, command,
                    f"next: {s.recover_command()} --rollback --bootstrap-server {forwarded}")
    assert refused.code == 5, refused.err
    assert _journal(s) is not None, "the journal holding the original policy was removed"
    _assert_both_stopped(s)
    assert _policy_becomes(kafka_admin, s.syncs_topic, "compact,delete") == "compact,delete"

    # Issue 28: the journal names the cluster it truncates; an address that reaches another is refused, unchanged.
    current = _journal(s)
    recorded = current["offset_syncs"]["cluster_id"]
    assert recorded == Broker(env.bootstrap_servers).cluster_id()
    elsewhere = dict(current, offset_syncs=dict(current["offset_syncs"], cluster_id="another-cluster"))
    s.m.merge_patch({"metadata": {"annotations": {JOURNAL: json.dumps(elsewhere)}}})
    wrong = cli(*s.recover_args("--rollback", "--bootstrap-server", env.bootstrap_servers))
    wrong.refused(f"reaches Kafka cluster {recorded}, but the interrupted full reset worked on cluster another-cluster")
    assert wrong.code == 2, wrong.err
    assert _journal(s) == elsewhere, "the refused recover wrote to the journal"
    _assert_both_stopped(s)
    s.m.merge_patch({"metadata": {"annotations": {JOURNAL: json.dumps(current)}}})

    done = cli(*s.recover_args("--rollback", "--bootstrap-server", env.bootstrap_servers)).ok()
    assert f"cleanup.policy of {s.syncs_topic} put back to 'compact'" in done.out, done.out
    assert "offset-syncs NOT truncated" in done.out
    assert _policy_becomes(kafka_admin, s.syncs_topic, "compact") == "compact"
    assert _journal(s) is None
    _assert_both_resumed(s)
    assert watermarks(env.bootstrap_servers, s.syncs_topic)[0] == start, "a rollback deletes nothing"
