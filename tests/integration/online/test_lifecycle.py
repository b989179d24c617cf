"""Connector lifecycle against the real environment: create at chosen offsets, leftovers of a deleted connector,
delete --reset-offsets, and time travel in alter.

Proof is in the records (what a FileStreamSink writes to its file, what a FileStreamSource sends to its topic), the
offsets Connect stores and the sinks' consumer groups (tests/judges.py); the plugin's own output is checked only as
output. The operator is the session's real one: ``create`` tells its release from what the API server serves, as for
most users. Strimzi 1.2 creates a connector stopped (Connect's config topic records it), so nothing runs before its
offsets are set; an older release (the 0.45 and 0.51 eras) creates it running, ``create`` refuses until the user
accepts that start window, and the records show a prefix read in the window, then exactly the chosen ones.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests import judges
from tests.env.clients import ConnectRest, create_topic, unique_name
from tests.env.emulator import profiles
from tests.signals import interruptible
from tests.waits import unchanged_for

from .conftest import (FILE_SINK, FILE_SOURCE, GROUP, JOURNAL, OPERATOR_CATCH_UP_TIMEOUT, VERSION, Connector,
                       annotations, assert_unchanged, eventually, exists, live_state, manifest, sink_manifest,
                       snapshot, spec_state)

CREATING = "kubectl-offsets.io/creating"
# Waits for records written after a (re)start: the sink's consumer group joins first, slow on a loaded machine.
RECORDS_TIMEOUT = 120.0


# ---- helpers -------------------------------------------------------------------------------------------------

def wait_written(lab, conn: Connector, lines: list[str], what: str) -> None:
    """Until the sink's file holds ``lines``; a timeout names what Connect says of the connector and its tasks (a
    task that failed or was never assigned looks the same as a slow one from the file alone)."""
    try:
        eventually(f"{lines[0]}..{lines[-1]} written by {what}", lambda: conn.file_lines() == lines or None,
                   timeout=RECORDS_TIMEOUT)
    except AssertionError as timed_out:
        status = lab.judge.connect.get(ConnectRest.connector_path(conn.name, "/status"))
        raise AssertionError(f"{timed_out}; the file holds {conn.file_lines()[:10]}; Connect's status: "
                             f"{str(status)[:1500]}") from None


# Strimzi 1.2+ creates a connector in its requested state (initial_state); older releases create it running, and
# create then needs the user to accept the start window.
CREATES_STOPPED = profiles.selected().creates_with_initial_state
WINDOW = () if CREATES_STOPPED else ("--accept-start-window",)


def read_from(lines: list[str], records: list[str], first: str) -> bool:
    """Whether ``lines`` (what a connector wrote) are ``records`` from ``first`` on, and nothing else; on an era with
    a start window, after a prefix of ``records`` that the connector read before its offsets were set."""
    chosen = records[records.index(first):]
    if CREATES_STOPPED or len(lines) < len(chosen):
        return lines == chosen
    window = lines[:len(lines) - len(chosen)]
    return lines[len(window):] == chosen and window == records[:len(window)]


def assert_created_stopped_where_the_era_can(lab, name: str) -> None:
    """Connect's own record (its config topic): create made the connector stopped from its first moment on an era
    that can (1.2+, whatever state the manifest asks for: that state comes after the offsets), else running."""
    assert lab.judge.created_in_state(lab.config_topic(), name) == ("STOPPED" if CREATES_STOPPED else "STARTED")


def refused_without_the_window(lab, cli, path, name: str, *flags: str) -> None:
    """On an era that creates running, create refuses before any change until the start window is accepted."""
    if CREATES_STOPPED:
        return
    before = set(lab.cluster.configmaps(lab.ns))
    refused = cli("create", "-f", str(path), "-n", lab.ns, *flags, "--yes")
    assert refused.exit_code == 2, str(refused)
    assert "Strimzi before 1.0" in refused.stderr and "--accept-start-window" in refused.stderr
    assert not exists(lab, name) and set(lab.cluster.configmaps(lab.ns)) == before  # nothing changed


def wait_gone(lab, name: str) -> None:
    """Until the resource is gone and the operator has deleted the connector from Connect: from then on nothing it
    ran writes a record or commits an offset."""
    eventually(f"kafkaconnector/{name} gone", lambda: not exists(lab, name), timeout=30)
    lab.wait_forgotten(name)


def settled(lab, conn: Connector, quiet: float = 4.0, timeout: float = 60.0):
    """A snapshot once the resource's resourceVersion stayed put for ``quiet`` seconds: a new connector's status is
    written a few times (tasks, topics) after it first reports RUNNING."""
    unchanged_for(f"kafkaconnector/{conn.name}", lambda: lab.cr(conn)["metadata"]["resourceVersion"], quiet, timeout)
    return snapshot(lab.cluster, conn)


# ---- create ----------------------------------------------------------------------------------------------------

def test_create_sink_at_chosen_offsets_writes_exactly_those_records_first(lab, cli, tmp_path):
    name, topic = unique_name("csink"), unique_name("csink-topic")
    create_topic(lab.admin, topic)
    records = [f"r{i}" for i in range(8)]
    lab.produce(topic, records)
    path, conn = sink_manifest(lab, tmp_path, name, topic)
    refused_without_the_window(lab, cli, path, name, "--set", f"{topic}:0=5")

    result = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=5", "--yes", *WINDOW)

    assert result.exit_code == 0, str(result)
    if CREATES_STOPPED:
        assert "Strimzi 1.2.0 or newer" in result.stderr and "creates the connector stopped" in result.stderr
        assert "no leftover offsets" in result.stderr
    else:
        assert "a few records may be processed" in result.stderr
        # What the sink committed in its start window, if anything, is found and backed up as leftovers are.
        assert "no leftover offsets" in result.stderr or "backup of the leftovers: configmap/" in result.stderr
    assert "connector is running" in result.stderr
    assert_created_stopped_where_the_era_can(lab, name)
    # The plugin verified offset 5 before the resume: the group at the end means r5..r7 were written after it.
    lab.judge.wait_sink_offsets(name, {0: 8}, timeout=RECORDS_TIMEOUT)
    assert read_from(conn.file_lines(), records, "r5"), conn.file_lines()
    obj = lab.cr(conn)
    assert spec_state(obj) is None and live_state(obj) == "RUNNING"  # the manifest had no state: stays absent
    assert JOURNAL not in annotations(obj) and CREATING not in annotations(obj)
    lab.produce(topic, ["r8"])
    eventually("r8 written", lambda: read_from(conn.file_lines(), records + ["r8"], "r5") or None,
               timeout=RECORDS_TIMEOUT)


def test_create_source_at_chosen_offsets_sends_exactly_the_rest_of_its_file(lab, cli, tmp_path):
    name, topic = unique_name("csrc"), unique_name("csrc-topic")
    create_topic(lab.admin, topic)
    data = lab.workdir / f"{name}.in"
    lines = [f"line-{i}" for i in range(6)]
    data.write_text("".join(f"{line}\n" for line in lines))
    path = manifest(lab, tmp_path / "src.yaml", name, FILE_SOURCE, {"file": str(data), "topic": topic})
    offsets = tmp_path / "offsets.json"  # FileStreamSource: byte position in the file; 3 lines of 7 bytes
    offsets.write_text(json.dumps({"offsets": [{"partition": {"filename": str(data)}, "offset": {"position": 21}}]}))
    refused_without_the_window(lab, cli, path, name, "--offsets", str(offsets))

    result = cli("create", "-f", str(path), "-n", lab.ns, "--offsets", str(offsets), "--yes", "-o", "json", *WINDOW)

    assert result.exit_code == 0, str(result)
    assert json.loads(result.stdout)["offsets"][0]["offset"] == {"position": 21}
    assert_created_stopped_where_the_era_can(lab, name)
    # Connect stores the end of the file once the source has sent all of it: nothing more can come.
    lab.judge.wait_stored(name, lambda entries: judges.position(entries) == data.stat().st_size, "the end of the file")
    assert read_from(lab.judge.topic_values(topic), lines, "line-3"), lab.judge.topic_values(topic)


def test_create_keeps_the_requested_paused_state(lab, cli, tmp_path):
    name, topic = unique_name("cpaused"), unique_name("cpaused-topic")
    create_topic(lab.admin, topic)
    records = ["r0", "r1", "r2"]
    lab.produce(topic, records)
    path, conn = sink_manifest(lab, tmp_path, name, topic, state="paused")

    result = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=2", "--yes", *WINDOW)

    assert result.exit_code == 0, str(result)
    assert_created_stopped_where_the_era_can(lab, name)
    obj = lab.cr(conn)
    assert spec_state(obj) == "paused" and live_state(obj) == "PAUSED"
    assert lab.judge.sink_offsets(name) == {0: 2} and lab.judge.state(name) == "PAUSED"
    written = conn.file_lines()  # paused since its offsets were set: only what a start window read, if any
    assert written == ([] if CREATES_STOPPED else records[:len(written)]), written


def test_recreated_connector_resumes_from_leftovers_unless_from_scratch(lab, cli, tmp_path):
    """Connect keeps a deleted sink's consumer group: the preview shows the leftovers, and --from-scratch resets
    them so the new connector reads the topic from the beginning."""
    old = lab.sink("left", records=4)
    lab.judge.wait_sink_offsets(old.name, {0: 4}, but=old.live_partition)
    lab.cluster.custom.delete_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnectors", old.name)
    wait_gone(lab, old.name)
    path, conn = sink_manifest(lab, tmp_path, old.name, old.topic)

    result = cli("create", "-f", str(path), "-n", lab.ns, "--from-scratch", "--yes", *WINDOW)

    assert result.exit_code == 0, str(result)
    # partition 0 and the live one (its feeder goes on while the connector is gone)
    assert "2 leftover offsets" in result.stderr and "backup of the leftovers: configmap/" in result.stderr
    assert "changed" in result.stdout  # the preview/result table: leftover 4 -> reset
    wait_written(lab, conn, ["r0", "r1", "r2", "r3"], "the new sink, from the beginning")


def test_delete_reset_offsets_then_a_plain_create_starts_from_the_beginning(lab, cli, tmp_path):
    old = lab.sink("del", records=3)
    lab.judge.wait_sink_offsets(old.name, {0: 3}, but=old.live_partition)

    result = cli("delete", old.name, "-n", lab.ns, "--reset-offsets", "--yes", "-o", "json")

    assert result.exit_code == 0, str(result)
    held = {e["partition"]["kafka_partition"]: e["offset"] for e in json.loads(result.stdout)["offsets"]}
    assert held[0] == {"kafka_offset": 3} and old.live_partition in held  # what it held, printed
    assert "deleted; offsets reset (backup: configmap/" in result.stderr
    wait_gone(lab, old.name)
    backups = [n for n in lab.cluster.configmaps(lab.ns) if n.startswith(f"{old.name}-offsets-backup-")]
    assert backups, "the backup outlives the connector"
    assert lab.judge.sink_offsets(old.name) == {}, "the offsets outlive the connector"
    new_file = lab.workdir / f"{old.name}-again.out"
    lab.cluster.create(lab._connector(old.name, FILE_SINK, {"file": str(new_file), "topics": old.topic}, None, None))
    again = Connector(lab.ns, old.name, old.topic, new_file)
    # Connect may answer the operator's first pass over the new connector with a 409 or a rebalance's 500 (it has
    # just forgotten one of that name); Strimzi then retries only on an event or its periodic pass, 120 s later.
    lab.wait_state(again, "RUNNING", timeout=RECORDS_TIMEOUT)
    wait_written(lab, again, ["r0", "r1", "r2"], "the re-created sink")


def test_delete_without_reset_keeps_the_offsets_and_says_so(lab, cli):
    old = lab.sink("keep", records=2)
    lab.judge.wait_sink_offsets(old.name, {0: 2}, but=old.live_partition)

    result = cli("delete", old.name, "-n", lab.ns, "--yes", "-o", "json")

    assert result.exit_code == 0, str(result)
    held = {e["partition"]["kafka_partition"]: e["offset"] for e in json.loads(result.stdout)["offsets"]}
    assert held[0] == {"kafka_offset": 2} and old.live_partition in held
    assert "a connector created later under this name resumes from them" in result.stderr
    wait_gone(lab, old.name)
    assert lab.judge.sink_offsets(old.name, but=old.live_partition) == {0: 2}  # kept, as it says


# ---- bad input ---------------------------------------------------------------------------------------------------

def test_bad_create_input_changes_nothing(lab, cli, tmp_path):
    existing = lab.sink("exists")
    name, topic = unique_name("bad"), unique_name("bad-topic")
    create_topic(lab.admin, topic)
    path, _ = sink_manifest(lab, tmp_path, name, topic)
    other = tmp_path / "topic.yaml"
    other.write_text(json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}))
    twice, _ = sink_manifest(lab, tmp_path, existing.name, existing.topic)
    cases = [
        (["-f", str(other), "--set", f"{topic}:0=1"], "not a KafkaConnector"),
        (["-f", str(path)], "nothing to set"),
        (["-f", str(path), "--set", "elsewhere:0=1"], "does not consume topic 'elsewhere'"),
        (["-f", str(path), "--set", f"{topic}:0=-1"], "must not be negative"),
        (["-f", str(path), "--shift-by", "3", "--topic", topic], "No such option"),
        (["-f", str(path), "--to-datetime", "yesterday"], "not an ISO-8601"),
        (["-f", str(path), "--to-latest", "--bootstrap-server", "127.0.0.1:1"], "port-forward"),
        (["-f", str(twice), "--set", f"{existing.topic}:0=1"], "already exists"),
        (["-f", str(path), "-n", "elsewhere", "--set", f"{topic}:0=1"], ""),
    ]
    before = settled(lab, existing)
    for args, needle in cases:
        result = cli("create", *args, *([] if "-n" in args else ["-n", lab.ns]), "--yes")
        assert result.exit_code != 0, f"{args}: {result}"
        assert needle in result.stderr + result.stdout, f"{args}: {result}"
        assert not exists(lab, name), args
    assert_unchanged(lab.cluster, existing, before)


def test_bad_time_travel_changes_nothing(lab, cli):
    conn = lab.sink("ttbad", records=2)
    before = settled(lab, conn)
    cases = [
        (["--to-datetime", "2026-13-45"], "not an ISO-8601"),
        (["--by-duration", "2 hours"], "is not a duration"),
        (["--to-earliest", "--to-latest"], "exactly one"),
        (["--to-latest", "--set", f"{conn.topic}:0=1"], "cannot be combined"),
        (["--bootstrap-server", env_address(lab)], "nothing to alter"),  # it also serves the partition check
        (["--to-latest", "--topic", conn.topic, "--bootstrap-server", "127.0.0.1:1"], "port-forward"),
        (["--to-latest", "--topic", f"{conn.topic}:7", "--bootstrap-server", env_address(lab)], "no partition 7"),
        (["--to-latest", "--topic", "nosuchtopic", "--bootstrap-server", env_address(lab)], "does not exist"),
    ]
    for args, needle in cases:
        result = cli("alter", conn.name, "-n", lab.ns, *args, "--yes")
        unreachable = "port-forward" in needle  # a broker that gives no answers has its own exit status
        assert result.exit_code == (10 if unreachable else 2), f"{args}: {result}"  # 10: KAFKA_UNREACHABLE
        assert needle in result.stderr, f"{args}: {result}"
    assert_unchanged(lab.cluster, conn, before)


def env_address(lab) -> str:
    return lab.env.bootstrap_servers


# ---- time travel -------------------------------------------------------------------------------------------------

def produce_at(lab, topic: str, partition: int, values: list[str], first_ms: int, step_ms: int = 1000) -> None:
    for i, value in enumerate(values):
        lab.producer.produce(topic, value=value.encode(), partition=partition, timestamp=first_ms + i * step_ms)
    assert lab.producer.flush(30) == 0


def test_time_travel_sink_lands_on_the_records_of_that_time_and_the_end_where_none_is_newer(lab, cli):
    name, topic = unique_name("tt"), unique_name("tt-topic")
    create_topic(lab.admin, topic, partitions=2)
    t0 = (int(time.time()) - 3600) * 1000  # an hour ago (a whole second), one record a second
    produce_at(lab, topic, 0, [f"p0-{i}" for i in range(6)], t0)
    produce_at(lab, topic, 1, ["p1-0", "p1-1"], t0 - 600_000)  # all older than the time asked
    out = lab.workdir / f"{name}.out"
    lab.cluster.create(lab._connector(name, FILE_SINK, {"file": str(out), "topics": topic}, None, None))
    conn = Connector(lab.ns, name, topic, out)
    # The sink may write its 8 lines before the operator has reported the connector's status, which list (and
    # alter) need: wait for the status as a user waits for Ready.
    lab.wait_state(conn, "RUNNING")
    eventually("all 8 written", lambda: len(conn.file_lines()) == 8 or None)
    lab.judge.wait_sink_offsets(name, {0: 6, 1: 2})
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((t0 + 2500) / 1000)) + ".500Z"

    result = cli("alter", name, "-n", lab.ns, "--to-datetime", at, "--yes")  # default: the KafkaConnect's address

    assert result.exit_code == 0, str(result)
    assert "from the KafkaConnect spec" in result.stderr
    record_time = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((t0 + 3000) / 1000))
    assert record_time in result.stderr  # the preview shows the timestamp of the record p0 resumes at
    assert "no record at or after the time: resumes at the end" in result.stderr
    # Verified at {0: 3, 1: 2} before the resume; back at the ends, the sink has flushed all it read since.
    # (a generous bound: after the resume the sink's consumer group rejoins, slow on a loaded machine)
    lab.judge.wait_sink_offsets(name, {0: 6, 1: 2}, timeout=RECORDS_TIMEOUT)
    assert conn.file_lines()[8:] == ["p0-3", "p0-4", "p0-5"]  # nothing of partition 1 again: it resumed at its end


def test_time_travel_to_earliest_and_latest_on_named_partitions(lab, cli):
    conn = lab.sink("ttel", records=4)
    lab.judge.wait_sink_offsets(conn.name, {0: 4}, but=conn.live_partition)

    earliest = cli("alter", conn.name, "-n", lab.ns, "--to-earliest", "--topic", f"{conn.topic}:0",
                   "--bootstrap-server", lab.env.bootstrap_servers, "--yes")

    assert earliest.exit_code == 0, str(earliest)
    wait_written(lab, conn, ["r0", "r1", "r2", "r3"] * 2, "the sink, again from the earliest")
    lab.judge.wait_sink_offsets(conn.name, {0: 4}, but=conn.live_partition)
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "paused"}})
    lab.wait_state(conn, "PAUSED")
    lab.produce(conn.topic, ["r4", "r5"])

    latest = cli("alter", conn.name, "-n", lab.ns, "--to-latest", "--yes", "--dry-run")
    assert latest.exit_code == 0 and "dry run: nothing was changed" in latest.stderr, str(latest)
    latest = cli("alter", conn.name, "-n", lab.ns, "--to-latest", "--yes")

    assert latest.exit_code == 0, str(latest)
    assert lab.judge.sink_offsets(conn.name, but=conn.live_partition) == {0: 6}  # skipped r4, r5
    assert spec_state(lab.cr(conn)) == "paused"


def test_create_with_time_travel_starts_at_the_record_of_that_time(lab, cli, tmp_path):
    name, topic = unique_name("ctt"), unique_name("ctt-topic")
    create_topic(lab.admin, topic)
    t0 = (int(time.time()) - 7200) * 1000
    records = [f"r{i}" for i in range(5)]
    produce_at(lab, topic, 0, records, t0, step_ms=60_000)
    path, conn = sink_manifest(lab, tmp_path, name, topic)
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime((t0 + 120_000) / 1000))

    result = cli("create", "-f", str(path), "-n", lab.ns, "--to-datetime", at, "--yes", *WINDOW)

    assert result.exit_code == 0, str(result)
    lab.judge.wait_sink_offsets(name, {0: 5}, timeout=RECORDS_TIMEOUT)  # verified at 2 first: r2..r4 came after
    assert read_from(conn.file_lines(), records, "r2"), conn.file_lines()


# ---- failures ------------------------------------------------------------------------------------------------------

# read(2)'s number in /proc/PID/syscall, per machine (asm/unistd_64.h; the generic table for arm64)
READ_SYSCALL = {"x86_64": "0", "aarch64": "63"}


def blocked_reading_stdin(pid: int) -> bool:
    """Whether the process is blocked in read(0, ...) (/proc/PID/syscall: the call's number, then its arguments)."""
    import platform

    fields = Path(f"/proc/{pid}/syscall").read_text().split()
    return fields[:2] == [READ_SYSCALL[platform.machine()], "0x0"]


def on_a_terminal(env, tmp_path, args: list[str], answer: str | None, until: str = "[y/N]: ") -> tuple[int | None, str]:
    """Run ``kubectl-offsets ARGS`` as its own process with a terminal (a pty) as standard input, as a user does.
    Once stderr shows ``until`` (the confirmation prompt), type ``answer`` (e.g. "n\\n"), or with ``answer`` None
    press Ctrl-C (SIGINT). Returns the exit status and stderr."""
    import os
    import pty
    import select
    import signal
    import subprocess
    import sys

    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "kubectl_offsets", *args, "--kubeconfig", env.kubeconfig],
                               stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "XDG_STATE_HOME": str(tmp_path)}, **interruptible())
    os.close(slave)
    # The prompt comes after three of the operator's passes (create, stop, list), each one event away; under the
    # suite's load the list alone once outlasted a 120 s deadline (CI, 2026-11-28, Strimzi 0.51.0).
    seen, deadline = b"", time.monotonic() + OPERATOR_CATCH_UP_TIMEOUT
    try:
        while until.encode() not in seen:
            ready, _, _ = select.select([process.stderr], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(process.stderr.fileno(), 4096) if ready else b""
            if not chunk:
                process.kill()
                pytest.fail(f"no prompt: {seen.decode()}")
            seen += chunk
        if answer is None:
            # As a person would: once it waits for the answer. SIGINT in the instant between input() writing the
            # prompt and blocking in read() is only acted on once a line is read (CPython checks signals between
            # bytecodes, and on an interrupted read, neither of which happens there).
            eventually("the prompt to wait for an answer", lambda: blocked_reading_stdin(process.pid), timeout=30)
            process.send_signal(signal.SIGINT)
        else:
            os.write(master, answer.encode())
        try:
            code = process.wait(120)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
        return code, (seen + process.stderr.read()).decode()
    finally:
        os.close(master)


@pytest.mark.parametrize("answer", ["n\n", None], ids=["no", "ctrl-c"])
def test_a_create_cancelled_at_the_prompt_leaves_no_connector_behind(lab, env, tmp_path, answer):
    """The leftovers can only be listed once the connector exists, so the prompt comes after the create: answering
    no, or pressing Ctrl-C there, deletes the new KafkaConnector again and says so."""
    name, topic = unique_name("cno"), unique_name("cno-topic")
    create_topic(lab.admin, topic)
    path, _ = sink_manifest(lab, tmp_path, name, topic)

    code, stderr = on_a_terminal(env, tmp_path, ["create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=1",
                                                 *WINDOW], answer)

    assert code == 2, stderr
    assert "create cancelled" in stderr and f"kafkaconnector/{name} was deleted again" in stderr, stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr, stderr
    assert not exists(lab, name)


def test_a_create_that_fails_before_the_hand_over_deletes_the_new_connector_again(lab, cli, connect_faults, tmp_path):
    """Listing the leftovers fails (Connect answers the operator's GET offsets with 500): nothing but the new
    resource exists, so it is deleted, and the operator deletes the connector from Connect."""
    name, topic = unique_name("cfail"), unique_name("cfail-topic")
    create_topic(lab.admin, topic)
    path, _ = sink_manifest(lab, tmp_path, name, topic)
    connect_faults.write({"connector": name, "method": "GET", "path_regex": "/offsets$", "status": 500})

    result = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=1", "--yes", "--timeout", "90s",
                 *WINDOW)

    assert result.exit_code == 6, str(result)
    assert f"kafkaconnector/{name} was deleted again" in result.stderr
    assert "ListOffsets" in result.stderr and f"GET /connectors/{name}/offsets returned 500" in result.stderr
    assert connect_faults.hits(), "the operator never met the fault"
    assert not exists(lab, name)
    lab.wait_forgotten(name)


