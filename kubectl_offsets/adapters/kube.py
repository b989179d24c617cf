"""The Kubernetes edge: a small object layer over the official client. The only importer of ``kubernetes``.

Objects are plain dicts (the API's JSON). Errors become our typed errors (404 -> NotFoundError, 403 ->
ForbiddenError, 409 -> ConflictError, unreachable -> ClusterError) so nothing above this module knows the client.
Waiting is done as kr8s does: read, test, then watch from that read's resourceVersion with a name field selector,
so no change is missed between the read and the watch, and nothing sleeps.
"""

from __future__ import annotations

import builtins  # Kube.list shadows list in the class body: its signatures say builtins.list
import contextlib
import copy
import functools
import json
import logging
import os
import re
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote
from typing import Any, Callable, Mapping

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError as Urllib3Error

from ..clock import SYSTEM, Clock
from ..conventions import FIELD_MANAGER
from ..errors import (ApiNotServedError, ClusterError, ConflictError, ForbiddenError, InvalidError, KubeconfigError,
                      NotFoundError, OperationTimeoutError, UnreachableError)
from ..model import ClusterConfig
from ..strimzi import GROUP, KIND_CONNECT, PLURALS, VERSIONS

Resource = dict[str, Any]


# A watch that loses its connection reconnects (from the last resourceVersion it saw) for this long before the wait
# gives up: long enough for an API server restart or a load balancer dropping idle streams, short enough that an
# unreachable cluster does not hold up making the connector safe.
RECONNECT_FOR = 30.0


@dataclass(frozen=True)
class WatchEvent:
    type: str
    object: Resource


def _translate(error: ApiException, what: str) -> Exception:
    message = _api_message(error)
    if error.status == 404:
        return NotFoundError(f"{what} not found", advice=message)
    if error.status == 403:
        return ForbiddenError(f"not allowed: {message}",
                              advice="ask a cluster admin for the permission, or use another --context")
    if error.status == 409:
        return ConflictError(f"{what} changed while we worked on it: {message}")
    if error.status == 422:
        return InvalidError(f"the API server refused the change to {what}: {message}")
    if error.status == 401:
        return KubeconfigError("the API server rejected our credentials (401 Unauthorized)",
                               advice="refresh your kubeconfig credentials (e.g. log in again)")
    return ClusterError(f"API server error for {what}: {error.status} {message}")


def _api_message(error: ApiException) -> str:
    try:
        return json.loads(error.body).get("message") or error.reason
    except (TypeError, ValueError):
        return str(error.reason)


def _guard(what: Callable[..., str], *, read: bool = False):
    """Decorator: run an API call and translate its failures; ``what`` names the object for messages.

    A ``read`` whose connection drops once this client has had an answer from the API server is asked again, with
    a growing pause, for up to RECONNECT_FOR seconds, as a watch resumes: a second's network blip (a load balancer
    failing over, the API server restarting) must not fail an operation halfway through (urllib3's own three
    retries follow each other within milliseconds). Before the first answer a failure is the kubeconfig's or the
    network's and is said at once; a refused certificate is never retried. Writes are not repeated: a write whose
    answer was lost may have landed, and the guarded writes read again on their own."""
    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, *args, **kwargs):
            failing_since: float | None = None
            attempt = 0
            while True:
                try:
                    result = method(self, *args, **kwargs)
                except ApiException as error:
                    raise _translate(error, what(*args, **kwargs)) from None
                except Urllib3Error as error:
                    now = time.monotonic()
                    failing_since = failing_since or now
                    if not (read and getattr(self, "_answered", False) and _transient(error)) \
                            or now - failing_since >= RECONNECT_FOR:
                        raise _unreachable(self.server, error) from None
                    attempt += 1
                    time.sleep(min(0.25 * 2 ** attempt, 4.0))
                    continue
                self._answered = True
                return result
        return wrapper
    return decorate


