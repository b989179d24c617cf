"""Finding a target's manifest in a repository, and where an edit to it must go.

A repository may hold the custom resource as a plain file, as one document of a multi-document file, or in a
Kustomize base that overlays patch. We scan every YAML file below the search root, read every kustomization and
work out, for the resource the user named:

- the *definition*: the document that declares it (exactly one, or we stop: "found twice" names each place);
- the *root*: the kustomization that is built and applied (a kustomization nobody else includes);
- where the edit goes: the definition itself when its own kustomization is the root (or there is none), else
  the root overlay: an existing strategic-merge patch there, or a new patch file we add (editing a shared base
  would change every environment built from it).

Helm charts and other templated files cannot be edited safely as YAML: if the resource is only found there we
say so plainly (``NotEditableError``). Only the standard library and ``adapters.yamlfiles`` are used here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ... import strimzi
from ...adapters import yamlfiles
from ...errors import InputError, NotFoundError
from ...files import read_bytes

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
YAML_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = {".git", "node_modules", ".terraform"}


class NotEditableError(InputError):
    """The repository's manifests are input this tool cannot edit safely (a Helm chart or another generated source,
    a .json manifest, flow-style YAML, a symlinked or aliased declaration): nothing was written. Exit 2, as for any
    input; not 5, which says the cluster is not in a state to work in."""


class AmbiguousTargetError(InputError):
    """The resource is declared more than once below the search root."""


@dataclass
class DocRef:
    """One document of one YAML file."""

    file: yamlfiles.YamlFile
    index: int
    rel: str  # path relative to the repository root, for messages

    @property
    def data(self) -> Any:
        return self.file.documents[self.index].data

    def mark_edited(self) -> None:
        self.file.documents[self.index].edited = True

    @property
    def where(self) -> str:
        return f"{self.rel} (document {self.index + 1}, line {self.file.documents[self.index].first_line})"


@dataclass
class Kustomization:
    dir: Path
    file: yamlfiles.YamlFile
    rel: str
    resources: list[Path] = field(default_factory=list)  # files and directories, resolved
    patch_files: list[Path] = field(default_factory=list)  # strategic-merge or JSON6902 patch files
    parents: list["Kustomization"] = field(default_factory=list)

    @property
    def data(self) -> Any:
        return self.file.documents[0].data or {}

    @property
    def namespace(self) -> str | None:
        return self.data.get("namespace")

    def renamed(self, name: str) -> str:
        return f"{self.data.get('namePrefix') or ''}{name}{self.data.get('nameSuffix') or ''}"


@dataclass
class Location:
    """Where the target lives and where each edit goes."""

    definition: DocRef
    chain: list[Kustomization]  # from the definition's own kustomization up to the root ([] for plain files)
    patches: list[DocRef]  # strategic-merge patches in the chain that touch the resource, innermost first
    cluster_name: str  # the name on the cluster, after every namePrefix/nameSuffix
    namespace: str | None

    @property
    def root(self) -> Kustomization | None:
        return self.chain[-1] if self.chain else None

    linked_to: Path | None = None  # the definition's file is a symlink to this file

    @property
    def in_overlay(self) -> bool:
        """True when the definition sits in a base that the root overlays: edits go to the root. A symlinked
        manifest counts as the file it points to, which other places may use: a shared base too."""
        return len(self.chain) > 1 or self.linked_to is not None

    def name_in_root_inputs(self) -> str:
        """The resource's name as the root kustomization's patches see it (inner prefixes applied)."""
        name = self.definition.data["metadata"]["name"]
        for k in self.chain[:-1]:
            name = k.renamed(name)
        return name

    def namespace_in_root_inputs(self) -> str | None:
        """The resource's namespace as the root kustomization's patches see it (inner namespace: applied); a
        patch without it would match no namespaced resource."""
        namespace = self.definition.data["metadata"].get("namespace")
        for k in self.chain[:-1]:
            namespace = k.namespace or namespace
        return namespace

    def effective(self) -> dict[str, Any]:
        """The resource after the strategic-merge patches of its chain (a plain-dict approximation of
        ``kustomize build`` for the fields we care about: maps merge, lists are replaced, as for CRDs)."""
        result = yamlfiles.to_plain(self.definition.data)
        for patch in self.patches:
            result = merge_patch(result, yamlfiles.to_plain(patch.data))
        result.setdefault("metadata", {})["name"] = self.cluster_name
        if self.namespace:
            result["metadata"]["namespace"] = self.namespace
        return result


@dataclass
class Repository:
    """Every YAML file and kustomization below a search root."""

    root: Path  # the repository root (paths in messages are relative to it)
    scope: Path  # where we search (``--path``), inside root
    files: dict[Path, yamlfiles.YamlFile] = field(default_factory=dict)
    kustomizations: dict[Path, Kustomization] = field(default_factory=dict)  # by directory
    templated: dict[Path, str] = field(default_factory=dict)  # file -> why it is not editable
    json_declared: dict[Path, list[tuple[str, str]]] = field(default_factory=dict)  # .json file -> (kind, name)
    broken: dict[Path, yamlfiles.YamlParseError] = field(default_factory=dict)
    unreadable: set[Path] = field(default_factory=set)  # in broken: not read at all (a FIFO, a dangling symlink)

    def rel(self, path: Path) -> str:
        return os.path.relpath(path, self.root)


# --- scanning ---------------------------------------------------------------------------------------------------


def scan(root: Path, scope: Path | None = None) -> Repository:
    root = root.resolve()
    scope = (scope or root).resolve()
    if not scope.is_dir():
        raise NotFoundError(f"{scope} is not a directory", advice="--repo and --path name directories")
    repo = Repository(root=root, scope=scope)
    # The whole repository is read even with --path: an overlay's bases usually live outside it.
    for path in _yaml_files(root):
        _load(repo, path)
    for k in repo.kustomizations.values():
        _link(repo, k)
    return repo


def _yaml_files(scope: Path) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(scope):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(YAML_SUFFIXES + (".json",)) or name == "Kustomization":
                yield Path(dirpath) / name


def _load(repo: Repository, path: Path) -> None:
    chart = _helm_chart_of(path, repo.scope)
    try:
        data = read_bytes(path, repo.rel(path))
    except InputError as error:  # a dangling symlink, a FIFO (never opened for reading), a file we may not read
        repo.broken[path] = yamlfiles.YamlParseError(error.message,
                                                     advice="fix or remove it, or narrow the search with --path")
        repo.unreadable.add(path)
        return
    text, _ = yamlfiles.decode(data)
    if path.suffix == ".json":
        _note_json(repo, path, text)
        return
    if chart is not None:
        repo.templated[path] = f"part of the Helm chart in {repo.rel(chart)}"
        return
    if "{{" in text and "}}" in text:
        repo.templated[path] = "a template ('{{ ... }}' placeholders)"
        return
    try:
        loaded = yamlfiles.load_bytes(data, path, repo.rel(path))
    except yamlfiles.YamlParseError as error:
        repo.broken[path] = error
        return
    if path.name in KUSTOMIZATION_NAMES:
        repo.kustomizations[path.parent] = Kustomization(path.parent, loaded, repo.rel(path))
    else:
        repo.files[path] = loaded


def _note_json(repo: Repository, path: Path, text: str) -> None:
    """JSON manifests are found but never edited (our edits are YAML round-trips that keep comments and layout;
    a JSON file has neither, and re-emitting it would rewrite every line). We remember what they declare so that a
    target found only there is named with its file instead of reported missing."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return
    items = data.get("items") if isinstance(data, dict) and data.get("kind") == "List" else [data]
    declared = [(d["kind"], d["metadata"]["name"]) for d in items or []
                if isinstance(d, dict) and isinstance(d.get("metadata"), dict) and "name" in d["metadata"]
                and str(d.get("apiVersion", "")).startswith(strimzi.GROUP + "/")]
    if declared:
        repo.json_declared[path] = declared


