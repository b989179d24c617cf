"""Shell completion without a cluster: kubectl's plugin protocol, click's scripts, the name look-ups' plumbing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.shell_completion import CompletionItem

from kubectl_offsets.cli import complete
from kubectl_offsets.cli.cmd_completion import script
from kubectl_offsets.core.online import names

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def reply(*argv: str) -> list[str]:
    """What kubectl_complete-offsets prints for ``argv``, as lines (the last one is the directive)."""
    printed: list[str] = []
    assert complete.run_plugin_completion(list(argv), out=printed.append) == 0
    return "".join(printed).splitlines()


def values(lines: list[str]) -> list[str]:
    return [line.split("\t", 1)[0] for line in lines[:-1]]


# --- the request --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, expected", [
    ([""], ([], "", True)),
    (["list", "-n", ""], (["list", "-n"], "", True)),
    (["__complete", "version", "--o"], (["version"], "--o", True)),
    (["__completeNoDesc", "ver"], ([], "ver", False)),
    ([], ([], "", True)),
])
def test_parse_request_takes_kubectls_form_and_cobras(argv, expected):
    assert complete.parse_request(argv) == expected


# --- the reply ----------------------------------------------------------------------------------------------------


def test_reply_lists_candidates_with_descriptions_then_no_file_directive():
    text = complete.format_reply([CompletionItem("list", help="Show a connector's\n offsets."),
                                  CompletionItem("lag")])
    assert text == "list\tShow a connector's offsets.\nlag\n:4\n"


def test_reply_without_descriptions_for_completeNoDesc():
    assert complete.format_reply([CompletionItem("list", help="Show")], descriptions=False) == "list\n:4\n"


@pytest.mark.parametrize("kind, directive", [("file", ":0"), ("dir", ":16")])
def test_paths_become_a_directive_for_the_shells_own_file_completion(kind, directive):
    assert complete.format_reply([CompletionItem("", type=kind)]) == directive + "\n"


def test_nothing_to_offer_still_forbids_file_names():
    assert complete.format_reply([]) == ":4\n"


# --- the protocol against the real command tree ------------------------------------------------------------------


def test_subcommands_at_the_first_word():
    lines = reply("")
    assert lines[-1] == ":4"
    assert {"completion", "version"} <= set(values(lines))
    assert "version\tPrint the plugin, Strimzi API" in "\n".join(lines)


def test_a_prefix_narrows_the_subcommands():
    assert values(reply("vers")) == ["version"]
    assert values(reply("__complete", "vers")) == ["version"]


def test_flags_of_a_subcommand():
    offered = values(reply("version", "--"))
    assert {"--client", "--connect-url", "--output", "--namespace", "--context", "--help"} <= set(offered)


def test_choices_of_an_option_value_also_after_equals():
    assert values(reply("version", "-o", "")) == ["text", "json", "yaml"]
    assert values(reply("version", "--output=j")) == ["json"]


def test_shell_names_for_completion():
    assert values(reply("completion", "")) == ["bash", "zsh", "fish"]


def test_a_path_option_asks_the_shell_for_files():
    assert reply("version", "--kubeconfig", "") == [":0"]


def test_a_broken_completion_prints_nothing(monkeypatch):
    def broken(args, incomplete):
        raise RuntimeError("bug")

    monkeypatch.setattr(complete, "completions", broken)
    assert reply("") == []


def test_the_installed_helper_speaks_the_protocol_quietly():
    helper = BIN / "kubectl_complete-offsets"
    result = subprocess.run([str(helper), "completion", "z"], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, "zsh\n:4\n", "")


# --- names from the cluster: deadline, failures, prefixes ------------------------------------------------------


def _ctx(**params) -> click.Context:
    ctx = click.Context(click.Command("x"))
    ctx.params.update(params)
    return ctx


def test_cluster_names_are_filtered_by_prefix(monkeypatch):
    monkeypatch.setitem(names.LOOKUPS, "namespace", lambda line, incomplete: [("kafka", ""), ("kube-system", "")])
    assert [i.value for i in complete.complete_from_cluster("namespace", _ctx(), "kaf")] == ["kafka"]


def test_a_slow_cluster_is_abandoned_at_the_deadline(monkeypatch):
    monkeypatch.setenv(complete.TIMEOUT_ENV, "0.3")
    monkeypatch.setitem(names.LOOKUPS, "namespace", lambda line, incomplete: time.sleep(30) or [("late", "")])
    started = time.monotonic()
    assert complete.complete_from_cluster("namespace", _ctx(), "") == []
    assert time.monotonic() - started < 2


def test_a_failing_cluster_offers_nothing(monkeypatch):
    def unreachable(line, incomplete):
        raise ConnectionError("refused")

    monkeypatch.setitem(names.LOOKUPS, "namespace", unreachable)
    assert complete.complete_from_cluster("namespace", _ctx(), "") == []


def test_an_unreadable_kubeconfig_offers_nothing(tmp_path, monkeypatch):
    bad = tmp_path / "config"
    bad.write_text("not: [a kubeconfig")
    assert complete.complete_from_cluster("namespace", _ctx(kubeconfig=str(bad)), "") == []


def test_the_typed_flags_reach_the_lookup_innermost_first(monkeypatch):
    seen = {}
    monkeypatch.setitem(names.LOOKUPS, "target", lambda line, incomplete: seen.update(line.params) or [])
    parent = _ctx(context="outer", namespace="a")
    child = click.Context(click.Command("list"), parent=parent)
    child.params.update(namespace="b", kubeconfig=None)
    complete.complete_from_cluster("target", child, "")
    assert seen == {"context": "outer", "namespace": "b"}


def test_the_raw_words_reach_the_lookup_from_kubectl_and_from_clicks_scripts(monkeypatch):
    """click leaves TARGET unassigned while an option value is completed; --connector needs it."""
    seen = []
    monkeypatch.setitem(names.LOOKUPS, "mm2-connector", lambda line, incomplete: seen.append(line.mm2_name()) or [])
    complete.completions(["list", "kmm2/from-kubectl", "--connector"], "")
    monkeypatch.setenv("COMP_WORDS", "kubectl-offsets list kmm2/from-bash --connector ")
    complete.complete_from_cluster("mm2-connector", _ctx(), "")
    assert seen == ["from-kubectl", "from-bash"]


def test_the_mirrormaker_on_the_line_is_found():
    line = names.LineWords({"namespace": "kafka", "target": "kmm2/mirror"}, timeout=1)
    assert line.mm2_name() == "mirror"
    assert names.LineWords({"target": "my-sink"}, timeout=1).mm2_name() is None


# --- the name look-ups over a stand-in for the kube adapter -------------------------------------------------------


class FakeKube:
    namespace = "kafka"

    def __init__(self, resources):
        self.resources = resources

    def list(self, kind, namespace, timeout=None):
        return [r for r in self.resources if r["kind"] == kind and r["metadata"]["namespace"] == namespace]

    def get(self, kind, name, namespace):
        return next(r for r in self.list(kind, namespace) if r["metadata"]["name"] == name)


def _resource(kind, name, spec=None):
    return {"kind": kind, "metadata": {"name": name, "namespace": "kafka"}, "spec": spec or {}}


MIRROR = _resource("KafkaMirrorMaker2", "mirror", {
    "target": {"alias": "west"},
    "mirrors": [{"source": {"alias": "east"}, "sourceConnector": {}, "checkpointConnector": {}},
                {"source": {"alias": "north"}, "sourceConnector": {}}],
})


def _line(monkeypatch, params, resources):
    line = names.LineWords(params, timeout=1)
    monkeypatch.setattr(line, "kube", lambda: FakeKube(resources))
    return line


def test_targets_are_connectors_and_kmm2_names(monkeypatch):
    line = _line(monkeypatch, {}, [_resource("KafkaConnector", "my-sink"), MIRROR])
    assert names.targets(line, "") == [("my-sink", "KafkaConnector"), ("kmm2/mirror", "KafkaMirrorMaker2")]


def test_after_a_kind_slash_the_typed_kind_word_is_kept(monkeypatch):
    line = _line(monkeypatch, {}, [_resource("KafkaConnector", "my-sink"), MIRROR])
    assert names.targets(line, "kafkamirrormaker2/") == [("kafkamirrormaker2/mirror", "KafkaMirrorMaker2")]


def test_mm2_connectors_offer_unambiguous_short_forms_then_full_names(monkeypatch):
    line = _line(monkeypatch, {"target": "kmm2/mirror"}, [MIRROR])
    offered = [name for name, _ in names.mm2_connectors(line, "")]
    assert offered == ["checkpoint", "east->west.MirrorSourceConnector", "east->west.MirrorCheckpointConnector",
                       "north->west.MirrorSourceConnector"]


# --- click's scripts for `kubectl-offsets <TAB>` -----------------------------------------------------------------


@pytest.mark.parametrize("shell, marker", [("bash", "complete -o nosort -F"), ("zsh", "#compdef kubectl-offsets"),
                                           ("fish", "complete --no-files --command kubectl-offsets")])
def test_scripts_complete_the_executable(shell, marker):
    text = script(shell)
    assert marker in text and complete.COMPLETE_VAR in text


def test_the_bash_script_completes_in_a_real_bash():
    """Source the script in bash, press TAB programmatically, read COMPREPLY: the variable the script sets must be
    the one `kubectl-offsets` reads (cli/root.py)."""
    bash = shutil.which("bash")
    assert bash, "bash is needed for this test"
    program = (f'source <("{BIN}/kubectl-offsets" completion bash)\n'
               'COMP_WORDS=(kubectl-offsets completion "") COMP_CWORD=2\n'
               '_kubectl_offsets_completion kubectl-offsets\n'
               'printf "%s\\n" "${COMPREPLY[@]}"\n')
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run([bash, "--norc", "-c", program], capture_output=True, text=True, env=env, timeout=60)
    assert result.stdout.split() == ["bash", "zsh", "fish"], result.stderr


def test_the_completion_command_rejects_other_shells():
    result = subprocess.run([str(BIN / "kubectl-offsets"), "completion", "ksh"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "'ksh' is not one of" in result.stderr  # one error style
    assert "hint: see 'kubectl offsets completion --help'" in result.stderr


# --- the release binary's two names ---------------------------------------------------------------------------


def _entry():
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import entry
    finally:
        sys.path.pop(0)
    return entry


@pytest.mark.parametrize("argv, wanted", [
    (["/home/u/.krew/bin/kubectl_complete-offsets", "li"], True),
    (["C:\\krew\\bin\\kubectl_complete-offsets.exe", ""], True),
    (["kubectl-offsets", "__complete", "li"], True),
    (["kubectl-offsets", "list", "__complete"], False),
    (["/home/u/.krew/bin/kubectl-offsets", "--help"], False),
])
def test_the_release_binary_dispatches_on_its_name(argv, wanted):
    assert _entry().wants_completion(argv) is wanted
