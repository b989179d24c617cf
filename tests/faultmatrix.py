"""The fault matrix (issue 10): kill the plugin at every step of alter, reset and undo, and drop its API connection
during every wait, for a KafkaConnector and a MirrorMaker 2 source connector, each step on a running and on a
paused connector; then recover as a user does and check the invariant with readers independent of the plugin:

    no offsets request and no journal left on the resource, the previous state restored (the resource's spec and
    Connect's own status), no alterOffsets left, and the offsets stored in Connect either the old ones or the
    requested ones.

Used by tests/integration/online/test_fault_matrix.py (asserts every cell survives) and benchmarks/fault_matrix.py
(prints the matrix).

As a user meets it: every operation is a real ``python -m kubectl_offsets alter|reset|undo ...`` process, killed
with SIGKILL the moment its stderr shows the step's progress line (the step has started and is cut wherever it is).
Then the user's recovery, driven only by what the plugin prints: the recover command it printed, or, as a SIGKILL
leaves no last words, ``kubectl offsets recover TARGET``; when that refuses and prints a command to run instead (the
dead process's lease still runs: ``--force``), that exact command. Each cell records the commands it took.
The connection drop goes through a loopback TCP proxy in front of the kube-apiserver (tests/env/tcpproxy.py), cut
with a 1 s outage as each wait line appears.

The judges never ask the plugin: Connect's REST API (``GET /connectors/NAME/status`` and ``.../offsets``) and the
resource as the kubernetes client fetches it.

Subjects whose offsets move only when we move them, so "old or requested" can be checked exactly: an idle
FileStreamSource (its file does not exist) and a MirrorSourceConnector replicating an empty topic. A lane is one
subject in one state (running or paused) in a namespace of its own, every operation in turn on it; lanes run side
by side: nearly all the time is spent waiting on the operator and Connect.
"""
from __future__ import annotations

import json
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.env.emulator import profiles

ROOT = Path(__file__).resolve().parent.parent
GROUP = "kafka.strimzi.io"
# The version a user's manifests use in the session's Strimzi era (v1 whenever it is served; 0.44-0.48 only v1beta2).
VERSION = profiles.selected().preferred_version
JOURNAL = "kubectl-offsets.io/journal"
REQUESTS = ("strimzi.io/connector-offsets", "strimzi.io/mirrormaker-connector")
STRING = "org.apache.kafka.connect.storage.StringConverter"
TIMEOUT = "60s"  # each operation's --timeout
SILENCE = 180.0  # a process that prints nothing for this long is stuck: killed, and the cell says so

# (step as reported, the start of the progress line that starts it); "{request}" is alter or reset.
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
# `delete --reset-offsets`: the reset, the connector kept stopped, then the resource deleted (one journal).
DELETE = "delete"
STATES = ("running", "paused")


def kill_points(operation: str) -> tuple[tuple[str, str], ...]:
    """The steps of ``operation`` as its progress shows them: a reset writes no ConfigMap; a delete lists under its
    own words, keeps the connector stopped (no resume line) and deletes the resource as its clean-up."""
    if operation == DELETE:
        words = {"list (preview)": "listing the offsets of '", "cleanup": "deleting kafkaconnector/"}
        return tuple((step, words.get(step, prefix)) for step, prefix in KILL_POINTS
                     if step not in ("write-configmap", "resume"))
    return tuple(point for point in KILL_POINTS if not (operation == "reset" and point[0] == "write-configmap"))


def operations_of(subject: str) -> tuple[str, ...]:
    """What the matrix runs on a subject: delete works on KafkaConnectors only (a MirrorMaker 2 connector comes
    and goes with its mirror)."""
    return (*OPERATIONS, DELETE) if subject == "connector" else OPERATIONS


@dataclass
class Cell:
    subject: str
    operation: str
    state: str  # running | paused
    fault: str  # "SIGKILL at <step>" | "API connection cut at every wait"
    injected: bool = False  # False: the run never reached that step (e.g. write-configmap of a reset)
    survived: bool = False
    detail: str = ""
    recovery: str = ""  # the commands the user ran after the kill, " -> " between them
    seconds: float = 0.0
    completed: bool = False  # the operation itself ended well (exit 0): nothing for the user to recover

    @property
    def forced(self) -> bool:
        """The recovery needed --force (the plugin printed it: the dead process's lease still ran)."""
        return "--force" in self.recovery


@dataclass
class Subject:
    """One connector: how a user names it to the plugin, and where the judges read it."""

    label: str
    kind: str
    plural: str
    name: str  # the resource's
    ns: str
    connector: str  # Connect's name for it
    partition: dict[str, Any]
    offset_key: str
    stanza_path: tuple  # where the connector's state lives in the resource

    @property
    def target(self) -> list[str]:
        """The plugin's TARGET arguments, as a user types them."""
        if self.kind == "KafkaConnector":
            return [self.name]
        return [f"kafkamirrormaker2/{self.name}", "--connector", self.connector]

    def document(self, value: int) -> dict:
        return {"offsets": [{"partition": self.partition, "offset": {self.offset_key: value}}]}


