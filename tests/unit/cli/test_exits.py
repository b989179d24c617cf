"""Every exit code, pinned to its error class, through the root command (cli/root.py), where the one mapping from
errors to exits lives (cli/exits.py). Scripts and CI gates depend on these numbers: a change here is a breaking
change of the command line."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from kubectl_offsets import errors
from kubectl_offsets.adapters.forge import ForgeError
from kubectl_offsets.adapters.gitrepo import GitError
from kubectl_offsets.adapters.kube import UnreachableError
from kubectl_offsets.adapters.yamlfiles import YamlParseError
from kubectl_offsets.cli.root import LazyGroup, root
from kubectl_offsets.core.gitops.locate import AmbiguousTargetError, NotEditableError
from kubectl_offsets.errors import ExitStatus

PINNED = [
    (errors.OffsetsError, ExitStatus.ERROR, 1),
    (errors.ClusterError, ExitStatus.ERROR, 1),
    (errors.InputError, ExitStatus.USAGE, 2),
    (errors.MissingExtraError, ExitStatus.USAGE, 2),
    (YamlParseError, ExitStatus.USAGE, 2),
    (AmbiguousTargetError, ExitStatus.USAGE, 2),
    (NotEditableError, ExitStatus.USAGE, 2),  # issue 30: manifests the tool cannot edit are input, not the cluster
    (errors.NotFoundError, ExitStatus.NOT_FOUND, 3),
    (errors.ApiNotServedError, ExitStatus.NOT_FOUND, 3),
    (errors.ForbiddenError, ExitStatus.FORBIDDEN, 4),
    (errors.PreconditionError, ExitStatus.PRECONDITION, 5),
    (errors.OwnershipLostError, ExitStatus.PRECONDITION, 5),
    (errors.OperatorError, ExitStatus.OPERATOR, 6),
    (errors.OperationTimeoutError, ExitStatus.TIMEOUT, 7),
    (errors.VerificationError, ExitStatus.VERIFY, 8),
    (errors.CheckFailedError, ExitStatus.CHECK_FAILED, 9),
    (errors.KafkaUnreachableError, ExitStatus.KAFKA_UNREACHABLE, 10),
    (UnreachableError, ExitStatus.CLUSTER_UNREACHABLE, 11),
    (errors.KubeconfigError, ExitStatus.KUBECONFIG, 12),
    (errors.InterruptedOperationError, ExitStatus.INTERRUPTED, 130),
]


def _every_error_class() -> set[type]:
    """Every OffsetsError subclass the package defines (its modules imported first; pyspark stays lazy)."""
    import importlib
    import pkgutil

    import kubectl_offsets

    for module in pkgutil.walk_packages(kubectl_offsets.__path__, "kubectl_offsets."):
        if module.name != "kubectl_offsets.__main__":
            importlib.import_module(module.name)
    found, todo = set(), [errors.OffsetsError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo.extend(cls.__subclasses__())
    return {cls for cls in found if cls.__module__.startswith("kubectl_offsets.")}


@pytest.fixture
def raising(monkeypatch):
    """A subcommand ``boom`` that raises whatever the test puts in ``box``."""
    box: dict[str, BaseException] = {}

    @click.command("boom")
    def boom():
        raise box["error"]

    real = LazyGroup.get_command
    monkeypatch.setattr(LazyGroup, "get_command", lambda self, ctx, name: boom if name == "boom"
                        else real(self, ctx, name))
    return box


@pytest.mark.parametrize("cls, status, code", PINNED, ids=[c.__name__ for c, _, _ in PINNED])
def test_each_error_class_exits_with_its_pinned_code(raising, cls, status, code):
    if cls is errors.MissingExtraError:
        raising["error"] = cls("spark", "pyspark")
        message, advice = "needs the optional 'spark' extra", "pip install 'kubectl-offsets[spark]'"
    else:
        raising["error"] = cls("what went wrong", advice="do this", next_command="kubectl offsets recover x")
        message, advice = "what went wrong", "do this"
    result = CliRunner().invoke(root, ["boom"])
    assert int(status) == code and result.exit_code == code
    assert "error: " in result.stderr and message in result.stderr and "hint: " in result.stderr
    assert advice in result.stderr


def test_every_error_class_is_pinned():
    """A new error class needs its row above (or it silently exits with its parent's code)."""
    pinned = {cls for cls, _, _ in PINNED} | {ForgeError, GitError}
    # the adapters' client errors are ClusterError/OffsetsError subclasses with the parent's code
    from kubectl_offsets.adapters import kube

    pinned |= {kube.ConflictError, kube.InvalidError, kube.UnreachableError}
    assert _every_error_class() - pinned == set()


def test_every_exit_status_has_an_error_class_or_is_ok():
    used = {status for _, status, _ in PINNED}
    assert set(ExitStatus) - used == {ExitStatus.OK}


def test_ctrl_c_exits_as_interrupted(raising):
    raising["error"] = KeyboardInterrupt()
    result = CliRunner().invoke(root, ["boom"])
    assert result.exit_code == 130 and "error: interrupted" in result.stderr


def test_anything_else_is_a_bug_and_keeps_its_traceback(raising):
    raising["error"] = RuntimeError("a bug")
    result = CliRunner().invoke(root, ["boom"])
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError)
