"""The fault matrix (issue 10): kill the plugin at every step of alter, reset and undo, and drop its API connection
during every wait, for a KafkaConnector and a MirrorMaker 2 source connector, running and paused; then ``recover``
and check the invariant:

    no offsets request and no journal left on the resource, the previous state restored (spec and Connect), and
    the stored offsets either the old ones or the requested ones.

Used by tests/integration/online/test_fault_matrix.py (asserts every cell survives) and benchmarks/fault_matrix.py
(prints the matrix). A kill is a real SIGKILL of a forked child process running the library (forked, so a cell does
not pay for Python's start-up and imports), sent the moment the child reports the step's progress message: the
step has started and is cut wherever it is. The connection drop goes through a loopback TCP proxy in front of the
kube-apiserver (tests/env/tcpproxy.py) cut as each wait starts, with a short outage.

Subjects whose offsets move only when we move them, so "old or requested" can be checked exactly: an idle
FileStreamSource (its file does not exist) and a MirrorSourceConnector replicating an empty topic.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import select
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.env.emulator import profiles

GROUP = "kafka.strimzi.io"
# The version a user's manifests use in the session's Strimzi era (v1 whenever it is served; 0.44-0.48 only v1beta2).
VERSION = profiles.selected().preferred_version
JOURNAL = "kubectl-offsets.io/journal"
REQUESTS = ("strimzi.io/connector-offsets", "strimzi.io/mirrormaker-connector")
STRING = "org.apache.kafka.connect.storage.StringConverter"

# (step as reported, the progress message that starts it); "{request}" is alter or reset.
KILL_POINTS = (
    ("list (preview)", "listing the current offsets"),
    ("stop", "waiting for connector"),  # the claim (journal + spec.state: stopped) is written; Connect stops it
    ("backup: list", "listing the offsets of the stopped connector"),
    ("backup: save", "backing up the offsets"),
    ("write-configmap", "writing the new offsets"),
    ("annotate", "asking the operator to"),
    ("await-operator", "waiting for the operator to {request}"),
    ("verify", "verifying"),
    ("resume", "restoring the previous state"),
    ("cleanup", "removing the journal"),
)
OPERATIONS = ("alter", "reset", "undo")


@dataclass
class Cell:
    subject: str
    operation: str
    state: str  # running | paused
    fault: str  # "SIGKILL at <step>" | "API connection cut at every wait"
    injected: bool = False  # False: the run never reached that step (e.g. write-configmap of a reset)
    survived: bool = False
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Subject:
    """One connector and how to read and move it."""

    label: str
    kind: str
    name: str
    ns: str
    connector: str | None
    partition: dict[str, Any]
    offset_key: str
    base: int = 10
    spec: Any = None  # TargetSpec
    history: list = field(default_factory=list)

    def document(self, value: int) -> dict:
        return {"offsets": [{"partition": self.partition, "offset": {self.offset_key: value}}]}


# --- the environment side -------------------------------------------------------------------------------------------

class Bench:
    """A namespace with a KafkaConnect, an idle FileStreamSource and a KafkaMirrorMaker2 over an empty topic."""

    def __init__(self, env, workdir: Path, prefix: str = "faults"):
        from kubernetes import client, config

        from kubectl_offsets.core.online import operations
        from kubectl_offsets.model import ClusterConfig
        from tests.env.clients import unique_name

        self.env, self.workdir = env, workdir
        api = config.new_client_from_config(config_file=env.kubeconfig)
        self.custom, self.core = client.CustomObjectsApi(api), client.CoreV1Api(api)
        self.ns = unique_name(prefix)
        self.core.create_namespace({"metadata": {"name": self.ns, "labels": {"kubectl-offsets-test": "true"}}})
        self.kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=self.ns))
        self.unique = unique_name
        os.environ.setdefault("XDG_STATE_HOME", str(workdir / "state"))

    def close(self) -> None:
        for plural in ("kafkaconnectors", "kafkamirrormaker2s", "kafkaconnects"):
            try:
                self.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, self.ns, plural)
            except Exception:  # noqa: BLE001 - best effort clean-up
                pass
        self.core.delete_namespace(self.ns)

    def connector_subject(self) -> Subject:
        from kubectl_offsets.core.online.targets import TargetSpec
        from tests.env.kind.shared import connect_spec_for

        name = self.unique("idle")
        path = self.workdir / f"{name}.in"  # never created: the task idles, its offsets move only when we move them
        self.custom.create_namespaced_custom_object(GROUP, VERSION, self.ns, "kafkaconnects", {
            "apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnect",
            "metadata": {"name": "connect", "annotations": {"strimzi.io/use-connector-resources": "true"}},
            "spec": connect_spec_for(self.env, self.core, self.ns, "connect")})
        self.custom.create_namespaced_custom_object(GROUP, VERSION, self.ns, "kafkaconnectors", {
            "apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnector",
            "metadata": {"name": name, "labels": {"strimzi.io/cluster": "connect"}},
            "spec": {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasksMax": 1,
                     "config": {"file": str(path), "topic": self.unique("idle-topic"), "key.converter": STRING,
                                "value.converter": STRING}}})
        subject = Subject("KafkaConnector", "KafkaConnector", name, self.ns, None, {"filename": str(path)},
                          "position", spec=TargetSpec(name))
        self._ready(subject)
        return subject

    def mirror_subject(self) -> Subject:
        from confluent_kafka.admin import AdminClient

        from kubectl_offsets.core.online.targets import TargetSpec
        from tests.env.clients import create_topic, kafka_conf, one_mirror_mm2

        tag = self.unique("m").split("-")[1][:6]
        name, src, tgt, topic = f"mirror-{tag}", f"east{tag}", f"west{tag}", f"quiet-{tag}"
        create_topic(AdminClient(kafka_conf(self.env.bootstrap_servers)), topic)  # stays empty
        bootstrap = self.env.bootstrap_servers
        mirror = {"sourceConnector": {"tasksMax": 1, "config": {
                      "refresh.topics.interval.seconds": 1, "sync.topic.configs.enabled": False,
                      "heartbeats.replication.enabled": False}},
                  "topicsPattern": f"^{topic}$", "groupsPattern": "^none$"}
        self.custom.create_namespaced_custom_object(GROUP, VERSION, self.ns, "kafkamirrormaker2s",
                                                    one_mirror_mm2(name, src, tgt, bootstrap, mirror))
        connector = f"{src}->{tgt}.MirrorSourceConnector"
        subject = Subject("MirrorMaker 2", "KafkaMirrorMaker2", name, self.ns, connector,
                          {"cluster": src, "topic": topic, "partition": 0}, "offset",
                          spec=TargetSpec(f"kafkamirrormaker2/{name}", connector=connector))
        self._ready(subject)
        return subject

    # --- reading and moving a subject -------------------------------------------------------------------------
    def target(self, subject: Subject):
        from kubectl_offsets.core.online.targets import resolve

        return resolve(self.kube, subject.spec, self.ns).target

    def resource(self, subject: Subject) -> dict:
        return self.kube.get(subject.kind, subject.name, self.ns)

    def live_state(self, subject: Subject) -> str | None:
        return self.target(subject).live_state(self.resource(subject))

    def _ready(self, subject: Subject, timeout: float = 120) -> None:
        self.wait(f"{subject.label} RUNNING", lambda: self.live_state(subject) == "RUNNING", timeout)

    def wait(self, what: str, probe, timeout: float = 60.0, interval: float = 0.3):
        deadline, last_error = time.monotonic() + timeout, None
        while True:
            try:
                value = probe()
            except Exception as error:  # noqa: BLE001 - a resource not there yet
                value, last_error = None, error
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}"
                                     + (f" (last error: {last_error})" if last_error else ""))
            time.sleep(interval)

    def set_state(self, subject: Subject, state: str) -> None:
        """running = no state field (the default), paused = state: paused; waits until Connect reports it."""
        target = self.target(subject)
        resource = self.resource(subject)
        path = f"{target.stanza_pointer()}/state"
        ops = [{"op": "add", "path": path, "value": "paused"}] if state == "paused" else \
            ([{"op": "remove", "path": path}] if "state" in target.stanza(resource) else [])
        if ops:
            self.kube.patch(subject.kind, subject.name, self.ns, ops)
        self.wait(f"{subject.label} {state}", lambda: self.live_state(subject) == state.upper())

    def offsets(self, subject: Subject) -> int | None:
        """The stored offset of the subject's one partition (None: none stored)."""
        from kubectl_offsets.core.online import operations
        from kubectl_offsets.model import Options, WaitSettings

        listed = operations.list_offsets(self.kube, subject.spec, namespace=self.ns,
                                         options=Options(wait=WaitSettings(timeout=60)))
        for entry in listed.offsets:
            if entry.offset is not None:
                return entry.offset[subject.offset_key]
        return None

    def alter(self, subject: Subject, value: int, kube=None, progress=None, timeout: float = 60):
        from kubectl_offsets.core.online import operations
        from kubectl_offsets.core.inputs import AlterRequest
        from kubectl_offsets.model import Options, WaitSettings

        path = self.workdir / f"{subject.name}-{value}.json"
        path.write_text(json.dumps(subject.document(value)))
        return operations.alter_offsets(kube or self.kube, subject.spec, AlterRequest(file=str(path)),
                                        namespace=self.ns, progress=progress,
                                        options=Options(yes=True, wait=WaitSettings(timeout=timeout)))

    def newest_backup(self, subject: Subject) -> int | None:
        from kubectl_offsets.core.online import backups

        saved = backups.load_configmap(self.kube, self.target(subject), backups.newest(self.kube, self.target(subject)))
        for entry in saved:
            return entry.offset[subject.offset_key] if entry.offset else None
        return None


