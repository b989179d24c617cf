"""Helpers for the online-flow tests (issue 3): a KafkaConnect that the modules of a pytest worker share, connectors
that do real work (FileStream sink/source with files and topics), a CLI runner, "nothing changed" snapshots and
bounded waits.

Everything runs against the real environment of tests/conftest.py (kube-apiserver, Kafka, Strimzi's real operator,
whose Connect pods are real Connect workers). The CLI is invoked in-process through click's CliRunner with
``--kubeconfig`` of the env, so stdout and stderr are captured apart and stdin is not a terminal (as in CI).
Connector names are unique per test; a module leaves the shared namespace as it found it (clear_namespace).
"""
from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from click.testing import CliRunner
from kubernetes import client as k8s
from kubernetes import watch as k8s_watch

from kubectl_offsets.output import progress as progress_module
from tests.env.clients import Feeder, create_topic, forget_in_connect, produce, producer_conf, unique_name
from tests.env.emulator import profiles
from tests.env.kind.shared import create_kafka_connect, is_ready
from tests.judges import Judges
from tests.waits import eventually, nudging

# The version a user's kubectl and manifests use in the session's Strimzi era (v1 whenever it is served).
GROUP, VERSION = "kafka.strimzi.io", profiles.selected().preferred_version
CONNECT = "connect"
FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"
JOURNAL = "kubectl-offsets.io/journal"
OFFSETS_ANNOTATION = "strimzi.io/connector-offsets"


# ---- the cluster, seen with the plain kubernetes client (never the plugin) -------------------------------------

class Cluster:
    def __init__(self, api_client):
        self.custom = k8s.CustomObjectsApi(api_client)
        self.core = k8s.CoreV1Api(api_client)
        self.api = api_client

    def get(self, ns: str, name: str, plural: str = "kafkaconnectors") -> dict:
        return self.custom.get_namespaced_custom_object(GROUP, VERSION, ns, plural, name)

    def create(self, body: dict) -> dict:
        plural = {"KafkaConnect": "kafkaconnects", "KafkaConnector": "kafkaconnectors"}[body["kind"]]
        return self.custom.create_namespaced_custom_object(GROUP, VERSION, body["metadata"]["namespace"], plural,
                                                           body)

    def merge(self, ns: str, name: str, patch: dict) -> dict:
        return self.custom.patch_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnectors", name, patch,
                                                          _content_type="application/merge-patch+json")

    def configmaps(self, ns: str) -> dict[str, dict]:
        items = self.core.list_namespaced_config_map(ns).items
        return {cm.metadata.name: self.api.sanitize_for_serialization(cm) for cm in items
                if cm.metadata.name != "kube-root-ca.crt"}

    def configmap(self, ns: str, name: str) -> dict | None:
        return self.configmaps(ns).get(name)

    def put_configmap(self, ns: str, name: str, data: dict) -> None:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}, "data": data}
        try:
            self.core.create_namespaced_config_map(ns, body)
        except k8s.ApiException as error:
            if error.status != 409:
                raise
            self.core.replace_namespaced_config_map(name, ns, body)

    def watch_until(self, ns: str, name: str, done: Callable[[dict], Any], what: str, timeout: float = 90.0,
                    idle: Callable[[dict], None] | None = None) -> Any:
        """Read, then watch from that resourceVersion until ``done(obj)`` is truthy (bounded). ``idle(obj)`` is
        called with the latest object after each watch slice (at most 10 s) that ended without it."""
        deadline = time.monotonic() + timeout
        obj = self.get(ns, name)
        first = True
        while True:
            result = done(obj)
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"timed out after {timeout:.0f}s waiting for {what} on {ns}/{name}; last: "
                            f"{json.dumps(obj.get('status'))[:1500]}")
            if idle and not first:
                idle(obj)
            first = False
            stream = k8s_watch.Watch().stream(
                self.custom.list_namespaced_custom_object, GROUP, VERSION, ns, "kafkaconnectors",
                field_selector=f"metadata.name={name}", resource_version=obj["metadata"]["resourceVersion"],
                timeout_seconds=max(1, int(min(remaining, 10))))
            try:
                for event in stream:
                    if event["type"] in ("ADDED", "MODIFIED"):
                        obj = event["object"]
                        result = done(obj)
                        if result:
                            return result
            except k8s.ApiException as error:
                if error.status != 410:
                    raise
            obj = self.get(ns, name)


