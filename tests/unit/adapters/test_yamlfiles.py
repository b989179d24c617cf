"""The byte-stable YAML editor: untouched documents and lines stay byte-identical, edits land where they belong,
and an edit followed by its inverse gives back the original bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_offsets.adapters import yamlfiles

ODD = """\
# header comment
---
apiVersion: kafka.strimzi.io/v1beta2   # trailing comment
kind: KafkaConnector
metadata:
    name: "odd"
    labels: {strimzi.io/cluster: connect}
spec:
      class: x.y.FileStreamSinkConnector
      tasksMax:    3
      config:
          topics: >-
              orders,
              payments
          long: %s
          anchors: &shared {a: 1}
          again: *shared
...
---
# second document, untouched
kind: ConfigMap
apiVersion: v1
metadata: {name: keep-me}
data: {k: 'v'}
""" % ("x" * 150)


def _load(text: str) -> yamlfiles.YamlFile:
    return yamlfiles.load_text(text, Path("f.yaml"))


def _stop(loaded: yamlfiles.YamlFile, index: int = 1) -> None:
    doc = loaded.documents[index]
    yamlfiles.set_key(doc.data["spec"], "state", "stopped", before=("config",))
    yamlfiles.set_key(doc.data["metadata"], "annotations", {"a/b": "{\"x\": 1}"}, before=("labels",))
    doc.edited = True


def _undo(loaded: yamlfiles.YamlFile, index: int = 1) -> None:
    doc = loaded.documents[index]
    yamlfiles.delete_key(doc.data["spec"], "state")
    yamlfiles.delete_key(doc.data["metadata"], "annotations")
    doc.edited = True


def test_unedited_render_is_the_original():
    assert _load(ODD).render() == ODD
    assert [d.first_line for d in _load(ODD).documents] == [1, 2, 19]


@pytest.mark.parametrize("text", [ODD, ODD.replace("\n", "\r\n"), ODD.rstrip("\n")])
def test_edit_changes_only_the_new_lines_and_inverse_restores_bytes(text):
    loaded = _load(text)
    _stop(loaded)
    edited = loaded.render()
    assert loaded.warnings == []
    new_lines = edited.splitlines()
    old_lines = text.splitlines()
    added = [line for line in new_lines if line not in old_lines]
    assert [line.strip() for line in added] == ["annotations:", "a/b: '{\"x\": 1}'", "state: stopped"]
    assert [line for line in new_lines if line not in added] == old_lines  # everything else, in order, verbatim
    assert "      state: stopped" in new_lines  # with the block's own (6-space) indentation
    again = yamlfiles.load_text(edited, Path("f.yaml"))
    _undo(again)
    assert again.render() == text


def test_changing_a_quoted_value_keeps_its_quotes_and_comment():
    text = "spec:\n  state: 'running'   # keep\n  config: {}\n"
    loaded = _load(text)
    yamlfiles.set_key(loaded.documents[0].data["spec"], "state", "stopped")
    loaded.documents[0].edited = True
    assert loaded.render() == "spec:\n  state: 'stopped'   # keep\n  config: {}\n"


def test_comment_above_the_next_key_stays_above_it():
    text = "spec:\n  tasksMax: 1\n  # about config\n  config:\n    a: 1\n"
    loaded = _load(text)
    yamlfiles.set_key(loaded.documents[0].data["spec"], "state", "stopped", before=("config",))
    loaded.documents[0].edited = True
    assert loaded.render() == "spec:\n  tasksMax: 1\n  state: stopped\n  # about config\n  config:\n    a: 1\n"


def test_unparsable_yaml_names_the_line():
    with pytest.raises(yamlfiles.YamlParseError, match="line 7"):
        _load("a: 1\n---\nb: 2\n---\nc:\n  d: 1\n e: [\n")


def test_sequence_indentation_is_detected():
    assert yamlfiles.detect_indent("a:\n  - x\n  - y\n") == (2, 4, 2)
    assert yamlfiles.detect_indent("a:\n- x\nb:\n    c: 1\n") == (4, 2, 0)
    assert yamlfiles.detect_indent("a: 1\n") == (2, 2, 0)


def test_new_files_use_block_style_and_literal_blocks():
    text = yamlfiles.dump_new([{"data": {"k": "{\n  \"a\": 1\n}\n"}}], header="# h\n")
    assert text == "# h\ndata:\n  k: |\n    {\n      \"a\": 1\n    }\n"


def test_a_line_ruamel_reformats_is_rewritten_alone():
    text = "spec:\n  class: x\n  state:    running     # odd spacing\n  tasksMax:   1\n  config: {a: 1}\n"
    loaded = _load(text)
    yamlfiles.set_key(loaded.documents[0].data["spec"], "state", "stopped")
    loaded.documents[0].edited = True
    result = loaded.render()
    assert loaded.warnings == []
    assert result.splitlines()[:2] == ["spec:", "  class: x"]
    assert result.splitlines()[3:] == ["  tasksMax:   1", "  config: {a: 1}"]
    assert result.splitlines()[2].split("#")[0].split() == ["state:", "stopped"]