def test_a_create_killed_after_the_hand_over_is_finished_with_recover_and_the_printed_patch(lab, cli, kube, tmp_path):
    """The process dies right after the operator got the offsets: the journal finishes them (recover), the
    connector stays STOPPED and marked; a second create says so and prints the patch that sets its state."""
    import subprocess

    from kubectl_offsets.core.online import lifecycle
    from kubectl_offsets.core.inputs import AlterRequest
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
    from kubectl_offsets.model import Options, WaitSettings

    name, topic = unique_name("ckill"), unique_name("ckill-topic")
    create_topic(lab.admin, topic)
    records = ["r0", "r1", "r2", "r3"]
    lab.produce(topic, records)
    path, conn = sink_manifest(lab, tmp_path, name, topic)
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        lifecycle.create_connector(kube, lifecycle.read_manifest(str(path)), AlterRequest(sets=(f"{topic}:0=2",)),
                                   accept_start_window=bool(WINDOW), namespace=lab.ns,
                                   options=Options(yes=True, wait=WaitSettings(timeout=90)))
    obj = lab.cr(conn)
    assert JOURNAL in annotations(obj) and CREATING in annotations(obj) and spec_state(obj) == "stopped"

    again = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=2", "--yes", *WINDOW)
    assert again.exit_code == 5 and "did not finish" in again.stderr and "kubectl offsets recover" in again.stderr
    recovered = cli("recover", name, "-n", lab.ns, "--force")  # the killed run's lease still runs
    assert recovered.exit_code == 0, str(recovered)
    assert lab.judge.sink_offsets(name) == {0: 2} and live_state(lab.cr(conn)) == "STOPPED"
    assert lab.judge.state(name) == "STOPPED"
    window = conn.file_lines()  # nothing ran on 1.2 (created stopped, kept stopped); a start window's prefix before
    assert window == ([] if CREATES_STOPPED else records[:len(window)]), window

    patch = cli("create", "-f", str(path), "-n", lab.ns, "--set", f"{topic}:0=2", "--yes", *WINDOW).stderr
    command = patch[patch.index("kubectl patch"):].split("\n")[0]
    subprocess.run(command.replace("kubectl", f"/usr/bin/kubectl --kubeconfig {lab.env.kubeconfig}", 1), shell=True,
                   check=True, capture_output=True)
    lab.judge.wait_sink_offsets(name, {0: 4}, timeout=RECORDS_TIMEOUT)
    assert read_from(conn.file_lines(), records, "r2"), conn.file_lines()
    assert CREATING not in annotations(lab.cr(conn))