@dataclass
class Run:
    """A finished (or killed) plugin process."""

    command: list[str]
    returncode: int | None
    lines: list[str]  # stderr, line by line
    killed: bool = False

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def printed_command(self, verb: str) -> str | None:
        """The last ``kubectl offsets VERB ...`` the plugin printed (a ``next:`` line, or inside a message)."""
        found = re.findall(rf"(kubectl offsets {verb} [^\n]*)", self.text)
        return found[-1].strip() if found else None


# --- the environment side -------------------------------------------------------------------------------------------

class Bench:
    """A namespace with a KafkaConnect, an idle FileStreamSource or a KafkaMirrorMaker2 over an empty topic; the
    plugin run as a user runs it, and the independent readers."""

    def __init__(self, env, workdir: Path, prefix: str = "faults"):
        from kubernetes import client, config

        from tests.env.clients import ConnectRest, unique_name

        self.env, self.workdir = env, workdir
        workdir.mkdir(parents=True, exist_ok=True)
        api = config.new_client_from_config(config_file=env.kubeconfig)
        self.api, self.custom, self.core = api, client.CustomObjectsApi(api), client.CoreV1Api(api)
        self.rest = ConnectRest(env.connect_url)
        self.ns = unique_name(prefix)
        self.core.create_namespace({"metadata": {"name": self.ns, "labels": {"kubectl-offsets-test": "true"}}})
        self.unique = unique_name
        self._kube = None  # the plugin's client, for setting up only (setup_alter)
        os.environ.setdefault("XDG_STATE_HOME", str(workdir / "state"))  # setup_alter's local backups, too
        # The plugin's own environment: local backups in the bench's folder, never the user's.
        self.process_env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                                     os.environ.get("PYTHONPATH")])),
                            "XDG_STATE_HOME": str(workdir / "state"), "KUBECONFIG": env.kubeconfig}

    def close(self) -> None:
        for plural in ("kafkaconnectors", "kafkamirrormaker2s", "kafkaconnects"):
            try:
                self.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, self.ns, plural)
            except Exception:  # noqa: BLE001 - best effort clean-up
                pass
        self.core.delete_namespace(self.ns)

    def connector_subject(self) -> Subject:
        from tests.env.kind.shared import create_kafka_connect

        name = self.unique("idle")
        path = self.workdir / f"{name}.in"  # never created: the task idles, its offsets move only when we move them
        create_kafka_connect(self.env, self.api, self.ns, "connect", version=VERSION)
        subject = Subject("KafkaConnector", "KafkaConnector", "kafkaconnectors", name, self.ns, name,
                          {"filename": str(path)}, "position", ("spec",))
        self._idle_topic = self.unique("idle-topic")
        self.create_connector(subject, "running", timeout=120)
        return subject

    def create_connector(self, subject: Subject, state: str, timeout: float = 60.0) -> None:
        """The subject's KafkaConnector, as a user creates it (again, after a delete: same name, same config), in
        ``state``; returns once Connect reports that state."""
        spec = {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "tasksMax": 1,
                "config": {"file": subject.partition["filename"], "topic": self._idle_topic,
                           "key.converter": STRING, "value.converter": STRING}}
        if state == "paused":
            spec["state"] = "paused"
        self.custom.create_namespaced_custom_object(GROUP, VERSION, self.ns, "kafkaconnectors", {
            "apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnector",
            "metadata": {"name": subject.name, "labels": {"strimzi.io/cluster": "connect"}}, "spec": spec})
        # A pass that fails (Connect not answering yet: a new cluster, a worker just started) is retried at the
        # periodic pass, minutes away; the nudge is that pass now (0.45.2 once took longer than 120 s without it).
        from tests.waits import nudger

        self.wait_state(subject, state, timeout, nudge=nudger(self.custom, VERSION, self.ns, "kafkaconnectors",
                                                              subject.name))

    def exists(self, subject: Subject) -> bool:
        """Whether the kubernetes client finds the subject's resource."""
        from kubernetes.client.exceptions import ApiException

        try:
            self.resource(subject)
            return True
        except ApiException as error:
            if error.status == 404:
                return False
            raise

    def connect_knows(self, subject: Subject) -> bool:
        """Whether Connect still has the connector: GET /connectors/NAME/status is not 404."""
        status, _ = self.rest.get(self.rest.connector_path(subject.connector, "/status"))
        return status != 404

    def mirror_subject(self) -> Subject:
        from confluent_kafka.admin import AdminClient

        from tests.env.clients import create_topic, kafka_conf, one_mirror_mm2

        tag = self.unique("m").split("-")[1][:6]
        name, src, tgt, topic = f"mirror-{tag}", f"east{tag}", f"west{tag}", f"quiet-{tag}"
        create_topic(AdminClient(kafka_conf(self.env.bootstrap_servers)), topic)  # stays empty
        mirror = {"sourceConnector": {"tasksMax": 1, "config": {
                      "refresh.topics.interval.seconds": 1, "sync.topic.configs.enabled": False,
                      "heartbeats.replication.enabled": False}},
                  "topicsPattern": f"^{topic}$", "groupsPattern": "^none$"}
        self.custom.create_namespaced_custom_object(GROUP, VERSION, self.ns, "kafkamirrormaker2s",
                                                    one_mirror_mm2(name, src, tgt, self.env.bootstrap_servers, mirror))
        # Both MirrorMaker 2 layouts keep the connectors under spec.mirrors[].
        subject = Subject("MirrorMaker 2", "KafkaMirrorMaker2", "kafkamirrormaker2s", name, self.ns,
                          f"{src}->{tgt}.MirrorSourceConnector", {"cluster": src, "topic": topic, "partition": 0},
                          "offset", ("spec", "mirrors", 0, "sourceConnector"))
        self.wait_state(subject, "running", 180)
        return subject

    # --- the independent readers ------------------------------------------------------------------------------
    def resource(self, subject: Subject) -> dict:
        """The resource as the kubernetes client fetches it."""
        return self.custom.get_namespaced_custom_object(GROUP, VERSION, subject.ns, subject.plural, subject.name)

    @staticmethod
    def stanza(subject: Subject, resource: dict) -> dict:
        node: Any = resource
        for key in subject.stanza_path:
            node = node[key]
        return node

    def connect_state(self, subject: Subject) -> str | None:
        """Connect's own word: GET /connectors/NAME/status."""
        status, body = self.rest.get(self.rest.connector_path(subject.connector, "/status"))
        return ((body or {}).get("connector") or {}).get("state") if status == 200 else None

    def stored_offset(self, subject: Subject) -> int | None:
        """The offset Connect stores for the subject's one partition (None: none): GET /connectors/NAME/offsets."""
        status, body = self.rest.get(self.rest.connector_path(subject.connector, "/offsets"))
        if status != 200:
            raise AssertionError(f"GET offsets of {subject.connector}: {status} {body}")
        for entry in body.get("offsets") or []:
            if entry.get("partition") == subject.partition and entry.get("offset") is not None:
                return entry["offset"][subject.offset_key]
        return None

    def wait(self, what: str, probe, timeout: float = 60.0, interval: float = 0.3, nudge=None):
        """tests/waits.py's ``eventually``; any exception of ``probe`` (a resource not there yet) is no answer."""
        from tests.waits import eventually

        return eventually(what, probe, timeout, interval, tolerate=(Exception,), nudge=nudge)

    def wait_state(self, subject: Subject, state: str, timeout: float = 60.0, nudge=None) -> None:
        self.wait(f"{subject.label} {state} in Connect", lambda: self.connect_state(subject) == state.upper(),
                  timeout, nudge=nudge)

    def set_state(self, subject: Subject, state: str) -> None:
        """What a user edits: running = no state field (the default), paused = state: paused; then waits until
        Connect reports it."""
        resource = self.resource(subject)
        stanza = self.stanza(subject, resource)
        wanted = "paused" if state == "paused" else None
        if stanza.get("state") != wanted:
            if subject.kind == "KafkaConnector":
                patch: dict = {"spec": {"state": wanted}}
            else:  # a merge patch replaces a list whole: send the mirrors with the one field changed
                mirrors = resource["spec"]["mirrors"]
                connector = mirrors[0]["sourceConnector"]
                connector.pop("state", None)
                if wanted:
                    connector["state"] = wanted
                patch = {"spec": {"mirrors": mirrors}}
            self.custom.patch_namespaced_custom_object(GROUP, VERSION, subject.ns, subject.plural, subject.name,
                                                       patch)
        self.wait_state(subject, state)

    # --- the plugin, as a user runs it ------------------------------------------------------------------------
    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "kubectl_offsets", *args]

    def operation_args(self, subject: Subject, operation: str, value: int) -> list[str]:
        args = [operation, *subject.target, "-n", subject.ns, "--yes", "--timeout", TIMEOUT]
        if operation == DELETE:
            args.append("--reset-offsets")
        if operation == "alter":
            path = self.workdir / f"{subject.name}-{value}.json"
            path.write_text(json.dumps(subject.document(value)))
            args += ["-f", str(path)]
        return args

    def run(self, args: list[str], *, kill_at: str | None = None, on_wait=None,
            kubeconfig: str | None = None, inject_at: str | None = None, inject=None) -> Run:
        """Run the plugin; SIGKILL it the moment a progress line starts with ``kill_at``; call ``on_wait()`` as each
        wait line appears; call ``inject()`` once, the moment a progress line starts with ``inject_at`` (the plugin
        runs on)."""
        command = self.command(*args)
        env = dict(self.process_env, **({"KUBECONFIG": kubeconfig} if kubeconfig else {}))
        process = subprocess.Popen(command, cwd=self.workdir, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert process.stderr is not None
        lines, killed, buffer = [], False, b""
        fd = process.stderr.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], SILENCE)
            if not ready:
                process.kill()
                lines.append(f"(no output for {SILENCE:.0f} s: killed)")
                break
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            *complete, buffer = buffer.split(b"\n")
            for raw in complete:
                line = raw.decode(errors="replace")
                lines.append(line)
                text = line.removeprefix("==> ").strip()
                if kill_at is not None and not killed and text.startswith(kill_at):
                    os.kill(process.pid, signal.SIGKILL)
                    killed = True
                elif inject is not None and inject_at is not None and text.startswith(inject_at):
                    inject()
                    inject = None
                elif on_wait is not None and line.startswith("    "):
                    on_wait()
            if killed:
                break
        process.stderr.close()
        return Run(command, process.wait(120), lines, killed)

    def setup_alter(self, subject: Subject, value: int) -> None:
        """A plain alter, to a known offset (also a backup for undo); not under test, so through the library, in
        this process: a process's start-up (about 1.5 s of CPU) is what the matrix spends most on a busy machine,
        and undo needs one such alter per cell."""
        from kubectl_offsets.core.inputs import AlterRequest
        from kubectl_offsets.core.online import operations
        from kubectl_offsets.core.online.targets import TargetSpec
        from kubectl_offsets.model import ClusterConfig, Options, WaitSettings

        if self._kube is None:
            self._kube = operations.connect(ClusterConfig(kubeconfig=self.env.kubeconfig, namespace=self.ns))
        path = self.workdir / f"{subject.name}-{value}.json"
        path.write_text(json.dumps(subject.document(value)))
        spec = TargetSpec(subject.target[0], connector=subject.target[2] if len(subject.target) > 2 else None)
        operations.alter_offsets(self._kube, spec, AlterRequest(file=str(path)), namespace=self.ns,
                                 options=Options(yes=True, wait=WaitSettings(timeout=SETUP_TIMEOUT)))

    def recover_as_a_user(self, subject: Subject, killed: Run) -> tuple[str, list[str]]:
        """After a kill: the recover command the plugin printed, else ``kubectl offsets recover TARGET``; while
        the plugin refuses and prints another recover command, that one. Returns (outcome, commands run)."""
        printed = killed.printed_command("recover")
        command = printed or shlex.join(["kubectl", "offsets", "recover", *subject.target, "-n", subject.ns])
        ran: list[str] = []
        while True:
            words = shlex.split(command)
            assert words[:3] == ["kubectl", "offsets", "recover"], f"not a recover command: {command}"
            ran.append(command)
            result = self.run(words[2:])  # exactly as printed (or typed)
            if result.returncode == 0:
                return "recovered", ran
            if "no interrupted kubectl-offsets operation" in result.text:
                return "nothing to recover", ran
            if " not found" in result.text and not self.exists(subject):  # a delete killed after its last step
                return "nothing to recover (deleted)", ran
            following = result.printed_command("recover")
            if not following or following in ran or len(ran) >= 3:
                return f"recover failed (exit {result.returncode}): {result.text.strip()[-300:]}", ran
            command = following


