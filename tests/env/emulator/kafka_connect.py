"""KafkaConnect: no pods are deployed (every KafkaConnect maps to the one shared Connect worker), but the status a
client may look at is kept (Ready, observedGeneration, url, replicas), and a KafkaConnect event or periodic reconcile
also reconciles its KafkaConnectors, as Strimzi's ``reconcileConnectors`` does (§2.9).
"""
from . import conditions

KIND = "KafkaConnect"


def reconcile(ctx, namespace, name):
    """Returns the keys of the KafkaConnectors selected by this KafkaConnect (to be queued by the caller)."""
    connect = ctx.kube.get(KIND, namespace, name)
    selected, _ = ctx.kube.list("KafkaConnector", namespace, label_selector=f"strimzi.io/cluster={name}")
    keys = [("KafkaConnector", namespace, c["metadata"]["name"]) for c in selected]
    if connect is None:
        return keys  # the connectors go NotReady "does not exist" on their own reconcile
    status = _status(connect)
    current = connect.get("status")
    if conditions.status_differs(current, status):
        status = conditions.keep_transition_times(current, status)
        ctx.kube.replace_status(KIND, namespace, name, status)
        ctx.decide(connect, "status written: Ready")
    return keys


def _status(connect):
    meta, spec = connect["metadata"], connect.get("spec") or {}
    status = {
        "conditions": [conditions.ready()],
        "observedGeneration": meta.get("generation"),
        "url": f"http://{meta['name']}-connect-api.{meta['namespace']}.svc:8083",
        "labelSelector": f"strimzi.io/cluster={meta['name']},strimzi.io/name={meta['name']}-connect,"
                         f"strimzi.io/kind={KIND}",
    }
    if spec.get("replicas") is not None:
        status["replicas"] = spec["replicas"]
    return status
