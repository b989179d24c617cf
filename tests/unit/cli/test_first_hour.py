"""The first hour of a kubectl user (issue 30, section 3): the habits that need no cluster, one test (or a few) per
row of the issue's table, through the root command as a user runs it. The rows that need a cluster are in
tests/integration/cli/test_first_hour_cluster.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kubectl_offsets.cli.root import root

from ..core.gitops.helpers import cli as gitops_cli
from ..core.gitops.helpers import copy_fixture, snapshot

ROOT = Path(__file__).resolve().parents[3]
CLOSED = "127.0.0.1:9"  # a closed port: the API server that never answers


def kubeconfig(tmp_path: Path, user: str = "{token: not-a-secret}", scheme: str = "https") -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {{server: "{scheme}://{CLOSED}"}}
users:
- name: me
  user: {user}
contexts:
- name: nowhere
  context: {{cluster: nowhere, user: me, namespace: kafka}}
current-context: nowhere
""")
    return str(path)


def invoke(*args: str, kubeconfig: str | None = None):
    env = {"KUBECONFIG": kubeconfig} if kubeconfig else {}
    return CliRunner().invoke(root, list(args), env=env, catch_exceptions=False)


# A hang guard, not a speed bound: in the suite, at a load average of 40 on two cores, a run of 0.56 CPU-s took 24 s.
HANG = 120


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A fresh process, as from a shell: what the kubernetes client and logging print goes to the real stderr."""
    return subprocess.run([sys.executable, "-m", "kubectl_offsets", *args], capture_output=True, text=True,
                          timeout=HANG, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, stdin=subprocess.DEVNULL)


# --- input errors before the --yes refusal -----------------------------------------------------------------------

@pytest.mark.parametrize("command", [["alter", "my-sink", "--set", "orders:0:1"],
                                     ["alter", "-l", "team=x", "--set", "orders:0:1"],
                                     ["alter", "my-sink", "--to-datetime", "yesterday"]])
def test_without_a_terminal_the_input_error_comes_before_the_yes_refusal(tmp_path, command):
    """Today's code said "pass --yes" first; after adding --yes the user only then learnt the --set was wrong."""
    result = invoke(*command, kubeconfig=kubeconfig(tmp_path))  # CliRunner's stdin is no terminal
    assert result.exit_code == 2, result.output
    assert "--yes" not in result.output, result.output
    assert "--set 'orders:0:1'" in result.output or "--to-datetime" in result.output, result.output


# --- -f CSV with the header the README documents ------------------------------------------------------------------

@pytest.mark.parametrize("header", ["topic,partition,next-offset", "topic,partition,offset", "TOPIC,PARTITION,NEXT-OFFSET"])
def test_a_csv_header_with_next_offset_is_accepted(tmp_path, header):
    from kubectl_offsets.connect import ConnectorKind
    from kubectl_offsets.core.inputs import ConnectorFacts, check_offsets_file, read_offsets_file

    path = tmp_path / "offsets.csv"
    path.write_text(f"{header}\norders,0,42\n")
    check_offsets_file(str(path))
    document = read_offsets_file(str(path), ConnectorFacts(kind=ConnectorKind.SINK))
    assert [entry.offset for entry in document.entries] == [{"kafka_offset": 42}]


def test_alter_takes_that_csv_before_asking_the_cluster(tmp_path):
    path = tmp_path / "offsets.csv"
    path.write_text("topic,partition,next-offset\norders,0,42\n")
    result = invoke("alter", "my-sink", "-f", str(path), "--yes", kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 11 and "cannot reach the API server" in result.output, result.output


# --- -o jsonpath as kubectl ---------------------------------------------------------------------------------------

DOCUMENT = {"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0},
                         "offset": {"kafka_offset": 42}}]}


@pytest.mark.parametrize("template, printed", [
    ('{.offsets[0].offset.kafka_offset}{"\\n"}', "42\n"),
    ("{.offsets[0].offset.kafka_offset}{'\\n'}", "42\n"),
    ('{.offsets[*].partition.kafka_topic}{"\\t"}x', "orders\tx"),
    ('{"}"}', "}"),
])
def test_jsonpath_takes_kubectls_quoted_strings(template, printed):
    from kubectl_offsets.cli.kubectl_output import jsonpath, jsonpath_template

    assert jsonpath(jsonpath_template(f"jsonpath={template}"), DOCUMENT) == printed