# --- the invariant ---------------------------------------------------------------------------------------------------

def invariant(bench: Bench, subject: Subject, state: str, old: int | None, requested: int | None) -> str:
    """'' when it holds, else what is wrong; every fact read without the plugin."""
    try:
        bench.wait_state(subject, state)
    except AssertionError as error:
        return f"{error}; Connect says {bench.connect_state(subject)}"
    resource = bench.resource(subject)
    annotations = (resource.get("metadata") or {}).get("annotations") or {}
    if JOURNAL in annotations:
        return "the journal is left on the resource"
    try:  # a list request the killed run handed over completes by itself: the operator answers it
        bench.wait("no offsets request left", lambda: not any(
            key in ((bench.resource(subject).get("metadata") or {}).get("annotations") or {}) for key in REQUESTS))
    except AssertionError:
        return f"left on the resource: {[k for k in REQUESTS if k in annotations]}"
    stanza = bench.stanza(subject, bench.resource(subject))
    if stanza.get("state") != ("paused" if state == "paused" else None):
        return f"spec state is {stanza.get('state')!r}"
    if "alterOffsets" in stanza:
        return "alterOffsets left in the stanza"
    found = bench.stored_offset(subject)
    if found not in (old, requested):
        return f"Connect stores offset {found}, neither the old {old} nor the requested {requested}"
    return ""


