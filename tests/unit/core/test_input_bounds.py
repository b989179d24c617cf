"""Bad input that used to hang, exhaust memory or end in a traceback (issue 28), each now one clear error, exit 2,
fast: YAML alias bombs (an offsets file, a fleet file, a manifest, a GitOps repository's manifest), a FIFO and a
dangling symlink named ``*.yaml``, durations too long for a datetime, and ``--timeout`` in the syntax of every other
duration flag.

The hostile cases run the CLI in a child process with a CPU-time limit, an address-space limit and a wall-clock
bound, so that the old behaviour (minutes of CPU, every byte of memory, a read that never returns) fails the test
instead of the machine. CPU time, not wall time, tells a bomb from a busy machine: in the suite, at a load average
of 40 on two cores, a run of 0.56 CPU-s took 24 s of wall time (2026-11-29), past the 20 s deadline these had then.
"""

from __future__ import annotations

import datetime as dt
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_offsets import times
from kubectl_offsets.errors import InputError
from tests.unit.core.gitops.helpers import copy_fixture, snapshot

ROOT = Path(__file__).resolve().parents[3]
CPU_LIMIT = 20  # CPU-seconds: far above the 0.6 these take now, far below the old minutes of an alias bomb
MEMORY = 1 << 30  # bytes of address space: the interpreter, click and ruamel need a fraction of it
HANG = 300.0  # seconds of wall time: a read that never returns (a FIFO); a start on a loaded machine ends far sooner


