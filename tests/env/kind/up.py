"""``python -m tests.env up --kind [--strimzi PROFILE]``: a kind cluster with a real Strimzi, described by the same
env.json as the local environment, so the black-box suite runs against it through ``KO_ENV_JSON``.

Needs Docker, kind and kubectl (the GitHub workflow .github/workflows/e2e-kind.yml installs them). Without a
Docker engine it stops at once with one line saying so: nothing else here can work without one.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import manifests

HERE = Path(__file__).resolve().parent
CLUSTER_NAME = "ko-{profile}"
READY_TIMEOUT = 600  # seconds per resource; image pulls on a fresh runner dominate


class KindUnavailable(SystemExit):
    """One line for the user; raised before anything is created."""


def docker_problem() -> str | None:
    """Why Docker cannot be used here, or None when ``docker info`` answers."""
    if shutil.which("docker") is None:
        return "no `docker` command on PATH"
    try:
        answer = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True,
                                text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"`docker info` failed ({error.__class__.__name__})"
    if answer.returncode != 0 or not answer.stdout.strip():
        return "the Docker daemon does not answer `docker info`"
    return None


def check_tools() -> None:
    problem = docker_problem()
    if problem:
        raise KindUnavailable(f"tests.env up --kind: Docker is not available ({problem}); kind runs Kubernetes "
                              "in Docker containers, so use the local environment (python -m tests.env up) here "
                              "or run .github/workflows/e2e-kind.yml")
    missing = [tool for tool in ("kind", "kubectl") if shutil.which(tool) is None]
    if missing:
        raise KindUnavailable(f"tests.env up --kind: {' and '.join(missing)} not on PATH; install them "
                              "(https://kind.sigs.k8s.io/docs/user/quick-start/#installation)")


def _run(*argv: str, stdin: str | None = None, kubeconfig: str | None = None) -> str:
    env = dict(os.environ, **({"KUBECONFIG": kubeconfig} if kubeconfig else {}))
    print(f"[tests.env kind] $ {' '.join(argv)}", file=sys.stderr, flush=True)
    done = subprocess.run(list(argv), input=stdin, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"tests.env up --kind: `{' '.join(argv)}` failed:\n{done.stderr[-3000:]}")
    return done.stdout


def up(profile_name: str, run_dir: Path) -> dict:
    """Create the cluster and everything in it; return the env.json document (also written to run_dir)."""
    check_tools()
    p = manifests.profile(profile_name)
    name = CLUSTER_NAME.format(profile=profile_name.replace(".", "-"))
    kubeconfig = str(run_dir / "kubeconfig")
    Path(manifests.SHARED_DIR).mkdir(mode=0o777, parents=True, exist_ok=True)
    os.chmod(manifests.SHARED_DIR, 0o777)  # the Connect pods run as another uid
    started = time.monotonic()
    _run("kind", "create", "cluster", "--name", name, "--config", str(HERE / "cluster.yaml"), "--kubeconfig",
         kubeconfig, "--wait", "120s")
    image = manifests.CONNECT_IMAGE.format(**p)
    _run("docker", "build", "-f", str(HERE / "Dockerfile.connect"), "--build-arg", f"STRIMZI_VERSION={p['strimzi']}",
         "--build-arg", f"KAFKA_VERSION={p['kafka']}", "-t", image, str(HERE))
    _run("kind", "load", "docker-image", image, "--name", name)
    install_operator(profile_name, kubeconfig)
    _run("kubectl", "apply", "-f", "-", stdin=_yaml(manifests.all_manifests(profile_name)), kubeconfig=kubeconfig)
    for kind, resource in (("kafka", manifests.KAFKA), ("kafkaconnect", manifests.CONNECT),
                           ("kafkamirrormaker2", manifests.MM2)):
        _run("kubectl", "wait", f"{kind}/{resource}", "-n", manifests.NAMESPACE, "--for=condition=Ready",
             f"--timeout={READY_TIMEOUT}s", kubeconfig=kubeconfig)
    document = {
        "run_dir": str(run_dir), "kubeconfig": kubeconfig, "limited_kubeconfig": "",
        "api_server": _run("kubectl", "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}",
                           kubeconfig=kubeconfig).strip(),
        "etcd_url": "", "bootstrap_servers": manifests.HOST_BOOTSTRAP, "connect_url": manifests.HOST_CONNECT_URL,
        "faults_file": "", "emulator_log": "", "emulator_command": [],
        "versions": {"strimzi": p["strimzi"], "kafka": p["kafka"]},
        "timings": {"total": round(time.monotonic() - started, 1)}, "processes": {},
        "operator": "strimzi", "strimzi": profile_name, "kind_cluster": name,
        "cluster_bootstrap_servers": manifests.CLUSTER_BOOTSTRAP, "shared_dir": manifests.SHARED_DIR,
        "connect_spec": manifests.connect_spec(p),
    }
    (run_dir / "env.json").write_text(json.dumps(document, indent=2) + "\n")
    return document


def install_operator(profile_name: str, kubeconfig: str) -> None:
    """Strimzi's release installation file, watching every namespace (the suite makes one per test module), with
    the periodic pass at Strimzi's default and no NetworkPolicies (the host reaches Connect's REST API)."""
    import urllib.request

    with urllib.request.urlopen(manifests.operator_manifest_url(profile_name), timeout=120) as response:  # noqa: S310
        text = response.read().decode()
    text = text.replace("namespace: myproject", f"namespace: {manifests.NAMESPACE}")
    _run("kubectl", "create", "namespace", manifests.NAMESPACE, kubeconfig=kubeconfig)
    _run("kubectl", "create", "-n", manifests.NAMESPACE, "-f", "-", stdin=text, kubeconfig=kubeconfig)
    for role in ("strimzi-cluster-operator-namespaced", "strimzi-cluster-operator-watched",
                 "strimzi-entity-operator"):
        _run("kubectl", "create", "clusterrolebinding", f"ko-{role}", f"--clusterrole={role}",
             f"--serviceaccount={manifests.NAMESPACE}:strimzi-cluster-operator", kubeconfig=kubeconfig)
    _run("kubectl", "set", "env", "-n", manifests.NAMESPACE, "deployment/strimzi-cluster-operator",
         "STRIMZI_NAMESPACE=*", "STRIMZI_NETWORK_POLICY_GENERATION=false",
         "STRIMZI_FULL_RECONCILIATION_INTERVAL_MS=120000", kubeconfig=kubeconfig)
    _run("kubectl", "rollout", "status", "-n", manifests.NAMESPACE, "deployment/strimzi-cluster-operator",
         f"--timeout={READY_TIMEOUT}s", kubeconfig=kubeconfig)


def down(document: dict) -> None:
    if shutil.which("kind") and document.get("kind_cluster"):
        _run("kind", "delete", "cluster", "--name", document["kind_cluster"])


def _yaml(documents: list[dict]) -> str:
    import yaml

    return yaml.safe_dump_all(documents, sort_keys=False)
