"""Live partitions (issue 10, defect 1): a sink reads a static partition 0 and a partition 1 that a producer keeps
writing to during the whole test. Skipping a poison record on partition 0 must work, back up the offsets the
connector really had once stopped (so undo replays nothing of partition 1), and recover after a crash must verify
against those offsets too. Proof is in the records the sink writes and its consumer group, read without the plugin
(tests/judges.py).
"""
from __future__ import annotations

import json

import pytest

from kubectl_offsets.core.online import operations
from kubectl_offsets.core.inputs import AlterRequest
from kubectl_offsets.core.online.engine import SimulatedCrash, hooks
from kubectl_offsets.core.online.targets import TargetSpec
from kubectl_offsets.model import Options, WaitSettings

from tests import judges

from .conftest import JOURNAL, annotations, eventually, live_state, spec_state


def _by_partition(document: dict) -> dict[int, int]:
    return judges.by_partition(document["offsets"])


def _backup_name(stderr: str) -> str:
    return stderr.split("backing up the offsets to configmap/")[1].split()[0]


def _backup(lab, conn, stderr: str) -> dict[int, int]:
    name = _backup_name(stderr)
    return _by_partition(json.loads(lab.cluster.configmap(conn.ns, name)["data"]["offsets.json"]))


def _moving(lab, conn, static: int) -> int:
    """Wait until the sink committed ``static`` on partition 0 and the live partition 1 has moved; its offset."""
    found = eventually(f"{conn.name}: partition 0 at {static}, partition 1 moving",
                       lambda: (lambda o: o if o.get(0) == static and o.get(1, 0) > 0 else None)(
                           lab.judge.sink_offsets(conn.name)), timeout=90, interval=0.5)
    return found[1]


def _no_live_record_twice(conn) -> None:
    lines = conn.live_lines()
    assert len(lines) == len(set(lines)), f"live records written twice (replayed): {len(lines) - len(set(lines))}"


@pytest.fixture(scope="module")
def live_sink(lab, cli):
    conn = lab.sink("livesink", records=6, live=True)
    assert conn.live_partition == 1
    _moving(lab, conn, 6)
    return conn


def test_skip_record_on_a_sink_whose_other_partition_keeps_moving(lab, cli, live_sink):
    conn = live_sink
    live_before = _moving(lab, conn, 6)

    result = cli("alter", conn.name, "-n", conn.ns, "--skip-record", f"{conn.topic}:0:3", "--yes", "-o", "json")

    assert result.exit_code == 0, str(result)
    assert "listing the offsets of the stopped connector" in result.stderr
    after = _by_partition(json.loads(result.stdout))
    backup = _backup(lab, conn, result.stderr)
    # The requested partition exactly as asked; the live one as it was once the connector stopped (the backup),
    # which is at or past what it was before the command started.
    assert after[0] == 4 and backup[0] == 6
    assert after[1] == backup[1] >= live_before
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) is None
    eventually("connector running again", lambda: live_state(lab.cr(conn)) == "RUNNING")
    # The real sink re-writes r4 and r5 only (the poison record r3 is skipped), and keeps consuming partition 1.
    eventually("r4, r5 written again", lambda: conn.file_lines() == [f"r{i}" for i in range(6)] + ["r4", "r5"] or None)
    _moving(lab, conn, 6)
    assert lab.judge.sink_offsets(conn.name)[1] > after[1]

    # undo puts partition 0 back to 6 and partition 1 to where it was at the stop, which the sink had already
    # written: nothing of the live partition is written twice.
    undone = cli("undo", conn.name, "-n", conn.ns, "--yes", "--backup", _backup_name(result.stderr), "-o", "json")
    assert undone.exit_code == 0, str(undone)
    assert _by_partition(json.loads(undone.stdout))[0] == 6
    _moving(lab, conn, 6)
    assert conn.file_lines() == [f"r{i}" for i in range(6)] + ["r4", "r5"]
    _no_live_record_twice(conn)


def test_recover_after_a_crash_verifies_against_the_stopped_offsets(lab, cli, kube, live_sink, tmp_path):
    """The process dies right after handing the request over; meanwhile partition 1 received records. recover
    finishes: verification compares partition 1 with the offsets listed after the stop (the backup)."""
    conn = live_sink
    live_before = _moving(lab, conn, 6)
    with pytest.raises(SimulatedCrash), hooks.crash_after("annotate"):
        operations.alter_offsets(kube, TargetSpec(conn.name), AlterRequest(sets=(f"{conn.topic}:0=5",)),
                                 namespace=conn.ns, options=Options(yes=True, wait=WaitSettings(timeout=60)))
    journal = json.loads(annotations(lab.cr(conn))[JOURNAL])
    assert journal["step"] == "annotate"

    result = cli("recover", conn.name, "-n", conn.ns, "--force")

    assert result.exit_code == 0, str(result)
    assert "finished: offsets verified, connector running" in result.stdout
    eventually("connector running again", lambda: live_state(lab.cr(conn)) == "RUNNING")
    _moving(lab, conn, 6)  # r5 re-read: partition 0 back at 6
    assert conn.file_lines()[-1] == "r5" and lab.judge.sink_offsets(conn.name)[1] >= live_before
    _no_live_record_twice(conn)
