"""Thin wrapper over the ``kubernetes`` client that speaks plain dicts.

Custom resources are read through the profile's storage version, as the operator of that era does: ``v1beta2`` up to
0.51 (whose schema is the superset in 0.49-0.51, so ``pause`` and the legacy MM2 fields stay visible), ``v1`` from
1.0.  The emulator
never logs request headers, so the kubeconfig's token or client key never reaches the log.
"""
import json
import re

from kubernetes import client, config
from kubernetes.client.rest import ApiException

GROUP = "kafka.strimzi.io"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
OPERATOR_POD_LABEL = "strimzi.io/kind=cluster-operator"  # 060-Deployment-strimzi-cluster-operator.yaml
FIELD_MANAGER = "strimzi-kafka-operator"  # §2.6: Strimzi's server-side-apply field manager

PLURALS = {"KafkaConnect": "kafkaconnects", "KafkaConnector": "kafkaconnectors",
           "KafkaMirrorMaker2": "kafkamirrormaker2s"}


def _json(resp):
    return json.loads(resp.data or b"null")


class Kube:
    def __init__(self, kubeconfig, version):
        self.version = version  # the API version every custom-resource call goes through
        self.api_client = config.new_client_from_config(config_file=kubeconfig)
        self.custom = client.CustomObjectsApi(self.api_client)
        self.core = client.CoreV1Api(self.api_client)

    # ------------------------------------------------------------------------------------------- custom resources

    def get(self, kind, namespace, name):
        try:
            return _json(self.custom.get_namespaced_custom_object(
                GROUP, self.version, namespace, PLURALS[kind], name, _preload_content=False))
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def list(self, kind, namespace=None, label_selector=None):
        """Return (items, resourceVersion) across all namespaces or one."""
        kwargs = {"_preload_content": False}
        if label_selector:
            kwargs["label_selector"] = label_selector
        if namespace:
            data = _json(self.custom.list_namespaced_custom_object(
                GROUP, self.version, namespace, PLURALS[kind], **kwargs))
        else:
            data = _json(self.custom.list_cluster_custom_object(GROUP, self.version, PLURALS[kind], **kwargs))
        return data.get("items") or [], data["metadata"].get("resourceVersion")

    def watch_func(self):
        return self.custom.list_cluster_custom_object

    def replace_status(self, kind, namespace, name, status):
        """Replace the whole status through the status subresource (a JSON patch, so no stale-map merging)."""
        body = [{"op": "add", "path": "/status", "value": status}]
        try:
            self.custom.patch_namespaced_custom_object_status(
                GROUP, self.version, namespace, PLURALS[kind], name, body, _content_type=JSON_PATCH,
                _preload_content=False)
        except ApiException as err:
            if err.status != 404:  # deleted since it was read: nothing to write to (Strimzi logs and moves on)
                raise

    def remove_annotations(self, kind, namespace, name, resource_version, keys):
        """Drop annotation keys with a JSON patch that carries the resourceVersion read (§2.8).

        fabric8's ``patch(PatchType.JSON)`` sends a diff that keeps ``metadata.resourceVersion``; if the CR changed
        since the operator read it the API server answers 409 and the annotation stays.
        """
        ops = [{"op": "replace", "path": "/metadata/resourceVersion", "value": resource_version}]
        ops += [{"op": "remove", "path": "/metadata/annotations/" + _pointer(k)} for k in keys]
        self.custom.patch_namespaced_custom_object(
            GROUP, self.version, namespace, PLURALS[kind], name, ops, _content_type=JSON_PATCH,
            _preload_content=False)

    # ------------------------------------------------------------------------------------------- the operator's pod

    def operator_version(self, namespace):
        """(major, minor, patch) from the image tag of a ``strimzi.io/kind=cluster-operator`` pod in the namespace
        (``quay.io/strimzi/operator:1.1.0``); None when there is none."""
        pods = _json(self.core.list_namespaced_pod(namespace, label_selector=OPERATOR_POD_LABEL,
                                                   _preload_content=False)).get("items") or []
        for pod in pods:
            for container in (pod.get("spec") or {}).get("containers") or []:
                match = re.search(r":(\d+)\.(\d+)\.(\d+)$", container.get("image") or "")
                if match:
                    return tuple(int(g) for g in match.groups())
        return None

    # ------------------------------------------------------------------------------------------- config maps

    def get_configmap(self, namespace, name):
        try:
            return _json(self.core.read_namespaced_config_map(name, namespace, _preload_content=False))
        except ApiException as err:
            if err.status == 404:
                return None
            raise

    def create_or_replace_configmap(self, desired):
        """Create, or replace with the resourceVersion read (Strimzi before server-side apply)."""
        meta = desired["metadata"]
        if not meta.get("resourceVersion"):
            return _json(self.core.create_namespaced_config_map(meta["namespace"], desired, _preload_content=False))
        return _json(self.core.replace_namespaced_config_map(meta["name"], meta["namespace"], desired,
                                                             _preload_content=False))

    def apply_configmap(self, desired, force=False):
        """Server-side apply with Strimzi's field manager (§2.6)."""
        meta = desired["metadata"]
        return _json(self.core.patch_namespaced_config_map(
            meta["name"], meta["namespace"], desired, field_manager=FIELD_MANAGER, force=force,
            _content_type=APPLY_PATCH, _preload_content=False))


def _pointer(key):
    """RFC 6901 escaping for a JSON-pointer path segment."""
    return key.replace("~", "~0").replace("/", "~1")


def api_error_text(err, method, url):
    """fabric8-like text of a failed API call, used as the ``<cause>`` of Warning conditions."""
    message = err.reason or ""
    try:
        body = json.loads(err.body) if err.body else {}
        message = body.get("message") or message
    except (TypeError, ValueError):
        pass
    return f"Failure executing: {method} at: {url}. Message: {message}."