def live_state(obj: dict) -> str | None:
    return (((obj.get("status") or {}).get("connectorStatus") or {}).get("connector") or {}).get("state")


def spec_state(obj: dict) -> str | None:
    return (obj.get("spec") or {}).get("state")


def annotations(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


# ---- connectors that do real work ------------------------------------------------------------------------------

LIVE = "live"  # the value prefix of records written by a Feeder (live traffic)


@dataclass
class Connector:
    ns: str
    name: str
    topic: str
    file: Path
    live_partition: int | None = None  # the partition a Feeder keeps writing to (None: a static topic)

    @property
    def target(self) -> str:
        return self.name

    def all_lines(self) -> list[str]:
        return self.file.read_text().splitlines() if self.file.exists() else []

    def file_lines(self) -> list[str]:
        """What the sink wrote from the static partitions (the live traffic left out)."""
        return [line for line in self.all_lines() if not line.startswith(f"{LIVE}-")]

    def live_lines(self) -> list[str]:
        return [line for line in self.all_lines() if line.startswith(f"{LIVE}-")]


class Lab:
    """One namespace with KafkaConnect ``connect`` (connector resources on), and factories for connectors."""

    def __init__(self, env, cluster: Cluster, kafka_admin, ns: str, workdir: Path):
        self.env, self.cluster, self.admin, self.ns, self.workdir = env, cluster, kafka_admin, ns, workdir
        from confluent_kafka import Producer

        self.producer = Producer(producer_conf(env.bootstrap_servers))
        self.judge = Judges(env.connect_url, env.bootstrap_servers)  # what the tests check, never the plugin
        self.feeders: list[Feeder] = []
        self.connect = CONNECT  # the KafkaConnect new connectors belong to (the fleet benchmark spreads them)

    def stop_feeders(self) -> None:
        for feeder in self.feeders:
            feeder.stop()

    def own_connect(self, name: str, *, bootstrap: str | None = None, annotation: str | None = "true") -> str:
        """A KafkaConnect of the test's own in the lab's namespace, Ready (tests/env/kind/shared.py): its own group
        and topics, for a copy of the lab's spec would join the lab's Connect cluster, whose connectors the
        operator's pass over it would delete."""
        create_kafka_connect(self.env, self.cluster.api, self.ns, name, version=VERSION, bootstrap=bootstrap,
                             annotation=annotation)
        return name

    def _connector(self, name: str, cls: str, config: dict, state: str | None, extra: dict | None) -> dict:
        spec: dict[str, Any] = {"class": cls, "tasksMax": 1,
                                "config": {"key.converter": STRING, "value.converter": STRING, **config}}
        if state:
            spec["state"] = state
        spec.update(extra or {})
        return {"apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnector",
                "metadata": {"name": name, "namespace": self.ns, "labels": {"strimzi.io/cluster": self.connect}},
                "spec": spec}

    def sink(self, prefix: str = "sink", records: int = 0, *, state: str | None = None, wait_for: int | None = None,
             extra: dict | None = None, partitions: int = 1, live: bool = True) -> Connector:
        """A FileStreamSink reading a fresh topic into a fresh file; ``records`` lines produced to partition 0
        before it starts. ``live`` (the default: production topics keep receiving records): the topic gets one more
        partition that a Feeder keeps writing to for the rest of the module, so the sink's offsets move during
        every operation. A test that needs every offset of the connector still opts out and says why. Waits until
        the connector is in ``state`` and (if running) has written ``wait_for`` lines of the static partitions."""
        name, topic = unique_name(prefix), unique_name(f"{prefix}-topic")
        create_topic(self.admin, topic, partitions=partitions + (1 if live else 0))
        self.produce(topic, [f"r{i}" for i in range(records)])
        if live:
            self.feeders.append(Feeder(self.env.bootstrap_servers, topic, partitions, prefix=LIVE).start())
        path = self.workdir / f"{name}.out"
        self.cluster.create(self._connector(name, FILE_SINK, {"file": str(path), "topics": topic}, state, extra))
        conn = Connector(self.ns, name, topic, path, partitions if live else None)
        self.wait_state(conn, (state or "running").upper())
        if wait_for is None and (state or "running") == "running":
            wait_for = records
        if wait_for:
            eventually(f"{wait_for} lines in {path}", lambda: len(conn.file_lines()) >= wait_for or None)
        return conn

    def source(self, prefix: str = "src", lines: int | None = 3, *, state: str | None = None,
               extra: dict | None = None, name: str | None = None) -> Connector:
        """A FileStreamSource reading a fresh file (``lines`` lines; None = the file does not exist, so the task
        idles and its offsets never move) into a fresh topic; ``name``: the connector's, when the test needs it
        first (a Connect fault for it)."""
        name, topic = name or unique_name(prefix), unique_name(f"{prefix}-topic")
        create_topic(self.admin, topic)
        path = self.workdir / f"{name}.in"
        if lines is not None:
            path.write_text("".join(f"line-{i}\n" for i in range(lines)))
        self.cluster.create(self._connector(name, FILE_SOURCE, {"file": str(path), "topic": topic}, state, extra))
        conn = Connector(self.ns, name, topic, path)
        self.wait_state(conn, (state or "running").upper())
        return conn

    def produce(self, topic: str, values: list[str], partition: int = 0) -> None:
        if values:
            produce(self.producer, topic, [v.encode() for v in values], partition=partition)

    def wait_state(self, conn: Connector, state: str, timeout: float = 90.0, *, tasks: int | None = None) -> dict:
        """Until the operator reports ``state`` and Ready. Strimzi's status is read again only at a watch event or
        its periodic pass, up to 120 s later: the state it reports is Connect's right after its own pause, resume or
        stop call, which Connect applies a moment later (0.45.2 at load, 2026-11-29: "Resuming connector", a status
        of PAUSED, then nothing for 93 s), and a pass that failed on a Connect error (a 500 "a rebalance is expected",
        a 409) is retried only then (a second identical failure writes nothing). As a user would, and as the
        plugin's own waits do (kubectl_offsets/core/online/operator.py), give it an event after each quiet watch slice (10 s); the
        nudge annotation is taken off again at the end. ``tasks``: also until the status lists that many tasks, all in
        ``state`` (Connect starts a new connector's tasks after the connector, and the pass that saw it RUNNING may
        have listed none: a CI-like run of 2026-11-29 showed a new source as RUNNING with 0/0 tasks)."""
        def done(obj):
            ready = any(c.get("type") == "Ready" for c in (obj.get("status") or {}).get("conditions") or [])
            listed = ((obj.get("status") or {}).get("connectorStatus") or {}).get("tasks") or []
            all_listed = tasks is None or (len(listed) == tasks and all(t.get("state") == state for t in listed))
            return obj if ready and live_state(obj) == state and all_listed else None

        with nudging(self.cluster.custom, VERSION, conn.ns, "kafkaconnectors", conn.name) as touch:
            return self.cluster.watch_until(conn.ns, conn.name, done, f"Connect state {state}", timeout,
                                            idle=lambda _obj: touch())

    def wait_forgotten(self, name: str, timeout: float = 60.0) -> None:
        """Until Connect no longer has connector ``name``, whose resource is gone: from then on nothing it ran writes
        a record or commits an offset. Strimzi deletes it from Connect on the resource's DELETED event, which it
        drops when the KafkaConnect's lock stays busy for 10 s (KafkaConnectAssemblyOperator#connectorEventHandler,
        AbstractOperator#withLock: a CI run of 2026-11-29 waited 60 s twice), and otherwise on the KafkaConnect's
        next pass, which deletes every connector without a resource (#reconcileConnectors), up to 120 s later. There
        is no KafkaConnector left to touch: the event a user would give is one on the KafkaConnect, which brings
        that pass now; the nudge annotation is taken off again at the end."""
        with nudging(self.cluster.custom, VERSION, self.ns, "kafkaconnects", self.connect) as touch:
            eventually(f"Connect to forget connector {name}", lambda: not self.judge.knows(name), timeout,
                       nudge=touch)

    def config_topic(self) -> str:
        """The config topic of the lab's Connect cluster (Connect's log of the connectors it was given; with the
        emulator, every KafkaConnect is the environment's one worker, tests/env/kafka.py)."""
        if self.env.operator != "strimzi":
            return "connect-cluster-configs"
        spec = self.cluster.get(self.ns, self.connect, "kafkaconnects")["spec"]
        return spec.get("configStorageTopic") or spec["config"]["config.storage.topic"]

    def cr(self, conn: Connector) -> dict:
        return self.cluster.get(conn.ns, conn.name)

    def topic_values(self, topic: str, at_least: int, timeout: float = 60.0) -> list[str]:
        """Every record value in ``topic`` (partition 0) from the beginning, once at least ``at_least`` are there."""
        eventually(f"{at_least} records in {topic}", lambda: self.judge.end_offsets(topic)[0] >= at_least, timeout)
        return self.judge.topic_values(topic)


# ---- "nothing changed" ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    metadata: dict  # all of it but resourceVersion and managedFields: generation, labels, annotations, ...
    annotations: dict
    spec: dict
    configmaps: dict  # name -> (resourceVersion, data)


def snapshot(cluster: Cluster, conn: Connector) -> Snapshot:
    obj = cluster.get(conn.ns, conn.name)
    cms = {name: (cm["metadata"]["resourceVersion"], cm.get("data")) for name, cm in cluster.configmaps(conn.ns).items()}
    metadata = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "managedFields")}
    return Snapshot(metadata, annotations(obj), obj["spec"], cms)