def _transient(error: Exception) -> bool:
    """A dropped or refused connection, not a certificate the client refuses (that is the kubeconfig's matter)."""
    import ssl

    return not isinstance(_cause(error)[1], ssl.SSLCertVerificationError)


def _cause(error: Exception) -> tuple[BaseException, BaseException]:
    """urllib3's reason (MaxRetryError's) and the ssl or socket error inside it."""
    reason = getattr(error, "reason", None) or error
    return reason, reason.args[0] if reason.args and isinstance(reason.args[0], BaseException) else reason


def _unreachable(server: str, error: Exception) -> UnreachableError:
    """Why the API server could not be reached, without urllib3's wrapping (MaxRetryError around SSLError around
    the ssl module's error). A refused certificate gets its own advice: it is a kubeconfig matter, not a network
    one. Only the server's address and the reason are printed: no header, so never a credential."""
    import ssl

    reason, cause = _cause(error)
    if isinstance(cause, ssl.SSLCertVerificationError):
        return UnreachableError(f"the API server at {server} failed TLS verification: "
                                f"{cause.verify_message or cause.reason}",
                                advice="check the cluster's certificate-authority (and tls-server-name) in your "
                                       "kubeconfig, or the --context you meant")
    if isinstance(cause, ssl.SSLError):
        return UnreachableError(f"TLS with the API server at {server} failed: {getattr(cause, 'reason', None) or cause}",
                                advice="check the server address and certificates in your kubeconfig")
    return UnreachableError(f"cannot reach the API server at {server}: {_short_reason(reason)}",
                            advice="check --context/--kubeconfig and that the cluster is reachable")


def _short_reason(reason: BaseException) -> str:
    """'Connection refused' rather than urllib3's '<urllib3.connection.HTTPSConnection object at 0x...>: Failed to
    establish a new connection: [Errno 111] Connection refused'."""
    text = str(reason)
    return text.rsplit("] ", 1)[-1] if "] " in text else (text.rsplit(": ", 1)[-1] or reason.__class__.__name__)


def _cr(kind, name=None, namespace=None, *a, **k) -> str:
    return f"{kind.lower()}/{name}" + (f" in namespace {namespace}" if namespace else "") if name else kind


def _cm(name, namespace=None, *a, **k) -> str:
    return f"configmap/{name}" + (f" in namespace {namespace}" if namespace else "")


# -v 6 and above (cli/kubectl_output.py): called with (method, url, status, seconds) after every API request; never
# given headers or bodies. None: no logging.
REQUEST_LOGGER: Callable[[str, str, Any, float], None] | None = None


def _log_requests(api: client.ApiClient) -> None:
    """Wrap the REST client's request method so each request is reported to REQUEST_LOGGER (when set)."""
    rest = api.rest_client
    send = rest.request

    def request(method, url, *args, **kwargs):
        logger = REQUEST_LOGGER
        if logger is None:
            return send(method, url, *args, **kwargs)
        started = time.monotonic()
        try:
            response = send(method, url, *args, **kwargs)
        except Exception as error:
            logger(method, url, f"failed: {_short_reason(getattr(error, 'reason', None) or error)}",
                   time.monotonic() - started)
            raise
        logger(method, url, getattr(response, "status", "?"), time.monotonic() - started)
        return response
    rest.request = request


