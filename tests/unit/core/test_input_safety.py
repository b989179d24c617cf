"""Offsets input as users really produce it (issue 11, cases 14-17): spreadsheet CSV (BOM, header), quoting tricks,
duplicate partitions, values beyond Kafka's limits, illegal topic names, hostile nesting, a malformed kubeconfig,
and the Spark logging configuration in a private file. Every mistake is an InputError naming the line, never a
traceback, and never an echo of the file's other lines."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile

import pytest

from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.inputs import AlterRequest, ConnectorFacts, build_change
from kubectl_offsets.errors import InputError

SINK = ConnectorFacts(ConnectorKind.SINK)
MIRROR = ConnectorFacts(ConnectorKind.MIRROR_SOURCE, source_alias="east")


def from_file(tmp_path, content: bytes | str, facts=SINK):
    path = tmp_path / "offsets.input"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return build_change(AlterRequest(file=str(path)), facts, None)


def refused(tmp_path, content, facts=SINK) -> str:
    with pytest.raises(InputError) as caught:
        from_file(tmp_path, content, facts)
    return caught.value.message


def pairs(change):
    return [(e.partition["kafka_topic"], e.partition["kafka_partition"], e.offset["kafka_offset"]) for e in change]


# --- 14: BOM, header, quoting -------------------------------------------------------------------------------------

def test_csv_with_a_utf8_byte_order_mark_reads_the_topic_without_it(tmp_path):
    assert pairs(from_file(tmp_path, b"\xef\xbb\xbforders,0,5\r\norders,1,6\r\n")) == [("orders", 0, 5), ("orders", 1, 6)]


@pytest.mark.parametrize("header", ["topic,partition,offset", "TOPIC, PARTITION, OFFSET", '"topic","partition","offset"'])
def test_csv_header_line_is_accepted(tmp_path, header):
    assert pairs(from_file(tmp_path, f"{header}\norders,0,5\n")) == [("orders", 0, 5)]


def test_json_with_a_byte_order_mark_is_read(tmp_path):
    document = b'\xef\xbb\xbf{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, ' \
               b'"offset": {"kafka_offset": 3}}]}'
    assert pairs(from_file(tmp_path, document)) == [("orders", 0, 3)]


@pytest.mark.parametrize("line", ['"ord,ers",1,5', '"orders",1,5', "'orders',1,5"])
def test_quoted_csv_cells_are_refused_naming_the_line(tmp_path, line):
    message = refused(tmp_path, f"orders,0,5\n{line}\n")
    assert "line 2" in message and "quoted" in message


def test_a_quoted_cell_cannot_smuggle_a_line_break_into_a_topic(tmp_path):
    message = refused(tmp_path, 'topic,partition,offset\n"ord\ners",1,5\n')
    assert "line 2" in message and "quoted" in message


# --- 15: duplicates, limits, topic names ----------------------------------------------------------------------------

def test_duplicate_partition_in_csv_is_refused_naming_both_lines(tmp_path):
    message = refused(tmp_path, "orders,0,5\norders,1,5\norders,0,7\n")
    assert "line 3" in message and "line 1" in message


def test_duplicate_partition_in_a_json_document_is_refused(tmp_path):
    entry = '{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, "offset": {"kafka_offset": %d}}'
    message = refused(tmp_path, '{"offsets": [%s, %s]}' % (entry % 1, entry % 2))
    assert "entry 2" in message and "entry 1" in message


def test_duplicate_set_flags_are_refused():
    with pytest.raises(InputError, match="--set 'orders:0=2' names .* again \\(first at --set 'orders:0=1'\\)"):
        build_change(AlterRequest(sets=("orders:0=1", "orders:0=2")), SINK, None)


@pytest.mark.parametrize("content, words", [
    (f"orders,0,{2**63}\n", "above Kafka's maximum 9223372036854775807"),
    (f"orders,{2**31},5\n", "above Kafka's maximum 2147483647"),
    (f"orders,0,{2**63 - 1}\norders,{2**31},1\n", "line 2"),
])
def test_values_beyond_kafkas_limits_are_refused_naming_the_line(tmp_path, content, words):
    assert words in refused(tmp_path, content)


def test_the_largest_legal_values_are_accepted(tmp_path):
    assert pairs(from_file(tmp_path, f"orders,{2**31 - 1},{2**63 - 1}\n")) == [("orders", 2**31 - 1, 2**63 - 1)]


@pytest.mark.parametrize("topic", ["ord ers", "orders!", "x" * 250, ".", "..", "caf\u00e9"])
def test_illegal_topic_names_are_refused(tmp_path, topic):
    message = refused(tmp_path, f"orders,0,1\n{topic},0,5\n")
    assert "line 2" in message and "not a legal topic name" in message


def test_a_249_character_topic_is_legal(tmp_path):
    assert pairs(from_file(tmp_path, f"{'x' * 249},0,5\n"))[0][0] == "x" * 249


@pytest.mark.parametrize("request_", [AlterRequest(sets=(f"orders:0={2**63}",)),
                                      AlterRequest(sets=(f"orders:{2**31}=1",)),
                                      AlterRequest(sets=("bad topic:0=1",)),
                                      AlterRequest(skip_records=(f"orders:0:{2**63 - 1}",))])
def test_shorthand_flags_get_the_same_limits(request_):
    with pytest.raises(InputError, match="maximum|legal topic"):
        build_change(request_, SINK, None)


def test_json_offsets_get_the_same_limits(tmp_path):
    document = ('{"offsets": [{"partition": {"cluster": "east", "topic": "orders", "partition": 0}, '
                '"offset": {"offset": %d}}]}' % 2**63)
    assert "maximum" in refused(tmp_path, document, MIRROR)


# --- 16: messages, not tracebacks, and no echo ------------------------------------------------------------------------

@pytest.mark.parametrize("content", ["[" * 100_000, '{"offsets": ' + "[" * 5000 + "]" * 5000 + "}",
                                     "offsets:\n" + "".join("  " * i + "- \n" for i in range(1, 3000)),
                                     "offsets: " + "[" * 5000 + "]" * 5000])
def test_deeply_nested_documents_get_a_message(tmp_path, content):
    message = refused(tmp_path, content)
    assert "nested too deeply" in message or "not valid" in message


def test_a_file_that_is_not_offsets_is_not_echoed(tmp_path):
    shadow = "root:$6$SECRETHASHroot:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nbob:$6$SECRETHASHbob:1:0:9:7:::\n"
    message = refused(tmp_path, shadow)
    assert "SECRETHASH" not in message and "daemon" not in message


def test_a_not_utf8_file_gets_a_message(tmp_path):
    assert "not UTF-8" in refused(tmp_path, b"orders,0,5\ncaf\xe9,0,1\n")


@pytest.mark.parametrize("kubeconfig", [
    'apiVersion: v1\nclusters: [ {name: a, cluster: {server: "https://x", token: SECRETTOKEN',
    "- just\n- a list\n",
    "contexts: 5\ncurrent-context: x\n",
    "current-context: a\ncontexts:\n- name: a\n  context: 7\n",
])
def test_a_malformed_kubeconfig_gets_a_message_without_its_contents(tmp_path, kubeconfig):
    path = tmp_path / "kubeconfig"
    path.write_text(kubeconfig)
    result = subprocess.run([sys.executable, "-m", "kubectl_offsets", "list", "my-sink", "--kubeconfig", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "SECRETTOKEN" not in result.stderr
    assert f"the kubeconfig {path}" in result.stderr


# --- 17: Spark's logging configuration -----------------------------------------------------------------------------

def test_spark_log4j2_configuration_is_a_private_file_not_a_fixed_shared_path(tmp_path):
    from kubectl_offsets.adapters.spark import session

    fixed = os.path.join(tempfile.gettempdir(), "kubectl-offsets-spark-log4j2.properties")
    name = session._log4j_file()
    assert name != fixed
    info = os.lstat(name)
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.getuid()
    assert open(name).read() == session._LOG4J2