# --- one cell -------------------------------------------------------------------------------------------------------

def _operate(bench: Bench, subject: Subject, operation: str, value: int, kube, progress) -> None:
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.model import Options, WaitSettings

    options = Options(yes=True, wait=WaitSettings(timeout=60))
    if operation == "alter":
        bench.alter(subject, value, kube=kube, progress=progress)
    elif operation == "reset":
        operations.reset_offsets(kube, subject.spec, namespace=bench.ns, options=options, progress=progress)
    else:
        operations.undo(kube, subject.spec, namespace=bench.ns, options=options, progress=progress)


class _PipeProgress:
    """Progress that reports every step and wait to the parent, one line each, before anything else happens."""

    def __init__(self, fd: int):
        self.fd = fd

    def step(self, message: str) -> None:
        os.write(self.fd, (message.replace("\n", " ") + "\n").encode())

    waiting = step

    def done(self) -> None:
        pass

    def warn(self, message: str) -> None:
        self.step("warning: " + message)


def _child(bench: Bench, subject: Subject, operation: str, value: int, fd: int) -> None:
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.model import ClusterConfig

    try:
        kube = operations.connect(ClusterConfig(kubeconfig=bench.env.kubeconfig, namespace=bench.ns))
        _operate(bench, subject, operation, value, kube, _PipeProgress(fd))
        os.write(fd, b"finished\n")
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        os.write(fd, f"failed: {error}\n".replace("\n", " ").encode() + b"\n")
    finally:
        os._exit(0)