class Kube:
    """One client per invocation, built from kubectl's flags."""

    def __init__(self, cluster: ClusterConfig, *, request_timeout: float = 30.0):
        configuration = client.Configuration()
        try:
            if cluster.kubeconfig and not os.path.exists(cluster.kubeconfig):
                raise KubeconfigError(f"the kubeconfig {cluster.kubeconfig} does not exist",
                                      advice="pass the path of an existing file to --kubeconfig (or KUBECONFIG)")
            if cluster.context:
                contexts, _ = config.list_kube_config_contexts(config_file=cluster.kubeconfig)
                if not any(c["name"] == cluster.context for c in contexts):
                    raise KubeconfigError(f'context "{cluster.context}" does not exist',
                                          advice="list them with: kubectl config get-contexts")
            with _credential_plugin_errors():
                config.load_kube_config(config_file=cluster.kubeconfig, context=cluster.context,
                                        client_configuration=configuration)
            _, active = config.list_kube_config_contexts(config_file=cluster.kubeconfig)
            if cluster.context:
                contexts, _ = config.list_kube_config_contexts(config_file=cluster.kubeconfig)
                active = next(c for c in contexts if c["name"] == cluster.context)
        except KubeconfigError:
            raise
        except Exception as error:  # noqa: BLE001 - every kubeconfig mistake must become a message
            raise kubeconfig_error(error, cluster.kubeconfig) from None
        self.server = configuration.host
        # The kubeconfig context in use, by name only (never credentials): recorded by `export`, and local backups
        # are kept per context.
        self.context = active.get("name")
        self.namespace = cluster.namespace or (active.get("context") or {}).get("namespace") or "default"
        self.api = client.ApiClient(configuration)
        _share_tls_context(self.api)
        _log_requests(self.api)
        self.request_timeout = request_timeout
        self.clock: Clock = SYSTEM  # what waits on this cluster measure time with (kubectl_offsets/clock.py)
        self.custom = client.CustomObjectsApi(self.api)
        # What discovery and access reviews answered: asked once per process (sibling() shares it).
        self._answers = _Answers()

    def sibling(self) -> "Kube":
        """A client for another thread (a fleet's worker): its own connection pool, but the kubeconfig as loaded
        (with its credentials' refresh), the TLS context, and the answers of discovery and access reviews shared,
        so eight workers do not ask the API server eight times what one process already knows."""
        other = copy.copy(self)  # _answers is shared, not copied
        other.api = client.ApiClient(self.api.configuration)
        _share_tls_context(other.api, self.api.rest_client.pool_manager.connection_pool_kw["ssl_context"])
        _log_requests(other.api)
        other.custom = client.CustomObjectsApi(other.api)
        return other

    def _json(self, method: str, path: str, *, query: Mapping[str, Any] | None = None, body: Any = None,
              content_type: str = "application/json", timeout: float | None = None) -> Any:
        """One REST call with plain JSON in and out. ConfigMaps, discovery and access reviews go through here:
        the typed CoreV1Api/AuthorizationV1Api would import hundreds of generated model classes (over a second of
        CPU on every cold start) for objects we only use as dicts."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        request = self.api.param_serialize(method, path, query_params=[(k, v) for k, v in (query or {}).items()
                                                                          if v is not None],
                                           header_params=headers, body=body, auth_settings=["BearerToken"])
        response = self.api.call_api(*request, _request_timeout=timeout or self.request_timeout)
        response.read()
        text = response.data.decode("utf-8") if response.data else ""
        if not 200 <= response.status <= 299:
            raise ApiException.from_response(http_resp=response, body=text, data=None)
        return json.loads(text) if text else None

    # --- Strimzi custom resources ----------------------------------------------------------------------------
    def served_version(self, kind: str) -> str:
        """The preferred served version of a Strimzi kind, from discovery (no CRD read permission needed)."""
        return self._answers.get(("version", kind), lambda: self._discover_version(kind))

    @_guard(lambda kind: f"the API group {GROUP}", read=True)
    def _discover_version(self, kind: str) -> str:
        served = self._served_group_versions()
        if not served:
            raise ApiNotServedError(f"{GROUP} is not served here: this cluster has no {kind} API (no {PLURALS[kind]}."
                                    f"{GROUP} CustomResourceDefinition)",
                                    advice="Strimzi's CRDs must be installed (Strimzi 0.44 or newer), or pick the "
                                           "cluster that runs Strimzi with --context/--kubeconfig")
        for version in VERSIONS:
            if version in served and self._serves(version, PLURALS[kind]):
                return version
        raise ApiNotServedError(f"{GROUP} is served here, but not its kind {kind} (served versions: "
                                f"{', '.join(served) or 'none'})",
                                advice="Strimzi's CRDs must be installed: kubectl-offsets needs Strimzi 0.44+ "
                                       "(v1beta2) or 1.x (v1) CRDs")

    def _served_group_versions(self) -> builtins.list[str]:
        """The group's served versions, asked once (every kind shares the answer)."""
        def ask() -> builtins.list[str]:
            groups = self._json("GET", "/apis").get("groups") or []
            return [v["version"] for g in groups if g.get("name") == GROUP for v in g.get("versions") or []]
        return self._answers.get(("group-versions", GROUP), ask)

    def _serves(self, version: str, plural: str) -> bool:
        def ask() -> set[str]:
            resources = self._json("GET", f"/apis/{GROUP}/{version}").get("resources") or []
            return {r.get("name") for r in resources}
        return plural in self._answers.get(("plurals", version), ask)

    def served_versions(self) -> builtins.list[str]:
        """Every served version of the Strimzi group (for ``version``); empty when the group is absent."""
        return list(self._served_group_versions())

    @_guard(lambda path: path, read=True)
    def openapi_document(self, path: str) -> Resource:
        """An OpenAPI v3 document the API server publishes (``/openapi/v3/apis/GROUP/VERSION``: the schemas of that
        version's kinds, from the installed CRDs). Every authenticated user may read it (system:discovery)."""
        return self._json("GET", path)

    @_guard(_cr, read=True)
    def get(self, kind: str, name: str, namespace: str) -> Resource:
        return self.custom.get_namespaced_custom_object(GROUP, self.served_version(kind), namespace, PLURALS[kind],
                                                        name, _request_timeout=self.request_timeout)

    @_guard(lambda kind, namespace, **k: f"{kind} in namespace {namespace}", read=True)
    def list(self, kind: str, namespace: str, *, timeout: float | None = None) -> builtins.list[Resource]:
        result = self.custom.list_namespaced_custom_object(GROUP, self.served_version(kind), namespace, PLURALS[kind],
                                                           _request_timeout=timeout or self.request_timeout)
        return result.get("items", [])

    @_guard(lambda kind, namespace, **k: f"{kind} in " + (f"namespace {namespace}" if namespace else "all namespaces"),
            read=True)
    def list_selected(self, kind: str, namespace: str | None, selector: str | None = None) -> builtins.list[Resource]:
        """Resources of ``kind`` matching a label ``selector`` (kubectl's -l), in one namespace or, with
        ``namespace`` None, in all of them (kubectl's -A)."""
        version, plural = self.served_version(kind), PLURALS[kind]
        query = {"label_selector": selector} if selector else {}
        if namespace is None:
            result = self.custom.list_cluster_custom_object(GROUP, version, plural, _request_timeout=self.request_timeout,
                                                            **query)
        else:
            result = self.custom.list_namespaced_custom_object(GROUP, version, namespace, plural,
                                                               _request_timeout=self.request_timeout, **query)
        return result.get("items", [])

    @_guard(_cr)
    def patch(self, kind: str, name: str, namespace: str, operations: builtins.list[dict[str, Any]], *,
              dry_run: bool = False) -> Resource:
        """A JSON Patch (RFC 6902): touches exactly the paths named, and its ``test`` ops guard the rest."""
        return self.custom.patch_namespaced_custom_object(
            GROUP, self.served_version(kind), namespace, PLURALS[kind], name, operations,
            field_manager=FIELD_MANAGER, dry_run="All" if dry_run else None, _request_timeout=self.request_timeout,
            _content_type="application/json-patch+json")

    @_guard(lambda kind, namespace, body, **k: _cr(kind, body["metadata"]["name"], namespace))
    def create(self, kind: str, namespace: str, body: Resource, *, dry_run: bool = False) -> Resource:
        return self.custom.create_namespaced_custom_object(
            GROUP, self.served_version(kind), namespace, PLURALS[kind], body, field_manager=FIELD_MANAGER,
            dry_run="All" if dry_run else None, _request_timeout=self.request_timeout)

    @_guard(_cr)
    def delete(self, kind: str, name: str, namespace: str, *, resource_version: str | None = None) -> None:
        """Delete a custom resource; with ``resource_version`` only the object as we last read it (a precondition:
        a 409 when it changed since)."""
        body = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if resource_version:
            body["preconditions"] = {"resourceVersion": resource_version}
        self.custom.delete_namespaced_custom_object(GROUP, self.served_version(kind), namespace, PLURALS[kind], name,
                                                    body=body, _request_timeout=self.request_timeout)

    def get_connect(self, name: str, namespace: str) -> Resource:
        return self.get(KIND_CONNECT, name, namespace)

    def watch_until(self, kind: str, name: str, namespace: str, done: Callable[[Resource], Any], *,
                    timeout: float, chunk: float = 30.0, what: str = "the change", initial: Resource | None = None
                    ) -> Any:
        """Return ``done(obj)`` as soon as it is truthy for the live object; raise OperationTimeoutError after
        ``timeout`` seconds. Reads once (or starts from ``initial``, an object the caller just read or patched),
        then watches from that resourceVersion. A dropped connection (the stream cut, the API server restarting)
        is resumed from the last resourceVersion seen, with a growing pause, for up to RECONNECT_FOR seconds of
        failures in a row; an expired resourceVersion (410 Gone) is read afresh."""
        deadline = time.monotonic() + timeout
        plural, version = PLURALS[kind], self.served_version(kind)
        current, position = initial, {"rv": None}
        failing_since: float | None = None
        attempt = 0
        while True:
            try:
                if current is None and position["rv"] is None:
                    current = self.get(kind, name, namespace)
                if current is not None:
                    result = done(current)
                    if result:
                        return result
                    position["rv"], current = current["metadata"]["resourceVersion"], None
                result = self._watch_chunks(plural, version, name, namespace, position, done, deadline, chunk)
                if result:
                    return result
                failing_since, attempt = None, 0
            except _Gone:
                position["rv"] = None  # our resourceVersion is too old for a watch: read afresh and watch again
                continue
            except UnreachableError as error:
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since >= RECONNECT_FOR or now >= deadline:
                    raise UnreachableError(f"lost the connection to the API server at {self.server} while waiting "
                                           f"for {what} ({error.message}), and could not reconnect for "
                                           f"{now - failing_since:.0f}s", advice=error.advice) from None
                attempt += 1
                time.sleep(min(0.25 * 2 ** attempt, 4.0, max(0.0, deadline - now)))
                continue
            if time.monotonic() >= deadline:
                raise OperationTimeoutError(f"timed out after {timeout:.0f}s waiting for {what} on "
                                            f"{kind.lower()}/{name}")

    def _watch_chunks(self, plural, version, name, namespace, position, done, deadline, chunk):
        """Watch from ``position["rv"]``, keeping it at the last resourceVersion seen (the place to resume)."""
        while time.monotonic() < deadline:
            remaining = max(1, int(min(chunk, deadline - time.monotonic())))
            try:
                stream = watch.Watch().stream(
                    self.custom.list_namespaced_custom_object, GROUP, version, namespace, plural,
                    field_selector=f"metadata.name={name}", resource_version=position["rv"],
                    timeout_seconds=remaining, allow_watch_bookmarks=True, _request_timeout=remaining + 10)
                for event in stream:
                    obj = event["object"]
                    if event["type"] == "ERROR":
                        if (obj or {}).get("code") == 410:
                            raise _Gone()
                        raise ClusterError(f"watch failed: {(obj or {}).get('message')}")
                    position["rv"] = obj["metadata"]["resourceVersion"]
                    if event["type"] == "BOOKMARK":
                        continue
                    if event["type"] == "DELETED":
                        raise NotFoundError(f"{obj.get('kind', plural)}/{name} was deleted while we waited")
                    result = done(obj)
                    if result:
                        return result
            except ApiException as error:
                if error.status == 410:
                    raise _Gone() from None
                if error.status in (429, 500, 502, 503, 504):  # the API server is restarting or overloaded
                    raise UnreachableError(f"watch of {plural}/{name}: {error.status} {_api_message(error)}"
                                           ) from None
                raise _translate(error, f"watch of {plural}/{name}") from None
            except (Urllib3Error, OSError) as error:  # the stream was cut (ProtocolError), refused, reset
                raise UnreachableError(f"watch of {plural}/{name} interrupted: {error.__class__.__name__}",
                                       advice="check that the cluster is reachable") from None
        return None

    # --- ConfigMaps ------------------------------------------------------------------------------------------
    @_guard(_cm, read=True)
    def get_configmap(self, name: str, namespace: str) -> Resource:
        return self._json("GET", f"/api/v1/namespaces/{quote(namespace)}/configmaps/{quote(name)}")

    def find_configmap(self, name: str, namespace: str) -> Resource | None:
        try:
            return self.get_configmap(name, namespace)
        except NotFoundError:
            return None

    @_guard(lambda namespace, body, **k: _cm(body["metadata"]["name"], namespace))
    def create_configmap(self, namespace: str, body: Resource, *, dry_run: bool = False) -> Resource:
        return self._json("POST", f"/api/v1/namespaces/{quote(namespace)}/configmaps", body=body,
                          query={"fieldManager": FIELD_MANAGER, "dryRun": "All" if dry_run else None})

    @_guard(_cm)
    def patch_configmap(self, name: str, namespace: str, body: Mapping[str, Any], *, dry_run: bool = False
                        ) -> Resource:
        """A strategic-merge patch of a ConfigMap: named data keys are set, other keys are kept (MirrorMaker 2
        connectors share one ConfigMap, one key each)."""
        return self._json("PATCH", f"/api/v1/namespaces/{quote(namespace)}/configmaps/{quote(name)}", body=body,
                          content_type="application/strategic-merge-patch+json",
                          query={"fieldManager": FIELD_MANAGER, "dryRun": "All" if dry_run else None})

    @_guard(lambda namespace, selector: f"configmaps with {selector} in " + (f"namespace {namespace}" if namespace
                                                                            else "any namespace"), read=True)
    def list_configmaps(self, namespace: str | None, selector: str) -> builtins.list[Resource]:
        """ConfigMaps by label, in one namespace or (``namespace`` None) in all of them."""
        path = f"/api/v1/namespaces/{quote(namespace)}/configmaps" if namespace else "/api/v1/configmaps"
        result = self._json("GET", path, query={"labelSelector": selector})
        return result.get("items") or []

    @_guard(_cm)
    def delete_configmap(self, name: str, namespace: str, *, resource_version: str | None = None) -> None:
        """Delete one ConfigMap; with ``resource_version``, only that version of it (a ConfigMap changed since it
        was read is left alone: the API server answers 409)."""
        body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if resource_version:
            body["preconditions"] = {"resourceVersion": resource_version}
        self._json("DELETE", f"/api/v1/namespaces/{quote(namespace)}/configmaps/{quote(name)}", body=body)

    @_guard(lambda selector, namespace=None: f"pods with {selector}" + (f" in namespace {namespace}" if namespace
                                                                        else " in any namespace"), read=True)
    def list_pods(self, selector: str, namespace: str | None = None) -> builtins.list[Resource]:
        """Pods by label, in one namespace or (``namespace`` None) in all the caller may list."""
        path = f"/api/v1/namespaces/{quote(namespace)}/pods" if namespace else "/api/v1/pods"
        return self._json("GET", path, query={"labelSelector": selector}).get("items") or []

    @_guard(lambda namespace, **k: f"namespace {namespace}", read=True)
    def list_namespaces(self, *, timeout: float | None = None) -> builtins.list[str]:
        result = self._json("GET", "/api/v1/namespaces", timeout=timeout)
        return [item["metadata"]["name"] for item in result.get("items") or []]

    # --- any manifest (GitOps validation) ---------------------------------------------------------------------
    @_guard(lambda body, namespace: f"{body.get('kind', '?').lower()}/{(body.get('metadata') or {}).get('name')}")
    def server_dry_run(self, body: Resource, namespace: str) -> Resource:
        """Server-side apply of any manifest with ``dryRun=All``: the API server runs defaulting, schema validation
        and admission exactly as for a real apply, and stores nothing (``gitops --server-dry-run``)."""
        from kubernetes import dynamic  # discovery client; only GitOps validation needs arbitrary kinds
        from kubernetes.dynamic.exceptions import ResourceNotFoundError

        dyn = dynamic.DynamicClient(self.api)
        try:
            resource = dyn.resources.get(api_version=body["apiVersion"], kind=body["kind"])
        except ResourceNotFoundError:
            # E.g. a v1beta2 Strimzi manifest against Strimzi 1.x, which serves only v1: a finding, not a crash.
            raise NotFoundError(f"this cluster does not serve {body['kind']} in {body['apiVersion']}",
                                advice="the manifest's apiVersion must be one the cluster serves (Strimzi 1.0 and "
                                "later serve only kafka.strimzi.io/v1; 0.48 and earlier only v1beta2)") from None
        result = dyn.server_side_apply(resource, body=dict(body), name=body["metadata"]["name"],
                                       namespace=namespace if resource.namespaced else None,
                                       field_manager=FIELD_MANAGER, force_conflicts=True, dry_run="All",
                                       _request_timeout=self.request_timeout)
        return result.to_dict()

    # --- permissions -----------------------------------------------------------------------------------------
    @_guard(lambda verb, group, resource, namespace, **k: f"access review for {verb} {resource}")
    def can_i(self, verb: str, group: str, resource: str, namespace: str, name: str | None = None) -> bool:
        """What ``kubectl auth can-i`` asks. Allowed for every name in the namespace implies allowed for this one
        (RBAC only adds: a rule that allows all names has no resourceNames), so the namespace-wide answer is asked
        once per process and the named question only when it is no: a fleet of connectors in one namespace costs
        one review per permission instead of one per permission and connector."""
        everywhere = self._answers.get(("can-i", verb, group, resource, namespace),
                                       lambda: self._access_review(verb, group, resource, namespace, None))
        if everywhere or not name:
            return everywhere
        return self._access_review(verb, group, resource, namespace, name)

    def _access_review(self, verb: str, group: str, resource: str, namespace: str, name: str | None) -> bool:
        """A SelfSubjectAccessReview."""
        attributes = {"verb": verb, "group": group, "resource": resource, "namespace": namespace}
        if name:
            attributes["name"] = name
        answer = self._json("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                            body={"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                                  "spec": {"resourceAttributes": attributes}})
        return bool((answer.get("status") or {}).get("allowed"))

    def can_i_all(self, checks: builtins.list[tuple[str, str, str, str, str | None]]) -> builtins.list[bool]:
        """Several access reviews at once (concurrently: each is one round trip to the API server)."""
        if len(checks) <= 1:
            return [self.can_i(*check) for check in checks]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(checks), 4)) as pool:
            return list(pool.map(lambda check: self.can_i(*check), checks))


