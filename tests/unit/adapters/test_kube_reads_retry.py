"""A read that meets a dropped connection, once the API server has answered this client, is asked again for up to
RECONNECT_FOR seconds (kubectl_offsets/adapters/kube.py, ``_guard(read=True)``). Found by the fault matrix's
"connection cut" column (a fresh-clone run of 2026-11-28): the 1 s outage at the start of a wait met the ConfigMap
read that follows a quick answer from the operator, and the alter failed (exit 11, "TLS with the API server ...
failed") where its contract is to complete. Before the first answer, a refused certificate, and any write fail at
once, as before."""
from __future__ import annotations

import ssl

import pytest
from urllib3.exceptions import MaxRetryError, NewConnectionError, SSLError

from kubectl_offsets.adapters import kube as kube_module
from kubectl_offsets.adapters.kube import Kube, _Answers
from kubectl_offsets.errors import UnreachableError

SERVER = "https://127.0.0.1:6443"


def dropped() -> MaxRetryError:
    """What urllib3 raises when the connection is cut during the TLS handshake (its three retries spent)."""
    return MaxRetryError(None, "/apis", reason=SSLError(ssl.SSLEOFError(8, "EOF occurred in violation of protocol")))


def refused() -> MaxRetryError:
    return MaxRetryError(None, "/apis", reason=NewConnectionError(None, "[Errno 111] Connection refused"))


def untrusted() -> MaxRetryError:
    error = ssl.SSLCertVerificationError(1, "certificate verify failed")
    error.verify_message = "self-signed certificate"
    return MaxRetryError(None, "/apis", reason=SSLError(error))


class FlakyApi:
    """CustomObjectsApi whose calls raise ``failures`` first, then answer."""

    def __init__(self, *failures: Exception):
        self.failures, self.calls = list(failures), 0

    def _answer(self, *args, **kwargs):
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return {"metadata": {"name": "sink", "resourceVersion": "7"}}

    get_namespaced_custom_object = patch_namespaced_custom_object = _answer


class Clock:
    """time as the adapter sees it: a sleep moves it on at once."""

    def __init__(self):
        self.now, self.slept = 1000.0, []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(kube_module, "time", fake)
    return fake


def kube_with(api: FlakyApi, *, answered: bool) -> Kube:
    kube = Kube.__new__(Kube)  # no kubeconfig: only the calls' failure handling is under test
    kube._answers = _Answers()
    kube._answers.get(("version", "KafkaConnector"), lambda: "v1")
    kube.server, kube.custom, kube.request_timeout = SERVER, api, 5.0
    if answered:
        kube._answered = True
    return kube


def test_a_read_after_an_answer_rides_out_a_second_of_dropped_connections(clock):
    api = FlakyApi(dropped(), refused())
    assert kube_with(api, answered=True).get("KafkaConnector", "sink", "ns")["metadata"]["name"] == "sink"
    assert api.calls == 3 and sum(clock.slept) < 2.0


def test_the_first_request_fails_at_once_the_kubeconfig_may_be_wrong(clock):
    api = FlakyApi(refused())
    with pytest.raises(UnreachableError, match=f"cannot reach the API server at {SERVER}: Connection refused"):
        kube_with(api, answered=False).get("KafkaConnector", "sink", "ns")
    assert api.calls == 1 and clock.slept == []


def test_an_answer_makes_later_reads_patient():
    api = FlakyApi()
    kube = kube_with(api, answered=False)
    kube.get("KafkaConnector", "sink", "ns")
    assert kube._answered


def test_a_refused_certificate_is_never_asked_again(clock):
    api = FlakyApi(untrusted())
    with pytest.raises(UnreachableError, match="failed TLS verification: self-signed certificate"):
        kube_with(api, answered=True).get("KafkaConnector", "sink", "ns")
    assert api.calls == 1


def test_a_write_is_not_repeated_its_lost_answer_may_hide_a_landed_change(clock):
    api = FlakyApi(dropped())
    with pytest.raises(UnreachableError, match="TLS with the API server"):
        kube_with(api, answered=True).patch("KafkaConnector", "sink", "ns", [{"op": "remove", "path": "/x"}])
    assert api.calls == 1 and clock.slept == []


def test_a_connection_that_stays_down_fails_after_reconnect_for(clock):
    api = FlakyApi(*[dropped() for _ in range(100)])
    with pytest.raises(UnreachableError, match="TLS with the API server"):
        kube_with(api, answered=True).get("KafkaConnector", "sink", "ns")
    assert kube_module.RECONNECT_FOR <= sum(clock.slept) < kube_module.RECONNECT_FOR + 4.0
    assert 5 <= api.calls < 20