@pytest.mark.parametrize("output, words", [
    ("jsonpath=", "names no template"),
    ("jsonpath=''", "names no template"),
    ("jsonpath={'\\x'}", "is not a valid string"),
    ('jsonpath={"\\q"}', "is not a valid string"),
])
def test_jsonpath_templates_kubectl_refuses_are_refused_before_anything_runs(tmp_path, output, words):
    """{'\\x'} was a UnicodeDecodeError traceback (issue 28); jsonpath= printed nothing with exit 0."""
    result = invoke("list", "my-sink", "-o", output, kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and words in result.output, result.output
    assert "Traceback" not in result.output


def test_a_jsonpath_index_past_the_end_is_an_error_as_in_kubectl():
    from kubectl_offsets.cli.kubectl_output import jsonpath
    from kubectl_offsets.errors import InputError

    with pytest.raises(InputError, match="array index out of bounds: index 5, length 1"):
        jsonpath("{.offsets[5].offset}", DOCUMENT)
    assert jsonpath("{.offsets[-1].offset.kafka_offset}", DOCUMENT) == "42"
    assert jsonpath("{.no.such.key}", DOCUMENT) == ""  # a missing key still prints nothing, as kubectl's default


# --- -v -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", [["-v=abc"], ["-v", "abc"], ["--v=x"]])
def test_a_verbosity_that_is_no_number_is_a_bad_value(tmp_path, flag):
    result = invoke("list", "my-sink", *flag, kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2, result.output
    assert "No such option" not in result.output and "is not a valid integer" in result.output, result.output


def test_v6_against_an_unreachable_cluster_prints_one_clean_line_per_request(tmp_path):
    done = run("list", "my-sink", "-v", "6", "--kubeconfig", kubeconfig(tmp_path, scheme="http"))
    assert done.returncode == 11, done.stderr
    assert "Retry(" not in done.stderr and "urllib3" not in done.stderr, done.stderr
    requests = [line for line in done.stderr.splitlines() if line.startswith("GET ")]
    assert requests == [f"GET http://{CLOSED}/apis failed: Connection refused in {requests[0].split(' in ')[1]}"], \
        done.stderr


# --- the kubeconfig and the API server: kubectl's words, exit codes of their own -------------------------------------

def test_a_kubeconfig_that_does_not_exist(tmp_path):
    done = run("list", "my-sink", "--kubeconfig", str(tmp_path / "nope"))
    assert done.returncode == 12, done.stderr
    assert done.stderr.splitlines()[0] == f"error: the kubeconfig {tmp_path / 'nope'} does not exist", done.stderr


def test_an_unknown_context(tmp_path):
    done = run("list", "my-sink", "--kubeconfig", kubeconfig(tmp_path), "--context", "staging")
    assert done.returncode == 12, done.stderr
    assert done.stderr.splitlines()[0] == 'error: context "staging" does not exist', done.stderr


def test_a_credential_plugin_that_is_not_installed(tmp_path):
    user = "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: no-such-auth-plugin}}"
    done = run("list", "my-sink", "--kubeconfig", kubeconfig(tmp_path, user=user))
    assert done.returncode == 12, done.stderr
    assert "ERROR:root" not in done.stderr and "Retry(" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[0] == "error: getting credentials: exec: executable no-such-auth-plugin not found"


def test_an_unreachable_api_server_has_its_own_exit_code_in_the_table(tmp_path):
    done = run("list", "my-sink", "--kubeconfig", kubeconfig(tmp_path))
    assert done.returncode == 11, done.stderr
    assert done.stderr.startswith(f"error: cannot reach the API server at https://{CLOSED}")
    table = invoke("--help").output.split("Exit codes:")[1]
    assert "11  the Kubernetes API server gave no answers" in table and "12  the kubeconfig cannot be used" in table


# --- kubectl's TYPE NAME ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("words", [["list", "kafkaconnector", "my-sink"], ["list", "kctr", "my-sink", "-n", "x"],
                                   ["list", "-n", "x", "kafkamirrormaker2", "mirror", "--connector", "source"],
                                   ["reset", "kmm2", "mirror", "--connector", "source", "--yes"]])