class _Answers:
    """Answers asked of the API server once per process: discovery and namespace-wide access reviews. Threads that
    ask for the same key at the same moment (a fleet's workers starting together) wait for the first one's answer
    instead of each asking; different keys do not wait for each other. A failure is not kept: the next caller asks
    again."""

    def __init__(self) -> None:
        self._values: dict[tuple, Any] = {}
        self._locks: dict[tuple, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, key: tuple, ask: Callable[[], Any]) -> Any:
        if key in self._values:
            return self._values[key]
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                self._values[key] = ask()
        return self._values[key]


def _share_tls_context(api: client.ApiClient, context=None) -> None:
    """Give every connection of the pool one TLS context, loaded once. Left to itself urllib3 builds a context
    and reads the CA bundle and the client certificate again for each new connection, and every watch ends its
    connection: one fleet operation opens hundreds, and that was most of the client's CPU per connector. The
    verification is the same (urllib3 still sets verify_mode from cert_reqs and checks the host name). ``context``:
    one already loaded from the same configuration (Kube.sibling)."""
    from urllib3.util.ssl_ import create_urllib3_context

    settings = api.rest_client.pool_manager.connection_pool_kw
    if context is None:
        context = create_urllib3_context(cert_reqs=settings.get("cert_reqs"))
        if settings.get("ca_certs") or settings.get("ca_cert_data"):
            context.load_verify_locations(cafile=settings.get("ca_certs"), cadata=settings.get("ca_cert_data"))
        else:
            context.load_default_certs()
        if settings.get("cert_file"):
            context.load_cert_chain(settings["cert_file"], settings.get("key_file"))
    for loaded in ("ca_certs", "ca_cert_data", "cert_file", "key_file"):
        settings.pop(loaded, None)
    settings["ssl_context"] = context


