"""GitOps mode: the offsets change as reviewable edits to a repository, in two phases, never committing Strimzi's
one-shot annotation (a GitOps controller would re-apply it after the operator removed it, and fire again).

Phase 1 (``gitops alter|reset``): the connector's stanza gets ``state: stopped`` and, for an alter,
``alterOffsets.fromConfigMap``; a new offsets ConfigMap manifest is added (and listed in the kustomization); the
resource gets our record annotation ``kubectl-offsets.io/gitops`` (JSON: id, operation, previous state, ...).
Then something fires the annotation once on the cluster: ``kubectl offsets trigger`` or a one-shot Job.
Phase 2 (``gitops next``): the record tells what to put back: the previous state, no stanza, no ConfigMap (or
kept with ``--keep-record``), no Job.

Why a record annotation on the resource rather than a plan file: it travels with the manifest through every
overlay and into the cluster, so ``gitops next`` finds it next to the edit and ``trigger`` (or the Job) reads from
the live resource what to fire and with which id, without access to the repository. It is JSON in an annotation,
so it needs no comment-preserving tricks and a reviewer sees it in the diff.

Everything is computed and validated first (inputs, manifests, schemas); files are written only afterwar

The modules, in the order a phase-1 run uses them:
- ``plan``: the request, the plan (file changes, operation id) and the record annotation's format;
- ``locate``: where the resource is declared, its kustomizations and patches, and where an edit must go;
- ``phases``: phase 1 and phase 2 as plans, computed and checked (nothing is written there);
- ``edits``: the YAML edits themselves, rendered to file changes;
- ``validation``: the changed files and the built result against the schemas (and a server dry run);
- ``output``: the plan as a diff, as files written, and the next steps in words;
- ``trigger_job``: the one-shot trigger Job (or Argo CD hook) manifests;
- ``trigger_command``: ``kubectl offsets trigger`` for a GitOps phase 1, on the cluster;
- ``publish``: the plan as a branch, a commit, a push and a pull/merge request.
"""
