"""The preview says when its 'before' was listed while the connector ran, and a dry run how old its 'before' is."""
from __future__ import annotations

from kubectl_offsets import strimzi
from kubectl_offsets.cli.common import render_preview
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.online.operations import Preview
from kubectl_offsets.model import OffsetEntry, OffsetsDocument


def _preview(running: bool) -> Preview:
    resource = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
                "metadata": {"name": "sink", "namespace": "kafka", "labels": {"strimzi.io/cluster": "c"}},
                "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector"}}
    before = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": p}, {"kafka_offset": 10})
                                 for p in (0, 1)])
    change = OffsetsDocument.of([OffsetEntry({"kafka_topic": "t", "kafka_partition": 0}, {"kafka_offset": 4})])
    return Preview("alter", strimzi.connector_target(resource), ConnectorKind.SINK, before, change,
                   listed_while_running=running)


def test_a_preview_listed_while_running_says_the_offsets_may_move():
    text = render_preview(_preview(True))
    assert "listed while the connector runs" in text and "listed once it is stopped" in text


def test_a_paused_connector_s_preview_has_no_such_note():
    assert "listed while the connector runs" not in render_preview(_preview(False))


def test_a_dry_run_says_how_old_its_before_is_and_what_it_assumes(capsys):
    """--dry-run lists nothing (a list writes to the cluster): BEFORE is the connector's last list, which may be
    hours old; its writes are the engine's (lists, backups and journal included), and from the first wait on it
    assumes the operator does what it is asked. The dry run says both."""
    import datetime as dt

    from kubectl_offsets.cli.common import print_dry_run

    preview = _preview(False)
    written = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2, minutes=5)
    preview.listed_at = written.strftime("%Y-%m-%dT%H:%M:%SZ")
    print_dry_run(preview)
    err = capsys.readouterr().err
    assert f"last list, written {preview.listed_at} (2h05m ago)" in err
    assert "assumed: the writes are the ones the same engine makes for a real run" in err
    assert "operator and Connect are assumed to do what they are asked" in err and "not shown" not in err
    assert "dry run: nothing was changed" in err


def test_a_dry_run_of_a_never_listed_connector_says_so(capsys):
    from kubectl_offsets.cli.common import print_dry_run

    preview = _preview(False)
    preview.before = None
    print_dry_run(preview)
    err = capsys.readouterr().err
    assert "current offsets unknown (never listed)" in err and "last list, written" not in err


def test_a_last_list_time_that_is_not_rfc3339_is_shown_without_an_age(capsys):
    from kubectl_offsets.cli.common import print_dry_run

    preview = _preview(False)
    preview.listed_at = "yesterday"
    print_dry_run(preview)
    assert "last list, written yesterday, not listed anew" in capsys.readouterr().err
