"""Every flag of alter, reset and undo with -l/--all/-A is carried to the connectors or refused (issue 28).

--require-check, --source-bootstrap-server and --kafka-option were accepted with -l/--all/-A and dropped, so a
MirrorSourceConnector in the fleet was reset unchecked. This test takes the flags from the click command objects, so
a flag added later is tried too. For each flag it runs the fleet form once with the flag and once without, with the
cluster replaced at its edges, and records everything the fleet machinery is handed (the selection, the plan's
arguments, the run's options, the printer): the flag must either end the command with exit 2 naming it, before the
cluster is asked, or change what is recorded. How a flag travels (loose parameters, an options object) does not
matter, only that it arrives.

Where the recorded options go from there, execute() is checked separately: each member's flow gets them all.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import threading
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from kubectl_offsets.cli import fleet as cli_fleet
from kubectl_offsets.cli.cmd_alter import alter_command
from kubectl_offsets.cli.cmd_reset import reset_command
from kubectl_offsets.cli.cmd_undo import undo_command
from kubectl_offsets.cli.root import root
from kubectl_offsets.core.online import fleet, operations
from kubectl_offsets.model import OffsetsDocument, Options

COMMANDS = {"alter": alter_command, "reset": reset_command, "undo": undo_command}
# The smallest valid fleet invocation of each command; a flag is tried on top of it.
BASE = {"alter": ["--all", "--set", "orders:0=5", "--yes"], "reset": ["--all", "--yes"],
        "undo": ["--all", "--since", "2026-01-01T00:00:00Z", "--yes"]}
OFFSETS = {"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 1}, "offset": {"kafka_offset": 7}}]}


def samples(verb: str, tmp_path: Path) -> dict[str, tuple[list[str], list[str]]]:
    """(argv with the flag, argv without it) where the generic value (below) would not make a valid call."""
    offsets = tmp_path / "offsets.json"
    offsets.write_text(json.dumps(OFFSETS))
    base = BASE[verb]
    own = {
        "selector": (["-l", "team=a", *base[1:]], base),
        "all_": (base, ["-A", *base[1:]]),
        "all_namespaces": (["-A", *base[1:]], base),
        "yes": (base, [a for a in base if a != "--yes"] + ["--dry-run"]),
        "dry_run": ([*base, "--dry-run=server"], [*base, "--dry-run"]),
        "output": ([*base, "-o", "json"], base),
        "since": (["--all", "--since", "2026-02-01T00:00:00Z", "--yes"], base),
    }
    if verb == "alter":
        own.update({
            "file": (["--all", "-f", str(offsets), "--yes"], base),
            "sets": ([*base, "--set", "orders:1=7"], base),
            "skip_records": ([*base, "--skip-record", "orders:1:7"], base),
            "to_offset": ([*base, "--to-offset", "3", "--topic", "orders:1"],
                          [*base, "--shift-by", "3", "--topic", "orders:1"]),
            "shift_by": ([*base, "--shift-by", "-1", "--topic", "orders:1"],
                         [*base, "--to-offset", "1", "--topic", "orders:1"]),
            "topics": ([*base, "--shift-by", "-1", "--topic", "orders:1"],
                       [*base, "--shift-by", "-1", "--topic", "orders:2"]),
        })
    return own


def generic(param: click.Option, base: list[str]) -> tuple[list[str], list[str]]:
    """A value unlike the default, from the option's own type."""
    flag = max(param.opts, key=len)
    if param.is_flag and not param.flag_value == "client":
        secondary = param.secondary_opts and param.default
        return [*base, param.secondary_opts[0] if secondary else flag], base
    if isinstance(param.type, click.Choice):
        value = next(c for c in param.type.choices if c != param.default)
    elif isinstance(param.type, (click.types.IntParamType, click.IntRange)):
        value = str((param.default or 0) + 2)
    elif param.type.name == "duration":
        value = "7m"
    elif "=" in (param.metavar or ""):  # KEY=VALUE
        value = "security.protocol=SSL"
    elif "HOST:PORT" in (param.metavar or ""):
        value = "east-kafka:9092"
    else:
        value = "east"
    return [*base, flag, str(value)], base


