"""Start-up stays light: in a fresh interpreter, printing help (and answering completion) imports none of the
heavy libraries. Those belong to the modules that use them (docs/ARCHITECTURE.md, "Heavy imports")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kubectl_offsets.cli.root import COMMANDS, LazyGroup

HEAVY = ("kubernetes", "pyspark", "ruamel.yaml", "jsonschema", "confluent_kafka")

# Runs the CLI the way the console script does, then reports every module loaded. The CLI exits through
# SystemExit after --help, so the report is written in a finally clause.
PROBE = """
import json, sys
entry, argv, report = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
try:
    if entry == "complete":
        from kubectl_offsets.__main__ import complete_main as run
    else:
        from kubectl_offsets.__main__ import main as run
    sys.argv = ["kubectl-offsets"] + argv
    run()
finally:
    with open(report, "w") as out:
        json.dump(sorted(sys.modules), out)
"""


def modules_loaded(tmp_path, argv: list[str], entry: str = "main") -> list[str]:
    report = tmp_path / "modules.json"
    result = subprocess.run([sys.executable, "-I", "-c", PROBE, entry, json.dumps(argv), str(report)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(report.read_text())


def heavy_among(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def available_commands() -> list[str]:
    return [name for name in COMMANDS if LazyGroup._available(name)]


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["version", "--client"], ["completion", "bash"]],
                         ids=" ".join)
def test_light_paths_import_nothing_heavy(tmp_path, argv):
    assert heavy_among(modules_loaded(tmp_path, argv)) == []


@pytest.mark.parametrize("command", available_commands())
def test_every_subcommands_help_imports_nothing_heavy(tmp_path, command):
    assert heavy_among(modules_loaded(tmp_path, [command, "--help"])) == []


def test_completing_subcommands_and_flags_imports_nothing_heavy(tmp_path):
    assert heavy_among(modules_loaded(tmp_path, ["version", "--"], entry="complete")) == []


def test_the_root_help_really_loads_every_command_module(tmp_path):
    """Guards the test above against passing vacuously: click loads each subcommand to print its summary."""
    loaded = set(modules_loaded(tmp_path, ["--help"]))
    expected = {f"kubectl_offsets.cli.{COMMANDS[name].split(':')[0]}" for name in available_commands()}
    assert expected <= loaded