def delete_invariant(bench: Bench, subject: Subject, state: str, old: int | None) -> str:
    """After ``delete --reset-offsets`` (and the user's recovery): either the connector is gone, from the cluster
    and from Connect, with its offsets reset, or it is still there as it was (the ordinary invariant, the old
    offsets). Connect cannot show a gone connector's offsets, so the judge creates it again as a user would (same
    name and config, in ``state``) and reads Connect's: none. The new one is the lane's subject from then on."""
    if bench.exists(subject):
        return invariant(bench, subject, state, old, old)
    from tests.waits import nudger

    # Strimzi's operator deletes the connector from Connect when its resource goes; if Connect could not be reached
    # then (its pod gone, a new worker joining), the KafkaConnect's next pass deletes every connector that has no
    # resource. The nudge is that pass now instead of at the periodic one, minutes away.
    try:
        bench.wait("Connect to forget the deleted connector", lambda: not bench.connect_knows(subject), timeout=120,
                   nudge=nudger(bench.custom, VERSION, subject.ns, "kafkaconnects", "connect"))
    except AssertionError as error:
        return f"the resource is deleted but Connect still has the connector: {error}"
    bench.create_connector(subject, state)
    found = bench.stored_offset(subject)
    return "" if found is None else f"deleted, but created again it resumes from offset {found}: not reset"