def kill_at(bench: Bench, subject: Subject, operation: str, value: int, prefix: str) -> tuple[bool, list[str]]:
    """Run the operation in a forked child and SIGKILL it as soon as it reports ``prefix``. Returns (killed,
    the messages it reported)."""
    read, write = os.pipe()
    process = multiprocessing.get_context("fork").Process(target=_child, args=(bench, subject, operation, value,
                                                                               write), daemon=True)
    process.start()
    os.close(write)
    seen, killed, buffer = [], False, b""
    deadline = time.monotonic() + 180
    with os.fdopen(read, "rb", buffering=0) as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:  # a child that reports nothing for minutes is stuck: kill it, the cell says so
                os.kill(process.pid, signal.SIGKILL)
                seen.append("no progress for 180 s")
                break
            chunk = pipe.read(4096)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode()
                seen.append(text)
                if not killed and text.startswith(prefix):
                    os.kill(process.pid, signal.SIGKILL)
                    killed = True
            if killed:
                break
    process.join(120)
    return killed, seen


def recover_everything(bench: Bench, subject: Subject) -> str:
    """What a user does after a crash: recover --force (the dead process's lease may still run)."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.errors import NotFoundError
    from kubectl_offsets.model import Options, WaitSettings

    # A list request left by a killed preview completes by itself: let the operator finish it first.
    bench.wait("no pending list request", lambda: bench.target(subject).pending_annotations(
        bench.resource(subject)).get(REQUESTS[0]) != "list", 60)
    try:
        return operations.recover(bench.kube, subject.spec, namespace=bench.ns, force=True,
                                  options=Options(wait=WaitSettings(timeout=60)))
    except NotFoundError:
        return "nothing to recover"


def invariant(bench: Bench, subject: Subject, state: str, old: int | None, requested: int | None) -> str:
    """'' when it holds, else what is wrong."""
    target = bench.target(subject)
    try:
        bench.wait(f"{subject.label} {state}", lambda: bench.live_state(subject) == state.upper(), 60)
    except AssertionError as error:
        return str(error)
    resource = bench.resource(subject)
    annotations = (resource.get("metadata") or {}).get("annotations") or {}
    left = [key for key in (JOURNAL, *REQUESTS) if key in annotations]
    if left:
        return f"left on the resource: {left}"
    stanza = target.stanza(resource)
    if stanza.get("state") != ("paused" if state == "paused" else None):
        return f"spec state is {stanza.get('state')!r}"
    if "alterOffsets" in stanza:
        return "alterOffsets left in the stanza"
    found = bench.offsets(subject)
    if found not in (old, requested):
        return f"stored offset {found}, neither the old {old} nor the requested {requested}"
    return ""


def run_cell(bench: Bench, subject: Subject, operation: str, state: str, point: tuple[str, str],
             value: int) -> Cell:
    step, prefix = point
    request = "reset" if operation == "reset" else "alter"
    cell = Cell(subject.label, operation, state, f"SIGKILL at {step}")
    started = time.monotonic()
    bench.set_state(subject, state)
    if operation == "undo":
        bench.alter(subject, value)  # the newest backup now holds the offset before it: undo must restore it
    old = bench.offsets(subject)
    requested = {"alter": value, "reset": None, "undo": bench.newest_backup(subject) if operation == "undo"
                 else None}[operation]
    killed, seen = kill_at(bench, subject, operation, value, prefix.format(request=request))
    cell.injected = killed
    if not killed:
        cell.detail = f"step not reached ({seen[-1] if seen else 'no output'})"
        cell.survived = True
    else:
        summary = recover_everything(bench, subject)
        problem = invariant(bench, subject, state, old, requested)
        cell.survived, cell.detail = not problem, problem or summary
    cell.seconds = time.monotonic() - started
    return cell


class _CutAtEveryWait:
    def __init__(self, proxy, outage: float):
        self.proxy, self.outage, self.cuts = proxy, outage, 0

    def step(self, message):
        pass

    def waiting(self, message):
        self.cuts += 1
        self.proxy.cut(outage=self.outage)

    def done(self):
        pass

    def warn(self, message):
        pass


def run_drop_cell(bench: Bench, subject: Subject, operation: str, state: str, value: int, proxy) -> Cell:
    """The API connection is cut as every wait starts (1 s outage); the operation must complete anyway."""
    from kubectl_offsets.core.online import operations
    from kubectl_offsets.errors import OffsetsError
    from kubectl_offsets.model import ClusterConfig

    cell = Cell(subject.label, operation, state, "API connection cut at every wait")
    started = time.monotonic()
    bench.set_state(subject, state)
    if operation == "undo":
        bench.alter(subject, value)
    old = bench.offsets(subject)
    requested = {"alter": value, "reset": None, "undo": bench.newest_backup(subject) if operation == "undo"
                 else None}[operation]
    kube = operations.connect(ClusterConfig(kubeconfig=proxy.kubeconfig_for(bench.env.kubeconfig, bench.workdir),
                                            namespace=bench.ns))
    progress = _CutAtEveryWait(proxy, outage=1.0)
    try:
        _operate(bench, subject, operation, value, kube, progress)
        outcome = "completed"
    except OffsetsError as error:
        outcome = f"failed: {error.message}"
    cell.injected = progress.cuts > 0
    problem = invariant(bench, subject, state, requested, requested) if outcome == "completed" else \
        invariant(bench, subject, state, old, requested)
    cell.survived = outcome == "completed" and not problem
    cell.detail = f"{progress.cuts} cuts; {outcome}" + (f"; {problem}" if problem else "")
    cell.seconds = time.monotonic() - started
    return cell


def run_matrix(env, workdir: Path, *, subjects=("connector", "mirror"), operations=OPERATIONS,
               log=print) -> list[Cell]:
    """Every cell; the state alternates running/paused along the kill points (both states for every operation and
    subject, each step once per operation), plus one connection-drop cell per subject, operation and state. Each
    column (a subject and an operation) has its own bench, in its own namespace, so the columns run side by side:
    nearly all the time is spent waiting."""
    from concurrent.futures import ThreadPoolExecutor

    columns = [(subject, operation) for subject in subjects for operation in operations]
    with ThreadPoolExecutor(max_workers=len(columns)) as pool:
        cells = list(pool.map(lambda column: run_column(env, workdir / "-".join(column), *column, log=log), columns))
    return [cell for column in cells for cell in column]


def run_column(env, workdir: Path, subject_name: str, operation: str, *, log=print) -> list[Cell]:
    """One subject and one operation: a SIGKILL at each of its steps, then an API connection cut at every wait, in
    both states. Its own bench: a column runs alone (one test of test_fault_matrix.py) or beside the others."""
    from tests.env.tcpproxy import TcpProxy

    workdir.mkdir(parents=True, exist_ok=True)
    bench = Bench(env, workdir)
    cells: list[Cell] = []
    try:
        subject = {"connector": bench.connector_subject, "mirror": bench.mirror_subject}[subject_name]()
        value = 100
        bench.alter(subject, value)  # a known starting offset (and a first backup, which undo needs)
        for index, point in enumerate(KILL_POINTS):
            if operation == "reset" and point[0] == "write-configmap":
                continue  # a reset writes no ConfigMap
            value += 1
            state = ("running", "paused")[index % 2]
            cell = run_cell(bench, subject, operation, state, point, value)
            cells.append(cell)
            log(_line(cell))
        api = env.api_server.rstrip("/").rsplit(":", 1)
        with TcpProxy("127.0.0.1", int(api[1])) as proxy:
            for state in ("running", "paused"):
                value += 1
                cell = run_drop_cell(bench, subject, operation, state, value, proxy)
                cells.append(cell)
                log(_line(cell))
    finally:
        bench.close()
    return cells


def _line(cell: Cell) -> str:
    verdict = "survived" if cell.survived else "BROKEN"
    injected = "" if cell.injected else " (not reached)"
    return (f"{cell.subject:15} {cell.operation:6} {cell.state:8} {cell.fault:36}{injected:14} {verdict:9} "
            f"{cell.seconds:5.1f}s  {cell.detail[:110]}")


def render(cells: list[Cell], seconds: float) -> str:
    """The report: per subject and operation, faults injected / survived; then the broken cells."""
    rows = {}
    for cell in cells:
        key = (cell.subject, cell.operation, "SIGKILL" if cell.fault.startswith("SIGKILL") else "connection cut")
        injected, survived = rows.get(key, (0, 0))
        rows[key] = (injected + cell.injected, survived + (cell.injected and cell.survived))
    lines = ["| subject | operation | fault | injected | survived |", "|---|---|---|---|---|"]
    for (subject, operation, fault), (injected, survived) in rows.items():
        lines.append(f"| {subject} | {operation} | {fault} | {injected} | {survived} |")
    total = sum(c.injected for c in cells)
    ok = sum(c.injected and c.survived for c in cells)
    lines.append(f"| **all** | | | **{total}** | **{ok}** |")
    lines.append(f"\n{total} faults injected, {ok} survived, in {seconds:.0f} s "
                 f"({sum(not c.injected for c in cells)} cells whose step the operation does not have)")
    broken = [c for c in cells if c.injected and not c.survived]
    lines += [f"BROKEN: {_line(c)}" for c in broken]
    return "\n".join(lines)
