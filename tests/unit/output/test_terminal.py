"""Names that reach the terminal cannot drive it: control characters in a connector name (from an import file, a
MirrorMaker 2 alias) are shown as escapes wherever the CLI prints them (issue 22)."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner

from kubectl_offsets import strimzi
from kubectl_offsets.cli import exits
from kubectl_offsets.errors import InputError
from kubectl_offsets.output.progress import StderrProgress
from kubectl_offsets.output.render import table
from kubectl_offsets.output.terminal import printable

EVIL = "orders\x1b]0;pwned\x07\x1b[2J\rsink\u202e"


def test_control_and_bidi_characters_become_visible_escapes():
    assert printable(EVIL) == "orders\\x1b]0;pwned\\x07\\x1b[2J\\rsink\\u202e"
    assert printable("kafka/orders-sink east->west ü ✓") == "kafka/orders-sink east->west ü ✓"
    assert printable("two\nlines\tok") == "two\nlines\tok"
    assert printable("one\ncell", multiline=False) == "one\\ncell"


def test_table_cells_cannot_forge_lines_or_escape():
    text = table(["NAME"], [[EVIL], ["a\nFAKE-ROW"]])
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert text.splitlines() == ["NAME", printable(EVIL), "a\\nFAKE-ROW"]


def test_progress_and_warnings_escape_names():
    stream = io.StringIO()
    progress = StderrProgress(stream)
    progress.step(f"[ns/{EVIL}] stopping")
    progress.warn(f"[ns/{EVIL}] careful")
    progress.waiting(f"waiting for {EVIL}")
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    assert "orders\\x1b]0;pwned" in stream.getvalue()


def test_the_error_report_escapes_names(capsys):
    exits.report(InputError(f"entry #1 ({EVIL}) is wrong", advice=f"fix {EVIL}", next_command=f"undo {EVIL}"))
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    assert err.count("orders\\x1b]0;pwned") == 3


def test_a_fleet_import_plan_prints_names_from_the_file_escaped(tmp_path, monkeypatch):
    """End to end through the CLI: an entry whose connector name carries escapes is refused, and the refusal
    names it visibly (a KafkaConnector's connector must be its resource's name)."""
    from kubectl_offsets.cli.root import root

    path = tmp_path / "fleet.json"
    path.write_text(json.dumps({"connectors": [{"kind": strimzi.KIND_CONNECTOR, "namespace": "kafka",
                                                "name": "orders-sink", "connector": EVIL, "offsets": []}]}))
    result = CliRunner().invoke(root, ["import", "-f", str(path), "--yes", "--kubeconfig", str(tmp_path / "none")])
    assert result.exit_code == 2, result.output
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
    assert "orders\\x1b]0;pwned" in result.stderr
