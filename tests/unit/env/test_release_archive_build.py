"""The release archive built in the background from the suite's start (tests/suite.prebuild_release_archive), and
the krew tests' wait for it (tests/integration/krew/krewtools.wait_for_background_build)."""
from __future__ import annotations

import os
import threading

import pytest

from tests import suite
from tests.integration.krew.krewtools import BACKGROUND_BUILD, build_log, wait_for_background_build


def test_the_krew_tests_wait_until_the_build_has_ended(tmp_path):
    status = tmp_path / "release-archive.status"
    threading.Timer(0.3, lambda: status.write_text("0\n")).start()
    wait_for_background_build(status, timeout=10, poll=0.05)
    assert status.read_text() == "0\n"


def test_a_failed_build_fails_them_with_the_end_of_its_log(tmp_path):
    status = tmp_path / "release-archive.status"
    (tmp_path / "release-archive.log").write_text("collecting...\nPyInstaller: error: no module named x\n")
    status.write_text("1\n")
    with pytest.raises(AssertionError, match=r"(?s)exit 1.*no module named x"):
        wait_for_background_build(status, timeout=10, poll=0.05)


def test_a_build_that_never_ends_fails_them_in_bounded_time(tmp_path):
    with pytest.raises(AssertionError, match="did not end in 0s"):
        wait_for_background_build(tmp_path / "release-archive.status", timeout=0.2, poll=0.05)


@pytest.mark.parametrize("given, extra", [(True, []), (False, ["-k", "sink"])], ids=["archive-given", "narrowed"])
def test_no_background_build_when_an_archive_is_given_or_the_run_is_narrowed(tmp_path, monkeypatch, given, extra):
    if given:
        monkeypatch.setenv("KO_RELEASE_ARCHIVE", str(tmp_path / "given.tar.gz"))
    else:
        monkeypatch.delenv("KO_RELEASE_ARCHIVE", raising=False)
    monkeypatch.delenv(BACKGROUND_BUILD, raising=False)
    assert suite.prebuild_release_archive(tmp_path, extra) is None
    assert not build_log(tmp_path / "release-archive.status").exists()
    assert BACKGROUND_BUILD not in os.environ