def test_kubectls_type_name_is_taken_as_type_slash_name(tmp_path, words):
    """It reaches the cluster (here: a closed port) instead of "Got unexpected extra argument"."""
    result = invoke(*words, kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 11 and "cannot reach the API server" in result.output, result.output


def test_a_name_followed_by_another_word_is_still_an_extra_argument(tmp_path):
    result = invoke("list", "my-sink", "other", kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2 and "unexpected extra argument (other)" in result.output, result.output


# --- GitOps: manifests it cannot edit are input (exit 2); the next command names the resource as it was named -------

@pytest.mark.parametrize("fixture, args", [
    ("flow-json", ["alter", "flow-sink", "--set", "orders:0=5"]),
    ("json-manifest", ["alter", "json-sink", "--set", "orders:0=5"]),
    ("helm", ["reset", "orders-sink"]),
])
def test_gitops_refuses_a_manifest_it_cannot_edit_as_input(tmp_path, fixture, args):
    """Exit 5 said "the cluster is not in a state to work in", about a file in a repository."""
    repo = copy_fixture(fixture, tmp_path)
    before = snapshot(repo)
    result = gitops_cli("gitops", *args, "--repo", str(repo))
    assert result.exit_code == 2, result.stderr
    assert snapshot(repo) == before


def test_gitops_alter_while_phase_1_is_pending_names_the_exact_next_command(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    first = gitops_cli("gitops", "alter", "orders-sink", "-n", "prod", "--set", "orders:0=5", "--repo", str(repo))
    assert first.exit_code == 0, first.stderr
    second = gitops_cli("gitops", "reset", "orders-sink", "-n", "prod", "--repo", str(repo))
    assert second.exit_code == 5, second.stderr
    next_line = next(line for line in second.stderr.splitlines() if line.strip().startswith("next:"))
    command = next_line.split("next:", 1)[1].strip()
    assert command == f"kubectl offsets gitops next orders-sink -n prod --repo {repo}", second.stderr
    done = gitops_cli(*command.split()[2:])
    assert done.exit_code == 0, done.stderr


# --- version --connect-url ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["notaurl", "localhost:8083", "ftp://host", "http://host:99999", "http://"])
def test_version_checks_connect_url_before_asking_anything(tmp_path, url):
    result = invoke("version", "--connect-url", url, kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"--connect-url '{url}' is not an http(s) URL" in result.output


def test_version_asks_connect_url_also_when_the_namespace_has_no_kafkaconnect():
    """It was silently not asked: the report said "no KafkaConnect in namespace" and nothing about the URL."""
    from kubectl_offsets.core.online import versions

    class NoConnects:
        namespace = "kafka"

        def served_version(self, kind):
            return "v1"

        def served_versions(self):
            return ["v1"]

        def list(self, kind, namespace):
            return []

    report = versions.report_for(NoConnects(), f"http://{CLOSED}", timeout=1.0)  # type: ignore[arg-type]
    assert len(report.connect) == 1 and report.connect[0].url == f"http://{CLOSED}"
    assert report.connect[0].version is None and report.connect[0].reason


# --- alter -f given a fleet document ------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix, text", [
    (".json", json.dumps({"connectors": [{"kind": "KafkaConnector", "name": "kafka/my-sink", "offsets": []}]})),
    (".yaml", "connectors:\n- kind: KafkaConnector\n  name: kafka/my-sink\n  offsets: []\n"),
])
def test_alter_f_with_a_fleet_document_says_to_use_import(tmp_path, suffix, text):
    path = tmp_path / f"export{suffix}"
    path.write_text(text)
    result = invoke("alter", "my-sink", "-f", str(path), "--yes", kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2, result.output
    assert "is a fleet document" in result.output and f"kubectl offsets import -f {path}" in result.output


# --- Ctrl-C and Ctrl-D at the fleet prompt (the backups --prune prompt: tests/integration/cli/test_no_strimzi.py) ---

@pytest.mark.parametrize("key, status", [(EOFError, 2), (KeyboardInterrupt, 130)], ids=["ctrl-d", "ctrl-c"])
def test_ctrl_c_and_ctrl_d_at_the_fleet_prompt_cancel_with_a_message(monkeypatch, capsys, key, status):
    """Both were click's bare "Aborted!" with exit 1, which means a bug."""
    import click

    from kubectl_offsets import strimzi
    from kubectl_offsets.cli import exits
    from kubectl_offsets.cli import fleet as cli_fleet
    from kubectl_offsets.core.online import fleet
    from kubectl_offsets.model import ClusterConfig

    def pressed(prompt=""):
        raise key()

    ran = []
    member = fleet.Member("ns", strimzi.KIND_CONNECTOR, "sink", "sink")
    plan = fleet.Plan([fleet.PlanItem(member, "reset", run=lambda kube, options, progress: ran.append(member))])
    monkeypatch.setattr(cli_fleet, "_show_plan", lambda plan: None)
    monkeypatch.setattr(click.termui, "visible_prompt_func", pressed)
    with pytest.raises(SystemExit) as exited, exits.exit_on_error():
        cli_fleet.run_plan(lambda stop: plan, ClusterConfig(), fleet.Options(yes=False), 1, False, "reset", None)
    assert exited.value.code == status
    err = capsys.readouterr().err
    assert "error: reset cancelled; nothing was changed" in err and "Aborted" not in err, err
    assert ran == []


# --- the three wrong help texts (issue 30, section 2) -------------------------------------------------------------

def test_gitops_reset_help_does_not_speak_of_shift_by():
    text = invoke("gitops", "reset", "--help").output
    assert "--shift-by" not in text and "--current FILE" in text


def test_version_timeout_says_what_it_limits():
    text = " ".join(invoke("version", "--help").output.split())
    assert "How long to wait for each answer of the cluster (default, and at most, 10s)" in text
    assert "operator and Connect at each step" not in text


@pytest.mark.parametrize("flags, does", [([], "delete deletes the connector and there is no terminal"),
                                         (["--reset-offsets"], "delete deletes the connector and resets its offsets")])
def test_plain_delete_does_not_say_it_changes_offsets(tmp_path, flags, does):
    result = invoke("delete", "my-sink", *flags, kubeconfig=kubeconfig(tmp_path))
    assert result.exit_code == 2, result.output
    assert does in result.output and "changes the connector's offsets" not in result.output
