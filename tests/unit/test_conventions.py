"""The names kubectl-offsets writes are declared once (conventions.py, strimzi.py, core/online/journal.py) as str
enums. Their values are stored in journals, backups, GitOps records and manifests: pin them, and pin that an enum
member is written exactly as the literal it replaced."""

import json

from kubectl_offsets.conventions import TRIGGERS, Operation, Role, Trigger
from kubectl_offsets.core.online.journal import FULL_RESET_STEPS, POINT_OF_NO_RETURN, STEPS, Step
from kubectl_offsets.output.render import to_yaml
from kubectl_offsets.strimzi import OFFSETS_ACTIONS, REASON_FOR_ACTION, OffsetsAction


def test_stored_values_never_change():
    assert [s.value for s in STEPS] == ["stop", "backup", "write-configmap", "annotate", "await-operator", "verify",
                                        "resume", "cleanup"]
    assert [s.value for s in FULL_RESET_STEPS] == ["reset-checkpoint", "truncate-offset-syncs"]
    assert set(STEPS) | set(FULL_RESET_STEPS) == set(Step) and POINT_OF_NO_RETURN == "annotate"
    assert [o.value for o in Operation] == ["alter", "reset", "undo"]
    assert [a.value for a in OFFSETS_ACTIONS] == ["list", "alter", "reset"]
    assert [t.value for t in TRIGGERS] == ["command", "job", "argocd"]
    assert [r.value for r in Role] == ["backup", "alter", "gitops-offsets"]


def test_a_member_is_written_as_its_value():
    for member in (Step.AWAIT_OPERATOR, Operation.UNDO, OffsetsAction.ALTER, Trigger.ARGOCD, Role.GITOPS_OFFSETS):
        value = member.value
        assert str(member) == f"{member}" == "%s" % member == "{}".format(member) == value
        assert json.dumps({"k": member}) == json.dumps({"k": value})
        assert to_yaml({"k": member}) == to_yaml({"k": value})


def test_a_value_read_back_matches_its_member():
    assert "annotate" == Step.ANNOTATE and STEPS.index("annotate") == STEPS.index(Step.ANNOTATE)
    assert REASON_FOR_ACTION["reset"] == "ResetOffsets" and "job" in TRIGGERS
    assert {"alter": 1}[Operation.ALTER] == 1 and Operation.ALTER == OffsetsAction.ALTER
