"""A plan's result: as a unified diff, as files written (in place or into a copy), and the next steps in words
(for the terminal and the pull-request body)."""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from ... import strimzi
from ...conventions import Operation, Trigger
from ...adapters import yamlfiles
from ...errors import InputError, PreconditionError
from .plan import Plan

def unified_diff(plan: Plan) -> str:
    parts = []
    for change in plan.files:
        (before_text, before_encoding), (after_text, after_encoding) = (
            yamlfiles.decode(data) if data is not None else ("", None) for data in (change.before, change.after))
        old = "/dev/null" if change.before is None else f"a/{change.rel}"
        new = "/dev/null" if change.after is None else f"b/{change.rel}"
        if before_encoding and after_encoding and before_encoding != after_encoding:
            parts.append(f"# {change.rel}: {before_encoding.describe()} -> {after_encoding.describe()}\n")
        # Lines keep their own endings (a CRLF file's lines end in "\r\n" in the diff too), so the diff applies
        # to the bytes as they are and shows a line-ending change as a changed line.
        parts.extend(_ensure_newlines(difflib.unified_diff(_lines(before_text), _lines(after_text), old, new)))
    return "".join(parts)


def _lines(text: str) -> list[str]:
    """Lines split at "\n" only (str.splitlines would also split at form feeds and other separators)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _ensure_newlines(lines):
    for line in lines:
        yield line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def write(plan: Plan, root: Path, out: Path | None = None) -> list[str]:
    """Write the changes in place, or into a copy of the repository at ``out``. Returns the paths written.
    Every path is checked before the first byte is written: never through a symlink, never outside the tree."""
    base = root
    if out is not None:
        if out.exists() and any(out.iterdir()):
            raise InputError(f"--out {out} exists and is not empty", advice="name a new or empty directory")
        copy_repository(root, out)
        base = out
    for change in plan.files:
        _check_writable(base, change.rel)
    written = []
    for change in plan.files:
        path = base / change.rel
        if change.after is None:
            if path.exists():
                path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(change.after)
        written.append(change.rel)
    return written


def _check_writable(base: Path, rel: str) -> None:
    path = base / rel
    inside = base.resolve()
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if path.is_symlink() or (parent.resolve() != inside and inside not in parent.resolve().parents):
        raise PreconditionError(f"{rel} is a symlink or lies behind one: writing it would change a file outside "
                                "the repository or one that other places use; nothing was written",
                                advice="replace the link with a copy, or edit the file by hand")


# Never copied: git's own data and directories no build reads (they can be huge).
SKIP_DIRS = {".git", "node_modules", ".terraform", ".venv"}


def copy_repository(root: Path, out: Path) -> int:
    """Copy what a build can need into ``out``: the files git tracks (and untracked, not ignored ones) when ``root``
    is in a git checkout, else every file found without following directory links. A symlink is copied as a
    symlink when it points inside the tree and left out when it points outside, so a ``loop -> .`` or a link to a
    large directory elsewhere costs nothing. Returns the number of files copied."""
    root = root.resolve()
    copied = 0
    for rel in _listed_files(root):
        source, target = root / rel, out / rel
        if source.is_symlink():
            pointed = source.resolve()
            if pointed != root and root not in pointed.parents:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:
            continue
        copied += 1
    return copied


def _listed_files(root: Path) -> list[str]:
    from ...adapters.gitrepo import GitRepo

    git = GitRepo.find(root)
    if git is not None:
        return git.listed_files(root)
    found = []
    for dirpath, dirnames, filenames in os.walk(root):  # directory links are listed, not entered
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not os.path.islink(os.path.join(dirpath, d))]
        links = [d for d in os.listdir(dirpath) if os.path.islink(os.path.join(dirpath, d))
                 and os.path.isdir(os.path.join(dirpath, d))]
        found += [os.path.relpath(os.path.join(dirpath, name), root) for name in filenames + links]
    return sorted(set(found))


def follow_up(plan: Plan, repo_arg: str, path_arg: str | None, landed: str | None = None) -> list[str]:
    """The exact next steps, for the terminal and the pull-request body. ``landed`` names where the change already
    is when it was pushed straight to the deployed branch (``main on origin``): there is nothing to merge."""
    target = _target_words(plan.target)
    where = f" --repo {repo_arg}" + (f" --path {path_arg}" if path_arg else "") + \
        (f" -n {plan.target.namespace}" if plan.target.namespace else "")
    sync = "Merge this change and let Argo CD / Flux sync it" if landed is None else \
        f"Let Argo CD / Flux sync {landed}, where the change already is (pushed directly, no review)"
    if plan.phase == 2:
        return [f"{sync}: the connector returns to its previous state"
                + (" and the offsets ConfigMap is pruned." if plan.configmap else ".")]
    steps = [f"{sync}: the connector stops" + (f" and ConfigMap {plan.configmap} appears." if plan.configmap else ".")]
    if plan.trigger == Trigger.COMMAND:
        steps.append(f"Fire the operation once: kubectl offsets trigger {target} -n {plan.target.namespace or '<ns>'}")
    else:
        steps.append("The trigger Job runs once after the sync (it waits for STOPPED, annotates, waits for the "
                     "operator); check it with: kubectl get jobs -l app.kubernetes.io/managed-by=kubectl-offsets")
    publish = "and merge it." if landed is None else "and push or merge it the same way."
    steps.append(f"Then produce phase 2: kubectl offsets gitops next {target}{where} {publish}")
    return steps


def _target_words(target: strimzi.ConnectorTarget) -> str:
    if target.kind == strimzi.KIND_CONNECTOR:
        return target.resource_name
    return f"kmm2/{target.resource_name} --connector '{target.connector_name}'"


def describe(plan: Plan) -> str:
    what = "stop the connector and " + ("alter its offsets" if plan.operation == Operation.ALTER else "reset its offsets") \
        if plan.phase == 1 else f"finish the {plan.operation}: resume the connector"
    return f"{plan.target.display}: phase {plan.phase} of 2, {what} (operation {plan.operation_id})"
