"""A fleet of real connectors across two namespaces, for the fleet commands (issue 13).

Namespace A: three FileStream sinks, two FileStream sources and a KafkaMirrorMaker2 (v1 layout) with two mirrors
(two source connectors and a checkpoint connector); namespace B: two sinks and two sources. Twelve connectors, all
labelled ``kubectl-offsets-fleet=<tag>`` (and ``role=sink|source|mirror``), so ``-A -l`` selects exactly this
fleet even while other tests run beside it on the same cluster. Built once per module; sinks have consumed their
records and sources have read their files before the tests start.
"""
from __future__ import annotations

import uuid
from urllib.parse import quote
from dataclasses import dataclass, field

import pytest
from kubernetes import client as k8s

from tests.env.clients import create_topic
from tests.env.kind.shared import KAFKA_CONNECT_READY_TIMEOUT
from tests.integration.mirrormaker2.conftest import build_mm2
from tests.integration.online.conftest import (GROUP, VERSION, Cli, Cluster, Connector, Lab,
                                               create_namespace_with_connect, eventually)

MM2_PLURAL = "kafkamirrormaker2s"


@dataclass
class Fleet:
    tag: str
    selector: str
    labs: dict[str, Lab]  # "a" / "b" -> the namespace's lab
    sinks: list[Connector] = field(default_factory=list)
    sources: list[Connector] = field(default_factory=list)
    mirror: dict | None = None  # {"ns", "name", "connectors": [...], "topics": [...]}

    @property
    def namespaces(self) -> list[str]:
        return [lab.ns for lab in self.labs.values()]

    def connector_resources(self, cluster: Cluster, extra_selector: str = "") -> list[dict]:
        selector = self.selector + (f",{extra_selector}" if extra_selector else "")
        return cluster.custom.list_cluster_custom_object(GROUP, VERSION, "kafkaconnectors",
                                                         label_selector=selector)["items"]

    def wait_until_connect_has_offsets(self, connect) -> None:
        """Offsets reach Connect's stores at the next flush (offset.flush.interval.ms): wait until every connector
        whose task reads its offsets (sinks, sources, the mirror's MirrorSourceConnectors) has some in Connect."""
        names = [c.name for c in self.sinks + self.sources] + [c for c in self.mirror["connectors"]
                                                               if c.endswith(".MirrorSourceConnector")]
        for name in names:
            eventually(f"offsets of {name} in Connect",
                       lambda n=name: (connect.get(f"/connectors/{quote(n, safe='')}/offsets")[1] or {}).get("offsets"),
                       timeout=90)


def _label(cluster: Cluster, conn: Connector, labels: dict) -> None:
    cluster.merge(conn.ns, conn.name, {"metadata": {"labels": labels}})


def _namespace_with_connect(env, cluster: Cluster, kafka_admin, prefix: str, workdir) -> Lab:
    ns = f"{prefix}-{uuid.uuid4().hex[:6]}"
    create_namespace_with_connect(env, cluster, ns)
    return Lab(env, cluster, kafka_admin, ns, workdir)


def _mirror(env, cluster: Cluster, kafka_admin, lab: Lab, tag: str, labels: dict) -> dict:
    name, src, src2, tgt = f"mirror-{tag}", f"east{tag}", f"north{tag}", f"west{tag}"
    topic, topic2, group = f"fleet-orders-{tag}", f"fleet-audit-{tag}", f"fleet-billing-{tag}"
    create_topic(kafka_admin, topic)
    create_topic(kafka_admin, topic2)
    lab.produce(topic, [f"m{i}" for i in range(4)])
    lab.produce(topic2, ["a0", "a1"])
    body = build_mm2("v1", lab.ns, name, env.bootstrap_servers, src, src2, tgt, topic, topic2, group)
    body["metadata"]["labels"] = labels
    cluster.custom.create_namespaced_custom_object(GROUP, "v1", lab.ns, MM2_PLURAL, body)
    connectors = sorted([f"{src}->{tgt}.MirrorSourceConnector", f"{src}->{tgt}.MirrorCheckpointConnector",
                         f"{src2}->{tgt}.MirrorSourceConnector"])

    def ready():
        status = cluster.custom.get_namespaced_custom_object(GROUP, "v1", lab.ns, MM2_PLURAL, name).get("status") or {}
        entries = status.get("connectors") or []
        return sorted(e["name"] for e in entries) == connectors and all(
            (e.get("connector") or {}).get("state") == "RUNNING" for e in entries)

    # A new KafkaMirrorMaker2 starts a Connect worker of its own first: a new KafkaConnect's bound.
    eventually(f"KafkaMirrorMaker2 {name} with {connectors} RUNNING", ready, timeout=KAFKA_CONNECT_READY_TIMEOUT)
    return {"ns": lab.ns, "name": name, "connectors": connectors, "topics": [topic, topic2]}


@pytest.fixture(scope="module")
def fleet(env, kafka_admin, kube_api, connect, tmp_path_factory):
    cluster = Cluster(kube_api)
    tag = uuid.uuid4().hex[:6]
    selector = f"kubectl-offsets-fleet={tag}"
    workdir = tmp_path_factory.mktemp("fleet")
    labs = {"a": _namespace_with_connect(env, cluster, kafka_admin, "fleet-a", workdir),
            "b": _namespace_with_connect(env, cluster, kafka_admin, "fleet-b", workdir)}
    fl = Fleet(tag, selector, labs)
    try:
        for key, sinks, sources in (("a", 3, 2), ("b", 2, 2)):
            lab = labs[key]
            for i in range(sinks):
                conn = lab.sink("sink", records=3 + i)
                _label(cluster, conn, {"kubectl-offsets-fleet": tag, "role": "sink"})
                fl.sinks.append(conn)
            for i in range(sources):
                conn = lab.source("src", lines=2 + i)
                _label(cluster, conn, {"kubectl-offsets-fleet": tag, "role": "source"})
                fl.sources.append(conn)
        fl.mirror = _mirror(env, cluster, kafka_admin, labs["a"], tag, {"kubectl-offsets-fleet": tag,
                                                                        "role": "mirror"})
        fl.wait_until_connect_has_offsets(connect)  # so the export has something real to carry
        yield fl
    finally:
        for lab in labs.values():
            lab.producer.flush(10)
            lab.producer = None
            for plural in ("kafkamirrormaker2s", "kafkaconnectors", "kafkaconnects"):
                try:
                    cluster.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, lab.ns, plural)
                except k8s.ApiException as error:
                    if error.status != 404:
                        raise
            cluster.core.delete_namespace(lab.ns)


@pytest.fixture(scope="session")
def cluster(kube_api) -> Cluster:
    return Cluster(kube_api)


@pytest.fixture(scope="session")
def cli(env, tmp_path_factory) -> Cli:
    import os

    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))  # local backups out of $HOME
    return Cli(env.kubeconfig)