def alias_bomb(top_key: str = "offsets", levels: int = 9) -> str:
    """The classic "billion laughs": each level lists the one before nine times, 9**levels strings once expanded,
    from under 500 bytes of text."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    lines.append(f"{top_key}: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def limit_cpu_and_memory() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 1))  # SIGXCPU at the soft limit
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``kubectl offsets ARGS`` in a child with no cluster to reach, within CPU_LIMIT, MEMORY and HANG."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KUBECONFIG": "/nonexistent/kubeconfig"}
    command = f"kubectl offsets {' '.join(args)}"
    try:
        result = subprocess.run([sys.executable, "-m", "kubectl_offsets", *args], capture_output=True, text=True,
                                timeout=HANG, env=env, cwd=cwd, preexec_fn=limit_cpu_and_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} did not end within {HANG:.0f}s: it hangs")
    if result.returncode == -signal.SIGXCPU:
        pytest.fail(f"{command} used more than {CPU_LIMIT} s of CPU")
    return result


def assert_refused(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: "), result.stderr[-2000:]
    for needle in needles:
        assert needle in result.stderr, result.stderr


# --- YAML alias bombs -----------------------------------------------------------------------------------------------

def test_the_bomb_is_small():
    assert len(alias_bomb()) < 500


@pytest.mark.parametrize("command", [
    ["alter", "orders-sink", "-f", "{file}", "--yes"],
    ["undo", "orders-sink", "--from-file", "{file}", "--yes"],
    ["import", "-f", "{file}", "--yes"],
    ["create", "-f", "{file}", "--yes"],
])
def test_an_alias_bomb_as_input_is_refused_fast(tmp_path, command):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(alias_bomb())
    result = cli(*[a.format(file=bomb) for a in command])
    assert_refused(result, "bomb.yaml", "aliases")


def bomb_connector() -> str:
    """A KafkaConnector whose config holds the bomb (MemoryError when the tool read the resource)."""
    return ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaConnector\nmetadata:\n  name: bomb-sink\n"
            "  labels: {strimzi.io/cluster: connect}\nspec:\n  class: org.apache.kafka.connect.file.FileStreamSinkConnector\n"
            "  config:\n" + "".join(f"    {line}\n" for line in alias_bomb(top_key="topics").splitlines()))


def test_an_alias_bomb_in_the_gitops_repository_is_refused_fast(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    (repo / "connect" / "bomb.yaml").write_text(bomb_connector())
    before = snapshot(repo)
    result = cli("gitops", "alter", "bomb-sink", "--set", "orders:0=5", "--repo", str(repo))
    assert_refused(result, "connect/bomb.yaml", "aliases")
    assert snapshot(repo) == before
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=5", "--repo", str(repo), "-o", "diff")
    assert result.returncode == 0, result.stderr  # a bomb elsewhere in the repository costs nothing


def test_anchors_as_manifests_use_them_are_read(tmp_path):
    """A few shared blocks (labels, resources) are what anchors are for: far below the cap."""
    from kubectl_offsets.adapters import yamlfiles

    text = "base: &base {a: 1, b: [1, 2, 3]}\n" + "".join(f"k{i}: *base\n" for i in range(200))
    assert yamlfiles.load_data(text, "shared.yaml")["k199"] == {"a": 1, "b": [1, 2, 3]}


def test_a_self_referencing_alias_is_refused(tmp_path):
    from kubectl_offsets.adapters import yamlfiles

    with pytest.raises(InputError, match="refers to itself"):
        yamlfiles.load_data("offsets: &a [*a]\n", "loop.yaml")


# --- files that are not regular files -------------------------------------------------------------------------------

def test_a_fifo_as_offsets_file_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "offsets.yaml"
    os.mkfifo(fifo)
    result = cli("alter", "orders-sink", "-f", str(fifo), "--yes")
    assert_refused(result, "offsets.yaml", "not a regular file")


def test_a_fifo_in_the_gitops_repository_is_not_read(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    os.mkfifo(repo / "connect" / "pipe.yaml")
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=5", "--repo", str(repo), "-o", "diff")
    assert result.returncode == 0, result.stderr
    result = cli("gitops", "alter", "nowhere-sink", "--set", "orders:0=5", "--repo", str(repo))
    assert result.returncode != 0 and "Traceback" not in result.stderr, result.stderr


def test_a_dangling_symlink_in_the_gitops_repository_is_named(tmp_path):
    """Not found is exit 3 (the name may be wrong), and the hint names the file that could not be read."""
    repo = copy_fixture("plain", tmp_path)
    (repo / "connect" / "gone.yaml").symlink_to(tmp_path / "nothing-here.yaml")
    before = snapshot(repo)
    result = cli("gitops", "alter", "nowhere-sink", "--set", "orders:0=5", "--repo", str(repo))
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: no KafkaConnector named"), \
        result.stderr
    assert "not read: connect/gone.yaml: a symlink to nothing" in result.stderr
    assert snapshot(repo) == before
    result = cli("gitops", "alter", "orders-sink", "--set", "orders:0=5", "--repo", str(repo), "-o", "diff")
    assert result.returncode == 0, result.stderr


# --- durations ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["99999999999d", "9999999d", "P99999999999D", "PT99999999999H", "9" * 400 + "d"])
def test_a_duration_beyond_the_bound_is_an_input_error(text):
    with pytest.raises(InputError, match="longer than"):
        times.parse_duration(text, "--since")


def test_the_longest_duration_still_parses():
    assert times.parse_duration(f"{times.MAX_DURATION.days}d") == times.MAX_DURATION


def test_by_duration_before_1970_is_refused():
    now = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(InputError, match="before 1970"):
        times.at_for_duration("20500d", now)
    assert times.at_for_duration("1d", now) == int((now - dt.timedelta(days=1)).timestamp() * 1000)


@pytest.mark.parametrize("command", [
    ["undo", "-A", "--since", "99999999999d", "--yes"],
    ["backups", "--all", "--prune", "--older-than", "99999999999d", "--yes"],
    ["alter", "orders-sink", "--by-duration", "9999999d", "--yes"],
    ["alter", "orders-sink", "--set", "orders:0=1", "--timeout", "99999999999d", "--yes"],
])
def test_huge_durations_are_refused_by_the_cli(command):
    result = cli(*command)
    assert_refused(result, "longer than")


def test_gitops_by_duration_overflow_is_refused(tmp_path):
    repo = copy_fixture("plain", tmp_path)
    before = snapshot(repo)
    result = cli("gitops", "alter", "orders-sink", "--by-duration", "9999999d", "--repo", str(repo),
                    "--bootstrap-server", "localhost:1")
    assert_refused(result, "longer than")
    assert snapshot(repo) == before


@pytest.mark.parametrize("text, seconds", [("300", 300.0), ("1d", 86400.0), ("PT2H", 7200.0), ("1h30m", 5400.0),
                                           ("1w", 604800.0), ("500ms", 0.5)])
def test_timeout_takes_every_duration_syntax(text, seconds):
    from kubectl_offsets.cli.options import Duration

    assert Duration().convert(text, None, None) == seconds


def test_timeout_refuses_what_is_not_a_duration():
    result = cli("alter", "orders-sink", "--set", "orders:0=1", "--timeout", "soon", "--yes")
    assert result.returncode == 2 and "is not a duration" in result.stderr, result.stderr
