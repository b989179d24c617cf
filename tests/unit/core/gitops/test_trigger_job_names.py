"""The trigger Job's names and image (issue 11, case 6): a Job name at most 63 characters whatever the resource is
called (the Job controller copies it into the pods' job-name label), distinct for distinct resources, and a default
image that is a fixed version, never a moving tag."""

from __future__ import annotations

import re

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.conventions import DEFAULT_TRIGGER_IMAGE, trigger_job_name
from kubectl_offsets.core.gitops import trigger_job

LABEL_VALUE = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


@pytest.mark.parametrize("length", [1, 38, 39, 40, 41, 46, 63, 100, 253])
def test_job_names_fit_a_label_value(length):
    resource = ("a" * (length - 1) + "z")[:length]
    target = strimzi.ConnectorTarget(strimzi.KIND_CONNECTOR, "kafka", resource, resource)
    docs = trigger_job.manifests(target, "0123456789abcdef", "kafka", "alter", DEFAULT_TRIGGER_IMAGE)
    for doc in docs:
        name = doc["metadata"]["name"]
        assert len(name) <= 63 and LABEL_VALUE.match(name), name
        assert name.endswith("-offsets-trigger-01234567")


def test_short_names_are_kept_whole_and_long_ones_stay_distinct():
    assert trigger_job_name("orders-sink", "0123456789abcdef") == "orders-sink-offsets-trigger-01234567"
    common = "payments-connector-for-the-eu-west-region-"
    first, second = (trigger_job_name(common + suffix, "0123456789abcdef") for suffix in ("primary", "secondary"))
    assert first != second and len(first) <= 63 and len(second) <= 63


def test_a_cut_never_leaves_a_dot_or_dash_before_the_hash():
    name = trigger_job_name("x" * 28 + ".-" + "y" * 30, "0123456789abcdef")
    assert ".-" not in name and "--" not in name


def test_the_default_image_is_a_pinned_version():
    image = DEFAULT_TRIGGER_IMAGE
    repository, _, tag = image.rpartition(":")
    assert repository and re.match(r"^v?\d+\.\d+\.\d+$", tag), image
    target = strimzi.ConnectorTarget(strimzi.KIND_CONNECTOR, "kafka", "orders-sink", "orders-sink")
    job = trigger_job.manifests(target, "0123456789abcdef", "kafka", "alter", image)[3]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == image
    # the image runs as root by default: runAsNonRoot alone would stop the pod from starting
    assert container["securityContext"]["runAsNonRoot"] and container["securityContext"]["runAsUser"] > 0


def test_the_cli_default_is_the_same_image():
    from click.testing import CliRunner

    from kubectl_offsets.cli.root import root

    help_text = CliRunner().invoke(root, ["gitops", "alter", "--help"]).output
    assert DEFAULT_TRIGGER_IMAGE in help_text and ":latest" not in help_text
