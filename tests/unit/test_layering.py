"""Imports only go down (docs/ARCHITECTURE.md): cli -> api, core and output; api (the public facade) -> core;
core -> adapters; everything -> the bottom
modules (strimzi, connect, model, errors, progress, times, ...). So core never imports output (it reports through
progress.Progress), cli never imports an adapter (core wraps them), output knows neither core nor adapters, and an
adapter (one external system) never imports another adapter. Heavy libraries are imported only by the modules
named in HEAVY_HOMES. And no module imports itself through others (a cycle): inside a package, too, the imports
only go down, so a shared piece lives in a lower module that both sides import.

Every ``import`` statement counts, also those inside functions (they are how the CLI stays light, not a way around
the layers). The source is read with ``ast``, so nothing is imported to check it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kubectl_offsets"

# Lower rank = lower layer (used for the message); ALLOWED says which units each unit may import.
CLI, API, CORE, EDGE, BOTTOM = 5, 4, 3, 2, 1
ALLOWED = {
    "cli": {"cli", "api", "core", "output", "bottom"},
    "api": {"core", "bottom"},
    "core": {"core", "adapters", "bottom"},
    "output": {"output", "bottom"},
    "adapters": {"bottom"},  # and its own adapter: see violations()
    "bottom": {"bottom"},
}
# library -> the modules that may import it (always inside functions or modules --help never loads; checked by
# tests/unit/test_startup.py).
HEAVY_HOMES = {
    "kubernetes": {"kubectl_offsets.adapters.kube"},
    "pyspark": {"kubectl_offsets.adapters.spark.jobs", "kubectl_offsets.adapters.spark.session",
                "kubectl_offsets.adapters.spark.sources"},
    "confluent_kafka": {"kubectl_offsets.adapters.kafka"},
    "jsonschema": {"kubectl_offsets.schemas"},
    # YAML: every read (the repository's manifests, -f, fleet files, manifests: one bounded loader) and the -o yaml
    # renderer
    "ruamel": {"kubectl_offsets.adapters.yamlfiles", "kubectl_offsets.output.render"},
}
BOTTOM_MODULES = {"errors", "model", "connect", "strimzi", "mirrormaker", "conventions", "schemas", "deadline", "clock",
                  "progress", "times", "files",
                  "__init__"}

# (importer, imported) -> why it is allowed for now. Empty: no upward arrow is left. Add an entry only with a reason
# and an issue that removes it.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> tuple[int, str]:
    """(rank, unit): the unit is what may not import a sibling unit of the edge layer (one adapter, the output)."""
    parts = module.split(".")[1:]  # drop "kubectl_offsets"
    if not parts or parts[0] in BOTTOM_MODULES:
        return BOTTOM, "bottom"
    if parts[0] in ("cli", "__main__"):
        return CLI, "cli"
    if parts[0] == "api":
        return API, "api"
    if parts[0] == "core":
        return CORE, "core"
    if parts[0] == "output":
        return EDGE, "output"
    if parts[0] == "adapters":
        return EDGE, "adapters." + (parts[1] if len(parts) > 1 else "")
    raise AssertionError(f"{module}: not placed in a layer; add it to tests/unit/test_layering.py")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every kubectl_offsets module the file imports (relative imports resolved; ``from X import y`` counts y
    when y is a module of the package)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kubectl_offsets")}
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(package, node.module, node.level)
            if not base.startswith("kubectl_offsets"):
                continue
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names if _is_module(f"{base}.{a.name}")}
    return found


def _resolve(package: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    parts = package.split(".")
    base = parts[:len(parts) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists()


def violations(graph: dict[str, set[str]]) -> list[str]:
    bad = []
    for importer, imported in sorted(graph.items()):
        rank, unit = layer_of(importer)
        for target in sorted(imported):
            if target == "kubectl_offsets":
                continue
            other_rank, other_unit = layer_of(target)
            kind, other_kind = unit.split(".")[0], other_unit.split(".")[0]
            if other_unit == unit or other_kind in ALLOWED[kind] or (importer, target) in KNOWN_EXCEPTIONS:
                continue
            why = ("adapters never import each other" if kind == other_kind == "adapters"
                   else "imports upward" if other_rank > rank else f"{kind} may not import {other_kind}")
            bad.append(f"{importer} -> {target} ({why})")
    return bad


def package_graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or through others (the strongly connected
    components of more than one module, and a module that imports itself), each sorted; Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph.get(module, set()) - {"kubectl_offsets"}:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in graph.get(module, set()):
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_no_import_cycles():
    """A cycle means neither module is below the other: the front door imported by the modules it calls, or two
    helpers that need each other's types. Move the shared piece into a lower module."""
    assert import_cycles(package_graph()) == []


def test_the_cycle_checker_sees_a_cycle_through_three_modules():
    graph = {"a.front": {"a.x", "a.low"}, "a.x": {"a.y"}, "a.y": {"a.front", "a.low"}, "a.low": set()}
    assert import_cycles(graph) == [["a.front", "a.x", "a.y"]]
    assert import_cycles({**graph, "a.y": {"a.low"}}) == []


def test_imports_only_go_down_and_adapters_stay_apart():
    assert violations(package_graph()) == []


def test_known_exceptions_are_still_needed():
    """An exception whose import is gone must be deleted, so the list never hides a new arrow."""
    graph = package_graph()
    stale = [pair for pair in KNOWN_EXCEPTIONS if pair[1] not in graph.get(pair[0], set())]
    assert stale == []


@pytest.mark.parametrize("importer, imported", [
    ("kubectl_offsets.adapters.kube", "kubectl_offsets.core.online.operations"),
    ("kubectl_offsets.core.gitops.edits", "kubectl_offsets.cli.common"),
    ("kubectl_offsets.strimzi", "kubectl_offsets.adapters.kube"),
    ("kubectl_offsets.adapters.gitrepo", "kubectl_offsets.adapters.forge"),
    ("kubectl_offsets.output.render", "kubectl_offsets.adapters.yamlfiles"),
])
def test_the_checker_sees_an_arrow_going_the_wrong_way(importer, imported):
    assert len(violations({importer: {imported}})) == 1


def test_the_checker_reads_function_level_and_relative_imports(tmp_path):
    """cmd_gitops imports core only inside functions, through relative imports: they must be seen."""
    imported = imports_of(PACKAGE / "cli" / "cmd_gitops.py")
    assert "kubectl_offsets.core.gitops.phases" in imported and "kubectl_offsets.core.gitops.publish" in imported