def assert_unchanged(cluster: Cluster, conn: Connector, before: Snapshot, *, listed: bool = False) -> None:
    """Nothing changed. The resource's status is the operator's, which writes it whenever Connect's status moves
    (a live partition's task keeps reporting); everything else must be as it was: spec, annotations, labels and
    the generation (any spec change bumps it), and every ConfigMap byte for byte. ``listed``: the command had to
    list first, and Strimzi's list adds and removes the listOffsets stanza and an annotation, so the generation
    may have moved; spec and annotations must still be back as they were."""
    after = snapshot(cluster, conn)
    assert after.annotations == before.annotations, "annotations changed"
    assert after.spec == before.spec, "spec changed"
    assert after.configmaps == before.configmaps, "ConfigMaps changed"
    if not listed:
        assert after.metadata == before.metadata, "the custom resource's metadata changed"


def manifest(lab, path: Path, name: str, cls: str, config: dict, state: str | None = None) -> Path:
    """A KafkaConnector manifest of the lab's KafkaConnect written to ``path``, for create -f (no namespace: -n)."""
    spec = {"class": cls, "tasksMax": 1, "config": {"key.converter": STRING, "value.converter": STRING, **config}}
    if state:
        spec["state"] = state
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnector",
            "metadata": {"name": name, "labels": {"strimzi.io/cluster": CONNECT}}, "spec": spec}
    path.write_text(json.dumps(body))
    return path