def test_a_delete_killed_during_the_reset_is_finished_by_recover(lab, cli, kube):
    """The delete's journal records the whole operation (stop, reset, delete): recover finishes the reset, keeps the
    connector stopped meanwhile (a sink must not re-read its topic from the beginning) and deletes it."""
    from kubectl_offsets.core.online import lifecycle
    from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
    from kubectl_offsets.core.online.targets import TargetSpec
    from kubectl_offsets.model import Options, WaitSettings

    old = lab.sink("dkill", records=3)
    lab.judge.wait_sink_offsets(old.name, {0: 3}, but=old.live_partition)
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        lifecycle.delete_connector(kube, TargetSpec(old.name), reset_offsets=True, namespace=lab.ns,
                                   options=Options(yes=True, wait=WaitSettings(timeout=90)))
    assert exists(lab, old.name)
    journal = json.loads(annotations(lab.cr(old))[JOURNAL])
    assert journal["then_delete"] is True and journal["previous_state"] is None and journal["resume"] is False

    refused = cli("delete", old.name, "-n", lab.ns, "--reset-offsets", "--yes")
    assert refused.exit_code == 5 and "kubectl offsets recover" in refused.stderr
    assert "then delete" in refused.stderr, refused.stderr
    recovered = cli("recover", old.name, "-n", lab.ns, "--force")  # the killed run is this process: alive
    assert recovered.exit_code == 0, str(recovered)
    assert f"kafkaconnector/{old.name} deleted" in recovered.stdout
    wait_gone(lab, old.name)  # Connect has forgotten it: nothing more can be written
    assert old.file_lines() == ["r0", "r1", "r2"]  # stopped until deleted: nothing re-read
    assert lab.judge.sink_offsets(old.name) == {}
    # Its offsets are gone: a connector created later under this name starts from the beginning.
    new_file = lab.workdir / f"{old.name}-again.out"
    lab.cluster.create(lab._connector(old.name, FILE_SINK, {"file": str(new_file), "topics": old.topic}, None, None))
    again = Connector(lab.ns, old.name, old.topic, new_file)
    # Connect may answer the operator's first pass over the new connector with a 409 or a rebalance's 500 (it has
    # just forgotten one of that name); Strimzi then retries only on an event or its periodic pass, 120 s later.
    lab.wait_state(again, "RUNNING", timeout=RECORDS_TIMEOUT)
    wait_written(lab, again, ["r0", "r1", "r2"], "the re-created sink")


