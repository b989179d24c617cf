"""kubectl's output conventions on list/alter/reset/undo/backups: -o name, -o jsonpath=TEMPLATE (the subset named in
--help), --no-headers, and -v N request logging."""

from __future__ import annotations

import json
import logging

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.kubectl_output import jsonpath
from kubectl_offsets.cli.root import root
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