def sink_manifest(lab, tmp_path: Path, name: str, topic: str, state: str | None = None) -> tuple[Path, Connector]:
    """The manifest of a FileStreamSink reading ``topic`` into a fresh file, and the Connector it will be."""
    out = lab.workdir / f"{name}-{unique_name('f')[-6:]}.out"
    path = manifest(lab, tmp_path / f"{name}.yaml", name, FILE_SINK, {"file": str(out), "topics": topic}, state)
    return path, Connector(lab.ns, name, topic, out)


def exists(lab, name: str) -> bool:
    """Whether the lab's namespace holds kafkaconnector/``name``."""
    try:
        lab.cluster.get(lab.ns, name)
        return True
    except k8s.ApiException as error:
        assert error.status == 404
        return False


EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "online"


def bind_documented_role(cluster: Cluster, ns: str, user: str, binding: str) -> None:
    """The documented Role (examples/online/rbac.yaml) in ``ns``, bound to ``user`` and only there."""
    import yaml

    role = yaml.safe_load((EXAMPLES / "rbac.yaml").read_text())
    role["metadata"]["namespace"] = ns
    rbac = k8s.RbacAuthorizationV1Api(cluster.api)
    rbac.create_namespaced_role(ns, role)
    rbac.create_namespaced_role_binding(ns, {
        "metadata": {"name": binding},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role["metadata"]["name"]},
        "subjects": [{"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}]})


def create_namespace_with_connect(env, cluster: Cluster, ns: str) -> None:
    """A test namespace (labelled for the suite's clean-up) with the KafkaConnect ``CONNECT``, which uses connector
    resources: where a test's connectors live."""
    cluster.core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(
        name=ns, labels={"kubectl-offsets-test": "true"})))
    # Ready before any test looks: Strimzi's operator writes its own objects (the ConfigMap <name>-connect-config,
    # Services, a pod) while it reconciles a new KafkaConnect, which a "nothing changed" snapshot must not catch.
    create_kafka_connect(env, cluster.api, ns, CONNECT, version=VERSION)


def source_document(conn: Connector, position: int) -> str:
    """An alter document putting a FileStreamSource at ``position`` of its file."""
    return json.dumps({"offsets": [{"partition": {"filename": str(conn.file)}, "offset": {"position": position}}]})


def source_position(lab: Lab, conn: Connector) -> int | None:
    """A FileStreamSource's position as Connect stores it (None: no offsets)."""
    return lab.judge.source_position(conn.name)


# ---- the CLI -----------------------------------------------------------------------------------------------------

@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str
    exception: BaseException | None

    def __str__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


class Cli:
    def __init__(self, kubeconfig: str):
        self.kubeconfig = kubeconfig

    def __call__(self, *args: str, input: str | None = None, kubeconfig: str | None = None) -> CliResult:
        from kubectl_offsets.cli.root import root

        argv = [*args, "--kubeconfig", kubeconfig or self.kubeconfig]
        result = CliRunner().invoke(root, argv, input=input, prog_name="kubectl offsets")
        if HookedProgress.broken:
            prefix, failure = HookedProgress.broken.pop(0)
            raise AssertionError(f"the test's hook at {prefix!r} failed (the test's doing, not the plugin's): "
                                 f"{failure!r}\n{result.stderr}") from failure
        exception = result.exception if not isinstance(result.exception, SystemExit) else None
        if exception is not None and not isinstance(exception, (SystemExit,)):
            import traceback

            tb = "".join(traceback.format_exception(*result.exc_info))
            return CliResult(result.exit_code, result.stdout, result.stderr + "\n" + tb, exception)
        return CliResult(result.exit_code, result.stdout, result.stderr, None)


# ---- hooks at the flow's steps --------------------------------------------------------------------------------

class HookedProgress(progress_module.StderrProgress):
    """StderrProgress that runs ``hooks[prefix]()`` once, when a step or wait message starts with ``prefix``. A hook
    that fails (an operator that did not start again) fails inside the flow, which makes it safe and reports it as
    its own failure: it is recorded in ``broken`` too, and Cli raises it as the test's failure, not the plugin's."""

    hooks: dict = {}
    broken: list[tuple[str, Exception]] = []

    def _fire(self, message: str) -> None:
        for prefix in list(HookedProgress.hooks):
            if message.startswith(prefix):
                try:
                    HookedProgress.hooks.pop(prefix)()
                except Exception as failure:  # noqa: BLE001 - recorded, then on to the flow as it was
                    HookedProgress.broken.append((prefix, failure))
                    raise

    def step(self, message: str) -> None:
        super().step(message)
        self._fire(message)

    def waiting(self, message: str) -> None:
        super().waiting(message)
        self._fire(message)


# ---- fixtures -----------------------------------------------------------------------------------------------------

@contextmanager
def local_backups_in_tmp(tmp_path_factory) -> Iterator[Path]:
    """Local backup copies go to a temporary XDG_STATE_HOME, not the user's home."""
    state = tmp_path_factory.mktemp("xdg-state")
    saved = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(state)
    try:
        yield state
    finally:
        if saved is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = saved


@contextmanager
def module_lab(env, cluster: Cluster, kafka_admin, tmp_path_factory, request, ns: str | None = None) -> Iterator[Lab]:
    """A Lab for the requesting test module. In ``ns`` (a namespace with KafkaConnect ``CONNECT`` that modules take
    turns in: worker_namespace) the module leaves it as it found it (clear_namespace); without, a namespace and
    KafkaConnect of the module's own, deleted with its connectors afterwards."""
    module = request.module.__name__.rsplit(".", 1)[-1].replace("_", "-")[:30]
    own = ns is None
    if own:
        ns = unique_name(f"online-{module}")
        create_namespace_with_connect(env, cluster, ns)
    workdir = tmp_path_factory.mktemp(module)
    lab = Lab(env, cluster, kafka_admin, ns, workdir)
    yield lab
    lab.stop_feeders()
    lab.producer.flush(10)
    lab.producer = None  # destroyed now, not at exit when the broker is gone (librdkafka would log refusals)
    if own:
        delete_namespace_with_connect(cluster, ns)
    else:
        clear_namespace(cluster, ns, env.connect_url)


def delete_namespace_with_connect(cluster: Cluster, ns: str) -> None:
    """The connectors and KafkaConnects first (no garbage collector runs here: the kubelet stand-in stops the
    workers of a KafkaConnect that is gone), then the namespace."""
    for plural in ("kafkaconnectors", "kafkaconnects"):
        try:
            cluster.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, ns, plural)
        except k8s.ApiException as error:
            if error.status != 404:
                raise
    cluster.core.delete_namespace(ns)


