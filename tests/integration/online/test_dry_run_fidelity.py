"""Two comparisons with the real operator as the judge.

1. A dry run and a real run on the same connector: the dry run's writes are the real run's (tests/dryrun_compare.py
   normalises ids, times and names, and leaves out what only a real run does while it waits: nudges, heartbeats).
2. Fidelity of the in-memory cluster (tests/inmemory): the same operation on the same connector (names, topic,
   offsets, state) in memory and on the real operator sends the same writes and ends the same way. Where the two
   differ, this fails: the in-memory cluster's tests would be testing something that is not Strimzi.
"""

from __future__ import annotations

import json

import pytest

from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online import operations
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.model import Options, WaitSettings
from tests.dryrun_compare import first_difference, from_the_claim, normalised
from tests.inmemory import Cluster

WAIT = WaitSettings(timeout=120)


class Spy:
    """The plugin's Kube adapter, keeping the writes that landed (what a real run sent)."""

    def __init__(self, kube) -> None:
        self._kube, self.writes = kube, []

    def __getattr__(self, name):
        return getattr(self._kube, name)

    def patch(self, kind, name, namespace, operations, **kwargs):
        result = self._kube.patch(kind, name, namespace, operations, **kwargs)
        self.writes.append(("patch", kind, name, operations))
        return result

    def create(self, kind, namespace, body, **kwargs):
        result = self._kube.create(kind, namespace, body, **kwargs)
        self.writes.append(("create", kind, body["metadata"]["name"], body))
        return result

    def delete(self, kind, name, namespace, *, resource_version=None, **kwargs):
        self._kube.delete(kind, name, namespace, resource_version=resource_version, **kwargs)
        self.writes.append(("delete", kind, name, {"preconditions": {"resourceVersion": resource_version}}))

    def create_configmap(self, namespace, body, **kwargs):
        result = self._kube.create_configmap(namespace, body, **kwargs)
        self.writes.append(("create", "ConfigMap", body["metadata"]["name"], body))
        return result

    def patch_configmap(self, name, namespace, body, **kwargs):
        result = self._kube.patch_configmap(name, namespace, body, **kwargs)
        self.writes.append(("merge", "ConfigMap", name, body))
        return result


def _offsets(document) -> dict | None:
    return None if document is None else {json.dumps(e.partition, sort_keys=True): e.offset for e in document}


def _recorded(preview) -> list:
    out = []
    for description, body in preview.patches:
        verb, what = description.split(" ")[0], description.split(" ")[1]
        if description.startswith("write local file"):
            out.append(("write", "file", "-", body))
            continue
        kind, name = what.split("/", 1)
        out.append((verb, {"kafkaconnector": "KafkaConnector", "configmap": "ConfigMap"}.get(kind, kind), name, body))
    return out


@pytest.fixture
def paused(lab, cli):
    """A sink with offsets on two partitions, paused (its offsets stay put), listed once (the dry run's start)."""
    conn = lab.sink("fidelity", records=0, partitions=2, live=False)
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "paused"}})
    lab.wait_state(conn, "PAUSED")
    assert cli("alter", conn.name, "-n", conn.ns, "--yes", "-q", "--set", f"{conn.topic}:0=3",
               "--set", f"{conn.topic}:1=1").exit_code == 0
    assert cli("list", conn.name, "-n", conn.ns, "-q").exit_code == 0
    return conn


def test_a_dry_runs_writes_are_the_real_runs(paused, kube, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    conn, spec = paused, TargetSpec(paused.name)
    request = AlterRequest(sets=(f"{conn.topic}:0=2",))
    preview = operations.alter_offsets(kube, spec, request, namespace=conn.ns,
                                       options=Options(yes=True, dry_run=True, wait=WAIT))
    spy = Spy(kube)
    operations.alter_offsets(spy, spec, request, namespace=conn.ns, options=Options(yes=True, wait=WAIT))
    dry, real = normalised(_recorded(preview)), normalised(from_the_claim(spy.writes))
    assert dry[0] == real[0], "the claim (before the first wait on the operator) differs"
    assert dry == real


def test_the_in_memory_cluster_sends_and_ends_as_the_real_operator(paused, kube, lab, tmp_path, monkeypatch):
    """alter, then reset, then undo: each on the real operator and in memory, from the same start."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    conn = paused
    memory = Cluster(namespace=conn.ns, connect=lab.connect)
    memory.add_sink(conn.name, state="paused", topics=conn.topic)  # as the fixture made it: no offsets, then these
    operations.alter_offsets(memory.kube, TargetSpec(conn.name), AlterRequest(sets=(
        f"{conn.topic}:0=3", f"{conn.topic}:1=1")), namespace=conn.ns, options=Options(yes=True, wait=WAIT))
    operations.list_offsets(memory.kube, TargetSpec(conn.name), namespace=conn.ns)
    steps = [
        lambda k: operations.alter_offsets(k, TargetSpec(conn.name), AlterRequest(sets=(f"{conn.topic}:0=2",)),
                                           namespace=conn.ns, options=Options(yes=True, wait=WAIT)),
        lambda k: operations.reset_offsets(k, TargetSpec(conn.name), namespace=conn.ns,
                                           options=Options(yes=True, wait=WAIT)),
        lambda k: operations.undo(k, TargetSpec(conn.name), namespace=conn.ns, options=Options(yes=True, wait=WAIT)),
    ]
    for number, step in enumerate(steps, 1):
        spy, start = Spy(kube), len(memory.writes)
        real = step(spy)
        emulated = step(memory.kube)
        # (Connect lists partitions in its own map's order; the in-memory worker sorts them: the order is no fact)
        assert (_offsets(real.before), _offsets(real.after), _offsets(real.change), real.final_state) == \
            (_offsets(emulated.before), _offsets(emulated.after), _offsets(emulated.change), emulated.final_state), \
            f"operation {number}"
        real_writes, memory_writes = normalised(from_the_claim(spy.writes)), normalised(from_the_claim(memory.writes[start:]))
        assert real_writes == memory_writes, f"operation {number}: the writes differ\n" + first_difference(
            real_writes, memory_writes)
