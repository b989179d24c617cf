"""kubectl's output conventions on list/alter/reset/undo/backups: -o name, -o jsonpath=TEMPLATE (the subset named in
--help), --no-headers, and -v N request logging."""

from __future__ import annotations

import json
import logging

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.kubectl_output import jsonpath
from kubectl_offsets.cli.root import root
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.online import operations
from kubectl_offsets.errors import InputError
from tests.unit.cli.test_backups_command import kube  # noqa: F401 - the fixture
from tests.unit.core.online.test_backup_catalog import SINK_NEW

DOC = {"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": 12}},
                   {"partition": {"kafka_topic": "orders", "kafka_partition": 1}, "offset": {"kafka_offset": 7}}],
       "name": "x", "nested": {"list": [[1, 2], [3]]}}


@pytest.mark.parametrize("template, expected", [
    ("{.name}", "x"),
    ("{.offsets[0].offset.kafka_offset}", "12"),
    ("{.offsets[-1].partition.kafka_partition}", "1"),
    ("{.offsets[*].offset.kafka_offset}", "12 7"),
    ("{.offsets[*].partition}", '{"kafka_topic":"orders","kafka_partition":0} {"kafka_topic":"orders","kafka_partition":1}'),
    ("name={.name}, first={.offsets[0].offset.kafka_offset}", "name=x, first=12"),
    ("{.nested.list[0][1]}", "2"),
    ("{.missing}", ""),
    ("{.name}{'\\n'}", "x\n"),
])
def test_jsonpath_subset(template, expected):
    assert jsonpath(template, DOC) == expected


@pytest.mark.parametrize("template", ["{range .offsets[*]}{.offset}{end}", "{.offsets[?(@.x==1)]}", "{.name",
                                      "{..name}", "{.offsets[1:2]}"])
def test_jsonpath_outside_the_subset_is_a_clear_error(template):
    with pytest.raises(InputError) as caught:
        jsonpath(template, DOC)
    assert "jsonpath" in caught.value.message


def test_backups_jsonpath_and_no_headers(kube):  # noqa: F811
    result = CliRunner().invoke(root, ["backups", "sink", "-o", "jsonpath={.backups[0].name}"])
    assert result.exit_code == 0, result.output
    assert result.stdout == SINK_NEW["metadata"]["name"]
    table = CliRunner().invoke(root, ["backups", "sink", "--no-headers"])
    assert table.exit_code == 0, table.output
    assert len(table.stdout.splitlines()) == 3 and "NAME" not in table.stdout


def test_list_overview_no_headers_and_jsonpath(monkeypatch):
    from tests.unit.core.online.test_connectors_overview import MIRROR, RUNNING_SINK
    from tests.unit.core.online.test_fleet import FakeKube
    from kubectl_offsets import strimzi

    monkeypatch.setattr(operations, "connect", lambda cluster: FakeKube({strimzi.KIND_CONNECTOR: [RUNNING_SINK],
                                                                          strimzi.KIND_MM2: [MIRROR]}))
    table = CliRunner().invoke(root, ["list", "--no-headers"])
    assert table.exit_code == 0, table.output
    assert table.stdout.splitlines()[0].split()[0] == "orders-sink"
    states = CliRunner().invoke(root, ["list", "-o", "jsonpath={.connectors[*].state}"])
    assert states.stdout == "RUNNING  PAUSED"  # kubectl prints an empty string for a missing value


def test_a_bad_output_format_names_the_choices():
    result = CliRunner().invoke(root, ["backups", "-o", "wide"])
    assert result.exit_code == 2 and "jsonpath=" in result.stderr


def test_verbosity_six_logs_method_url_status_and_latency_never_headers(monkeypatch, capsys):
    from kubectl_offsets.cli import kubectl_output

    lines = []
    logger = kubectl_output.request_logger(6, lines.append)
    logger("GET", "https://api:6443/api/v1/namespaces/kafka/configmaps?labelSelector=a%3Db", 200, 0.0123)
    assert lines == ["GET https://api:6443/api/v1/namespaces/kafka/configmaps?labelSelector=a%3Db 200 OK in 12 "
                     "milliseconds"]
    assert kubectl_output.request_logger(5, lines.append) is None
    assert json.dumps(lines).count("Authorization") == 0
    assert logging  # (the module is imported for its side effects elsewhere)


def test_output_formats_still_complete():
    from click.shell_completion import ShellComplete

    completer = ShellComplete(root, {}, "kubectl offsets", "_KUBECTL_OFFSETS_COMPLETE")
    offered = [c.value for c in completer.get_completions(["list", "-o"], "j")]
    assert offered == ["json", "jsonpath="]


@pytest.mark.parametrize("argv", [
    ["alter", "--all", "--set", "t:0=1", "--yes"],
    ["reset", "-l", "a=b", "--yes"],
    ["undo", "sink", "--dry-run"],
    ["reset", "sink", "--dry-run"],
])
def test_jsonpath_where_no_json_result_comes_is_refused_before_anything_runs(argv, tmp_path, monkeypatch):
    def no_cluster(cluster):
        raise AssertionError("refused too late: the command already talks to the cluster")
    monkeypatch.setattr(operations, "connect", no_cluster)
    result = CliRunner().invoke(root, [*argv, "-o", "jsonpath={.offsets}", "--kubeconfig", str(tmp_path / "none")])
    assert result.exit_code == 2, result.output
    assert "jsonpath" in result.stderr


