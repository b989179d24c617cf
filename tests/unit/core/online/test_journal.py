"""The journal's ownership fields (heartbeat, lease, request digest) and its schema, without a cluster."""
from __future__ import annotations

import datetime as dt
import json
import time

import pytest

from kubectl_offsets import schemas
from kubectl_offsets.core.online import journal as journal_module
from kubectl_offsets.core.online.journal import STEPS, Journal, document_digest
from kubectl_offsets.errors import PreconditionError
from kubectl_offsets.model import OffsetEntry, OffsetsDocument

NOW = dt.datetime(2026, 11, 23, 22, 0, 0, tzinfo=dt.timezone.utc)


def _journal(**extra) -> Journal:
    return Journal(operation="alter", id="abcd1234", started="2026-11-23T21:59:00Z", kind="KafkaConnector",
                   resource="sink", connector="sink", previous_state=None, previous_alter_offsets=None,
                   backup="sink-offsets-backup-20261123t215900z", offsets_configmap="sink-offsets-alter", **extra)


def test_the_owner_is_alive_while_its_lease_runs():
    journal = _journal()
    journal.beat(45, now=NOW)
    assert journal.owner_alive(NOW + dt.timedelta(seconds=44))
    assert "in progress by abcd1234, last seen 44s ago" in journal.presence(NOW + dt.timedelta(seconds=44))
    assert not journal.owner_alive(NOW + dt.timedelta(seconds=46))
    assert "presumed gone" in journal.presence(NOW + dt.timedelta(seconds=46))
    journal.beat(0, now=NOW)  # released: recover needs no --force
    assert not journal.owner_alive(NOW)


def test_a_journal_without_heartbeat_never_counts_as_alive():
    assert not _journal().owner_alive(NOW)


def test_round_trip_and_schema():
    journal = _journal(request="reset", resume=False)
    journal.beat(330, now=NOW)
    text = journal.to_annotation()
    assert schemas.errors("journal", json.loads(text)) == []
    assert Journal.from_annotation(text) == journal
    assert journal.resets


def test_version_1_journals_are_still_read():
    data = json.loads(_journal().to_annotation())
    for key in ("request", "request_digest", "resume", "heartbeat", "lease"):
        data.pop(key)
    data.update(version=1, step="backup", operation="reset")
    journal = Journal.from_annotation(json.dumps(data))
    assert journal.resets and journal.resume and not journal.owner_alive()
    assert not journal.past_point_of_no_return


def test_an_unknown_field_is_refused_as_from_a_newer_version():
    data = json.loads(_journal().to_annotation())
    data["from_the_future"] = 1
    with pytest.raises(PreconditionError, match="not understood") as refused:
        Journal.from_annotation(json.dumps(data))
    assert "newer kubectl-offsets" in refused.value.advice


def test_stop_comes_before_the_backup():
    assert STEPS.index("stop") < STEPS.index("backup") < STEPS.index("annotate")


def test_the_digest_ignores_key_order_and_number_types_do_not_matter_in_json():
    a = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 4})])
    b = OffsetsDocument.of([OffsetEntry({"kafka_partition": 0, "kafka_topic": "t"}, {"kafka_offset": 4})])
    c = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 5})])
    assert document_digest(a) == document_digest(b) != document_digest(c)
    assert document_digest(a).startswith("sha256:")


def _owned_by(owner) -> Journal:
    journal = _journal(owner=owner)
    journal.beat(330)  # an operator wait's lease: minutes
    return journal


def test_an_owner_on_this_host_whose_process_is_gone_is_dead_whatever_its_lease():
    import subprocess
    import sys

    from kubectl_offsets.core.online.journal import this_process

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    owner = {**this_process(), "pid": child.pid}
    owner["start"] = journal_module._start_time(child.pid)
    assert _owned_by(owner).owner_alive()  # running
    child.kill()
    deadline = time.monotonic() + 10  # SIGKILL is delivered asynchronously
    while _owned_by(owner).owner_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _owned_by(owner).owner_alive(), "a killed, not yet reaped (zombie) owner is dead"
    child.wait()
    journal = _owned_by(owner)
    assert not journal.owner_alive() and journal.owner_dead()
    assert f"its owner abcd1234 (pid {child.pid} on {owner['host']}) no longer runs" in journal.presence()
    assert schemas.errors("journal", json.loads(journal.to_annotation())) == []
    assert Journal.from_annotation(journal.to_annotation()) == journal