def test_ctrl_c_while_delete_stops_the_connector_puts_it_back(lab, cli, env, tmp_path):
    """A real SIGINT to a real `kubectl-offsets delete --reset-offsets` while it waits for the connector to stop:
    the stop was journaled with it, so the connector is made safe (running again, offsets unchanged) and the
    message says so; nothing is left for recover."""
    import os
    import signal
    import subprocess
    import sys

    conn = lab.sink("dint", records=2)
    lab.judge.wait_sink_offsets(conn.name, {0: 2}, but=conn.live_partition)
    process = subprocess.Popen(
        [sys.executable, "-m", "kubectl_offsets", "delete", conn.name, "-n", lab.ns, "--reset-offsets", "--yes",
         "--kubeconfig", env.kubeconfig], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)}, **interruptible())
    seen = []
    for line in process.stderr:
        seen.append(line)
        if "waiting for connector" in line and "STOPPED" in line:
            process.send_signal(signal.SIGINT)
            break
    stderr = "".join(seen) + process.stderr.read()
    code = process.wait(120)

    assert code == 130, stderr
    assert "interrupted; making the connector safe" in stderr and "restored to running" in stderr, stderr
    assert f"kafkaconnector/{conn.name} was not deleted" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    obj = lab.wait_state(conn, "RUNNING")
    assert spec_state(obj) is None and JOURNAL not in annotations(obj)
    assert lab.judge.sink_offsets(conn.name, but=conn.live_partition) == {0: 2}
    # The stop may have reached Connect before the Ctrl-C, and the operator's status may still show a pass from
    # before it: Connect itself runs the connector again once the operator acts on the restored spec.
    eventually("Connect running the connector again", lambda: lab.judge.state(conn.name) == "RUNNING", timeout=90)
    nothing = cli("recover", conn.name, "-n", lab.ns)
    assert nothing.exit_code == 3 and "no interrupted kubectl-offsets operation" in nothing.stderr, str(nothing)