def _helm_chart_of(path: Path, scope: Path) -> Path | None:
    for parent in path.parents:
        if (parent / "Chart.yaml").exists():
            return parent
        if parent == scope or parent == parent.parent:
            return None
    return None


def _link(repo: Repository, k: Kustomization) -> None:
    data = k.data
    for entry in list(data.get("resources") or []) + list(data.get("components") or []):
        if isinstance(entry, str) and "://" not in entry:
            # A symlinked manifest is kept under its own name (not the file it points to), so that it is found
            # as the link and check_links can apply the shared-base rule to it.
            raw = k.dir / entry
            target = Path(os.path.normpath(raw)) if raw.is_symlink() else raw.resolve()
            k.resources.append(target)
            if target in repo.kustomizations:
                repo.kustomizations[target].parents.append(k)
    for entry in list(data.get("patches") or []) + list(data.get("patchesJson6902") or []):
        # inline ``patch:`` entries are read where needed (json6902_ops); the build check covers the rest
        if isinstance(entry, dict) and entry.get("path"):
            k.patch_files.append((k.dir / entry["path"]).resolve())
    for entry in data.get("patchesStrategicMerge") or []:
        if isinstance(entry, str) and "\n" not in entry:
            k.patch_files.append((k.dir / entry).resolve())


