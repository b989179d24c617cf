"""Completion of names from a real API server, through the installed ``kubectl_complete-offsets`` and through
kubectl's own plugin completion (``kubectl __complete offsets ...``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kubernetes import client

BIN = Path(sys.executable).parent
HELPER = BIN / "kubectl_complete-offsets"
# The box that runs the tests may be busy (Spark, Kafka, an apiserver build): give the look-ups room. The deadline
# itself is exercised below with a server that never answers.
GENEROUS = "60"

def mirror(profile) -> dict:
    """The same MirrorMaker 2 (east -> west: a source and a checkpoint connector) in the era's layout."""
    connectors = {"sourceConnector": {"config": {}}, "checkpointConnector": {"config": {}}}
    if "v1beta2" in profile.mm2_layouts:
        spec = {"version": "4.1.0", "replicas": 1, "connectCluster": "west",
                "clusters": [{"alias": "east", "bootstrapServers": "east:9092"},
                             {"alias": "west", "bootstrapServers": "west:9092"}],
                "mirrors": [{"sourceCluster": "east", "targetCluster": "west", "topicsPattern": "orders",
                             **connectors}]}
    else:
        spec = {"version": "4.1.0", "replicas": 1,
                "target": {"alias": "west", "bootstrapServers": "west:9092", "groupId": "g",
                           "configStorageTopic": "c", "statusStorageTopic": "s", "offsetStorageTopic": "o"},
                "mirrors": [{"source": {"alias": "east", "bootstrapServers": "east:9092"}, "topicsPattern": "orders",
                             **connectors}]}
    return {"apiVersion": f"kafka.strimzi.io/{profile.storage}", "kind": "KafkaMirrorMaker2",
            "metadata": {"name": "mirror"}, "spec": spec}


def connector(name: str, version: str) -> dict:
    return {"apiVersion": f"kafka.strimzi.io/{version}", "kind": "KafkaConnector",
            "metadata": {"name": name, "labels": {"strimzi.io/cluster": "my-connect"}},
            "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
                     "config": {"topics": "orders", "file": "/dev/null"}}}


@pytest.fixture
def resources(kube_api, namespace, env):
    custom = client.CustomObjectsApi(kube_api)
    version = env.profile.storage
    for body, plural in ((connector("my-sink", version), "kafkaconnectors"),
                         (connector("my-source", version), "kafkaconnectors"),
                         (mirror(env.profile), "kafkamirrormaker2s")):
        custom.create_namespaced_custom_object("kafka.strimzi.io", version, namespace, plural, body)
    return namespace


