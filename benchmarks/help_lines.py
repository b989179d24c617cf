"""How long each command's ``--help`` is, in lines, as a terminal of 80 columns shows it (kubectl's help is read
there too). Not a test: it prints one row per command, for the before/after figures of a help change.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/help_lines.py            # a table
    PYTHONPATH=$PWD .venv/bin/python benchmarks/help_lines.py --json     # {"alter": 97, ...}
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def command_paths() -> list[list[str]]:
    """Every command and subcommand, as the words typed after ``kubectl offsets`` (the root first)."""
    import click

    from kubectl_offsets.cli import root

    paths: list[list[str]] = [[]]
    context = click.Context(root.root)
    for name in root.root.list_commands(context):
        command = root.root.get_command(context, name)
        paths.append([name])
        if isinstance(command, click.Group):
            paths += [[name, sub] for sub in command.list_commands(context)]
    return paths


def help_lines(words: list[str], columns: int = 80) -> int:
    """Lines of ``kubectl offsets WORDS --help``, run in a fresh process as a user would."""
    env = {**os.environ, "COLUMNS": str(columns), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "kubectl_offsets", *words, "--help"], env=env,
                          capture_output=True, text=True, check=True)
    return len(done.stdout.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print {command: lines} as JSON")
    parser.add_argument("--columns", type=int, default=80, help="terminal width (default 80)")
    args = parser.parse_args(argv)
    counts = {" ".join(words) or "(root)": help_lines(words, args.columns) for words in command_paths()}
    if args.json:
        print(json.dumps(counts, indent=2))
    else:
        print("\n".join(f"{name:<24} {lines:>4}" for name, lines in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
