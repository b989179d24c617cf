"""The journal: what an alter/reset/undo in progress records on the custom resource itself.

It is a JSON annotation (``conventions.ANNOTATION_JOURNAL``, shape in ``schemas/journal.schema.json``) written
*before* each mutating step (write-ahead), so whoever finds it (``recover``, a second run, a colleague) knows the
previous ``spec.state`` and ``alterOffsets`` to restore, where the backup is, and how far the operation got. Only
``steps.py`` writes it. Living on the resource, it survives a lost laptop and is visible to ``kubectl get -o yaml``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import __version__, schemas, strimzi
from ..errors import PreconditionError

# Step ids are stored in journals: never rename one after a release.
STEPS = ("backup", "stop", "write-configmap", "annotate", "await-operator", "verify", "resume", "cleanup")
# From this step on the offsets may already have changed in Connect: recover finishes instead of rolling back.
POINT_OF_NO_RETURN = "annotate"


# Steps only a MirrorMaker 2 full reset takes (core/mm2_full_reset.py), between the source's verify and resume:
# past the point of no return.
FULL_RESET_STEPS = ("reset-checkpoint", "truncate-offset-syncs")


@dataclass
class Journal:
    operation: str  # alter | reset | undo
    id: str
    started: str  # ISO-8601 UTC
    kind: str
    resource: str
    connector: str
    previous_state: str | None  # the stanza's state field as it was; None = absent (means running)
    previous_alter_offsets: dict[str, Any] | None
    backup: str  # the backup ConfigMap's name
    offsets_configmap: str
    step: str = "backup"
    # v1beta2's deprecated ``pause: true`` (Strimzi 0.38-0.51), which pauses the connector when ``state`` is absent;
    # None = not set. Without it a resume would wait for RUNNING while the operator pauses the connector again.
    previous_pause: bool | None = None
    tool: str = field(default_factory=lambda: f"kubectl-offsets {__version__}")
    version: int = 1
    # A MirrorMaker 2 full reset only (core/mm2_full_reset.py): the checkpoint connector and the offset-syncs topic,
    # and whether the truncation happened. Absent from every other journal.
    offset_syncs: dict[str, Any] | None = None

    def to_annotation(self) -> str:
        data = asdict(self)
        if data["offset_syncs"] is None:
            del data["offset_syncs"]
        return json.dumps(data, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_annotation(cls, text: str) -> "Journal":
        try:
            data = json.loads(text)
        except ValueError:
            raise PreconditionError("the kubectl-offsets journal on this resource is not valid JSON",
                                    advice="inspect it with kubectl get -o yaml; remove the annotation "
                                    "kubectl-offsets.io/journal once the connector is as you want it") from None
        problems = schemas.errors("journal", data)
        if problems:
            raise PreconditionError(f"the kubectl-offsets journal on this resource is not understood: {problems[0]}",
                                    advice="was it written by a newer kubectl-offsets? upgrade and retry")
        return cls(**data)

    @property
    def previous_effective_state(self) -> str:
        """The state the connector had, as the operator derives it (``state`` wins, else ``pause``, research 2.7)."""
        if self.previous_state:
            return self.previous_state
        return strimzi.STATE_PAUSED if self.previous_pause else strimzi.DEFAULT_STATE

    @property
    def past_point_of_no_return(self) -> bool:
        if self.step in FULL_RESET_STEPS:
            return True
        return STEPS.index(self.step) >= STEPS.index(POINT_OF_NO_RETURN)

    def describe(self) -> str:
        return f"{self.operation} of '{self.connector}' started {self.started} (id {self.id}), last step '{self.step}'"

    def target_argument(self) -> str:
        prefix = "kafkaconnector" if self.kind == strimzi.KIND_CONNECTOR else "kafkamirrormaker2"
        text = f"{prefix}/{self.resource}"
        if self.kind == strimzi.KIND_MM2:
            text += f" --connector '{self.connector}'"
        return text

    def recover_command(self, namespace: str) -> str:
        return f"kubectl offsets recover {self.target_argument()} -n {namespace}"
