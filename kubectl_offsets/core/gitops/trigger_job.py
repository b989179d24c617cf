"""The one-shot trigger as manifests: a Job (or an Argo CD PostSync hook) that fires Strimzi's annotation once.

Why it cannot fire twice, even though a GitOps controller re-applies (or Argo CD re-runs) it on every sync:
- its name carries the operation id, so a later operation is a different Job and this one is never "updated";
- before annotating it reads ``kubectl-offsets.io/triggered`` from the live resource; its own id there means
  "done", and it exits 0 (a re-created Job after ``ttlSecondsAfterFinished``, an Argo hook re-run, a pod retry);
- the marker is written in the same patch as Strimzi's annotation(s), and that patch carries the
  ``resourceVersion`` it read (``kubectl annotate --resource-version``): two runs racing cannot both succeed;
- its Role may only get/watch/patch that one resource (``resourceNames``), nothing else;
- it annotates as the plugin's own field manager, not kubectl's default ``kubectl-annotate``: Flux takes over the
  fields of every ``kubectl...`` manager and prunes the marker (and an annotation the operator has not read yet).
"""

from __future__ import annotations

from typing import Any

from ... import strimzi
from ...conventions import (ANNOTATION_GITOPS, ANNOTATION_TRIGGERED, FIELD_MANAGER, LABEL_MANAGED_BY, MANAGED_BY,
                           trigger_job_name)

NON_ROOT_USER = 65534  # "nobody": images such as alpine/k8s run as root unless told otherwise
TTL_SECONDS = 86400  # the finished Job disappears after a day; a re-created one finds the marker and exits
DEADLINE_SECONDS = 3600

# POSIX sh + kubectl only, so any kubectl image works. Everything variable comes from the environment.
SCRIPT = r"""set -eu
ns="${NAMESPACE:-$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace)}"
k() { kubectl -n "$ns" "$@"; }
get() { k get "$RESOURCE" -o "jsonpath=$1"; }
echo "trigger $ACTION for $RESOURCE ($CONNECTOR), operation $OPERATION_ID"
while :; do
  rv=$(get '{.metadata.resourceVersion}')
  marker=$(get '{.metadata.annotations.kubectl-offsets\.io/triggered}')
  if [ "$marker" = "$OPERATION_ID" ]; then echo "already triggered; nothing to do"; exit 0; fi
  record=$(get '{.metadata.annotations.kubectl-offsets\.io/gitops}')
  state=$(get "$STATE_JSONPATH")
  case "$record" in
    *"\"id\":\"$OPERATION_ID\""*) ;;
    *) echo "waiting for phase 1 of operation $OPERATION_ID to be applied"; sleep 5; continue ;;
  esac
  if [ "$state" != STOPPED ]; then echo "waiting for STOPPED (now: ${state:-unknown})"; sleep 5; continue; fi
  # --overwrite: the marker of an earlier operation is still there and must give way to this one's id; the
  # resource version still makes the patch fail if anything changed since the read above.
  # shellcheck disable=SC2086
  if k annotate "$RESOURCE" --overwrite --resource-version="$rv" --field-manager="$FIELD_MANAGER" $ANNOTATIONS \
      "kubectl-offsets.io/triggered=$OPERATION_ID"; then
    break
  fi
  sleep 2
done
while [ -n "$(get '{.metadata.annotations.strimzi\.io/connector-offsets}')" ]; do
  echo "waiting for the operator"; sleep 5
done
echo "done: the operator has processed the $ACTION request"
"""


def file_name(name_base: str, operation_id: str) -> str:
    return trigger_job_name(name_base, operation_id) + ".yaml"


def state_jsonpath(target: strimzi.ConnectorTarget) -> str:
    """Where the live Connect state is in the resource's status: a KafkaConnector's ``connectorStatus`` and a
    KafkaMirrorMaker2's ``connectors[]`` are Connect's own GET /connectors/{name}/status (KIP-875's STOPPED state)
    (Strimzi API/kafka/model/connector/KafkaConnectorStatus.java, mirrormaker2/KafkaMirrorMaker2Status.java)."""
    if target.kind == strimzi.KIND_CONNECTOR:
        return "{.status.connectorStatus.connector.state}"
    return '{.status.connectors[?(@.name=="' + target.connector_name + '")].connector.state}'


def annotate_arguments(target: strimzi.ConnectorTarget, action: str) -> str:
    """``key=value`` words for ``kubectl annotate``; the MM2 connector name has no spaces or shell specials
    besides '>', and the script passes it unquoted only to kubectl's argv (no shell redirection: it is expanded)."""
    return " ".join(f"{k}={v}" for k, v in target.trigger_annotations(action).items())


def manifests(target: strimzi.ConnectorTarget, operation_id: str, namespace: str | None, action: str,
              image: str, *, argocd: bool = False, name_base: str | None = None) -> list[dict[str, Any]]:
    """ServiceAccount, Role, RoleBinding and Job (or Argo CD PostSync hook Job) for one operation. ``name_base``
    is the resource's name as written in the repository (kustomize adds an overlay's prefix to our names too);
    the Role names the resource as it is called on the cluster."""
    name = trigger_job_name(name_base or target.resource_name, operation_id)
    meta = _meta(name, namespace)
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": _meta(name, namespace),
            "rules": [{"apiGroups": [strimzi.GROUP], "resources": [strimzi.PLURALS[target.kind]],
                       "resourceNames": [target.resource_name], "verbs": ["get", "watch", "patch"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": _meta(name, namespace),
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
               "subjects": [{"kind": "ServiceAccount", "name": name}]}
    job: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta(name, namespace),
           "spec": {"backoffLimit": 6, "ttlSecondsAfterFinished": TTL_SECONDS,
                    "activeDeadlineSeconds": DEADLINE_SECONDS,
                    "template": {"metadata": {"labels": {LABEL_MANAGED_BY: MANAGED_BY}},
                                 "spec": {"serviceAccountName": name, "restartPolicy": "Never",
                                          "containers": [_container(target, operation_id, image, action)]}}}}
    if argocd:
        job["metadata"]["annotations"] = {"argocd.argoproj.io/hook": "PostSync",
                                          "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation,HookSucceeded"}
    return [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta}, role, binding, job]


def environment(target: strimzi.ConnectorTarget, operation_id: str, action: str) -> dict[str, str]:
    return {"RESOURCE": f"{strimzi.PLURALS[target.kind]}.{strimzi.GROUP}/{target.resource_name}",
            "CONNECTOR": target.connector_name, "ACTION": action, "OPERATION_ID": operation_id,
            "STATE_JSONPATH": state_jsonpath(target), "ANNOTATIONS": annotate_arguments(target, action),
            "HOME": "/tmp",  # kubectl's cache directory; the non-root user has no home of its own
            "RECORD_ANNOTATION": ANNOTATION_GITOPS, "MARKER_ANNOTATION": ANNOTATION_TRIGGERED,
            "FIELD_MANAGER": FIELD_MANAGER}


def _container(target, operation_id, image, action) -> dict[str, Any]:
    env = environment(target, operation_id, action)
    return {"name": "trigger", "image": image, "command": ["/bin/sh", "-c", SCRIPT],
            "env": [{"name": k, "value": v} for k, v in env.items()],
            "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True, "runAsUser": NON_ROOT_USER,
                                "capabilities": {"drop": ["ALL"]}}}


def _meta(name: str, namespace: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {LABEL_MANAGED_BY: MANAGED_BY}}
    if namespace:
        meta["namespace"] = namespace
    return meta