# --- locating ---------------------------------------------------------------------------------------------------


def locate(repo: Repository, kind: str, name: str, namespace: str | None) -> Location:
    """The single place ``kind/name`` (as named on the cluster) is declared, with its kustomize chain."""
    patch_paths = {p for k in repo.kustomizations.values() for p in k.patch_files}
    candidates = []
    for path, loaded in repo.files.items():
        if path in patch_paths:
            continue
        for index, doc in enumerate(loaded.documents):
            if _declares(doc.data, kind):
                ref = DocRef(loaded, index, repo.rel(path))
                candidates += _placements(repo, ref, path)
    candidates = [c for c in candidates if _in_scope(repo, c)]
    # A file reached through a symlink is one definition, not two: its plain placement goes.
    linked = {c.linked_to for c in candidates if c.linked_to is not None}
    candidates = [c for c in candidates if c.root is not None or c.linked_to is not None
                  or (repo.root / c.definition.rel).resolve() not in linked]
    matches = [c for c in candidates if c.cluster_name == name and (namespace is None or c.namespace in
                                                                     (None, namespace))]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise _ambiguous(kind, name, matches)
    raise _not_found(repo, kind, name, namespace, candidates)


def _in_scope(repo: Repository, location: Location) -> bool:
    """--path names what is applied: the root kustomization's directory, or a directory of plain files."""
    where = location.root.dir if location.root else (repo.root / location.definition.rel).parent
    return where == repo.scope or repo.scope in where.parents


def _declares(data: Any, kind: str) -> bool:
    return (isinstance(data, dict) and data.get("kind") == kind
            and str(data.get("apiVersion", "")).startswith(strimzi.GROUP + "/")
            and isinstance(data.get("metadata"), dict) and "name" in data["metadata"])


def _placements(repo: Repository, ref: DocRef, path: Path) -> list[Location]:
    """One Location per root kustomization that builds this document (or one plain Location)."""
    owners = [k for k in repo.kustomizations.values() if path in k.resources]
    linked_to = path.resolve() if path.is_symlink() else None
    if not owners:
        meta = ref.data["metadata"]
        return [Location(ref, [], [], meta["name"], meta.get("namespace"), linked_to)]
    locations = []
    for owner in owners:
        for chain in _chains_to_roots(owner):
            locations.append(_location(repo, ref, chain, linked_to))
    return locations


def check_links(repo: Repository, location: Location) -> None:
    """Never write outside the repository, never through a link into a file other places use: a symlinked
    definition is edited only through a patch in its root kustomization; with none, it is refused."""
    target = location.linked_to
    if target is None:
        return
    rel = location.definition.rel
    if repo.root not in target.parents:
        raise NotEditableError(f"{rel} is a symlink to a file outside the repository; refusing to edit it "
                               "(nothing was written)",
                               advice="copy the file into the repository, or change offsets online "
                                      "(kubectl offsets alter/reset)")
    if location.root is None:
        raise NotEditableError(f"{rel} is a symlink to {repo.rel(target)}: editing it would change every place "
                               "that uses that file; refusing (nothing was written)",
                               advice="replace the link with a copy, or build the app with a kustomization so "
                                      "the edit can go into a patch")


def _chains_to_roots(k: Kustomization, seen: tuple[Path, ...] = ()) -> list[list[Kustomization]]:
    if k.dir in seen:
        return []
    if not k.parents:
        return [[k]]
    return [[k] + rest for parent in k.parents for rest in _chains_to_roots(parent, seen + (k.dir,))]


def _location(repo: Repository, ref: DocRef, chain: list[Kustomization], linked_to: Path | None = None
              ) -> Location:
    meta = ref.data["metadata"]
    name, namespace = meta["name"], meta.get("namespace")
    names = {name}
    patches: list[DocRef] = []
    for k in chain:
        patches += _patches_touching(repo, k, ref.data["kind"], names)
        name = k.renamed(name)
        names.add(name)
        namespace = k.namespace or namespace
    return Location(ref, chain, patches, name, namespace, linked_to)


