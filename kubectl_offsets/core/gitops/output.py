"""A plan's result: as a unified diff, as files written (in place or into a copy), and the next steps in words
(for the terminal and the pull-request body)."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

from ... import strimzi
from ...adapters import yamlfiles
from ...errors import InputError
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
    """Write the changes in place, or into a copy of the repository at ``out``. Returns the paths written."""
    base = root
    if out is not None:
        if out.exists() and any(out.iterdir()):
            raise InputError(f"--out {out} exists and is not empty", advice="name a new or empty directory")
        shutil.copytree(root, out, ignore=shutil.ignore_patterns(".git"), dirs_exist_ok=True)
        base = out
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


def follow_up(plan: Plan, repo_arg: str, path_arg: str | None) -> list[str]:
    """The exact next steps, for the terminal and the pull-request body."""
    target = _target_words(plan.target)
    where = f" --repo {repo_arg}" + (f" --path {path_arg}" if path_arg else "") + \
        (f" -n {plan.target.namespace}" if plan.target.namespace else "")
    if plan.phase == 2:
        return ["Merge this change and let Argo CD / Flux sync it: the connector returns to its previous state"
                + (" and the offsets ConfigMap is pruned." if plan.configmap else ".")]
    steps = ["Merge this change and let Argo CD / Flux sync it: the connector stops"
             + (f" and ConfigMap {plan.configmap} appears." if plan.configmap else ".")]
    if plan.trigger == "command":
        steps.append(f"Fire the operation once: kubectl offsets trigger {target} -n {plan.target.namespace or '<ns>'}")
    else:
        steps.append("The trigger Job runs once after the sync (it waits for STOPPED, annotates, waits for the "
                     "operator); check it with: kubectl get jobs -l app.kubernetes.io/managed-by=kubectl-offsets")
    steps.append(f"Then produce phase 2: kubectl offsets gitops next {target}{where} and merge it.")
    return steps


def _target_words(target: strimzi.ConnectorTarget) -> str:
    if target.kind == strimzi.KIND_CONNECTOR:
        return target.resource_name
    return f"kmm2/{target.resource_name} --connector '{target.connector_name}'"


def describe(plan: Plan) -> str:
    what = "stop the connector and " + ("alter its offsets" if plan.operation == "alter" else "reset its offsets") \
        if plan.phase == 1 else f"finish the {plan.operation}: resume the connector"
    return f"{plan.target.display}: phase {plan.phase} of 2, {what} (operation {plan.operation_id})"
