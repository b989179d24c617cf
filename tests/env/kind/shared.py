"""What a test's own KafkaConnect needs on whichever environment KO_ENV_JSON describes.

On the local environment every KafkaConnect maps to the one Connect worker, which shares the test process's
filesystem and reaches Kafka at ``bootstrap_servers``. On kind each KafkaConnect is a real Connect pod: it needs the
image with the FileStream connectors, the in-cluster bootstrap address, and the directory the tests' files live in
(``shared_dir``, mounted at the same path on the host, the kind node and, through a hostPath PersistentVolume per
namespace, in the pod; run pytest with ``--basetemp`` under it).
"""
from __future__ import annotations

from . import manifests


def cluster_bootstrap(env) -> str:
    """Where a custom resource's pods reach Kafka."""
    return getattr(env, "cluster_bootstrap_servers", "") or env.bootstrap_servers


def connect_spec_for(env, core_api, namespace: str, name: str) -> dict:
    """The ``spec`` of a KafkaConnect ``name`` in ``namespace``, ready for this environment (on kind in the layout of
    the profile's API version: Strimzi 0.45's v1beta2 keeps the group and topics in ``config``)."""
    if getattr(env, "operator", "emulator") == "strimzi" and not getattr(env, "kind_cluster", ""):
        return _local_real_operator_spec(env, namespace, name)
    if getattr(env, "operator", "emulator") != "strimzi":
        return {"replicas": 1, "bootstrapServers": env.bootstrap_servers, "groupId": f"{namespace}-{name}-g",
                "configStorageTopic": f"{namespace}-{name}-c", "statusStorageTopic": f"{namespace}-{name}-s",
                "offsetStorageTopic": f"{namespace}-{name}-o"}
    spec = manifests.connect_spec(manifests.profile(env.strimzi), name=f"{namespace}-{name}")
    claim = _shared_volume(core_api, namespace, env.shared_dir)
    spec["template"] = {"pod": {"volumes": [{"name": "shared", "persistentVolumeClaim": {"claimName": claim}}]},
                        "connectContainer": {"volumeMounts": [{"name": "shared", "mountPath": env.shared_dir}]}}
    return spec


# The worker settings of the environment's own Connect (tests/env/kafka.py), so connectors behave alike on both: one
# broker (internal topics at its default replication), offsets flushed within a second, schemaless JSON.
LOCAL_WORKER_CONFIG = {"config.storage.replication.factor": -1, "offset.storage.replication.factor": -1,
                       "status.storage.replication.factor": -1, "offset.storage.partitions": 5,
                       "status.storage.partitions": 1, "offset.flush.interval.ms": 1000,
                       "key.converter.schemas.enable": False, "value.converter.schemas.enable": False}


def _local_real_operator_spec(env, namespace: str, name: str) -> dict:
    """Strimzi's real operator on the local environment (tests/env/kubelet.py runs each pod as a Connect worker on
    this machine): a Kafka version the release supports, this environment's Kafka, one replica."""
    profile = manifests.profile(env.strimzi)
    spec = manifests.connect_spec(profile, name=f"{namespace}-{name}")
    spec.pop("image", None)  # never pulled here
    spec["version"] = env.operator_info.get("kafka_version") or profile["kafka"]
    spec["bootstrapServers"] = env.bootstrap_servers
    spec["config"] = {**spec["config"], **LOCAL_WORKER_CONFIG}
    return spec


