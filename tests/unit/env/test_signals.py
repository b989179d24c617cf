"""Tests that press Ctrl-C pass however their runner was started (issue 32): a runner started as a background job
of a non-interactive shell ignores SIGINT, and so does every process it starts unless the test says otherwise
(tests/signals.py)."""
from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_process_a_test_interrupts_gets_the_default_disposition_from_a_runner_that_ignores_sigint():
    child = ("import signal, subprocess, sys; from tests.signals import interruptible; "
             "code = 'import signal; print(signal.getsignal(signal.SIGINT).__name__)'; "
             "print(subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, "
             "**interruptible()).stdout.strip(), signal.getsignal(signal.SIGINT))")
    out = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, check=True,
                         preexec_fn=_ignoring_sigint).stdout
    assert out.split() == ["default_int_handler", str(signal.SIG_IGN)]


def test_the_ctrl_c_unit_tests_pass_under_a_runner_started_with_sigint_ignored():
    result = subprocess.run([sys.executable, "-m", "pytest", "tests/unit/core/online/test_fleet.py", "-q",
                             "-p", "no:cacheprovider", "-k", "ctrl_c or signal"], cwd=ROOT, capture_output=True,
                            text=True, preexec_fn=_ignoring_sigint, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(r"\b[3-9] passed", result.stdout), result.stdout[-500:]


def test_every_test_that_sends_sigint_sets_the_disposition_of_its_receiver():
    """A static check, so that a new Ctrl-C test does not pass only from a terminal."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        sends = re.search(r"send_signal\(signal\.SIGINT\)|kill\([^)]*signal\.SIGINT\)", text)
        if sends and path != Path(__file__) and not re.search(r"\binterruptible\(\)|\bctrl_c_raises\(\)", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"send SIGINT without tests/signals.py: {offenders}"
