"""A GitOps request, the plan computed from it (file changes, operation id) and the record annotation that
phase 1 commits on the resource."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import schemas, strimzi
from ...connect import ConnectorKind
from ...conventions import ANNOTATION_GITOPS, DEFAULT_TRIGGER_IMAGE, Operation, Trigger
from ...errors import InputError
from ...model import OffsetsDocument, diff

if TYPE_CHECKING:
    from ..inputs import AlterRequest
    from ..online.timetravel import TimeTravelRequest

OPERATIONS = (Operation.ALTER, Operation.RESET)  # what GitOps can do (an undo is an alter with a backup's offsets)
PATCH_SUFFIX = ".offsets-patch.yaml"  # the patch file we add to an overlay, named after the resource


@dataclass(frozen=True)
class GitopsRequest:
    operation: str  # one of OPERATIONS
    target: str  # [kind/]NAME as typed
    namespace: str | None = None
    connector: str | None = None
    source_cluster: str | None = None
    alter: AlterRequest | TimeTravelRequest | None = None  # the offsets asked for, or a time-travel question
    current: OffsetsDocument | None = None  # --before FILE or --from-cluster
    trigger: str = Trigger.COMMAND
    trigger_image: str = DEFAULT_TRIGGER_IMAGE
    base: str = ""  # the commit the change is based on; part of the operation id
    force: bool = False
    repo_arg: str | None = None  # --repo as the user typed it, for hints (the plan may run in a temporary worktree)


@dataclass
class FileChange:
    """One file's bytes before and after (exactly what is read and written: encoding, BOM, line endings)."""

    rel: str
    before: bytes | None  # None: a new file
    after: bytes | None  # None: the file is deleted


@dataclass
class Plan:
    phase: int
    operation: str
    target: strimzi.ConnectorTarget
    operation_id: str
    kind: ConnectorKind
    files: list[FileChange] = field(default_factory=list)
    change: OffsetsDocument | None = None
    before: OffsetsDocument | None = None
    configmap: str | None = None
    trigger: str = Trigger.COMMAND
    warnings: list[str] = field(default_factory=list)
    already: bool = False  # the repository already holds exactly this phase
    build_dir: str | None = None  # the root kustomization (relative), built to validate the result
    # gitops alter --to-datetime & co.: what was asked and what each partition resolved to (commit message, PR)
    time_travel: list[str] = field(default_factory=list)

    @property
    def after(self) -> OffsetsDocument | None:
        if self.before is None:
            return None
        return OffsetsDocument() if self.change is None else self.before.merged_with(self.change)

    def rows(self):
        return diff(self.before or OffsetsDocument(), self.after or self.change or OffsetsDocument())


def parse_record(text: str, where: str) -> dict[str, Any]:
    """The record annotation's JSON, checked against schemas/gitops-record.schema.json."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError:
        raise InputError(f"the {ANNOTATION_GITOPS} annotation {where} is not valid JSON",
                         advice="restore it from git history; kubectl-offsets writes it") from None
    schemas.validate("gitops-record", record, what=f"the {ANNOTATION_GITOPS} annotation {where}")
    return record