def judge(bench: Bench, subject: Subject, operation: str, state: str, old: int | None, requested: int | None) -> str:
    return delete_invariant(bench, subject, state, old) if operation == DELETE \
        else invariant(bench, subject, state, old, requested)


# --- one cell -------------------------------------------------------------------------------------------------------

# The setup alter of a cell waits this long for the operator: after a pod-gone cell the operator's last pass over
# the subject failed (ConnectException while the pod was away), and its next good pass waits for the new Connect
# worker's start, over 60 s on a loaded machine (the pod-gone columns' reruns of 2026-11-27 and 2026-11-28: "the
# operator has not reported a status ... after 60s"). The plugin nudges it meanwhile; the setup is not under test.
SETUP_TIMEOUT = 300.0


def _prepare(bench: Bench, subject: Subject, operation: str, value: int) -> tuple[int | None, int | None]:
    """(old, requested) offsets of the coming operation; for undo, first an alter whose backup undo restores."""
    if operation == "undo":
        before = bench.stored_offset(subject)
        bench.setup_alter(subject, value)
        return bench.stored_offset(subject), before
    if operation == DELETE:  # offsets to lose: a connector created again after a delete has none
        bench.setup_alter(subject, value)
    return bench.stored_offset(subject), {"alter": value, "reset": None, DELETE: None}[operation]


def run_cell(bench: Bench, subject: Subject, operation: str, state: str, point: tuple[str, str],
             value: int) -> Cell:
    step, prefix = point
    request = "reset" if operation in ("reset", DELETE) else "alter"
    cell = Cell(subject.label, operation, state, f"SIGKILL at {step}")
    started = time.monotonic()
    old, requested = _prepare(bench, subject, operation, value)
    run = bench.run(bench.operation_args(subject, operation, value), kill_at=prefix.format(request=request))
    cell.injected = run.killed
    if not run.killed:
        cell.detail = f"step not reached (exit {run.returncode}: {run.lines[-1] if run.lines else 'no output'})"
        cell.survived = run.returncode == 0 and not judge(bench, subject, operation, state, requested, requested)
    else:
        outcome, ran = bench.recover_as_a_user(subject, run)
        cell.recovery = " -> ".join(ran)
        problem = judge(bench, subject, operation, state, old, requested)
        cell.survived = not problem and not outcome.startswith("recover failed")
        cell.detail = "; ".join(filter(None, [outcome if outcome.startswith("recover failed") else "", problem])) \
            or outcome + (" (--force: the lease ran)" if cell.forced else "")
    cell.seconds = time.monotonic() - started
    return cell


def run_drop_cell(bench: Bench, subject: Subject, operation: str, state: str, value: int, proxy) -> Cell:
    """The API connection is cut as every wait starts (1 s outage); the operation must complete anyway."""
    cell = Cell(subject.label, operation, state, "API connection cut at every wait")
    started = time.monotonic()
    old, requested = _prepare(bench, subject, operation, value)
    cuts = []
    run = bench.run(bench.operation_args(subject, operation, value), on_wait=lambda: cuts.append(proxy.cut(1.0)),
                    kubeconfig=proxy.kubeconfig_for(bench.env.kubeconfig, bench.workdir))
    cell.injected = bool(cuts)
    cell.completed = run.returncode == 0
    outcome = "completed" if run.returncode == 0 else f"failed (exit {run.returncode}): {run.text.strip()[-200:]}"
    problem = judge(bench, subject, operation, state, requested if run.returncode == 0 else old, requested)
    cell.survived = run.returncode == 0 and not problem
    cell.detail = f"{len(cuts)} cuts; {outcome}" + (f"; {problem}" if problem else "")
    cell.seconds = time.monotonic() - started
    return cell


# --- real faults of Strimzi's operator and of the Connect pods (an environment running the real operator) ---------