def _shared_volume(core_api, namespace: str, path: str) -> str:
    """A hostPath PersistentVolume bound to a claim in ``namespace`` (a volume binds one claim, so one each)."""
    from kubernetes import client as k8s

    claim = "ko-shared"
    volume = f"ko-shared-{namespace}"[:63]
    def create(call, *args):
        try:
            call(*args)
        except k8s.ApiException as error:
            if error.status != 409:  # 409: made for another KafkaConnect of this namespace already
                raise

    create(core_api.create_persistent_volume, k8s.V1PersistentVolume(
        metadata=k8s.V1ObjectMeta(name=volume),
        spec=k8s.V1PersistentVolumeSpec(
            capacity={"storage": "1Gi"}, access_modes=["ReadWriteMany"], storage_class_name="",
            persistent_volume_reclaim_policy="Retain", host_path=k8s.V1HostPathVolumeSource(path=path),
            claim_ref=k8s.V1ObjectReference(namespace=namespace, name=claim))))
    create(core_api.create_namespaced_persistent_volume_claim, namespace, k8s.V1PersistentVolumeClaim(
        metadata=k8s.V1ObjectMeta(name=claim),
        spec=k8s.V1PersistentVolumeClaimSpec(access_modes=["ReadWriteMany"], storage_class_name="",
                                             volume_name=volume,
                                             resources=k8s.V1VolumeResourceRequirements(requests={"storage": "1Gi"}))))
    return claim


__all__ = ["cluster_bootstrap", "connect_spec_for", "manifests"]


# Two of the operator's passes, each bounded by its operation timeout (STRIMZI_OPERATION_TIMEOUT_MS, 300 s), and a
# worker's start. Strimzi 0.45.2's StrimziPodSet controller ignores a pod set whose KafkaConnect its own informer has
# not seen yet (StrimziPodSetController#matchesCrSelector, a debug line only), and nothing makes it look again until
# the pod set changes: on a loaded machine the first pass then waits the whole 300 s for a pod nobody creates, fails,
# and the second pass (its status write is an event) updates the pod set and finishes (8.5 min after the create, a run
# under stress of 2026-11-29; 4 min 40 s in the era run of 2026-11-28). A wait that returns at Ready costs nothing
# when the operator is quick.
OPERATION_TIMEOUT = 300
KAFKA_CONNECT_READY_TIMEOUT = 2 * OPERATION_TIMEOUT + 60


def create_kafka_connect(env, api_client, namespace: str, name: str, *, version: str, bootstrap: str | None = None,
                         annotation: str | None = "true") -> None:
    """A test's own KafkaConnect ``name`` (``connect_spec_for``; ``bootstrap`` replaces its bootstrap address,
    ``annotation`` is strimzi.io/use-connector-resources), Ready before it returns: a new KafkaConnect's first pass
    waits for its worker, a JVM, minutes on a loaded machine, and a connector created on it waits as long; a test
    that waited for its connector alone failed where the operator had not (CI, 2026-11-28)."""
    from kubernetes import client

    spec = connect_spec_for(env, client.CoreV1Api(api_client), namespace, name)
    if bootstrap:
        spec["bootstrapServers"] = bootstrap
    metadata: dict = {"name": name, "namespace": namespace}
    if annotation is not None:
        metadata["annotations"] = {"strimzi.io/use-connector-resources": annotation}
    custom = client.CustomObjectsApi(api_client)
    custom.create_namespaced_custom_object("kafka.strimzi.io", version, namespace, "kafkaconnects", {
        "apiVersion": f"kafka.strimzi.io/{version}", "kind": "KafkaConnect", "metadata": metadata, "spec": spec})
    wait_kafka_connect_ready(api_client, namespace, name, version=version)


def is_ready(resource: dict) -> bool:
    """Whether a Strimzi resource's Ready condition is True."""
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (resource.get("status") or {}).get("conditions") or [])


def wait_kafka_connect_ready(api_client, namespace: str, name: str, *, version: str) -> dict:
    """The KafkaConnect once its Ready condition is True."""
    from kubernetes import client

    from tests.waits import eventually

    custom = client.CustomObjectsApi(api_client)

    def ready():
        resource = custom.get_namespaced_custom_object("kafka.strimzi.io", version, namespace, "kafkaconnects", name)
        return resource if is_ready(resource) else None
    return eventually(f"KafkaConnect {namespace}/{name} Ready", ready, timeout=KAFKA_CONNECT_READY_TIMEOUT)