def test_an_owner_elsewhere_or_alive_here_keeps_its_lease():
    import os

    from kubectl_offsets.core.online.journal import this_process

    me = this_process()
    assert me["pid"] == os.getpid() and me["host"] and me["scope"].startswith(me["host"])
    assert _owned_by(me).owner_alive()  # this very process
    elsewhere = {**me, "pid": 2 ** 22 + 1, "scope": "another-host/another-boot"}  # a pid that cannot exist here
    assert _owned_by(elsewhere).owner_alive() and not _owned_by(elsewhere).owner_dead()
    if me["start"] is not None:  # a pid reused by a process started later is not the owner
        assert not _owned_by({**me, "start": me["start"] - 1}).owner_alive()
    assert _owned_by(None).owner_alive()  # an older kubectl-offsets: the lease alone decides


def test_a_delete_journal_says_what_follows_the_reset():
    journal = _journal(request="reset", resume=False, then_delete=True)
    journal.beat(45, now=NOW)
    data = json.loads(journal.to_annotation())
    assert data["then_delete"] is True and schemas.errors("journal", data) == []
    assert Journal.from_annotation(journal.to_annotation()).then_delete is True
    assert journal.describe().startswith("alter (then delete) of 'sink'")
    assert "then_delete" not in json.loads(_journal().to_annotation())  # absent from every other journal


class _JournalsOverTime:
    """A Kube whose KafkaConnector carries the given journals, one per read (the last one for ever after)."""

    def __init__(self, *journals):
        self.journals = list(journals)

    def get(self, kind, name, namespace):
        journal = self.journals.pop(0) if len(self.journals) > 1 else self.journals[0]
        annotations = {} if journal is None else {"kubectl-offsets.io/journal": journal.to_annotation()}
        return {"metadata": {"name": name, "namespace": namespace, "annotations": annotations}}


def _flow(kube, timeout: float = 30):
    from kubectl_offsets import strimzi
    from kubectl_offsets.connect import ConnectorKind
    from kubectl_offsets.core.online.engine import Run
    from kubectl_offsets.core.online.steps import ALTER
    from kubectl_offsets.model import WaitSettings
    from kubectl_offsets.progress import SilentProgress

    target = strimzi.connector_target({"metadata": {"name": "sink", "namespace": "kafka"}})
    return Run(ALTER, kube, target, ConnectorKind.SINK, WaitSettings(timeout=timeout), SilentProgress())


def test_recover_refuses_a_live_owner_elsewhere_and_names_wait():
    elsewhere = _owned_by({"host": "laptop", "pid": 4242, "scope": "laptop/another-boot", "start": 1})
    with pytest.raises(PreconditionError) as refused:
        _flow(_JournalsOverTime(elsewhere)).recover(elsewhere)
    assert refused.value.next_command == "kubectl offsets recover kafkaconnector/sink -n kafka --wait"
    assert "--force" in refused.value.advice and "in progress by abcd1234" in refused.value.message


def test_recover_wait_waits_until_the_lease_runs_out_or_the_owner_finishes(monkeypatch):
    import kubectl_offsets.core.online.engine as steps

    elsewhere = {"host": "laptop", "pid": 4242, "scope": "laptop/another-boot", "start": 1}
    waiting, lapsed = _owned_by(elsewhere), _owned_by(elsewhere)
    lapsed.beat(0)  # its owner's lease ran out (or it released it)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    flow = _flow(_JournalsOverTime(waiting, waiting, lapsed))
    assert flow._wait_out_the_owner(waiting) == lapsed
    finished = _flow(_JournalsOverTime(waiting, None))  # the owner finished: its journal is gone
    assert finished._wait_out_the_owner(waiting) is None
    clock = iter(range(0, 10_000, 100))  # monotonic seconds: the owner keeps renewing past the bound
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    with pytest.raises(steps.OperationTimeoutError) as late:
        _flow(_JournalsOverTime(waiting), timeout=30)._wait_out_the_owner(waiting)
    assert late.value.next_command.endswith("--force")


def _document(*entries: tuple[int, int]) -> OffsetsDocument:
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": "orders", "kafka_partition": p}, "offset": {"kafka_offset": o}} for p, o in entries]})


def test_the_request_digest_does_not_depend_on_the_order_of_the_partitions():
    """An undo's document comes from a backup, in the order Connect listed it; read back, the same offsets in
    another order are the same request (the real operator showed both orders within one run)."""
    assert document_digest(_document((0, 3), (1, 1))) == document_digest(_document((1, 1), (0, 3)))
    assert document_digest(_document((0, 3), (1, 1))) != document_digest(_document((0, 3), (1, 2)))


def test_a_digest_an_earlier_version_recorded_still_matches_its_document():
    from kubectl_offsets.core.online.journal import digest_matches

    document = _document((1, 1), (0, 3))
    legacy = "sha256:" + __import__("hashlib").sha256(json.dumps(
        document.to_json(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert digest_matches(document, legacy) and digest_matches(document, document_digest(document))
    assert not digest_matches(_document((1, 1), (0, 4)), legacy)
