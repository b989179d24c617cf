"""YAML manifests edited in place: ruamel.yaml round-trip, byte-stable outside the nodes we change.

ruamel.yaml keeps comments, key order and quoting, but a full round-trip still re-indents block sequences, drops
a space before a comment, re-wraps long lines or normalises a document marker here and there. Writing its whole
output would put those unrelated lines into a reviewer's diff. So we never write ruamel's output wholesale:

    A = the original text of one document
    B = ruamel's dump of that document as loaded (unedited)
    C = ruamel's dump of the document after our edits

The B->A differences are ruamel's "noise"; the B->C differences are exactly our edits. Each B->C hunk is spliced
into A between the nearest lines that B and A share, so only lines we meant to change change. The result is
parsed again and must equal C; if it does not (a pathological layout), the document falls back to C and the
caller is told.

Multi-document files are split on their ``---`` lines first, and documents we did not touch are kept verbatim.
This is the only module besides ``output/render.py`` and the YAML input reader that imports ruamel.yaml, always
inside functions so that ``--help`` never loads it.
"""

from __future__ import annotations

import difflib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, cast

from ..conventions import StrEnum
from ..errors import InputError
from ..files import read_bytes

_DOC_START = re.compile(r"^---(?:[ \t].*)?$")


class YamlParseError(InputError):
    """A file in the repository is not valid YAML (or not YAML we can edit)."""


@dataclass
class Document:
    """One ``---`` separated document of a file: its original text and its round-trip node."""

    text: str
    data: Any  # CommentedMap/CommentedSeq/scalar, or None for an empty or comment-only segment
    first_line: int  # 1-based line of the segment in the file, for messages
    edited: bool = False


UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Encoding:
    """How a file's text is stored: UTF-8 (with or without a byte order mark) or, when the bytes are not UTF-8,
    Latin-1, where every byte is one character, so decoding and encoding again gives back the same bytes."""

    name: str = "utf-8"
    bom: bool = False

    def encode(self, text: str) -> bytes:
        return (UTF8_BOM if self.bom else b"") + text.encode(self.name)

    def describe(self) -> str:
        return self.name + (" with byte order mark" if self.bom else "")


def decode(data: bytes) -> tuple[str, Encoding]:
    """The text of a file and how to store it again (line endings are left as they are)."""
    bom = data.startswith(UTF8_BOM)
    body = data[len(UTF8_BOM):] if bom else data
    try:
        return body.decode("utf-8"), Encoding("utf-8", bom)
    except UnicodeDecodeError:
        return body.decode("latin-1"), Encoding("latin-1", bom)


@dataclass
class YamlFile:
    """A file's documents; edit ``documents[i].data`` (mark ``edited``), then ``render()`` (text) or
    ``render_bytes()`` (what is written: the file's own encoding, byte order mark and line endings)."""

    path: Path
    original: str
    documents: list[Document] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    newline: str = "\n"  # "\r\n" files are edited as "\n" and written back with "\r\n"
    encoding: Encoding = Encoding()
    mixed_newlines: bool = False  # CRLF and LF lines both: no single style to write new lines in

    def render(self) -> str:
        if not any(doc.edited for doc in self.documents):
            return self.original
        if self.mixed_newlines:
            raise YamlParseError(f"{self.path.name} mixes CRLF and LF line endings, so the lines we would add have "
                                 "no single style to follow; refusing to edit it (nothing was written)",
                                 advice="convert the file to one style first (e.g. dos2unix), or edit it by hand")
        return self._render_lf().replace("\n", self.newline) if self.newline != "\n" else self._render_lf()

    def render_bytes(self) -> bytes:
        return self.encoding.encode(self.render())

    @property
    def original_bytes(self) -> bytes:
        return self.encoding.encode(self.original)

    def _render_lf(self) -> str:
        parts = []
        for doc in self.documents:
            if not doc.edited:
                parts.append(doc.text)
                continue
            text, exact = splice_edit(doc.text, doc.data)
            if not exact:
                self.warnings.append(f"{self.path}: ruamel.yaml reformatted the document at line {doc.first_line} "
                                     f"beyond the edited lines; review the diff")
            parts.append(text)
        return "".join(parts)

    @property
    def changed(self) -> bool:
        return self.render() != self.original