# Each is injected the moment the plugin starts a step (as a SIGKILL of the plugin is), and ends as it does in a
# cluster: the operator resumes after a hang, a crashed operator is restarted as its Deployment would, a deleted
# pod is created again by the operator's StrimziPodSet controller (tests/env/operator_faults.py).
OPERATOR_FAULTS = ("operator hung", "operator crash", "pod gone")
HUNG_SECONDS = 10.0  # how long the operator stays stopped: a long stop-the-world pause, well inside --timeout


class OperatorFault:
    """One real fault: ``inject()`` when the step starts, ``settle()`` waits until it is over (the operator running
    and watching again, the pods back and Ready), before the user's recovery and the judges."""

    def __init__(self, bench: "Bench", subject: Subject, fault: str):
        if fault not in OPERATOR_FAULTS:
            raise ValueError(f"fault must be one of {OPERATOR_FAULTS}, not {fault!r}")
        self.bench, self.subject, self.fault = bench, subject, fault
        self.injected = False
        self._after: Any = None  # the thread that ends the fault (resume, restart)
        self._gone: tuple[str, ...] = ()
        self._error: BaseException | None = None

    @property
    def cluster(self) -> tuple[str, str]:
        """The kind and name of the Connect cluster whose pod runs the subject."""
        if self.subject.kind == "KafkaConnector":
            return "KafkaConnect", "connect"
        return "KafkaMirrorMaker2", self.subject.name

    def inject(self) -> None:
        import threading

        from tests.env import operator_faults

        env = self.bench.env
        if self.fault == "operator hung":
            operator_faults.pause_operator(env)
            self._after = threading.Timer(HUNG_SECONDS, self._guarded, (operator_faults.resume_operator, env))
        elif self.fault == "operator crash":
            operator_faults.kill_operator(env)
            self._after = threading.Thread(target=self._guarded, args=(operator_faults.restart_operator, env))
        else:
            kind, name = self.cluster
            self._gone = tuple(operator_faults.delete_connect_pod(env, self.subject.ns, name, kind))
        if self._after is not None:
            self._after.start()
        self.injected = True

    def _guarded(self, action, env) -> None:
        try:
            action(env)
        except BaseException as error:  # noqa: BLE001 - re-raised by settle()
            self._error = error

    def settle(self) -> None:
        from tests.env import operator_faults

        if self._after is not None:
            self._after.join()
        if self._error is not None:
            raise self._error
        if self.injected and self.fault == "pod gone":
            kind, name = self.cluster
            operator_faults.wait_connect_pods_ready(self.bench.env, self.subject.ns, name, kind, not_uids=self._gone)


def run_operator_fault_cell(bench: "Bench", subject: Subject, operation: str, state: str, point: tuple[str, str],
                            fault: str, value: int) -> Cell:
    """The operation runs on through the fault. It must end in one of two ways: done (exit 0, the requested
    offsets stored, the previous state back), or failed with a recover command that, run as printed once the
    fault is over, leaves the old or the requested offsets and the previous state."""
    step, prefix = point
    request = "reset" if operation in ("reset", DELETE) else "alter"
    cell = Cell(subject.label, operation, state, f"{fault} at {step}")
    started = time.monotonic()
    old, requested = _prepare(bench, subject, operation, value)
    injected = OperatorFault(bench, subject, fault)
    try:
        run = bench.run(bench.operation_args(subject, operation, value), inject_at=prefix.format(request=request),
                        inject=injected.inject)
    finally:
        injected.settle()
    cell.injected = injected.injected
    cell.completed = run.returncode == 0
    if run.returncode == 0:
        problem = judge(bench, subject, operation, state, requested, requested)
        outcome = "completed"
    else:
        outcome, ran = bench.recover_as_a_user(subject, run)
        cell.recovery = " -> ".join(ran)
        problem = judge(bench, subject, operation, state, old, requested)
        outcome = f"exit {run.returncode} ({_last_error(run)}); {outcome}"
    cell.survived = not problem and "recover failed" not in outcome
    cell.detail = "; ".join(filter(None, [outcome, problem]))
    cell.seconds = time.monotonic() - started
    return cell


def _last_error(run: Run) -> str:
    errors = [line for line in run.lines if line.startswith("error:")]
    return (errors[-1] if errors else (run.lines[-1] if run.lines else "no output"))[:160]


@dataclass(frozen=True)
class Lane:
    """One subject in one state and the operations run on it in turn, each at the steps named (None: every step).
    The subject is made once per lane: a subject is the matrix's costliest set-up (a Connect cluster, or a
    MirrorMaker 2 and its connectors)."""

    subject: str  # connector | mirror
    state: str  # running | paused
    operations: tuple[tuple[str, tuple[str, ...] | None], ...]

    @property
    def cells(self) -> int:
        return sum(len([p for p in kill_points(op) if steps is None or p[0] in steps]) for op, steps in self.operations)