def test_time_travel_with_an_unreachable_spec_address_says_how_to_pass_one_and_changes_nothing(lab, cli):
    """The KafkaConnect's bootstrap address is cluster-internal: the Service of a Strimzi Kafka cluster, which its
    Connect workers reach (the real operator's environment maps the name for them, as cluster DNS does) and this
    machine cannot resolve. The connector runs; only the plugin, outside the cluster, needs another address."""
    far = f"far-{unique_name('c')[-6:]}"
    address = f"{far}-kafka-bootstrap.{lab.ns}.svc:9092"
    lab.own_connect(far, bootstrap=address)
    name, topic = unique_name("far"), unique_name("far-topic")
    create_topic(lab.admin, topic)
    body = lab._connector(name, FILE_SINK, {"file": str(lab.workdir / f"{name}.out"), "topics": topic}, None, None)
    body["metadata"]["labels"]["strimzi.io/cluster"] = far
    lab.cluster.create(body)
    conn = Connector(lab.ns, name, topic, lab.workdir / f"{name}.out")
    lab.wait_state(conn, "RUNNING")
    before = settled(lab, conn)

    result = cli("alter", name, "-n", lab.ns, "--to-latest", "--topic", topic, "--yes")

    assert result.exit_code == 10, str(result)  # KAFKA_UNREACHABLE: a broker that gives no answers, not bad flags
    assert f"{address} (from the KafkaConnect spec)" in result.stderr
    assert "kubectl port-forward" in result.stderr and "--bootstrap-server localhost:9092" in result.stderr
    assert_unchanged(lab.cluster, conn, before)