# --- loading ----------------------------------------------------------------------------------------------------


def load_file(path: Path, where: str | None = None) -> YamlFile:
    """Read and parse every document of ``path`` as bytes (no newline translation, no replacement characters);
    raises YamlParseError naming the line."""
    try:
        data = read_bytes(path, where)
    except InputError as e:  # missing, a dangling symlink, a FIFO: never opened for a read that would block
        raise YamlParseError(e.message, advice=e.advice) from None
    return load_bytes(data, path, where)


def load_bytes(data: bytes, path: Path, where: str | None = None) -> YamlFile:
    text, encoding = decode(data)
    return load_text(text, path, where, encoding)


def load_text(text: str, path: Path, where: str | None = None, encoding: Encoding = Encoding()) -> YamlFile:  # noqa: B008 (frozen)
    crlf, lf = text.count("\r\n"), text.count("\n")
    newline = "\r\n" if crlf else "\n"
    result = YamlFile(path=path, original=text, newline=newline, encoding=encoding, mixed_newlines=0 < crlf < lf)
    for segment, first_line in split_documents(text.replace("\r\n", "\n") if crlf else text):
        result.documents.append(Document(segment, _parse(segment, where or str(path), first_line), first_line))
    return result


def split_documents(text: str) -> list[tuple[str, int]]:
    """Cut a stream at its ``---`` lines (each segment starts with its marker), keeping every byte."""
    lines = text.splitlines(keepends=True)
    segments: list[tuple[str, int]] = []
    start = 0
    for number, line in enumerate(lines):
        if number > start and _DOC_START.match(line.rstrip("\r\n")):
            segments.append(("".join(lines[start:number]), start + 1))
            start = number
    segments.append(("".join(lines[start:]), start + 1))
    return [s for s in segments if s[0]] or [("", 1)]


def _parse(segment: str, where: str, first_line: int) -> Any:
    from ruamel.yaml.error import YAMLError

    try:
        return _bounded(_yaml(), where).load(segment)
    except YAMLError as e:
        raise YamlParseError(f"{where} is not valid YAML{yaml_error_position(e, first_line)}: {yaml_problem(e)}",
                             advice="fix the file (nothing was changed), or narrow the search with --path") from None


# --- plain data, and the bound every YAML read has ----------------------------------------------------------------

# How many nodes a document's aliases may add once expanded. Anchors are for a few shared blocks (labels, resource
# limits): a few hundred nodes. A "billion laughs" document of under 500 bytes expands to 9**9 strings, which the
# loader shares but every walk over the data (a schema check, a comparison, a copy) visits one by one: minutes of
# CPU, or every byte of memory.
ALIAS_EXPANSION_LIMIT = 100_000


def load_data(text: str, where: str, *, invalid: str = "is not valid YAML", advice: str = "") -> Any:
    """One YAML document as plain data (the safe loader: no tag builds an object), its alias expansion bounded.
    Raises YamlParseError "``where`` ``invalid`` at line L column C: the parser's words" (no line of the file is
    quoted). A RecursionError (nesting deeper than the parser can go) is left to the caller, who knows the
    document."""
    return _load_plain(lambda yaml: yaml.load(text), where, invalid, advice)


def load_all_data(text: str, where: str, *, invalid: str = "is not valid YAML", advice: str = "") -> list[Any]:
    """Every document of a YAML stream, as load_data reads one."""
    return _load_plain(lambda yaml: list(yaml.load_all(text)), where, invalid, advice)


