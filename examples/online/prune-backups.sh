#!/bin/sh
# Keep the backup ConfigMaps of a namespace in check: every alter, reset and undo leaves one behind.
# Run by hand, or from a scheduled CI job whose service account has the optional "delete configmaps" rule of
# rbac.yaml. Usage: prune-backups.sh NAMESPACE [KEEP]
set -eu
namespace=${1:?usage: prune-backups.sh NAMESPACE [KEEP]}
keep=${2:-3}

# What is there: NAME, CONNECTOR, OPERATION, AGE, SIZE.
kubectl offsets backups -n "$namespace"

# What would go: everything past the newest $keep of each connector, and older than 30 days. Nothing is deleted.
kubectl offsets backups --all -n "$namespace" --prune --keep "$keep" --older-than 30d --dry-run

# The same, for real. --yes: no terminal to confirm on in a job. Prints "configmap/NAME deleted" per backup.
kubectl offsets backups --all -n "$namespace" --prune --keep "$keep" --older-than 30d --yes
