#!/bin/sh
# Every connector of a namespace at a glance, then where each one stands against its topics.
# Usage: connectors-overview.sh NAMESPACE BOOTSTRAP_SERVER (e.g. kafka my-cluster-kafka-bootstrap.kafka:9092)
set -eu
namespace=${1:?usage: connectors-overview.sh NAMESPACE BOOTSTRAP_SERVER}
bootstrap=${2:?usage: connectors-overview.sh NAMESPACE BOOTSTRAP_SERVER}

# NAME, KIND, CONNECTOR, TYPE, CLASS, STATE, TASKS, from the resources' status: no offsets are listed.
kubectl offsets list -n "$namespace"

# The connectors that are not running, for a script (jq): name and state.
kubectl offsets list -n "$namespace" -o json | jq -r '.connectors[] | select(.state != "RUNNING") | "\(.name) \(.connector) \(.state)"'

# Each partition's CURRENT-OFFSET, LOG-END-OFFSET and LAG (lists each connector's offsets through the operator).
kubectl offsets list -n "$namespace" --lag --bootstrap-server "$bootstrap"