def _kept(obj, connect: str = CONNECT) -> bool:
    """What clear_namespace leaves: Strimzi's own objects of the shared KafkaConnect (its ConfigMap, service account,
    ...: owned by it) and what the API server puts in every namespace."""
    meta = obj.metadata
    if meta.name in ("kube-root-ca.crt", "default"):
        return True
    return any(ref.kind == "KafkaConnect" and ref.name == connect for ref in meta.owner_references or [])


def _gone_or(delete: Callable, *args) -> None:
    """``delete(*args)``; an object already gone (the operator removed it first) is fine."""
    try:
        delete(*args)
    except k8s.ApiException as error:
        if error.status != 404:
            raise


def clear_namespace(cluster: Cluster, ns: str, connect_url: str, timeout: float = 120.0) -> None:
    """Back to what worker_namespace made: the KafkaConnect ``CONNECT`` alone, Ready, running no connector. Every
    KafkaConnector and other KafkaConnect a module made goes (the operator removes the connectors from Connect, the
    kubelet stand-in stops the other KafkaConnects' workers), and every ConfigMap, Role, RoleBinding, Secret and
    ServiceAccount that is not Strimzi's own for ``CONNECT``: the next module's "nothing changed" snapshots, backup
    listings and documented Roles start from a clean namespace, and its first connectors do not meet the
    rebalances of this module's deletions (forget_in_connect)."""
    custom, core = cluster.custom, cluster.core
    connectors = [c["metadata"]["name"] for c in
                  custom.list_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnectors")["items"]]
    custom.delete_collection_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnectors")
    for other in custom.list_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnects")["items"]:
        if other["metadata"]["name"] != CONNECT:
            _gone_or(custom.delete_namespaced_custom_object, GROUP, VERSION, ns, "kafkaconnects",
                     other["metadata"]["name"])
    rbac = k8s.RbacAuthorizationV1Api(cluster.api)
    for listing, delete in ((core.list_namespaced_config_map, core.delete_namespaced_config_map),
                            (core.list_namespaced_secret, core.delete_namespaced_secret),
                            (core.list_namespaced_service_account, core.delete_namespaced_service_account),
                            (rbac.list_namespaced_role, rbac.delete_namespaced_role),
                            (rbac.list_namespaced_role_binding, rbac.delete_namespaced_role_binding)):
        for obj in listing(ns).items:
            if not _kept(obj):
                _gone_or(delete, obj.metadata.name, ns)

    def cleared() -> bool:
        # An operator's pass over another KafkaConnect, in flight when it was deleted, may still write its ConfigMap.
        late = [m.metadata.name for m in core.list_namespaced_config_map(ns).items if not _kept(m)]
        for name in late:
            _gone_or(core.delete_namespaced_config_map, name, ns)
        connectors = custom.list_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnectors")["items"]
        connects = custom.list_namespaced_custom_object(GROUP, VERSION, ns, "kafkaconnects")["items"]
        pods = core.list_namespaced_pod(ns).items
        return not late and not connectors and [c["metadata"]["name"] for c in connects] == [CONNECT] \
            and is_ready(connects[0]) \
            and all((p.metadata.labels or {}).get("strimzi.io/cluster") == CONNECT for p in pods)
    eventually(f"namespace {ns} back to KafkaConnect {CONNECT} alone and Ready", cleared, timeout=timeout)
    forget_in_connect(connect_url, connectors)


# The operator's start-up pass over every KafkaConnect came 110 s after a restart on CI's loaded machine
# (2026-11-28, Strimzi 1.2.0); a connector changed while it was away is reached only then.
OPERATOR_CATCH_UP_TIMEOUT = 300.0


def caught_up(lab: Lab, conn: Connector, state: str = "RUNNING",
              timeout: float = OPERATOR_CATCH_UP_TIMEOUT) -> None:
    """Until the operator has passed over the resource as it is now (status.observedGeneration is the generation,
    and its status says ``state``) and Connect runs the connector in ``state``: the end a test judges. Passes over
    the spec as it was a moment earlier may still be queued (a held operator's events carry their objects; a killed
    one had begun them) and one of them can stop the connector for a second before the pass over the spec as it is
    now resumes it (0.51.0 and 1.2.0, 2026-11-28)."""
    def passed_over_now(cr: dict) -> bool:
        return live_state(cr) == state and (cr.get("status") or {}).get("observedGeneration") == \
            cr["metadata"]["generation"]

    # Nudged as Lab.wait_state is: the status of a pass that resumed the connector says what Connect said a moment
    # before it applied the resume, until the next event.
    with nudging(lab.cluster.custom, VERSION, conn.ns, "kafkaconnectors", conn.name) as touch:
        eventually(f"the operator's pass over {conn.name} as it is now, {state}",
                   lambda: passed_over_now(lab.cr(conn)), timeout, nudge=touch)
    eventually(f"Connect running {conn.name} {state}", lambda: lab.judge.state(conn.name) == state, timeout)


@pytest.fixture(scope="session", autouse=True)
def _local_backups(tmp_path_factory):
    with local_backups_in_tmp(tmp_path_factory) as state:
        yield state


@pytest.fixture(scope="session")
def cluster(kube_api) -> Cluster:
    return Cluster(kube_api)


@pytest.fixture(scope="session")
def cli(env) -> Cli:
    return Cli(env.kubeconfig)


@pytest.fixture(scope="session")
def kube(env):
    """The plugin's own Kube adapter (for library-level calls such as those under engine.hooks)."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.model import ClusterConfig

    return operations.connect(ClusterConfig(kubeconfig=env.kubeconfig))


@pytest.fixture
def hooks(monkeypatch):
    """hooks["waiting for the operator to"] = callable: run once when the in-process CLI reaches that step, to
    change the world at a precise moment; a hook that never fired fails the test."""
    monkeypatch.setattr(progress_module, "StderrProgress", HookedProgress)
    HookedProgress.hooks, HookedProgress.broken = {}, []
    yield HookedProgress.hooks
    assert not HookedProgress.hooks, f"hooks that never fired: {list(HookedProgress.hooks)}"


@pytest.fixture(scope="session")
def worker_namespace(env, cluster) -> Iterator[str]:
    """The namespace with KafkaConnect ``CONNECT`` that this pytest worker's online modules take turns in.

    A KafkaConnect costs the operator's first reconcile (a pod set, Services, a ConfigMap, ...), a Connect worker's
    start and warm-up and its idle polling for as long as it lives: one per module was 13 more worker starts in each
    environment of a suite run. Connectors are cheap, so the modules of a pytest worker (which run one after
    another) share one, and each leaves the namespace as it found it (clear_namespace)."""
    ns = unique_name(f"online-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")
    create_namespace_with_connect(env, cluster, ns)
    yield ns
    delete_namespace_with_connect(cluster, ns)


@pytest.fixture(scope="module")
def lab(env, cluster, kafka_admin, kube_api, worker_namespace, tmp_path_factory, request):
    """The module's Lab, in the pytest worker's shared namespace and KafkaConnect (worker_namespace)."""
    with module_lab(env, cluster, kafka_admin, tmp_path_factory, request, ns=worker_namespace) as made:
        yield made
