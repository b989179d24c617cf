"""GitOps for a MirrorMaker 2 connector, in both API layouts: only the right mirror's sourceConnector stanza is
edited, the trigger fires both MirrorMaker 2 annotations once, the offsets in Connect are the requested ones, and
phase 2 brings replication back."""

from __future__ import annotations

import textwrap

import pytest

from tests.env.clients import ConnectRest, produce, unique_name
from tests.env.emulator import profiles
from tests.waits import eventually

from .conftest import commit_all, init_repo
from .test_end_to_end import run


def _mirror_yaml(layout: str, name: str, namespace: str, src: str, tgt: str, bootstrap: str, topic: str) -> str:
    connectors = textwrap.dedent(f"""\
        sourceConnector:
          tasksMax: 1
          config:
            refresh.topics.interval.seconds: 2     # pick the topic up fast
            sync.topic.configs.enabled: false
            # source and target are one Kafka here: replicating every *.heartbeats topic of earlier tests
            # would grow a topic per test and alias (src2.src1.heartbeats, ...) until the broker refuses
            heartbeats.replication.enabled: false
            replication.factor: -1                  # one broker: the broker's default, not 3
            offset-syncs.topic.replication.factor: -1
        checkpointConnector:
          tasksMax: 1
          config: {{emit.checkpoints.interval.seconds: 5, checkpoints.topic.replication.factor: -1}}
        topicsPattern: "^{topic}$"
        groupsPattern: "^none$"
        """)
    mirror = textwrap.indent(connectors, "    ")
    if layout == "v1":
        return textwrap.dedent(f"""\
            # MirrorMaker 2, v1 layout
            apiVersion: kafka.strimzi.io/v1
            kind: KafkaMirrorMaker2
            metadata:
              name: {name}
              namespace: {namespace}
            spec:
              replicas: 1
              target:
                alias: {tgt}
                bootstrapServers: {bootstrap}
                groupId: {name}-g
                configStorageTopic: {name}-c
                statusStorageTopic: {name}-s
                offsetStorageTopic: {name}-o
                config:   # one broker: Connect's internal topics take the broker's default, not 3
                  config.storage.replication.factor: -1
                  offset.storage.replication.factor: -1
                  status.storage.replication.factor: -1
                  offset.flush.interval.ms: 1000   # the waits below read committed offsets: not 60 s apart
              mirrors:
              - source:
                  alias: {src}
                  bootstrapServers: {bootstrap}
            """) + mirror
    return textwrap.dedent(f"""\
        # MirrorMaker 2, legacy v1beta2 layout
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaMirrorMaker2
        metadata:
          name: {name}
          namespace: {namespace}
        spec:
          replicas: 1
          connectCluster: {tgt}
          clusters:
          - alias: {src}
            bootstrapServers: {bootstrap}
          - alias: {tgt}
            bootstrapServers: {bootstrap}
            config:   # its own Connect group and topics (Strimzi's defaults are shared by every mirror), one broker
              group.id: {name}-g
              config.storage.topic: {name}-c
              status.storage.topic: {name}-s
              offset.storage.topic: {name}-o
              config.storage.replication.factor: -1
              offset.storage.replication.factor: -1
              status.storage.replication.factor: -1
              offset.flush.interval.ms: 1000   # the waits below read committed offsets: not 60 s apart
          mirrors:
          - sourceCluster: {src}
            targetCluster: {tgt}
            heartbeatConnector:   # the connector exists; no topic for others to copy
              config: {{emit.heartbeats.enabled: false, heartbeats.topic.replication.factor: -1}}
        """) + mirror


def _source_offset(connect: ConnectRest, connector: str) -> int | None:
    status, body = connect.get(ConnectRest.connector_path(connector, "/offsets"))
    offsets = (body or {}).get("offsets") or [] if status == 200 else []
    return offsets[0]["offset"]["offset"] if offsets else None


def _state(connect: ConnectRest, connector: str) -> str | None:
    status, body = connect.get(ConnectRest.connector_path(connector, "/status"))
    return (body or {}).get("connector", {}).get("state") if status == 200 else None


@pytest.mark.parametrize("layout", profiles.selected().mm2_layouts)
def test_mm2_source_connector_gitops_alter(layout, env, namespace, controller, kafka_admin, kafka_producer,
                                           tmp_path):
    from tests.env.clients import create_topic

    connect = ConnectRest(env.connect_url)
    src, tgt = unique_name("src").replace("-", ""), unique_name("tgt").replace("-", "")
    topic, name = create_topic(kafka_admin, unique_name("mm2in")), unique_name("mm2")
    produce(kafka_producer, topic, [f"m-{i}" for i in range(5)])
    repo = init_repo(tmp_path / "repo")
    (repo / "deploy").mkdir()
    (repo / "deploy" / "kustomization.yaml").write_text("resources:\n- mirror.yaml\n")
    (repo / "deploy" / "mirror.yaml").write_text(_mirror_yaml(layout, name, namespace, src, tgt,
                                                              env.bootstrap_servers, topic))
    commit_all(repo, "mirror")
    original = (repo / "deploy" / "mirror.yaml").read_text()
    source = f"{src}->{tgt}.MirrorSourceConnector"
    checkpoint = f"{src}->{tgt}.MirrorCheckpointConnector"

    controller.sync(repo / "deploy")
    eventually("replicated 5 records", lambda: _source_offset(connect, source) == 4, timeout=120)

    run("gitops", "alter", f"kmm2/{name}", "--connector", "source", "--repo", str(repo), "--set", f"{topic}:0=1")
    commit_all(repo, "phase 1")
    controller.sync(repo / "deploy")
    eventually("source STOPPED", lambda: _state(connect, source) == "STOPPED")
    assert _state(connect, checkpoint) == "RUNNING"  # only the one connector's stanza was edited

    run("trigger", f"kmm2/{name}", "--connector", source, "-n", namespace, "--kubeconfig", env.kubeconfig,
        "--timeout", "90s")
    assert _source_offset(connect, source) == 1
    again = run("trigger", f"kmm2/{name}", "--connector", source, "-n", namespace, "--kubeconfig", env.kubeconfig)
    assert "already triggered" in again.stderr

    run("gitops", "next", f"kmm2/{name}", "--connector", source, "--repo", str(repo))
    assert (repo / "deploy" / "mirror.yaml").read_text() == original
    controller.sync(repo / "deploy")
    eventually("source RUNNING", lambda: _state(connect, source) == "RUNNING")
    eventually("replication resumed after record 1 and caught up", lambda: _source_offset(connect, source) == 4,
             timeout=120)
