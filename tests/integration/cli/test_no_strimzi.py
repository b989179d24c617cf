"""A real kube-apiserver (with its own etcd) on which Strimzi's CRDs were never installed: what kubectl users
see when they point the plugin at the wrong cluster, and `list --all` where there is nothing (issue 23 §4)."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.root import root
from tests.env import assets, kube, pki
from tests.env.environment import ADMIN_GROUPS, ADMIN_USER
from tests.env.kubeconfig import write_kubeconfig
from tests.env.kuberest import KubeRest
from tests.env.processes import stop
from tests.signals import interruptible


@pytest.fixture(scope="module")
def bare_kubeconfig(env, tmp_path_factory):
    """etcd + kube-apiserver only, no CRDs (`env` first: the session's assets are provisioned and checked)."""
    run_dir = tmp_path_factory.mktemp("bare-apiserver")
    (run_dir / "logs").mkdir()
    found = assets.find_assets()
    keys = pki.create_pki(run_dir / "pki")
    pki.write_token_file(keys, {ADMIN_USER: ADMIN_GROUPS})
    etcd = kube.start_etcd(run_dir, found.etcd)
    api = kube.start_apiserver(run_dir, found.kube_apiserver, etcd.url, keys)
    try:
        crt, key = pki.issue_client_cert(keys, ADMIN_USER, ADMIN_GROUPS)
        kube.wait_apiserver_ready(api, KubeRest(api.url, keys.ca_crt, cert=crt, key=key))
        yield str(write_kubeconfig(run_dir / "kubeconfig", api.url, keys.ca_crt, ADMIN_USER, cert=crt, key=key))
    finally:
        stop(api.proc)
        stop(etcd.proc)
        shutil.rmtree(run_dir / "data", ignore_errors=True)


def offsets(*args: str, kubeconfig: str):
    return CliRunner().invoke(root, [*args, "--kubeconfig", kubeconfig], catch_exceptions=False)


@pytest.mark.parametrize("args", [["list", "x", "-n", "default"], ["list", "kmm2/x", "-n", "default"],
                                  ["list", "--all", "-n", "default"],
                                  ["list", "-n", "default"]])  # issue 30: "No resources found", exit 0 before
def test_a_cluster_without_strimzi_says_which_api_is_missing(bare_kubeconfig, args):
    result = offsets(*args, kubeconfig=bare_kubeconfig)
    assert result.exit_code == 3, result.output
    assert "kafka.strimzi.io is not served here" in result.output
    assert "Strimzi's CRDs" in result.output
    assert "check -n/--context" not in result.output


def test_list_all_in_an_empty_namespace_says_so_like_kubectl(env, namespace):
    result = offsets("list", "--all", "-n", namespace, kubeconfig=env.kubeconfig)
    assert result.exit_code == 0, result.output
    assert f"No resources found in {namespace} namespace." in result.output


@pytest.mark.parametrize("fmt, document", [("json", '{\n  "connectors": []\n}\n'), ("yaml", "connectors: []\n")])
def test_list_of_an_empty_namespace_prints_the_empty_document_as_kubectl_get(env, namespace, fmt, document):
    """Issue 30: `kubectl get -o json` prints an empty list; list without TARGET printed nothing at all."""
    result = CliRunner().invoke(root, ["list", "-n", namespace, "-o", fmt, "--kubeconfig", env.kubeconfig],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout == document
    assert result.stderr == f"No resources found in {namespace} namespace.\n"


@pytest.mark.parametrize("out", [False, True])
def test_export_of_an_empty_selection_is_refused_to_stdout_as_to_a_file(env, namespace, tmp_path, out):
    """Issue 30: to stdout it printed {"connectors": []} with exit 0, to --out it refused (exit 3); docs/fleet.md
    says export refuses an empty selection."""
    target = tmp_path / "export.json"
    result = offsets("export", "-n", namespace, *(["--out", str(target)] if out else []), kubeconfig=env.kubeconfig)
    assert result.exit_code == 3, result.output
    assert f"no KafkaConnector or KafkaMirrorMaker2 connector in namespace {namespace}" in result.output
    assert "connectors" not in result.stdout and not target.exists()


@pytest.mark.parametrize("key, status", [(b"\x04", 2), (None, 130)], ids=["ctrl-d", "ctrl-c"])
def test_ctrl_c_and_ctrl_d_at_the_prune_prompt_cancel_with_a_message(env, namespace, kube_api, tmp_path, key, status):
    """Issue 30: click's bare "Aborted!" with exit 1 (which means a bug); now "cancelled", exit 2, or 130 for
    Ctrl-C, and the backup is still there."""
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys
    import time

    from kubernetes import client

    core = client.CoreV1Api(kube_api)
    core.create_namespaced_config_map(namespace, {"metadata": {
        "name": "my-sink-offsets-backup-20261101t000000z",
        "labels": {"kubectl-offsets.io/role": "backup", "app.kubernetes.io/managed-by": "kubectl-offsets",
                   "kubectl-offsets.io/target": "my-sink"},
        "annotations": {"kubectl-offsets.io/connector": "my-sink"}}, "data": {"offsets.json": '{"offsets": []}'}})
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "kubectl_offsets", "backups", "--all", "-n", namespace,
                                "--prune", "--keep", "0", "--kubeconfig", env.kubeconfig],
                               stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "XDG_STATE_HOME": str(tmp_path)}, **interruptible())
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 120
    try:
        while b"backup ConfigMap(s)?" not in seen:
            ready, _, _ = select.select([process.stderr], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(process.stderr.fileno(), 4096) if ready else b""
            assert chunk, f"no prompt: {seen.decode()}"
            seen += chunk
        if key is None:
            time.sleep(1.0)  # as a person would: a moment after the prompt (see test_lifecycle.on_a_terminal)
            process.send_signal(signal.SIGINT)
        else:
            os.write(master, key)
        code = process.wait(120)
        stderr = (seen + process.stderr.read()).decode()
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert code == status, stderr
    assert "error: prune cancelled; nothing was deleted" in stderr and "Aborted" not in stderr, stderr
    assert core.read_namespaced_config_map("my-sink-offsets-backup-20261101t000000z", namespace)
