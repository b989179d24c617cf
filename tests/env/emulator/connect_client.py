"""Plain-HTTP client for the real Kafka Connect REST API, shaped like Strimzi's ``KafkaConnectApiImpl``.

Error texts per Strimzi era (``KafkaConnectApi.ConnectRestException``; read at tags 0.45.0, 0.51.0, 1.2.0):
``<METHOD> <path> returned <code> (<statusMessage>): <msg>`` where ``<msg>`` is ``Unexpected status code`` for the
offsets and state endpoints (Connect's body is not surfaced) and
* 0.44-0.45 (Vert.x client): ``<statusMessage>`` is the reason phrase, e.g. ``returned 400 (Bad Request)``;
* 0.46-0.51 (java.net.http): the number again, ``returned 400 (400)``; the path comes from
  ``HttpResponse#uri().getPath()``, i.e. decoded (``->``, although ``%2D%3E`` was sent);
  ``VertxUtil#completableFutureToVertxFuture`` unwraps the CompletionException, so no class prefix;
* 1.0+ (``Future.fromCompletionStage``, #12579): the CompletionException reaches the status, so the message gets
  the ``io.strimzi...ConnectRestException: `` prefix and a NotReady's reason is ``CompletionException``.
"""
import json
import time
import urllib.error
import urllib.request
from urllib.parse import quote, unquote, urlsplit

EXCEPTION_CLASS = "io.strimzi.operator.cluster.operator.assembly.ConnectRestException"


class ConnectRestError(Exception):
    """A non-expected HTTP status from Connect (or an injected fault), worded as the profile's Strimzi words it."""

    def __init__(self, method, path, status, detail="Unexpected status code", profile=None):
        self.method, self.path, self.status, self.detail = method, path, status, detail
        status_text = profile.connect_rest_status_text(status) if profile else str(status)
        text = f"{method} {unquote(path)} returned {status} ({status_text}): {detail}"
        super().__init__(text)
        wrapped = bool(profile and profile.wraps_completion)
        self.reason = "CompletionException" if wrapped else "ConnectRestException"
        self.message = f"{EXCEPTION_CLASS}: {text}" if wrapped else text


class ConnectUnreachable(Exception):
    """Connect did not answer at all.  Best effort per era (the JDK/Netty texts are not pinned by a Strimzi test):
    1.x ``CompletionException`` "java.net.ConnectException"; 0.46-0.51 the unwrapped ``ConnectException`` (no
    message); 0.45 Netty's ``AnnotatedConnectException`` "Connection refused: host/ip:port"."""

    def __init__(self, detail, base_url="", profile=None):
        super().__init__(detail)
        if profile is None or profile.wraps_completion:
            self.reason, self.message = "CompletionException", "java.net.ConnectException"
        elif profile.vertx_http_client:
            host = urlsplit(base_url)
            self.reason = "AnnotatedConnectException"
            self.message = f"Connection refused: {host.hostname}/{host.hostname}:{host.port}"
        else:
            self.reason, self.message = "ConnectException", None


def encode_name(name):
    """Percent-encode a connector name for a REST path; Strimzi sends `->` as ``%2D%3E`` (§2.9)."""
    return quote(name, safe="").replace("-%3E", "%2D%3E")


