"""Start-up stays light: in a fresh interpreter, printing help (and answering completion) imports none of the
heavy libraries. Those belong to the modules that use them (docs/ARCHITECTURE.md, "Heavy imports")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_offsets.cli.root import COMMANDS, LazyGroup

CHECKOUT = Path(__file__).resolve().parents[2]
HEAVY = ("kubernetes", "pyspark", "ruamel.yaml", "jsonschema", "confluent_kafka")

# Runs the CLI the way the console script does, then reports every module loaded. The CLI exits through
# SystemExit after --help, so the report is written in a finally clause.
# The checkout under test comes first on the path: -I ignores PYTHONPATH, and an editable install may point at
# another checkout.
PROBE = """
import json, sys
entry, argv, report, checkout = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], sys.argv[4]
sys.path.insert(0, checkout)
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
    result = subprocess.run([sys.executable, "-I", "-c", PROBE, entry, json.dumps(argv), str(report), str(CHECKOUT)],
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


def command_module(name: str) -> str:
    return f"kubectl_offsets.cli.{COMMANDS[name].split(':')[0]}"


@pytest.mark.parametrize("argv, entry", [(["--help"], "main"), (["-h"], "main"), ([""], "complete"),
                                         (["c"], "complete")], ids=["--help", "-h", "<TAB>", "c<TAB>"])
def test_the_root_help_and_subcommand_completion_import_no_command_module(tmp_path, argv, entry):
    """`kubectl offsets --help` and `kubectl offsets <TAB>` list the commands from root.SUMMARIES: importing the
    16 command modules (and what they import) was most of --help's start-up."""
    loaded = modules_loaded(tmp_path, argv, entry)
    assert [m for m in loaded if m.startswith("kubectl_offsets.") and m not in ROOT_PATH] == []


ROOT_PATH = {"kubectl_offsets.cli", "kubectl_offsets.cli.root", "kubectl_offsets.__main__",
             "kubectl_offsets.cli.complete",  # the entry points themselves
             "kubectl_offsets.cli.invocation",  # kubectl's flag forms, which the root normalizes on every invocation
             "kubectl_offsets.cli.help",  # the help layout and the global flags' help (click only)
             "kubectl_offsets.cli.exits", "kubectl_offsets.errors",  # the exit-code list that --help ends with
             "kubectl_offsets.output", "kubectl_offsets.output.terminal"}  # and how every message reaches the terminal


@pytest.mark.parametrize("command", available_commands())
def test_a_subcommands_help_loads_its_module(tmp_path, command):
    """Guards the heavy-import test of each subcommand's help against passing vacuously."""
    assert command_module(command) in modules_loaded(tmp_path, [command, "--help"])


def test_every_summary_is_the_first_paragraph_of_its_commands_help():
    import click

    from kubectl_offsets.cli.root import SUMMARIES, root

    ctx = click.Context(root)
    assert list(SUMMARIES) == list(COMMANDS)
    for name in available_commands():
        command = root.get_command(ctx, name)
        first = " ".join(inspect_first_paragraph(command.help or ""))
        assert SUMMARIES[name] == first, f"root.SUMMARIES[{name!r}] differs from its command's help"


def inspect_first_paragraph(text: str) -> list[str]:
    import inspect

    return inspect.cleandoc(text).split("\n\n")[0].split()


@pytest.mark.parametrize("width", [60, 80, 110])
def test_the_root_help_reads_as_click_would_print_it_from_the_commands(width):
    """The summaries, shortened and laid out exactly as click's own Group does after loading every command."""
    import click

    from kubectl_offsets.cli.root import root

    ctx = click.Context(root, info_name="kubectl offsets", terminal_width=width, max_content_width=width)
    ours, clicks = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    root.format_commands(ctx, ours)
    click.Group.format_commands(root, ctx, clicks)
    assert ours.getvalue() == clicks.getvalue() != ""
