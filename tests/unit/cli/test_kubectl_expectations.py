"""What a kubectl user expects from the command line (issue 23 section 4), through the root command and click's
CliRunner: input checked before any cluster is asked, kubectl's flag forms, one error style."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.root import root


@pytest.fixture
def unreachable_kubeconfig(tmp_path):
    """A kubeconfig whose API server is a closed port: any command that asks the cluster fails (exit 1)."""
    path = tmp_path / "kubeconfig"
    path.write_text("""apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:9"}
users:
- name: me
  user: {token: not-a-secret}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: me, namespace: kafka}
current-context: nowhere
""")
    return str(path)


def invoke(*args: str, kubeconfig: str | None = None, input: str | None = None):
    env = {"KUBECONFIG": kubeconfig} if kubeconfig else {}
    return CliRunner().invoke(root, list(args), env=env, input=input, catch_exceptions=False)


# --- row 1: input checked locally first ---------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["--set", "orders0=5"], "--set 'orders0=5' is not of the form"),
    (["--skip-record", "orders:x:1"], "--skip-record 'orders:x:1' is not of the form"),
    (["--set", "orders:0=-1"], "must not be negative"),
    (["-f", "/nonexistent/offsets.json"], "no such file: /nonexistent/offsets.json"),
    (["--to-offset", "3", "--topic", "orders:a"], "--topic 'orders:a' is not of the form"),
])
def test_alter_checks_its_input_before_asking_the_cluster(unreachable_kubeconfig, args, words):
    result = invoke("alter", "x", *args, "--yes", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_alter_checks_a_broken_file_before_asking_the_cluster(unreachable_kubeconfig, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"offsets": [}')
    result = invoke("alter", "x", "-f", str(broken), "--yes", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 2, result.output
    assert f"{broken} is not valid JSON" in result.output


# --- row 2: kubectl's --dry-run forms -----------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["--dry-run=client", "--dry-run=server", "--dry-run=none", "--dry-run"])
def test_alter_takes_kubectls_dry_run_forms(unreachable_kubeconfig, form):
    """Parsed as kubectl does (the bad --set then fails the local check, exit 2), also before the name."""
    result = invoke("alter", form, "x", "--set", "orders0=5", "--yes", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 2, result.output
    assert "--set 'orders0=5' is not of the form" in result.output


def test_an_unknown_dry_run_mode_is_refused():
    result = invoke("alter", "x", "--dry-run=maybe", "--set", "orders:0=5")
    assert result.exit_code == 2
    assert "'maybe' is not one of 'none', 'client', 'server'" in result.output


# --- row 5: global flags before the subcommand, as kubectl -----------------------------------------------------

@pytest.mark.parametrize("before", [
    ["-n", "kafka"], ["-nkafka"], ["--namespace=kafka"], ["--context", "nowhere"], ["--timeout", "30s"],
    ["-v", "6"], ["-v=2"], ["--v=4"],
])
def test_global_flags_go_before_the_subcommand(unreachable_kubeconfig, before):
    result = invoke(*before, "--kubeconfig", unreachable_kubeconfig, "list", "x")
    assert result.exit_code == 11, result.output  # it got as far as asking the cluster, with that kubeconfig
    assert "cannot reach the API server at https://127.0.0.1:9" in result.output


def test_global_flags_reach_a_nested_subcommand(unreachable_kubeconfig):
    result = invoke("-n", "kafka", "alter", "x", "--set", "orders0=5", "--yes", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 2 and "--set 'orders0=5' is not of the form" in result.output, result.output


def test_verbosity_also_after_the_subcommand(unreachable_kubeconfig):
    result = invoke("list", "x", "-v=6", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 11 and "cannot reach the API server" in result.output, result.output


# --- row 8: output paths checked before the scan -------------------------------------------------------------

@pytest.mark.parametrize("report, words", [
    ("/nonexistent/x.csv", "--report /nonexistent/x.csv: the directory /nonexistent does not exist"),
    ("{tmp}", "--report {tmp}: is a directory"),
])
def test_compute_checks_the_report_path_before_the_scan(monkeypatch, tmp_path, report, words):
    def scan_started(*args, **kwargs):
        raise AssertionError("the scan ran before the --report path was checked")
    monkeypatch.setattr("kubectl_offsets.core.compute.positions.compute", scan_started)
    data = tmp_path / "data.json"
    data.write_text("{}\n")
    report = report.format(tmp=tmp_path)
    result = invoke("compute", "--data", str(data), "--format", "json", "--skip-poison", "--invalid", "json",
                    "--report", report)
    assert result.exit_code == 2, result.output
    assert words.format(tmp=tmp_path) in result.output


# --- row 9: lag --current takes what list -o csv prints --------------------------------------------------------

@pytest.mark.parametrize("target, kind, stored", [("my-sink", "sink", 1200), ("kmm2/mirror", "mirror-source", 1199)])
def test_lag_current_takes_the_csv_that_list_prints(monkeypatch, tmp_path, target, kind, stored):
    """list -o csv prints topic,partition,next-record-to-read for sinks and MirrorSourceConnectors alike."""
    from kubectl_offsets.core.compute import lag

    seen = {}

    def measured(kind_, current, source, progress=None):
        seen["kind"], seen["current"] = kind_, current
        return []
    monkeypatch.setattr(lag, "lag", measured)
    current = tmp_path / "o.csv"
    current.write_text("orders,0,1200\norders,1,7\n")
    extra = ["--connector", "source"] if target.startswith("kmm2/") else []
    result = invoke("lag", target, *extra, "--bootstrap-server", "127.0.0.1:9", "--current", str(current),
                    "-o", "json")
    assert result.exit_code == 0, result.output
    assert seen["kind"].value == kind
    offsets = {(e.partition.get("kafka_topic") or e.partition.get("topic"),
                e.partition.get("kafka_partition", e.partition.get("partition"))): e.offset for e in seen["current"]}
    assert list(offsets[("orders", 0)].values()) == [stored]


# --- row 11: conflicting gitops flags are bad input ----------------------------------------------------------

@pytest.mark.parametrize("flags", [["--pr", "-o", "diff"], ["--commit", "-o", "diff"], ["--push", "--out", "x"]])
@pytest.mark.parametrize("in_git", [True, False])
def test_gitops_conflicting_flags_exit_2(tmp_path, flags, in_git):
    import subprocess

    if in_git:
        subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    result = invoke("gitops", "alter", "orders-sink", "--set", "orders:0=1", "--repo", str(tmp_path), *flags)
    assert result.exit_code == 2, result.output
    assert "write no commit" in result.output


# --- row 12: Kafka out of reach has its own exit code ---------------------------------------------------------

def test_lag_and_compute_tell_an_unreachable_kafka_from_bad_flags(tmp_path, monkeypatch):
    from kubectl_offsets.adapters import kafka

    monkeypatch.setattr(kafka.Broker.__init__, "__defaults__", ((), 2.0))  # a closed port: give up after 2 s

    current = tmp_path / "o.json"
    current.write_text('{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, '
                       '"offset": {"kafka_offset": 5}}]}')
    for args in (["lag", "my-sink", "--bootstrap-server", "127.0.0.1:9", "--current", str(current), "--max-lag", "0"],
                 ["compute", "--bootstrap-server", "127.0.0.1:9", "--topic", "orders", "--to-latest"]):
        result = invoke(*args)
        assert result.exit_code == 10, result.output  # ExitStatus.KAFKA_UNREACHABLE, not 2 (bad input)
        assert "cannot get answers from the Kafka broker at 127.0.0.1:9" in result.output


# --- row 13: a broken manifest is one line with file:line --------------------------------------------------------

def test_create_reports_broken_yaml_in_one_line(tmp_path, unreachable_kubeconfig):
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: kafka.strimzi.io/v1\nkind: KafkaConnector\nmetadata:\n  name: x\n  labels: [a\n"
                      "spec: {}\n")
    result = invoke("create", "-f", str(broken), "--yes", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 2, result.output
    error_lines = [line for line in result.output.splitlines() if not line.startswith("  hint:")]
    assert error_lines == [f"error: {broken} is not valid YAML at line 6 column 5: expected ',' or ']', but got ':'"]


# --- row 14: a document of another connector kind says so in one line -----------------------------------------

SINK_MANIFEST = """apiVersion: kafka.strimzi.io/v1
kind: KafkaConnector
metadata:
  name: orders-sink
  labels: {strimzi.io/cluster: connect}
