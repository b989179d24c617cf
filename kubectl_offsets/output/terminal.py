"""Text on its way to a terminal: control characters made visible.

Names reach the terminal from places we do not control: an import file, a KafkaMirrorMaker2's cluster aliases, a
ConfigMap. An escape sequence inside one (``\\x1b]0;...``, ``\\x1b[2J``, a carriage return) would otherwise be
obeyed by the terminal: it could rewrite the lines above, hide a warning or retitle the window. Kubernetes names
and Connect connector names never contain control characters, so escaping them loses nothing real.

Every line the CLI prints goes through :func:`printable` (:func:`echo`, the progress lines, the error report and
every table cell), JSON included: ``json.dumps`` has escaped them already, so it leaves JSON as it is.
"""

from __future__ import annotations

import unicodedata

import click

# Invisible characters that reorder or hide text (Unicode "format" characters used for bidi overrides and
# zero-width tricks); escaped like control characters.
_FORMAT_CATEGORY = "Cf"


def printable(text: str, *, multiline: bool = True) -> str:
    """``text`` with every control character (and bidi/zero-width format character) written as a visible escape:
    ``\\x1b``, ``\\r``, ``\\u202e``. ``multiline``: keep line feeds and tabs (a message or a table of several lines);
    False for one cell or one name, where a line feed would forge a line of its own."""
    if text.isprintable():
        return text
    return "".join(_escaped(c, multiline) for c in text)


def _escaped(char: str, multiline: bool) -> str:
    if multiline and char in "\n\t":
        return char
    if char.isprintable():
        return char
    if unicodedata.category(char) not in ("Cc", _FORMAT_CATEGORY) and not char.isspace():
        return char  # a letter or mark Python counts as unprintable (unassigned code points): harmless
    return char.encode("unicode_escape").decode("ascii")


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of text made :func:`printable`: what the CLI prints for people."""
    click.echo(printable(text), err=err, nl=nl)
