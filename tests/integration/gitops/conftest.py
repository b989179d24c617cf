"""GitOps end-to-end helpers: a git repository of manifests applied the way a GitOps controller applies them
(``kubectl kustomize`` | ``kubectl apply --server-side``, over and over), against the real test environment."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.env.emulator import profiles
from tests.waits import eventually, nudging

# The session's Strimzi era decides what a team's manifests say (v1 whenever it is served).
API_VERSION = f"kafka.strimzi.io/{profiles.selected().preferred_version}"

KUBECTL = "/usr/bin/kubectl"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", "--initial-branch=main")
    git(path, "config", "user.email", "gitops-test@example.invalid")
    git(path, "config", "user.name", "GitOps test")
    return path


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repos(tmp_path):
    """A work repository with the plain fixture on main, and a bare remote called origin."""
    import shutil

    from tests.unit.core.gitops.helpers import FIXTURES

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    work = init_repo(tmp_path / "work")
    shutil.copytree(FIXTURES / "plain", work / "deploy")
    commit_all(work, "manifests")
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "--quiet", "origin", "main")
    return work, remote


def branches(remote: Path) -> dict[str, str]:
    """Branch name -> commit, as the (bare) repository holds them."""
    out = git(remote, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    return dict(line.split() for line in out.splitlines())


def clone(tmp_path: Path, remote: Path, name: str) -> Path:
    """A clone of ``remote`` with an identity of its own: a colleague's checkout."""
    path = tmp_path / name
    git(tmp_path, "clone", "--quiet", str(remote), str(path))
    git(path, "config", "user.email", f"{name}@example.invalid")
    git(path, "config", "user.name", name)
    return path


def pushes_while_we_build(work: Path, colleague: Path, branch: str) -> str:
    """A commit of the colleague's that a pre-commit hook in ``work`` pushes to ``branch`` of the remote, so it lands
    while kubectl-offsets builds its own commit there; returns the colleague's commit."""
    (colleague / "THEIRS.md").write_text("theirs\n")
    theirs = commit_all(colleague, "their work")
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nenv -u GIT_DIR -u GIT_INDEX_FILE -u GIT_WORK_TREE "
                    f"git -C {colleague} push --quiet origin HEAD:refs/heads/{branch}\n")
    hook.chmod(0o755)
    return theirs


class Controller:
    """What Argo CD / Flux do with the repository, reduced to its essence: build and server-side apply."""

    def __init__(self, kubeconfig: str, namespace: str):
        self.kubeconfig, self.namespace = kubeconfig, namespace

    def kubectl(self, *args: str, stdin: str | None = None) -> str:
        result = subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig, "-n", self.namespace, *args],
                                input=stdin, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"kubectl {' '.join(args)} failed: {result.stderr}"
        return result.stdout

    def build(self, directory: Path) -> str:
        result = subprocess.run([KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def sync(self, directory: Path) -> None:
        self.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=gitops-controller", "-f", "-",
                     stdin=self.build(directory))


@pytest.fixture
def controller(env, namespace):
    return Controller(env.kubeconfig, namespace)


@pytest.fixture
def connect_cluster(env, kube_api, namespace):
    """KafkaConnect ``connect`` with connector resources enabled (the emulator drives the real Connect; with the real
    operator and on kind it is a real Connect worker), Ready: a test's own waits must not also cover the start of a
    worker, tens of seconds on a busy machine."""
    from tests.env.kind.shared import create_kafka_connect

    create_kafka_connect(env, kube_api, namespace, "connect", version=API_VERSION.split("/")[1])
    return "connect"


def sink_repo(root: Path, namespace: str, name: str, topic: str, out_file: Path) -> Path:
    """A repository as teams write them: a kustomization with a comment, odd indentation in the connector."""
    repo = init_repo(root)
    deploy = repo / "deploy"
    deploy.mkdir()
    (deploy / "kustomization.yaml").write_text(textwrap.dedent(f"""\
        # Applied by the GitOps controller.
        namespace: {namespace}
        resources:
          - sink.yaml
        """))
    (deploy / "sink.yaml").write_text(sink_yaml(name, topic, out_file))
    commit_all(repo, "initial manifests")
    return repo


def sink_yaml(name: str, topic: str, out_file: Path) -> str:
    """A FileStreamSink KafkaConnector of KafkaConnect ``connect`` as a team writes it: a comment, odd indentation."""
    return textwrap.dedent(f"""\
        # The orders sink. Owner: team-data
        apiVersion: {API_VERSION}
        kind: KafkaConnector
        metadata:
          name: {name}
          labels:
            strimzi.io/cluster: connect   # the KafkaConnect
        spec:
            class: org.apache.kafka.connect.file.FileStreamSinkConnector
            tasksMax: 1
            config:
                topics: "{topic}"
                file: {out_file}
                key.converter: {STRING_CONVERTER}
                value.converter: {STRING_CONVERTER}
        """)


def wait_for_connector(kube_api, namespace: str, name: str, what: str, predicate, timeout: float = 90.0):
    """``eventually`` what the operator must do to KafkaConnector ``name`` after a sync (create it, stop it, resume
    it), giving it a fresh event every 10 s until ``predicate`` holds (then taking the annotation off again).

    Strimzi reconciles a connector once per event, and its status write is one more event. When both reconciles fail
    the same way (Connect answers 500 "a rebalance is expected" while its group rebalances) the status does not
    change, no event follows, and the next attempt is the periodic pass, 120 s later. A user waits for it; a test
    would time out first. An annotation that nothing reads is such an event (tests/waits.py)."""
    from kubernetes import client

    custom = client.CustomObjectsApi(kube_api)
    version = API_VERSION.split("/")[1]
    with nudging(custom, version, namespace, "kafkaconnectors", name) as touch:
        return eventually(what, predicate, timeout, 0.5, nudge=touch)
