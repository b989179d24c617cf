"""The online flow moves real data: a FileStreamSink re-writes records after alter, skips exactly one record with
--skip-record, a FileStreamSource re-reads its file after reset; paused stays paused; --no-resume stays stopped.

Proof is in the records (the sink's output file, the source's topic) and the sink's consumer group, read without
the plugin (tests/judges.py). Every sink here also reads a partition that a producer keeps writing to
(``Lab.sink``'s live partition); the assertions are about partition 0, whose records the test controls.
"""
from __future__ import annotations

from tests import judges

from .conftest import JOURNAL, annotations, eventually, live_state, spec_state


def _wait_committed(lab, conn, expected: int) -> None:
    """The sink commits its consumer offsets about once a second: until its group holds ``expected``."""
    lab.judge.wait_sink_offsets(conn.name, {0: expected}, but=conn.live_partition)


def test_alter_set_makes_the_sink_write_records_again(lab, cli):
    conn = lab.sink("set", records=6, live=True)
    _wait_committed(lab, conn, 6)
    assert conn.file_lines() == [f"r{i}" for i in range(6)]

    result = cli("alter", conn.name, "-n", conn.ns, "--set", f"{conn.topic}:0=2", "--yes")

    assert result.exit_code == 0, str(result)
    assert "changed" in result.stdout and conn.topic in result.stdout  # the before/after table on stdout
    assert "==> " in result.stderr and "==> " not in result.stdout  # progress on stderr only
    assert "connector is running" in result.stderr
    obj = lab.cr(conn)
    assert JOURNAL not in annotations(obj) and spec_state(obj) is None  # journal gone, stanza as before
    # The real sink re-reads records 2.. and appends them to its file.
    eventually("records r2..r5 written again", lambda: conn.file_lines() == [f"r{i}" for i in range(6)]
               + [f"r{i}" for i in range(2, 6)] or None)
    _wait_committed(lab, conn, 6)


def test_skip_record_skips_exactly_one_poison_record_and_paused_stays_paused(lab, cli):
    """The sink wrote r0..r2 and was paused; r3 (the poison record), r4, r5 arrive. --skip-record TOPIC:0:3 on the
    paused sink leaves it paused; once resumed it writes r4 and r5: exactly one record skipped."""
    conn = lab.sink("skip", records=3, live=True)
    _wait_committed(lab, conn, 3)
    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "paused"}})
    lab.wait_state(conn, "PAUSED")
    lab.produce(conn.topic, ["r3", "r4", "r5"])

    result = cli("alter", conn.name, "-n", conn.ns, "--skip-record", f"{conn.topic}:0:3", "--yes")

    assert result.exit_code == 0, str(result)
    assert "connector is paused" in result.stderr
    obj = lab.cr(conn)
    assert spec_state(obj) == "paused" and live_state(obj) == "PAUSED"  # paused before -> paused after
    assert JOURNAL not in annotations(obj)
    offsets = lab.judge.sink_offsets(conn.name)
    assert offsets[0] == 4  # the next record to read is the one after the poison record
    assert conn.file_lines() == ["r0", "r1", "r2"]  # paused: nothing consumed meanwhile
    assert offsets[1] == len(conn.live_lines())  # the live partition: exactly where the paused sink left it

    lab.cluster.merge(conn.ns, conn.name, {"spec": {"state": "running"}})
    eventually("r4 and r5 written", lambda: conn.file_lines() == ["r0", "r1", "r2", "r4", "r5"] or None)
    _wait_committed(lab, conn, 6)
    assert conn.file_lines() == ["r0", "r1", "r2", "r4", "r5"]


def test_reset_makes_the_source_reread_its_file(lab, cli):
    conn = lab.source("reset", lines=4)
    first = lab.topic_values(conn.topic, 4)
    assert first == [f"line-{i}" for i in range(4)]

    result = cli("reset", conn.name, "-n", conn.ns, "--yes")

    assert result.exit_code == 0, str(result)
    assert "connector is running" in result.stderr
    # The source starts again from position 0: the topic receives the same four lines a second time.
    assert lab.topic_values(conn.topic, 8) == first + first
    lab.judge.wait_stored(conn.name, lambda entries: judges.position(entries) == conn.file.stat().st_size,
                          "the end of the file")
    assert lab.judge.topic_values(conn.topic) == first + first  # read to its end: nothing more comes
    assert JOURNAL not in annotations(lab.cr(conn))


def test_no_resume_leaves_the_connector_stopped_and_says_so(lab, cli):
    conn = lab.source("noresume", lines=2)
    lab.topic_values(conn.topic, 2)

    result = cli("reset", conn.name, "-n", conn.ns, "--yes", "--no-resume")

    assert result.exit_code == 0, str(result)
    assert "--no-resume" in result.stderr and "left STOPPED" in result.stderr
    assert "connector is stopped" in result.stderr
    obj = lab.cr(conn)
    assert live_state(obj) == "STOPPED" and spec_state(obj) == "stopped"
    assert JOURNAL not in annotations(obj) and "alterOffsets" not in obj["spec"]
    assert lab.judge.state(conn.name) == "STOPPED" and lab.judge.stored(conn.name) == []  # reset, left stopped
    assert len(lab.topic_values(conn.topic, 2)) == 2  # stopped: nothing re-read


def test_reset_makes_the_sink_consume_the_topic_again(lab, cli):
    """Reset deletes the sink's consumer group offsets; Connect's sink consumers start from the earliest record."""
    conn = lab.sink("sinkreset", records=3, live=True)
    _wait_committed(lab, conn, 3)

    result = cli("reset", conn.name, "-n", conn.ns, "--yes")

    assert result.exit_code == 0, str(result)
    # 120 s: the sink's consumer group rejoins after the resume and re-reads the live partition's backlog too
    lab.judge.wait_sink_offsets(conn.name, {0: 3}, but=conn.live_partition, timeout=120)  # Connect emptied it first
    assert conn.file_lines() == ["r0", "r1", "r2"] * 2