def test_backups_prune_with_jsonpath_is_refused_before_deleting(kube):  # noqa: F811
    result = CliRunner().invoke(root, ["backups", "--all", "--prune", "--keep", "1", "--yes", "-o", "jsonpath={.x}"])
    assert result.exit_code == 2 and "--prune" in result.stderr
    assert kube.deleted == []


# --- -o name, -o jsonpath and --no-headers render the command's result; the command runs once ---------------------

def _fleet_reset(monkeypatch, *, fails: bool):
    """reset -l with one KafkaConnector selected, planned and run by stand-ins: done, or failed."""
    from kubectl_offsets import strimzi
    from kubectl_offsets.cli import fleet as cli_fleet
    from kubectl_offsets.core.online import fleet
    from kubectl_offsets.core.online.engine import Outcome
    from kubectl_offsets.errors import OffsetsError
    from kubectl_offsets.model import OffsetsDocument
    from tests.unit.core.online.test_fleet import SINK, FakeKube

    member = fleet.Member("kafka", strimzi.KIND_CONNECTOR, "orders-sink", "orders-sink")
    plan = fleet.Plan([fleet.PlanItem(member, "reset", run=lambda client, options, progress: None)])
    outcome = Outcome(ConnectorKind.SINK, OffsetsDocument(), OffsetsDocument(), None, "orders-sink-backup-1",
                      "running", "j1")
    result = fleet.MemberResult(plan.items[0], started=True, **(
        {"error": OffsetsError("the operator did not answer")} if fails else {"outcome": outcome}))
    runs = []
    monkeypatch.setattr(operations, "connect", lambda cluster: FakeKube({strimzi.KIND_CONNECTOR: [SINK]}))
    monkeypatch.setattr(fleet, "plan_reset", lambda *args, **kwargs: plan)
    monkeypatch.setattr(fleet, "execute", lambda *args, **kwargs: runs.append(1) or fleet.FleetReport([result]))
    monkeypatch.setattr(cli_fleet, "_show_plan", lambda plan: None)
    return runs


def test_no_headers_leaves_out_the_header_of_a_fleet_summary_that_ends_in_a_failure(monkeypatch):
    """The summary of a run with a failed connector is printed before the command exits non-zero: --no-headers
    still applies to it."""
    _fleet_reset(monkeypatch, fails=True)
    result = CliRunner().invoke(root, ["reset", "-l", "team=a", "--yes", "--no-headers"])
    assert result.exit_code != 0
    assert result.stdout.split()[:2] == ["kafka", "kafkaconnector/orders-sink"], result.stdout
    assert "NAMESPACE" not in result.stdout


@pytest.mark.parametrize("fails", [False, True])
def test_name_output_of_a_fleet_run_names_the_resources_it_changed_and_runs_it_once(monkeypatch, fails):
    """-o name of reset -l: the resources whose offsets were changed (none when it failed), never the summary
    table, and the fleet is run once."""
    runs = _fleet_reset(monkeypatch, fails=fails)
    result = CliRunner().invoke(root, ["reset", "-l", "team=a", "--yes", "-o", "name"])
    assert (result.exit_code != 0) == fails
    assert result.stdout == ("" if fails else "kafkaconnector/orders-sink\n")
    assert runs == [1]


def _single_alter(monkeypatch):
    from kubectl_offsets.core.online.engine import Outcome
    from kubectl_offsets.model import OffsetsDocument

    before = OffsetsDocument.from_json({"offsets": [DOC["offsets"][0]]})
    after = OffsetsDocument.from_json({"offsets": [{**DOC["offsets"][0], "offset": {"kafka_offset": 3}}]})
    calls = []

    def alter_offsets(client, spec, request, **kwargs):
        calls.append(spec.text)
        return Outcome(ConnectorKind.SINK, before, after, after, "orders-sink-backup-1", "running", "j1")

    monkeypatch.setattr(operations, "connect", lambda cluster: object())
    monkeypatch.setattr(operations, "alter_offsets", alter_offsets)
    return calls


@pytest.mark.parametrize("output, expected", [
    ("name", "kafkaconnector/orders-sink\n"),
    ("jsonpath={.offsets[0].offset.kafka_offset}", "3"),
])
def test_name_and_jsonpath_of_a_mutation_come_from_its_one_run(monkeypatch, output, expected):
    calls = _single_alter(monkeypatch)
    result = CliRunner().invoke(root, ["alter", "orders-sink", "--set", "orders:0=3", "--yes", "-o", output])
    assert result.exit_code == 0, result.output
    assert result.stdout == expected
    assert calls == ["orders-sink"], "the mutation ran more than once"


def test_no_headers_of_a_mutation_drops_only_the_header(monkeypatch):
    _single_alter(monkeypatch)
    result = CliRunner().invoke(root, ["alter", "orders-sink", "--set", "orders:0=3", "--yes", "--no-headers"])
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["orders", "0", "12", "3", "changed"]


def test_jsonpath_values_reach_the_terminal_escaped_like_every_other_output(monkeypatch):
    """A backup's connector annotation is anyone's text: a JSONPath of it prints an escape sequence visibly, as the
    table and JSON outputs do, instead of handing it to the terminal."""
    from tests.unit.core.online.test_backup_catalog import FakeKube, backup

    forged = backup("sink-offsets-backup-20261126t110000z", "sink", "sink\x1b]0;owned\x07", "2026-11-26T11:00:00Z")
    monkeypatch.setattr(operations, "connect", lambda cluster: FakeKube([forged]))
    result = CliRunner().invoke(root, ["backups", "--all", "-o", "jsonpath={.backups[0].connector}"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "sink\\x1b]0;owned\\x07"