def _load_plain(load, where: str, invalid: str, advice: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return load(_bounded(YAML(typ="safe", pure=True), where))
    except YAMLError as e:
        raise YamlParseError(f"{where} {invalid}{yaml_error_position(e, column=True)}: {yaml_problem(e)}",
                             advice=advice or "fix the file; nothing was changed") from None


def _bounded(yaml: Any, where: str) -> Any:
    """``yaml`` with a constructor that measures each document's node graph before it builds anything."""
    base = yaml.Constructor

    class Bounded(base):  # type: ignore[misc, valid-type]
        def construct_document(self, node: Any) -> Any:
            check_expansion(node, where)
            return super().construct_document(node)

    yaml.Constructor = Bounded
    return yaml


def check_expansion(root: Any, where: str) -> None:
    """Refuse a composed document whose aliases add more than ALIAS_EXPANSION_LIMIT nodes, or that contains
    itself. One pass over the distinct nodes (each alias is a second reference to the same node object), without
    recursion, so neither the bomb nor deep nesting costs more than the text itself."""
    expanded: dict[int, int] = {}  # id(node) -> nodes below and including it, aliases expanded
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            expanded[key] = 1 + sum(expanded[id(child)] for child in _children(node))
            continue
        if key in expanded:
            continue
        if key in on_path:
            raise YamlParseError(f"{where}: an alias refers to itself (the document contains itself)",
                                 advice="write the data out instead of the recursive alias")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
    added = expanded[id(root)] - len(expanded)
    if added > ALIAS_EXPANSION_LIMIT:
        raise YamlParseError(f"{where}: its aliases expand to {added} more nodes than it has, above the limit of "
                             f"{ALIAS_EXPANSION_LIMIT} (a YAML alias bomb?)",
                             advice="write the repeated parts out, or share fewer and smaller blocks with aliases")


def _children(node: Any) -> list[Any]:
    from ruamel.yaml.nodes import MappingNode, SequenceNode

    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def yaml_error_position(error: Exception, first_line: int = 1, column: bool = False) -> str:
    """' at line N' (and column) of a ruamel error, or '' when it has no position. Only the position and the
    parser's words are printed: ruamel's own text quotes lines of the file and spans several lines."""
    mark = getattr(error, "problem_mark", None)
    if mark is None:
        return ""
    return f" at line {mark.line + first_line}" + (f" column {mark.column + 1}" if column else "")


def yaml_problem(error: Exception) -> str:
    return getattr(error, "problem", None) or str(error).splitlines()[0]


def _yaml(indent: tuple[int, int, int] = (2, 2, 0), explicit_start: bool = False):
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 1 << 16  # never re-wrap a long line
    yaml.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    yaml.explicit_start = explicit_start
    yaml.representer.add_multi_representer(StrEnum, _represent_name)
    return yaml


def _represent_name(representer, name: StrEnum):
    """A name declared once (conventions.StrEnum) is written as its plain value, as the literal it replaced was."""
    return representer.represent_str(str(name))


def to_plain(node: Any) -> Any:
    """A round-trip node as plain dicts/lists/scalars (for schema validation and comparisons)."""
    if isinstance(node, dict):
        return {str(k): to_plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [to_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return node


# --- dumping ----------------------------------------------------------------------------------------------------


def dump(data: Any, indent: tuple[int, int, int] = (2, 2, 0), explicit_start: bool = False) -> str:
    stream = io.StringIO()
    _yaml(indent, explicit_start).dump(data, stream)
    return stream.getvalue()


def dump_new(documents: Iterable[Any], header: str = "") -> str:
    """A new file (our ConfigMap, patch or Job manifests): plain data -> block YAML, multi-line strings as ``|``."""
    texts = [dump(_literal_strings(d)) for d in documents]
    return header + "---\n".join(texts)


def _literal_strings(node: Any) -> Any:
    from ruamel.yaml.scalarstring import LiteralScalarString

    if isinstance(node, dict):
        return {k: _literal_strings(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_literal_strings(v) for v in node]
    if isinstance(node, str) and "\n" in node:
        return LiteralScalarString(node if node.endswith("\n") else node + "\n")
    return node


def detect_indent(text: str) -> tuple[int, int, int]:
    """(mapping, sequence, offset) as ruamel.yaml wants them, guessed from the document, so new lines we add
    look like their neighbours."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    mapping: int | None = None
    sequence: int | None = None
    offset: int | None = None
    for prev, line in zip(lines, lines[1:]):
        if not prev.rstrip().endswith(":"):
            continue
        parent = len(prev) - len(prev.lstrip())
        child = len(line) - len(line.lstrip())
        if line.lstrip().startswith("- "):
            if offset is None and child >= parent:
                offset = child - parent
                sequence = offset + 2
        elif mapping is None and child > parent:
            mapping = child - parent
    mapping = mapping or 2
    if offset is None:
        offset, sequence = 0, mapping
    assert sequence is not None  # set together with offset
    return mapping, max(sequence, offset + 2), offset


# --- the three-way splice ---------------------------------------------------------------------------------------


def splice_edit(original: str, edited: Any) -> tuple[str, bool]:
    """The original text with exactly the lines our edit changed replaced; ``exact`` False means we had to fall
    back to ruamel's full output for this document.

    Each changed top-level key (``metadata``, ``spec``) is spliced on its own, with the indentation of its own
    block: hand-written files often indent ``metadata`` by 2 and ``spec`` by 4."""
    explicit = bool(_DOC_START.match(original.split("\n", 1)[0]))
    unedited = _parse(original, "document", 1)
    result = _splice_regions(original, unedited, edited)
    if result is None:
        indent = detect_indent(original)
        result = _apply_hunks(original, dump(unedited, indent, explicit), dump(edited, indent, explicit))
    wanted = dump(edited, detect_indent(original), explicit) if edited is not None else ""
    if result is not None and _same_data(result, wanted):
        return result, True
    return wanted, False


def _splice_regions(original: str, unedited: Any, edited: Any) -> str | None:
    """Splice per top-level key; None when the top-level keys themselves changed (then the whole document is
    the region)."""
    if not isinstance(unedited, dict) or not isinstance(edited, dict) or list(unedited) != list(edited):
        return None
    lines = original.splitlines(keepends=True)
    keys = list(unedited)
    starts = [cast(Any, unedited).lc.key(k)[0] for k in keys] + [len(lines)]  # a ruamel CommentedMap's lines
    out = lines[:starts[0]]
    for i, key in enumerate(keys):
        region = "".join(lines[starts[i]:starts[i + 1]])
        if to_plain(unedited[key]) == to_plain(edited[key]):
            out.append(region)
            continue
        indent = detect_indent(region)
        spliced = _apply_hunks(region, dump({key: unedited[key]}, indent), dump({key: edited[key]}, indent))
        if spliced is None:
            return None
        out.append(spliced)
    return "".join(out)


def _apply_hunks(a_text: str, b_text: str, c_text: str) -> str | None:
    a, b, c = (t.splitlines(keepends=True) for t in (a_text, b_text, c_text))
    b_to_a = _line_map(a, b)
    hunks = [(b1, b2, c1, c2) for tag, b1, b2, c1, c2 in
             difflib.SequenceMatcher(None, b, c, autojunk=False).get_opcodes() if tag != "equal"]
    out = list(a)
    for i in reversed(range(len(hunks))):
        b1, b2, c1, c2 = hunks[i]
        span = _exact_span(b1, b2, b_to_a, len(b), len(a))
        if span is None:
            widened = _widened(hunks, i, b_to_a, len(b), len(a))
            if widened is None:
                return None
            span, (c1, c2) = widened
        out[span[0]:span[1]] = c[c1:c2]
    return "".join(out)


def _widened(hunks, i: int, b_to_a: dict[int, int], b_len: int, a_len: int):
    """A hunk that replaces a line ruamel reformats (``state:   running``): grow it to the nearest lines A has
    verbatim on both sides, so only the reformatted lines themselves are rewritten. Lines outside hunks are equal in
    B and C, so the C range grows with the B range; growing into a neighbouring hunk gives up (None)."""
    b1, b2, c1, c2 = hunks[i]
    low = hunks[i - 1][1] if i > 0 else 0
    high = hunks[i + 1][0] if i + 1 < len(hunks) else b_len
    while b1 > low and (b1 - 1) not in b_to_a:
        b1, c1 = b1 - 1, c1 - 1
    while b2 < high and b2 not in b_to_a:
        b2, c2 = b2 + 1, c2 + 1
    if (b1 > 0 and (b1 - 1) not in b_to_a) or (b2 < b_len and b2 not in b_to_a):
        return None
    a_lo = b_to_a[b1 - 1] + 1 if b1 > 0 else 0
    a_hi = b_to_a[b2] if b2 < b_len else a_len
    return ((a_lo, a_hi), (c1, c2)) if a_lo <= a_hi else None


def _line_map(a: list[str], b: list[str]) -> dict[int, int]:
    """B line -> A line for lines that are the same, or the same up to spacing (``tasksMax:   1`` is ruamel's
    ``tasksMax: 1``): such a line is an anchor, so edits next to it never rewrite it."""
    b_to_a: dict[int, int] = {}
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            b_to_a.update({b1 + k: a1 + k for k in range(b2 - b1)})
        elif tag == "replace":
            loose = difflib.SequenceMatcher(None, [_spacing(x) for x in a[a1:a2]], [_spacing(x) for x in b[b1:b2]],
                                            autojunk=False)
            for block in loose.get_matching_blocks():
                b_to_a.update({b1 + block.b + k: a1 + block.a + k for k in range(block.size)})
    return b_to_a


def _spacing(line: str) -> str:
    body = line.rstrip("\r\n")
    indent = len(body) - len(body.lstrip(" "))
    return " " * indent + " ".join(body.split())


def _exact_span(b1: int, b2: int, b_to_a: dict[int, int], b_len: int, a_len: int) -> tuple[int, int] | None:
    """Where B lines [b1, b2) are in A: an insertion needs one neighbour that A has verbatim; a replacement
    needs every replaced line verbatim and contiguous in A. Otherwise None: the edit touches a line ruamel would
    reformat, and we refuse to guess."""
    if b1 == b2:
        if b1 in b_to_a:
            return b_to_a[b1], b_to_a[b1]
        if b1 - 1 in b_to_a:
            return b_to_a[b1 - 1] + 1, b_to_a[b1 - 1] + 1
        if b1 == b_len:
            return a_len, a_len
        return None
    looked_up = [b_to_a.get(i) for i in range(b1, b2)]
    if None in looked_up:
        return None
    mapped = cast("list[int]", looked_up)
    if mapped != list(range(mapped[0], mapped[0] + len(mapped))):
        return None
    return mapped[0], mapped[-1] + 1


def _same_data(text: str, wanted: str) -> bool:
    try:
        return to_plain(_yaml().load(text)) == to_plain(_yaml().load(wanted))
    except Exception:  # noqa: BLE001 - any parse failure means "not the same"
        return False




# --- editing helpers (so core never touches ruamel types) -------------------------------------------------------


def set_key(mapping: Any, key: str, value: Any, before: Iterable[str] = ()) -> None:
    """Set ``mapping[key]``. An existing key keeps its place, comment and quoting style; a new one goes before
    the first of ``before`` that exists (else at the end), taking over the full-line comments that ruamel had
    attached to the key in front of it, so a comment stays above the key it describes."""
    from ruamel.yaml.comments import CommentedMap

    if key in mapping:
        mapping[key] = _same_style(mapping[key], value)
        return
    value = commented(value)
    keys = list(mapping.keys())
    position = next((keys.index(k) for k in before if k in keys), len(keys))
    if isinstance(mapping, CommentedMap):
        mapping.insert(position, key, value)
        if position > 0:
            _move_full_line_comments(mapping, keys[position - 1], key)
    else:
        mapping[key] = value


def _references(root: Any, node: Any) -> int:
    """How many times ``node`` is reached from ``root``: more than once means YAML aliases share it."""
    count, seen, stack = 0, set(), [root]
    while stack:
        current = stack.pop()
        if current is node:
            count += 1
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return count


def is_shared(root: Any, node: Any) -> bool:
    return _references(root, node) > 1


def unshare(parent: Any, key: Any, root: Any) -> str | None:
    """When ``parent[key]`` is shared through an anchor and its aliases, give this one place its own copy (without
    the anchor), so that editing it leaves the others' values alone. Returns the anchor's name, or None when the
    node was not shared. The anchor stays on the original, which keeps being written as before."""
    import copy

    node = parent[key]
    if not is_shared(root, node):
        return None
    name = getattr(getattr(node, "anchor", None), "value", None)
    if name is None:
        return None  # shared without an anchor cannot come from a YAML file
    own = copy.deepcopy(node)
    own.yaml_set_anchor(None)
    node.yaml_set_anchor(name, always_dump=True)
    parent[key] = own
    return name


def reshare(parent: Any, key: Any, root: Any, anchor: str) -> bool:
    """Undo ``unshare``: point ``parent[key]`` at the node carrying ``anchor`` again, if it holds the same values."""
    stack, seen = [root], set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current is not parent[key] and getattr(getattr(current, "anchor", None), "value", None) == anchor:
            if to_plain(current) != to_plain(parent[key]):
                return False
            current.yaml_set_anchor(anchor, always_dump=False)
            parent[key] = current
            return True
        if isinstance(current, dict):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return False


def is_flow_style(node: Any) -> bool:
    """Whether a loaded mapping or sequence was written in flow style (``{...}`` / ``[...]``)."""
    fa = getattr(node, "fa", None)
    return bool(fa is not None and fa.flow_style())


def delete_key(mapping: Any, key: str) -> None:
    """Remove ``mapping[key]``; full-line comments ruamel attached to it (they describe the next key) move to
    the key in front of it."""
    keys = list(mapping.keys())
    if key not in keys:
        return
    index = keys.index(key)
    if index > 0:
        _move_full_line_comments(mapping, key, keys[index - 1])
    del mapping[key]


def _same_style(old: Any, new: Any) -> Any:
    """A new scalar quoted like the one it replaces (``"running"`` -> ``"stopped"``)."""
    from ruamel.yaml.scalarstring import ScalarString

    if isinstance(old, ScalarString) and isinstance(new, str):
        return type(old)(new)
    return commented(new)


def commented(value: Any) -> Any:
    """Plain dicts/lists as round-trip nodes (so comments can be attached and styles kept)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict) and not isinstance(value, CommentedMap):
        result = CommentedMap()
        for k, v in value.items():
            result[k] = commented(v)
        return result
    if isinstance(value, list) and not isinstance(value, CommentedSeq):
        return CommentedSeq(commented(v) for v in value)
    return value


def _deepest_last(mapping: Any, key: Any) -> tuple[Any, Any]:
    """The container and key whose comment slot holds the comments printed after ``mapping[key]``."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    value = mapping[key]
    if isinstance(value, CommentedMap) and len(value):
        return _deepest_last(value, list(value.keys())[-1])
    if isinstance(value, CommentedSeq) and len(value):
        return _deepest_last(value, len(value) - 1)
    return mapping, key


def _move_full_line_comments(mapping: Any, from_key: Any, to_key: Any) -> None:
    from ruamel.yaml.tokens import CommentToken

    src, src_key = _deepest_last(mapping, from_key)
    slot = src.ca.items.get(src_key)
    if not slot or len(slot) < 3 or slot[2] is None:
        return
    token = slot[2]
    eol, sep, rest = token.value.partition("\n")
    if not rest.strip():
        return
    token.value = eol + sep
    dst, dst_key = _deepest_last(mapping, to_key)
    dst_slot = dst.ca.items.setdefault(dst_key, [None, None, None, None])
    while len(dst_slot) < 4:
        dst_slot.append(None)
    if dst_slot[2] is not None:
        dst_slot[2].value = dst_slot[2].value.rstrip("\n") + "\n" + rest
    else:
        dst_slot[2] = CommentToken("\n" + rest, token.start_mark, None)