def complete(env, *words: str, kubeconfig: str | None = None, timeout: str = GENEROUS):
    """Run the helper as kubectl does; returns (candidate values, directive line, stderr)."""
    environment = {**os.environ, "KUBECONFIG": kubeconfig or env.kubeconfig,
                   "KUBECTL_OFFSETS_COMPLETION_TIMEOUT": timeout}
    result = subprocess.run([str(HELPER), *words], capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    return [line.split("\t", 1)[0] for line in lines[:-1]], lines[-1], result.stderr


def test_namespaces(env, namespace):
    values, directive, stderr = complete(env, "list", "-n", "")
    assert namespace in values and "default" in values
    assert (directive, stderr) == (":4", "")


def test_contexts_come_from_the_kubeconfig(env):
    values, directive, _ = complete(env, "list", "--context", "")
    assert (values, directive) == (["admin"], ":4")


def test_targets_are_connectors_and_mirrormakers_of_the_namespace(env, resources):
    values, directive, stderr = complete(env, "list", "-n", resources, "")
    assert sorted(values) == ["kmm2/mirror", "my-sink", "my-source"]
    assert (directive, stderr) == (":4", "")


def test_a_prefix_narrows_the_targets(env, resources):
    assert sorted(complete(env, "reset", "--namespace", resources, "my-si")[0]) == ["my-sink"]


def test_after_a_kind_slash_only_that_kind(env, resources):
    values, _, _ = complete(env, "list", "-n", resources, "kafkamirrormaker2/")
    assert values == ["kafkamirrormaker2/mirror"]


def test_mirrormaker_connectors_of_the_resource_on_the_line(env, resources):
    values, directive, _ = complete(env, "list", "kmm2/mirror", "-n", resources, "--connector", "")
    assert values == ["source", "checkpoint", "east->west.MirrorSourceConnector",
                      "east->west.MirrorCheckpointConnector"]
    assert directive == ":4"


def test_through_kubectls_own_plugin_completion(env, resources):
    """kubectl finds kubectl_complete-offsets on PATH and relays our reply: the path users really take."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed on PATH"
    environment = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "KUBECONFIG": env.kubeconfig,
                   "KUBECTL_OFFSETS_COMPLETION_TIMEOUT": GENEROUS}
    result = subprocess.run([kubectl, "__complete", "offsets", "list", "-n", resources, "my-"],
                            capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["my-sink\tKafkaConnector", "my-source\tKafkaConnector", ":4"]


def test_forbidden_names_are_simply_not_offered(env, resources):
    values, directive, stderr = complete(env, "list", "-n", resources, "", kubeconfig=env.limited_kubeconfig)
    assert (values, directive, stderr) == ([], ":4", "")


def test_client_library_warnings_stay_out_of_the_prompt(env, namespace, tmp_path):
    """insecure-skip-tls-verify makes urllib3 warn on every request; kubectl would show that mid-line."""
    config = json.loads(Path(env.kubeconfig).read_text())
    cluster = config["clusters"][0]["cluster"]
    cluster.pop("certificate-authority", None)
    cluster.pop("certificate-authority-data", None)
    cluster["insecure-skip-tls-verify"] = True
    insecure = tmp_path / "insecure.kubeconfig"
    insecure.write_text(json.dumps(config))
    values, directive, stderr = complete(env, "list", "-n", "", kubeconfig=str(insecure))
    assert namespace in values
    assert (directive, stderr) == (":4", "")


def test_an_unreachable_cluster_prints_no_error(env, tmp_path):
    kubeconfig = _kubeconfig_for(tmp_path, f"https://127.0.0.1:{_closed_port()}")
    values, directive, stderr = complete(env, "list", "-n", "", kubeconfig=str(kubeconfig))
    assert (values, directive, stderr) == ([], ":4", "")


def test_a_silent_server_is_abandoned_at_the_deadline(env, tmp_path):
    """A server that accepts the connection and never answers (a dead load balancer): the shell gets its prompt
    back after the deadline, with nothing offered and nothing printed."""
    with _silent_server() as port:
        kubeconfig = _kubeconfig_for(tmp_path, f"https://127.0.0.1:{port}")
        started = time.monotonic()
        values, directive, stderr = complete(env, "list", "-n", "", kubeconfig=str(kubeconfig), timeout="1")
        elapsed = time.monotonic() - started
    assert (values, directive, stderr) == ([], ":4", "")
    # Start-up and loading the client library come on top of the 1 s deadline; the server's silence does not.
    assert elapsed < 1 + _client_load_seconds() + 15


# --- helpers ---------------------------------------------------------------------------------------------------


def _kubeconfig_for(tmp_path: Path, server: str) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(f"""apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "{server}", insecure-skip-tls-verify: true}}}}]
users: [{{name: u, user: {{token: not-a-real-token}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u}}}}]
current-context: x
""")
    return path


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _silent_server:
    """Accepts TCP connections on a loopback port and never sends a byte."""

    def __enter__(self) -> int:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        return self.sock.getsockname()[1]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def __exit__(self, *exc) -> None:
        self.sock.close()
        for conn in self.held:
            conn.close()


def _client_load_seconds() -> float:
    """How long importing the kube adapter takes on this machine right now (it happens before the deadline)."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import kubectl_offsets.adapters.kube"], check=True, timeout=300)
    return time.monotonic() - started