class _Gone(Exception):
    """The watch's resourceVersion expired (HTTP 410); read again."""


def list_contexts(kubeconfig: str | None = None) -> list[str]:
    """The context names in the kubeconfig (``--context`` completion); reads the file only, no API call."""
    try:
        contexts, _ = config.list_kube_config_contexts(config_file=kubeconfig)
    except Exception as error:  # noqa: BLE001 - every kubeconfig mistake must become a message
        raise kubeconfig_error(error, kubeconfig) from None
    return [c["name"] for c in contexts or []]


@contextlib.contextmanager
def _credential_plugin_errors():
    """The kubernetes client runs a user's exec credential plugin (aws, gcloud, kubelogin) while loading the
    kubeconfig, and when the plugin fails it only logs the error on the root logger (kube_config.py
    _load_from_exec_plugin) and goes on without credentials: kubectl says "getting credentials" and stops. Caught
    here, so that the user reads one line instead of a raw "ERROR:root:" and then a misleading refusal."""
    failures: list[str] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = lambda record: failures.append(record.getMessage())  # type: ignore[method-assign]
    root = logging.getLogger()
    root.addHandler(handler)  # also keeps logging.error() from configuring the root logger for everything after
    try:
        yield
    finally:
        root.removeHandler(handler)
    if failures:
        missing = re.search(r"No such file or directory: '([^']+)'", failures[0])
        reason = f"executable {missing.group(1)} not found" if missing else failures[0]
        raise KubeconfigError(f"getting credentials: exec: {reason}",
                              advice="install the credential plugin the kubeconfig's user runs, or fix its exec "
                                     "command (kubectl config view)")


def kubeconfig_error(error: BaseException, path: str | None) -> KubeconfigError:
    """A kubeconfig that cannot be loaded, said without quoting it: its lines may hold tokens and keys, and the
    YAML parser's own message would print the offending line."""
    import yaml  # PyYAML, which the kubernetes client reads kubeconfigs with

    where = f"the kubeconfig {path}" if path else "the kubeconfig (KUBECONFIG or ~/.kube/config)"
    advice = "pass --kubeconfig/--context, or set KUBECONFIG"
    if isinstance(error, StopIteration):
        return KubeconfigError(f"{where} has no such context", advice="list them with: kubectl config get-contexts")
    if isinstance(error, yaml.YAMLError):
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        return KubeconfigError(f"{where} is not valid YAML{at}", advice=f"fix the file, or {advice}")
    if isinstance(error, OSError):
        return KubeconfigError(f"cannot read {where}: {error.strerror or type(error).__name__}", advice=advice)
    if isinstance(error, ConfigException):
        return KubeconfigError(f"cannot load {where}: {error}", advice=advice)
    return KubeconfigError(f"{where} does not have a kubeconfig's structure (clusters, contexts, users)",
                        advice=f"check it with: kubectl config view --kubeconfig FILE; or {advice}")