class ConnectClient:
    def __init__(self, base_url, faults, profile, timeout=30.0):
        self._base = base_url.rstrip("/")
        self._faults = faults
        self._timeout = timeout
        self.profile = profile

    # ------------------------------------------------------------------------------------------- transport

    def _request(self, method, path, body=None, raw_body=None):
        """Return (status, parsed JSON or None).  ``raw_body`` is sent byte-for-byte (alter, §2.5 step 3)."""
        injected = self._faults.connect_failure(method, path)
        if injected is not None:
            return injected, {"error_code": injected, "message": "injected by emulator fault knob"}
        data = raw_body.encode("utf-8") if raw_body is not None else (
            json.dumps(body).encode("utf-8") if body is not None else None)
        req = urllib.request.Request(self._base + path, data=data, method=method)
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                return resp.status, _parse(resp.read())
        except urllib.error.HTTPError as err:
            return err.code, _parse(err.read())
        except (urllib.error.URLError, OSError) as err:
            raise ConnectUnreachable(f"{method} {path}: {err}", self._base, self.profile) from err

    def _expect(self, method, path, expected, body=None, raw_body=None, surface_body=False):
        status, parsed = self._request(method, path, body=body, raw_body=raw_body)
        if status not in expected:
            detail = "Unexpected status code"
            if surface_body and isinstance(parsed, dict) and parsed.get("message"):
                detail = str(parsed["message"])
            raise ConnectRestError(method, path, status, detail, self.profile)
        return parsed

    # ------------------------------------------------------------------------------------------- connectors

    def get_config(self, name):
        """``GET /connectors/{n}/config``; retried with back-off only on 409 (§2.1 step 1)."""
        path = f"/connectors/{encode_name(name)}/config"
        delay = 0.2
        for attempt in range(6):
            status, parsed = self._request("GET", path)
            if status == 200:
                return parsed
            if status != 409 or attempt == 5:
                raise ConnectRestError("GET", path, status, _message(parsed), self.profile)
            time.sleep(delay)
            delay *= 2
        raise AssertionError("unreachable")

    def create(self, name, config, initial_state=None):
        """``KafkaConnectApiImpl#createConnector`` (1.2.0+): ``POST /connectors`` with ``initial_state`` (§2.7,
        KIP-980); expects 201."""
        body = {"name": name, "config": config}
        if initial_state:
            body["initial_state"] = initial_state
        return self._expect("POST", "/connectors", (201,), body=body, surface_body=True)

    def put_config(self, name, config):
        """``KafkaConnectApiImpl#createOrUpdatePutRequest``: creates (before 1.2.0) or reconfigures."""
        return self._expect("PUT", f"/connectors/{encode_name(name)}/config", (200, 201), body=config,
                            surface_body=True)

    def status(self, name):
        return self._expect("GET", f"/connectors/{encode_name(name)}/status", (200,), surface_body=True)

    def status_with_backoff(self, name, attempts=8):
        """Final status read; Strimzi retries only on 404 (a just-created connector may not be visible yet)."""
        delay = 0.2
        for attempt in range(attempts):
            try:
                return self.status(name)
            except ConnectRestError as err:
                if err.status != 404 or attempt == attempts - 1:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
        raise AssertionError("unreachable")

    def pause(self, name):
        self._expect("PUT", f"/connectors/{encode_name(name)}/pause", (202,))

    def stop(self, name):
        self._expect("PUT", f"/connectors/{encode_name(name)}/stop", (204,))

    def resume(self, name):
        self._expect("PUT", f"/connectors/{encode_name(name)}/resume", (202,))

    def topics(self, name):
        parsed = self._expect("GET", f"/connectors/{encode_name(name)}/topics", (200,), surface_body=True)
        return sorted(((parsed or {}).get(name) or {}).get("topics") or [])

    def delete(self, name):
        """Delete a connector; a connector that is already gone is fine."""
        self._expect("DELETE", f"/connectors/{encode_name(name)}", (200, 204, 404), surface_body=True)

    # ------------------------------------------------------------------------------------------- offsets (§2.4/2.5)

    def get_offsets_raw(self, name):
        """``GET /offsets``; returns the parsed body (Strimzi re-serialises it, §2.4 step 2)."""
        return self._expect("GET", f"/connectors/{encode_name(name)}/offsets", (200,))

    def patch_offsets(self, name, raw_json):
        """``PATCH /offsets`` with the ConfigMap string sent unchanged; success only on 200 (§2.5 step 4)."""
        return self._expect("PATCH", f"/connectors/{encode_name(name)}/offsets", (200,), raw_body=raw_json)

    def delete_offsets(self, name):
        return self._expect("DELETE", f"/connectors/{encode_name(name)}/offsets", (200,))


def _parse(raw):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return {"message": raw.decode("utf-8", "replace")}


def _message(parsed):
    if isinstance(parsed, dict) and parsed.get("message"):
        return str(parsed["message"])
    return "Unexpected status code"
