"""Names and labels kubectl-offsets puts on the cluster stay within Kubernetes' limits whatever the resource name
(defect 8 of issue 10): ConfigMap names are DNS subdomains of at most 253 characters, label values at most 63."""
import datetime as dt
import re

import pytest

from kubectl_offsets import conventions, strimzi
from kubectl_offsets.core.online.targets import check_generated_names
from kubectl_offsets.errors import InputError

LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
WHEN = dt.datetime(2026, 11, 22, 10, 15, tzinfo=dt.timezone.utc)


def long_name(length: int, tail: str = "") -> str:
    base = "connector.with-a-very-long-name-" * 10
    return (base[: length - len(tail)] + tail).strip(".-")


def test_short_names_are_their_own_label_value():
    assert conventions.label_value("my-sink") == "my-sink"
    assert conventions.label_value("x" * 63) == "x" * 63


@pytest.mark.parametrize("length", [64, 100, 253])
def test_long_names_get_a_truncated_and_hashed_label_value(length):
    name = long_name(length)
    value = conventions.label_value(name)
    assert len(value) <= 63 and LABEL_VALUE.fullmatch(value), value
    assert value == conventions.label_value(name)  # stable: backups are found again by it
    assert value[:20] == name[:20]  # still recognisable


def test_names_that_share_a_long_prefix_get_different_labels():
    a, b = long_name(120, "-a"), long_name(120, "-b")
    assert conventions.label_value(a) != conventions.label_value(b)


@pytest.mark.parametrize("length", [20, 230, 240, 253])
def test_generated_configmap_names_fit_and_are_distinct(length):
    name = long_name(length)
    made = [conventions.offsets_configmap_name(name), conventions.alter_configmap_name(name),
            conventions.backup_configmap_name(name, WHEN) + "-99", conventions.gitops_configmap_name(name, "0" * 16)]
    for generated in made:
        assert len(generated) <= 253 and SUBDOMAIN.fullmatch(generated), generated
    assert len(set(made)) == len(made)


def test_short_names_keep_their_familiar_form():
    assert conventions.offsets_configmap_name("my-sink") == "my-sink-offsets"
    assert conventions.alter_configmap_name("my-sink") == "my-sink-offsets-alter"
    assert conventions.backup_configmap_name("my-sink", WHEN) == "my-sink-offsets-backup-20261122t101500z"


def test_the_preflight_check_passes_long_names_and_names_what_cannot_fit():
    target = strimzi.ConnectorTarget(strimzi.KIND_CONNECTOR, "kafka", long_name(253), long_name(253))
    check_generated_names(target)  # every generated name fits

    bad = strimzi.ConnectorTarget(strimzi.KIND_MM2, "kafka", "mirror", "a" * 300 + "->b.MirrorSourceConnector",
                                  stanza_path=("spec", "mirrors", 0, "sourceConnector"),
                                  mm2_type="MirrorSourceConnector", source_alias="a" * 300, target_alias="b")
    with pytest.raises(InputError) as error:
        check_generated_names(bad)
    assert "ConfigMap key" in error.value.message and "253" in error.value.message
