"""TLS against the real API server is verified as kubectl verifies it, with the one TLS context the client shares
between its connections (adapters/kube.py ``_share_tls_context``): the CA of the kubeconfig, and the server's name
(or the kubeconfig's ``tls-server-name``). A wrong CA or a wrong name is refused before any request is sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.env.pki import create_pki

BIN = Path(sys.executable).parent
MISSING = "no-such-connector"


def list_with(kubeconfig: Path, namespace: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "kubectl-offsets"), "list", MISSING, "-n", namespace], capture_output=True,
                          text=True, env={**os.environ, "KUBECONFIG": str(kubeconfig)}, timeout=300)


def variant(env, tmp_path: Path, name: str, **cluster_fields) -> Path:
    """The test user's kubeconfig with some fields of its cluster changed."""
    config = json.loads(Path(env.kubeconfig).read_text())
    config["clusters"][0]["cluster"].update(cluster_fields)
    path = tmp_path / f"{name}.kubeconfig"
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


def reached_the_server(result: subprocess.CompletedProcess) -> bool:
    """The request was answered: the connector is reported missing (not a connection or TLS failure)."""
    return result.returncode != 0 and MISSING in result.stderr and "not found" in result.stderr


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory) -> Path:
    return create_pki(tmp_path_factory.mktemp("other-pki")).ca_crt


def test_the_kubeconfig_ca_and_name_are_accepted(env, namespace, tmp_path):
    assert reached_the_server(list_with(Path(env.kubeconfig), namespace))
    named = variant(env, tmp_path, "named", **{"tls-server-name": "localhost"})  # a name the certificate has
    assert reached_the_server(list_with(named, namespace))


def test_a_server_certificate_from_another_ca_is_refused(env, namespace, tmp_path, other_ca):
    result = list_with(variant(env, tmp_path, "other-ca", **{"certificate-authority": str(other_ca)}), namespace)
    assert result.returncode != 0 and not reached_the_server(result), result.stderr
    assert "failed TLS verification" in result.stderr and "local issuer certificate" in result.stderr, result.stderr
    assert "certificate-authority" in result.stderr  # the advice says what to fix
    assert "Traceback" not in result.stderr


def test_a_name_the_certificate_does_not_have_is_refused(env, namespace, tmp_path):
    result = list_with(variant(env, tmp_path, "wrong-name", **{"tls-server-name": "not-the-apiserver.example"}),
                       namespace)
    assert result.returncode != 0 and not reached_the_server(result), result.stderr
    assert "failed TLS verification: Hostname mismatch" in result.stderr, result.stderr
    assert "not-the-apiserver.example" in result.stderr and "tls-server-name" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fleet_workers_sibling_client_verifies_as_its_parent_and_does_not_ask_discovery_again(
        env, namespace, tmp_path, other_ca):
    """fleet._run_lanes gives each worker thread ``Kube.sibling()``: its own connection pool, the parent's TLS
    context and the parent's discovery and access-review answers."""
    from kubectl_offsets.adapters.kube import Kube
    from kubectl_offsets.errors import ClusterError, NotFoundError
    from kubectl_offsets.model import ClusterConfig

    parent = Kube(ClusterConfig(kubeconfig=env.kubeconfig, namespace=namespace))
    parent.served_version("KafkaConnector")  # discovery, asked once
    sibling = parent.sibling()
    assert sibling.api.rest_client.pool_manager is not parent.api.rest_client.pool_manager

    def asked_again(*args, **kwargs):
        raise AssertionError(f"the sibling asked the API server again: {args}")

    sibling._json = asked_again  # discovery and access reviews go through _json; a read of a connector does not
    with pytest.raises(NotFoundError):
        sibling.get("KafkaConnector", MISSING, namespace)

    untrusting = variant(env, tmp_path, "other-ca-sibling", **{"certificate-authority": str(other_ca)})
    refused = Kube(ClusterConfig(kubeconfig=str(untrusting), namespace=namespace)).sibling()
    with pytest.raises(ClusterError) as error:
        refused.get("KafkaConnector", MISSING, namespace)
    assert "failed TLS verification" in error.value.message, error.value.message