def snapshot(value: Any) -> Any:
    """What an object holds, comparable between two runs: dataclasses and objects as their fields, callables and
    locks left out (they differ by identity only)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: snapshot(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): snapshot(v) for k, v in value.items() if not callable(v)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [snapshot(v) for v in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if isinstance(value, (dt.datetime, dt.timedelta)):
        return str(value)
    if callable(value):
        return "<callable>"
    if hasattr(value, "__dict__"):
        return {type(value).__name__: snapshot({k: v for k, v in vars(value).items() if not k.startswith("_")})}
    return type(value).__name__


class Cluster:
    """Stands in for the cluster: connect succeeds, the selection finds one connector; records what the fleet
    machinery is handed, up to the plan (which it does not build)."""

    def __init__(self, monkeypatch):
        self.recorded: list[Any] = []
        self.asked = False
        kube = type("Kube", (), {"namespace": "kafka"})()

        def connect(cluster):
            self.asked = True
            self.recorded.append(("connect", snapshot(cluster)))
            return kube

        def select(kube, sel):
            self.recorded.append(("select", snapshot(sel)))
            return [fleet.Member("kafka", "KafkaConnector", "orders-sink", "orders-sink")]

        def run_plan(plan_builder, cluster, options, parallel, skip_invalid, verb, progress):
            meta = click.get_current_context().meta
            self.recorded.append(("run", snapshot([cluster, options, parallel, skip_invalid, verb, progress, meta])))
            plan_builder(threading.Event())

        def plan(name):
            def record(*args, **kwargs):
                self.recorded.append((name, snapshot([args, kwargs])))
            return record

        monkeypatch.setattr(operations, "connect", connect)
        monkeypatch.setattr(fleet, "select", select)
        monkeypatch.setattr(cli_fleet, "run_plan", run_plan)
        for name in ("plan_alter", "plan_reset", "plan_undo"):
            monkeypatch.setattr(fleet, name, plan(name))

    def run(self, verb: str, argv: list[str]):
        self.recorded, self.asked = [], False
        result = CliRunner().invoke(root, [verb, *argv])
        return result, self.recorded


def every_option(verb: str) -> list[str]:
    return [p.name for p in COMMANDS[verb].params if isinstance(p, click.Option) and p.name]


CASES = [(verb, name) for verb in COMMANDS for name in every_option(verb)]


def test_the_commands_have_the_flags_this_test_knows_about():
    """A sanity check of the enumeration itself: the flags of the issue are among those tried."""
    names = {name for _, name in CASES}
    assert {"require_check", "source_bootstrap_server", "kafka_options", "bootstrap_server", "no_resume",
            "no_headers", "timeout"} <= names


@pytest.mark.parametrize("verb, name", CASES, ids=[f"{v}-{n}" for v, n in CASES])
def test_every_flag_reaches_the_fleet_or_is_refused_naming_it(monkeypatch, tmp_path, verb, name):
    param = next(p for p in COMMANDS[verb].params if p.name == name)
    assert isinstance(param, click.Option)
    with_flag, without = samples(verb, tmp_path).get(name) or generic(param, BASE[verb])
    cluster = Cluster(monkeypatch)

    baseline, recorded_without = cluster.run(verb, without)
    assert baseline.exit_code == 0, f"the baseline {without} must run: {baseline.output}"
    result, recorded_with = cluster.run(verb, with_flag)

    if result.exit_code == 2:
        assert any(opt in result.stderr for opt in param.opts), \
            f"{with_flag}: refused without naming {param.opts}: {result.stderr}"
        assert not cluster.asked, f"{with_flag}: refused only after the cluster was asked"
        return
    assert result.exit_code == 0, result.output
    assert recorded_with != recorded_without, f"{'/'.join(param.opts)} was accepted with -l/--all/-A and dropped"


def test_execute_gives_every_member_the_options_of_the_run(monkeypatch):
    """The plan's items run with the options the run was given (only the confirmation and the dry run are spent):
    --require-check's MirrorMaker 2 settings reached the plan but not the members' flows."""
    from kubectl_offsets.core.online.mm2_check import Mm2Settings

    seen: list[Options] = []

    class Lanes:
        interrupted, failures = False, []

    def run_lanes(cluster, members, one, parallel, stop, progress):
        for member in members:
            one(None, member)
        return Lanes()

    monkeypatch.setattr(fleet, "_run_lanes", run_lanes)
    member = fleet.Member("kafka", "KafkaMirrorMaker2", "mirror", "east->west.MirrorSourceConnector")
    item = fleet.PlanItem(member, "reset", operations.Preview("reset", member.spec, None, OffsetsDocument(), None),
                          run=lambda kube, options, progress: seen.append(options))
    options = Options(yes=False, dry_run=False, resume=False, force=True, mm2=Mm2Settings(require_check=True))
    fleet.execute(None, fleet.Plan([item]), options)
    assert seen and seen[0].mm2 == Mm2Settings(require_check=True)
    assert (seen[0].resume, seen[0].force, seen[0].yes, seen[0].dry_run) == (False, True, True, False)
