"""The list ConfigMap's JSON must be byte-identical to Jackson's default pretty printer (§2.4)."""
import json

import pytest

from tests.env.emulator import jackson_json

# Verbatim as Strimzi writes it (§2.4, keys in tests/env/emulator/README.md): the sink connector example.
SINK_EXAMPLE = """{
  "offsets" : [ {
    "partition" : {
      "kafka_topic" : "my-topic",
      "kafka_partition" : 2
    },
    "offset" : {
      "kafka_offset" : 4
    }
  } ]
}"""


def test_sink_example_as_strimzi_writes_it():
    body = json.loads('{"offsets":[{"partition":{"kafka_topic":"my-topic","kafka_partition":2},'
                      '"offset":{"kafka_offset":4}}]}')
    assert jackson_json.dumps(body) == SINK_EXAMPLE


def test_empty_offsets_after_reset():
    assert jackson_json.dumps({"offsets": []}) == '{\n  "offsets" : [ ]\n}'


def test_no_trailing_newline_and_key_order_kept():
    text = jackson_json.dumps(json.loads('{"z":1,"a":2}'))
    assert text == '{\n  "z" : 1,\n  "a" : 2\n}'
    assert not text.endswith("\n")


def test_two_array_elements_and_mm2_partition():
    body = {"offsets": [
        {"partition": {"cluster": "east", "partition": 0, "topic": "t"}, "offset": {"offset": 41}},
        {"partition": {"cluster": "east", "partition": 1, "topic": "t"}, "offset": {"offset": None}},
    ]}
    assert jackson_json.dumps(body) == """{
  "offsets" : [ {
    "partition" : {
      "cluster" : "east",
      "partition" : 0,
      "topic" : "t"
    },
    "offset" : {
      "offset" : 41
    }
  }, {
    "partition" : {
      "cluster" : "east",
      "partition" : 1,
      "topic" : "t"
    },
    "offset" : {
      "offset" : null
    }
  } ]
}"""


def test_empty_object_scalars_and_nested_arrays():
    assert jackson_json.dumps({"a": {}, "b": [1, True, None, "x"], "c": [[]]}) == \
        '{\n  "a" : { },\n  "b" : [ 1, true, null, "x" ],\n  "c" : [ [ ] ]\n}'


def test_top_level_scalars_and_array():
    assert jackson_json.dumps([]) == "[ ]"
    assert jackson_json.dumps([{"a": 1}]) == '[ {\n  "a" : 1\n} ]'
    assert jackson_json.dumps("x") == '"x"'


def test_string_escaping_like_jackson():
    # Control characters: short escapes where JSON has them, otherwise \u00XX in upper-case hex; '/' and
    # non-ASCII are written as they are.
    assert jackson_json.dumps({"f": 'a"b\\c\n\t\x01/é'}) == '{\n  "f" : "a\\"b\\\\c\\n\\t\\u0001/é"\n}'


@pytest.mark.parametrize("value, text", [
    (1.0, "1.0"), (0.5, "0.5"), (100.0, "100.0"), (0.001, "0.001"), (1e-4, "1.0E-4"),
    (1e7, "1.0E7"), (12345678.9, "1.23456789E7"), (-2.5e-10, "-2.5E-10"), (1e21, "1.0E21"),
])
def test_doubles_follow_java_double_to_string(value, text):
    assert jackson_json.dumps(value) == text


def test_position_of_file_source():
    body = {"offsets": [{"partition": {"filename": "/tmp/in.txt"}, "offset": {"position": 15295}}]}
    assert '"position" : 15295' in jackson_json.dumps(body)
