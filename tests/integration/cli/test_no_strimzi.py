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
                                  ["list", "--all", "-n", "default"]])
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