def every_step(subject: str, state: str) -> Lane:
    return Lane(subject, state, tuple((operation, None) for operation in operations_of(subject)))


def run_operator_fault_lanes(env, workdir: Path, fault: str, lanes: tuple[Lane, ...], *, log=print) -> list[Cell]:
    """``fault`` at the lanes' steps, one cell at a time: a fault of the operator hits every operation it runs, so
    only one may be under way."""
    cells: list[Cell] = []
    for index, lane in enumerate(lanes):
        bench = Bench(env, workdir / f"{index}-{lane.subject}-{lane.state}", prefix="opfaults")
        try:
            subject = {"connector": bench.connector_subject, "mirror": bench.mirror_subject}[lane.subject]()
            value = 100
            bench.setup_alter(subject, value)
            bench.set_state(subject, lane.state)
            for operation, steps in lane.operations:
                for point in kill_points(operation):
                    if steps is not None and point[0] not in steps:
                        continue
                    value += 1
                    cell = run_operator_fault_cell(bench, subject, operation, lane.state, point, fault, value)
                    cells.append(cell)
                    log(_line(cell))
        finally:
            bench.close()
    return cells


def run_operator_fault_lane(env, workdir: Path, subject_name: str, operation: str, state: str,
                            faults: tuple[str, ...] = OPERATOR_FAULTS, *, log=print) -> list[Cell]:
    """Every fault at every step of one operation on one connector."""
    lane = Lane(subject_name, state, ((operation, None),))
    return [cell for fault in faults for cell in run_operator_fault_lanes(env, workdir / fault.replace(" ", "-"),
                                                                            fault, (lane,), log=log)]


# --- which cells run where --------------------------------------------------------------------------------------------

def suite_slice(fault: str, state: str) -> tuple[Lane, ...]:
    """The real-fault cells `make test` runs for ``fault`` on connectors in ``state`` (a column each; the whole
    product is `make fault-matrix`): every operation of a KafkaConnector and of a MirrorMaker 2 connector, each at
    one step. The step rotates over the columns (_ROTATION), so each operation meets the operator's faults at six
    different steps. What a fault at each step does to the plugin's own steps, for every operation, step and state,
    is for the in-memory engine tests (tests/unit/core/online/test_engine_faults.py)."""
    return tuple(Lane(subject, state, tuple((operation, (_ROTATION[(fault, state, subject, operation)],))
                                            for operation in operations_of(subject)))
                 for subject in ("connector", "mirror"))


def _rotation() -> dict[tuple[str, str, str, str], str]:
    """(fault, state, subject, operation) -> the one step of an operation in `make test`: each (subject, operation)
    takes its steps in turn over the columns, the preview's list left out (nothing is claimed yet)."""
    turns: dict[tuple[str, str], int] = {}
    table = {}
    for fault in OPERATOR_FAULTS:
        for state in STATES:
            for subject in ("connector", "mirror"):
                for operation in operations_of(subject):
                    steps = [step for step, _ in kill_points(operation) if step != "list (preview)"]
                    turn = turns.get((subject, operation), 0)
                    turns[(subject, operation)] = turn + 1
                    # a stride of 5, prime to the 7 to 9 steps, visits a new step each turn
                    table[(fault, state, subject, operation)] = steps[(turn * 5 + (subject == "mirror")) % len(steps)]
    return table


_ROTATION = _rotation()


# The slice each older release runs (tests/run_eras.py), after its black-box scenarios, in its own environment:
# each real fault on a running KafkaConnector's alter as the operator hands the offsets over, and on a paused
# MirrorMaker 2 connector's reset as it resumes.
ERA_SLICE = (Lane("connector", "running", (("alter", ("await-operator",)),)),
             Lane("mirror", "paused", (("reset", ("resume",)),)))


# --- columns and lanes ----------------------------------------------------------------------------------------------

def run_matrix(env, workdir: Path, *, subjects=("connector", "mirror"), operations=OPERATIONS, states=STATES,
               log=print) -> list[Cell]:
    """Every lane (a subject in a state) side by side, each on its own connector in its own namespace."""
    lanes = [(subject, state) for subject in subjects for state in states]
    with ThreadPoolExecutor(max_workers=len(lanes)) as pool:
        cells = list(pool.map(lambda lane: run_lane(env, workdir / "-".join(lane), lane[0], operations, lane[1],
                                                    log=log), lanes))
    return [cell for lane in cells for cell in lane]


# `make test`'s SIGKILL slice (the whole product: `make fault-matrix`, benchmarks/fault_matrix.py): each lane kills
# the subject once at each of its steps, the operations taking the steps in turn (``kill_slice``), shifted
# between the two states, so each operation of both subjects meets a SIGKILL at a different set of steps in each
# state; the API connection is cut in every operation of every lane. What a kill at each step does to the plugin's
# own steps, for every operation, step and state, is for the in-memory engine tests
# (tests/unit/core/online/test_engine_faults.py, 931 cases in seconds).


