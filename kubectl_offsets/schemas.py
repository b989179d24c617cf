"""The only reader of ``schemas/`` and the only importer of jsonschema (lazily, at first validation).

Each document we read or write has a schema ``schemas/<name>.schema.json`` whose ``$id`` is the file name. A
validation failure becomes an :class:`InputError` that names the place in the document and what is wrong.
"""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path
from typing import Any

from .errors import InputError

SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


@functools.lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())


_BUILDING = threading.Lock()


def _validator(name: str):
    """The compiled validator of ``name``, built once even when a fleet's threads ask for it at the same moment
    (building one reads and compiles every schema)."""
    with _BUILDING:
        return _build_validator(name)


@functools.lru_cache(maxsize=None)
def _build_validator(name: str):
    import jsonschema  # heavy; only when something is validated
    from referencing import Registry, Resource

    resources = [(p.name, Resource.from_contents(json.loads(p.read_text()))) for p in SCHEMA_DIR.glob("*.schema.json")]
    registry = Registry().with_resources(resources)
    schema = load(name)
    base = jsonschema.validators.validator_for(schema)
    cls = jsonschema.validators.extend(base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_json_integer))
    return cls(schema, registry=registry, format_checker=base.FORMAT_CHECKER)


def _is_json_integer(checker, instance: Any) -> bool:
    """An integer as JSON and YAML write it (``42``), not a number with a zero fraction (``42.0``, ``4.2e1``),
    which JSON Schema counts as an integer. Connect parses a sink's partition and offset from the value's text
    (``Integer.parseInt(String.valueOf(value))``, SinkUtils#parseSinkConnectorOffsets in apache/kafka) and
    MirrorMaker 2 wants an Integer or Long (MirrorUtils#validateSourceOffset), so both refuse ``1000.0``: after
    the connector was stopped, or in a pull request that can never apply. A bool is no integer either."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def errors(name: str, document: Any) -> list[str]:
    """Every violation, as ``at <json path>: <message>`` lines, best first."""
    from jsonschema.exceptions import best_match  # heavy; loaded by _validator already

    validator = _validator(name)
    # best_match descends into a oneOf ("null or an offset object") to the branch that nearly matched, so the
    # message names the value at fault ("1000.0 is not of type 'integer'") instead of the whole object.
    found = sorted((best_match([e]) for e in validator.iter_errors(document)),
                   key=lambda e: (len(e.absolute_path), list(e.absolute_path)))
    return [f"at {_path(e)}: {_message(e)}" for e in found]


def _message(error) -> str:
    """jsonschema's message, without echoing the input: a document that is not what we expect may be any file
    (``-f /etc/shadow``), so we quote at most the one offending value, cut short, and never a list of its keys."""
    if error.validator == "additionalProperties":
        allowed = ", ".join(sorted((error.schema.get("properties") or {}))) or "none"
        return f"unexpected keys (allowed: {allowed})"
    shown = repr(error.instance)
    if len(shown) <= 60 or shown not in error.message:
        return error.message
    kind = type(error.instance).__name__
    size = f" of {len(error.instance)} items" if isinstance(error.instance, (dict, list)) else ""
    return error.message.replace(shown, f"a {kind}{size} ({shown[:30]}...)" if isinstance(error.instance, str)
                                 else f"a {kind}{size}")


def validate(name: str, document: Any, *, what: str) -> None:
    """Raise InputError if ``document`` (described to the user as ``what``) does not match schema ``name``."""
    problems = errors(name, document)
    if problems:
        shown = "\n  ".join(problems[:10])
        more = f"\n  ... and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise InputError(f"{what} is not valid ({name}):\n  {shown}{more}",
                         advice=f"the expected shape is the JSON Schema {name}.schema.json, shipped in the "
                                f"kubectl_offsets/schemas folder of the installed package")


def _path(error) -> str:
    path = "$"
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def check_user_schema(schema: Any, *, what: str) -> None:
    """Raise InputError if a schema the user supplied (e.g. --invalid-against) is not a valid JSON Schema."""
    import jsonschema  # heavy; only when a user schema is given

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        raise InputError(f"{what} is not a valid JSON Schema: {error.message}") from None