spec:
  class: org.apache.kafka.connect.file.FileStreamSinkConnector
  tasksMax: 1
  config: {topics: orders}
"""


def test_a_mirrormaker2_document_given_to_a_sink_says_so(tmp_path):
    (tmp_path / "sink.yaml").write_text(SINK_MANIFEST)
    mm2 = tmp_path / "mm2-doc.json"
    mm2.write_text('{"offsets": [{"partition": {"cluster": "east", "topic": "orders", "partition": 0}, '
                   '"offset": {"offset": 41}}]}')
    result = invoke("gitops", "alter", "orders-sink", "--repo", str(tmp_path), "-f", str(mm2), "-o", "diff")
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: {mm2} holds a MirrorMaker 2 document (MirrorSourceConnector offsets) given to a sink "
                      "connector"], result.output
    assert "schemas/" not in result.output and len(result.output.strip().splitlines()) <= 3


# --- row 15: one duration parser: 2h and PT2H everywhere --------------------------------------------------------

@pytest.mark.parametrize("text, seconds", [("2h", 7200), ("PT2H", 7200), ("90s", 90), ("1h30m", 5400), ("1d", 86400),
                                           ("P1DT12H", 129600), ("30m", 1800), ("pt5m", 300)])
def test_one_duration_parser_takes_both_forms(text, seconds):
    from kubectl_offsets.times import parse_duration

    assert parse_duration(text, "--by-duration").total_seconds() == seconds


@pytest.mark.parametrize("text", ["2x", "P", "PT", "h", "", "-2h", "2h-"])
def test_the_duration_parser_names_the_flag(text):
    from kubectl_offsets.errors import InputError
    from kubectl_offsets.times import parse_duration

    with pytest.raises(InputError, match="--max-age '.*' is not a duration"):
        parse_duration(text, "--max-age")


def test_by_duration_takes_2h_on_the_command_line(monkeypatch):
    """compute --by-duration 2h reaches the broker step (its address is closed: exit 10), not a parse error."""
    from kubectl_offsets.adapters import kafka

    monkeypatch.setattr(kafka.Broker.__init__, "__defaults__", ((), 2.0))
    result = invoke("compute", "--bootstrap-server", "127.0.0.1:9", "--topic", "orders", "--by-duration", "2h")
    assert result.exit_code == 10, result.output


# --- row 16: the same flags on every command that changes things -------------------------------------------------

@pytest.mark.parametrize("command", ["alter", "reset", "undo", "create", "delete", "trigger", "recover", "import"])
def test_every_command_that_changes_things_takes_yes_and_dry_run(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert "-y, --yes" in result.output and "--dry-run" in result.output


@pytest.mark.parametrize("command", ["trigger", "recover"])
def test_trigger_and_recover_parse_yes_and_dry_run(unreachable_kubeconfig, command):
    result = invoke(command, "x", "--yes", "--dry-run", kubeconfig=unreachable_kubeconfig)
    assert result.exit_code == 11 and "cannot reach the API server" in result.output, result.output


# --- row 17: help that is true per command; one name for the current offsets ------------------------------------

GENERIC_OUTPUT_HELP = 'the {"offsets": [...]} document alter -f takes'


def _help(*command: str) -> str:
    result = invoke(*command, "--help")
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # click wraps lines: compare word by word


@pytest.mark.parametrize("command, says", [
    (["lag"], "the lag report"),
    (["check"], "the check report"),
    (["compute", "connect-offsets"], '{"connectors": {NAME: {"offsets": [...]}}}'),
])
def test_output_help_is_true_for_each_command(command, says):
    text = _help(*command)
    assert GENERIC_OUTPUT_HELP not in text
    assert says in text


@pytest.mark.parametrize("command", [["list"], ["compute"]])
def test_output_help_where_alter_takes_it(command):
    assert GENERIC_OUTPUT_HELP in _help(*command)


def test_gitops_names_the_current_offsets_current_and_keeps_before_hidden(tmp_path):
    text = _help("gitops", "alter")
    assert "--current FILE" in text and "--before" not in text
    (tmp_path / "sink.yaml").write_text(SINK_MANIFEST)
    current = tmp_path / "now.json"
    current.write_text('{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, '
                       '"offset": {"kafka_offset": 10}}]}')
    for flag in ("--current", "--before"):
        result = invoke("gitops", "alter", "orders-sink", "--repo", str(tmp_path), "--shift-by", "-3", "--topic",
                        "orders", flag, str(current), "-o", "diff")
        assert result.exit_code == 0, result.output
        assert '\\"kafka_offset\\":7' in result.output.replace(" ", "") or '"kafka_offset":7' in \
            result.output.replace(" ", ""), result.output


# --- also: the exit codes written once, in the root help; one error style ------------------------------------------

def _every_command_path():
    import click

    from kubectl_offsets.cli.root import root

    ctx = click.Context(root)
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        yield [name]
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                yield [name, sub]


def test_the_root_help_lists_every_exit_code():
    from kubectl_offsets.errors import ExitStatus

    text = invoke("--help").output
    assert "Exit codes:" in text
    for status in ExitStatus:
        assert f"  {int(status)} " in text.split("Exit codes:")[1], (status, text)


@pytest.mark.parametrize("path", list(_every_command_path()), ids=" ".join)
def test_every_command_help_points_to_the_exit_codes_instead_of_repeating_them(path):
    """Issue 30: most of the table does not apply to completion or version; it is written once."""
    text = invoke(*path, "--help").output
    assert "Exit codes:" not in text
    assert "exit codes: kubectl offsets --help" in " ".join(text.split()), text


@pytest.mark.parametrize("args", [
    ["alter", "x", "--dry-run=maybe"],
    ["lag", "x", "--bootstrap-server", "b:1", "--kafka-option", "novalue"],
    ["list", "x", "--timeout", "soon"],
    ["alter", "x", "--no-such-flag"],
    ["gitops", "alter", "x", "--repo", "/nonexistent"],
])
def test_usage_errors_print_one_error_line_and_a_hint(args):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("error: ") and "Usage:" not in result.output, result.output
    assert len(lines) == 2 and lines[1].startswith("  hint: ") and "--help" in lines[1], result.output