def _patches_touching(repo: Repository, k: Kustomization, kind: str, names: set[str]) -> list[DocRef]:
    found = []
    for path in k.patch_files:
        loaded = repo.files.get(path)
        if loaded is None:
            continue
        for index, doc in enumerate(loaded.documents):
            data = doc.data
            if isinstance(data, dict) and data.get("kind") == kind and (data.get("metadata") or {}).get("name") in names:
                found.append(DocRef(loaded, index, repo.rel(path)))
    return found


def json6902_ops(repo: Repository, location: Location) -> list[tuple[str, list[Any]]]:
    """The JSON6902 patches (files or inline) in the chain that target the resource, as (where, operations).
    We cannot merge into them, so the caller refuses to go on when one of them writes a field we change."""
    kind = location.definition.data["kind"]
    found = []
    for k in location.chain:
        for entry in list(k.data.get("patches") or []) + list(k.data.get("patchesJson6902") or []):
            target = (entry or {}).get("target") or {}
            if not target or target.get("kind") not in (None, kind):
                continue
            ops = _json6902_of(repo, k, entry)
            if ops is not None:
                where = f"{k.rel} (inline patch)" if entry.get("patch") else repo.rel((k.dir / entry["path"]).resolve())
                found.append((where, ops))
    return found


def _json6902_of(repo: Repository, k: Kustomization, entry: Any) -> list[Any] | None:
    if isinstance(entry.get("patch"), str):
        try:
            data = yamlfiles.to_plain(yamlfiles.load_text(entry["patch"], k.dir, k.rel).documents[0].data)
        except yamlfiles.YamlParseError:
            return None
    else:
        loaded = repo.files.get((k.dir / str(entry.get("path", ""))).resolve())
        data = yamlfiles.to_plain(loaded.documents[0].data) if loaded and loaded.documents else None
    return data if isinstance(data, list) else None


def _ambiguous(kind: str, name: str, matches: list[Location]) -> AmbiguousTargetError:
    places = "; ".join(m.definition.where + (f" built by {m.root.rel}" if m.root else "") for m in matches)
    return AmbiguousTargetError(f"{kind.lower()}/{name} is declared {len(matches)} times: {places}",
                                advice="narrow the search with --path DIR (the overlay or directory that is "
                                       "applied) or give the namespace with -n")


def _not_found(repo: Repository, kind: str, name: str, namespace: str | None, candidates: list[Location]
               ) -> Exception:
    in_json = [p for p, declared in repo.json_declared.items() if (kind, name) in declared]
    if in_json:
        return NotEditableError(f"{kind.lower()}/{name} is declared in {repo.rel(in_json[0])}, a .json manifest: "
                                ".json files are not edited (nothing was written)",
                                advice="convert that file to YAML (kustomize reads both), or change offsets "
                                       "online (kubectl offsets alter/reset)")
    mentions = [p for p in list(repo.templated) + list(repo.broken) if p not in repo.unreadable
                and name in read_bytes(p).decode("utf-8", errors="replace")]
    broken = [p for p in mentions if p in repo.broken]
    if broken:
        return repo.broken[broken[0]]
    if mentions:
        why = repo.templated[mentions[0]]
        return NotEditableError(f"{kind.lower()}/{name} is only found in {repo.rel(mentions[0])}, {why}; "
                                f"it cannot be edited in place",
                                advice="change it where its values come from (e.g. the chart's values file), "
                                       "or use the online commands (kubectl offsets alter/reset)")
    known = ", ".join(sorted({f"{c.cluster_name}" + (f" (-n {c.namespace})" if c.namespace else "")
                              for c in candidates})) or "none"
    where = f" in namespace {namespace}" if namespace else ""
    unread = "; ".join(repo.broken[p].message.removeprefix("cannot read ") for p in sorted(repo.unreadable))
    return NotFoundError(f"no {kind} named '{name}'{where} below {repo.rel(repo.scope)}",
                         advice=f"{kind} resources found: {known}" + (f" (not read: {unread})" if unread else ""))


def merge_patch(base: Any, patch: Any) -> Any:
    """Strategic merge as kustomize does it for custom resources: maps merge, lists are replaced, null deletes."""
    if not isinstance(base, dict) or not isinstance(patch, dict):
        return patch
    result = dict(base)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