def kill_slice(subject: str, state: str) -> dict[str, tuple[str, ...]]:
    """operation -> the steps a lane kills it at: every step of the subject once, dealt to its operations in turn
    (an operation without that step, a reset's ConfigMap or a delete's resume, passes it to the next one)."""
    operations = operations_of(subject)
    steps_of = {operation: [step for step, _ in kill_points(operation)] for operation in operations}
    dealt: dict[str, list[str]] = {operation: [] for operation in operations}
    # Paused lanes start two turns on: each operation then meets other steps than in the running lane (a shift of
    # one deals a MirrorMaker 2 alter, of three operations, two of the same steps again).
    turn = 2 * STATES.index(state)
    for step, _ in KILL_POINTS:
        for _ in operations:
            operation = operations[turn % len(operations)]
            turn += 1
            if step in steps_of[operation]:
                dealt[operation].append(step)
                break
    return {operation: tuple(steps) for operation, steps in dealt.items()}


def run_lane(env, workdir: Path, subject_name: str, operations: tuple[str, ...], state: str, *,
             steps: dict[str, tuple[str, ...] | None] | None = None, log=print) -> list[Cell]:
    """One subject in one state, every operation in turn: a SIGKILL at each of its steps (``steps``: operation -> the
    steps to kill it at, None or absent: every step), then an API connection cut at every wait. One connector serves
    the lane's every cell: a subject (its Connect cluster, or a MirrorMaker 2 and its connectors) is the costliest
    thing the matrix makes, and the cells run one at a time on it anyway. A lane runs alone (a test of
    test_fault_matrix.py) or beside the others."""
    from tests.env.tcpproxy import TcpProxy

    bench = Bench(env, workdir)
    cells: list[Cell] = []
    try:
        subject = {"connector": bench.connector_subject, "mirror": bench.mirror_subject}[subject_name]()
        value = 100
        bench.setup_alter(subject, value)  # a known starting offset (and a first backup, which undo needs)
        bench.set_state(subject, state)
        api = env.api_server.rstrip("/").rsplit(":", 1)
        for operation in (op for op in operations if op in operations_of(subject_name)):
            wanted = (steps or {}).get(operation)
            for point in (p for p in kill_points(operation) if wanted is None or p[0] in wanted):
                value += 1
                cell = run_cell(bench, subject, operation, state, point, value)
                cells.append(cell)
                log(_line(cell))
            with TcpProxy("127.0.0.1", int(api[1])) as proxy:
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


def publish(title: str, report: str) -> None:
    """Keep a column's report where the suite collects them (KO_FAULT_REPORTS, a directory; tests/suite.py prints
    them at the end): pytest shows a passing test's output nowhere."""
    folder = os.environ.get("KO_FAULT_REPORTS")
    if folder:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-")
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{safe}.md").write_text(f"### {title}\n\n{report}\n")


def fault_kind(cell: Cell) -> str:
    if cell.fault.startswith("SIGKILL"):
        return "SIGKILL"
    return next((f for f in OPERATOR_FAULTS if cell.fault.startswith(f)), "connection cut")


def render(cells: list[Cell], seconds: float) -> str:
    """The report: per subject, operation, state and fault, the faults injected, survived, completed without any
    recovery, recoveries that needed --force, and the cells' time; then the broken cells."""
    rows: dict[tuple[str, str, str, str], list] = {}
    for cell in cells:
        row = rows.setdefault((cell.subject, cell.operation, cell.state, fault_kind(cell)), [0, 0, 0, 0, 0.0])
        for index, value in enumerate((cell.injected, cell.injected and cell.survived, cell.completed, cell.forced,
                                       cell.seconds)):
            row[index] += value
    lines = ["| subject | operation | state | fault | injected | survived | completed without recovery "
             "| recover needed --force | time |", "|---|---|---|---|---|---|---|---|---|"]
    for (subject, operation, state, fault), (injected, survived, completed, forced, spent) in rows.items():
        lines.append(f"| {subject} | {operation} | {state} | {fault} | {injected} | {survived} | {completed} "
                     f"| {forced} | {spent:.0f} s |")
    total = sum(c.injected for c in cells)
    ok = sum(c.injected and c.survived for c in cells)
    lines.append(f"| **all** | | | | **{total}** | **{ok}** | **{sum(c.completed for c in cells)}** "
                 f"| **{sum(c.forced for c in cells)}** | |")
    lines.append(f"\n{total} faults injected, {ok} survived, in {seconds:.0f} s "
                 f"({sum(not c.injected for c in cells)} cells whose step the operation never reached)")
    broken = [c for c in cells if c.injected and not c.survived]
    lines += [f"BROKEN: {_line(c)}\n        recovery: {c.recovery or '(none)'}" for c in broken]
    return "\n".join(lines)
