"""JSON text exactly as Jackson's ``ObjectMapper.writerWithDefaultPrettyPrinter()`` writes it.

Strimzi re-serialises the ``GET /connectors/{n}/offsets`` body with that writer before putting it into the list
ConfigMap (§2.4, ``KafkaConnectApiImpl#getConnectorOffsets``).  Python's ``json.dumps(indent=2)``
differs (``"key": value``, arrays one element per line, ``[]``), so the emulator carries its own printer.

Rules of Jackson's ``DefaultPrettyPrinter`` (2.x):
* objects: ``{`` + newline + two spaces per nesting level; ``"key" : value``; entries separated by ``,`` + newline;
  empty object ``{ }``;
* arrays use an inline indenter (a single space) and do not add a nesting level: ``[ 1, 2 ]``, ``[ {`` ... ``} ]``,
  empty array ``[ ]``;
* no trailing newline; keys in the order received (the body is parsed into a LinkedHashMap).
"""
import json
import math
from decimal import Decimal

_INDENT = "  "
# Jackson escapes control characters; the short forms below, every other one as \u00XX (upper-case hex).
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def dumps(value):
    """Serialise a value parsed with ``json.loads`` the way Jackson's default pretty printer does."""
    out = []
    _write(value, 1, out)
    return "".join(out)


def _write(value, nesting, out):
    if isinstance(value, dict):
        _write_object(value, nesting, out)
    elif isinstance(value, list):
        _write_array(value, nesting, out)
    else:
        out.append(_scalar(value))


def _write_object(obj, nesting, out):
    if not obj:
        out.append("{ }")
        return
    out.append("{")
    for i, (key, val) in enumerate(obj.items()):
        out.append(("," if i else "") + "\n" + _INDENT * nesting + _string(str(key)) + " : ")
        _write(val, nesting + 1, out)
    out.append("\n" + _INDENT * (nesting - 1) + "}")


def _write_array(items, nesting, out):
    if not items:
        out.append("[ ]")
        return
    out.append("[ ")
    for i, val in enumerate(items):
        if i:
            out.append(", ")
        _write(val, nesting, out)
    out.append(" ]")


def _scalar(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _java_double(value)
    return _string(str(value))


def _string(text):
    chars = []
    for ch in text:
        if ch in _SHORT_ESCAPES:
            chars.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x20:
            chars.append("\\u%04X" % ord(ch))
        else:
            chars.append(ch)
    return '"' + "".join(chars) + '"'


def _java_double(value):
    """``Double.toString``: plain notation in [1e-3, 1e7), otherwise ``d.dddE[-]n``; always a fractional part.

    Both Java (JDK 19+) and Python print the shortest digits that round-trip, so only the layout differs.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    sign, digits, exp = Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digits))
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    sci_exp = len(digits) - 1 + exp
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        text = format(Decimal(prefix + digits + "E" + str(exp)), "f")
        return text if "." in text else text + ".0"
    return prefix + digits[0] + "." + (digits[1:] or "0") + "E" + str(sci_exp)


def loads(text):
    """Parse JSON keeping key order (Jackson's LinkedHashMap) and integers as ints."""
    return json.loads(text)
