"""tests/memory.py: the suite's peak-RSS sampler counts its own process tree, and only that."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from tests import memory


def _child_holding(megabytes: int) -> subprocess.Popen:
    """A child Python process that touches ``megabytes`` MB and waits, so its RSS is known to exceed that."""
    code = f"b = bytearray({megabytes} * 1024 * 1024)\nprint('ready', flush=True)\nimport time; time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def test_descendants_include_a_grandchild_and_not_the_parent():
    outer = subprocess.Popen([sys.executable, "-c", "import subprocess; subprocess.run(['sleep', '30'])"])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = memory.descendants(os.getpid())
            grandchildren = [pid for pid in found if memory.cmdline(pid)[:1] == ["sleep"]]
            if grandchildren:
                break
            time.sleep(0.05)
        assert outer.pid in found and grandchildren, found
        assert os.getpid() not in found and os.getppid() not in found
    finally:
        outer.kill()
        outer.wait()


def test_the_peak_sum_includes_a_child_and_survives_its_exit():
    child = _child_holding(64)
    sampler = memory.Sampler(interval=0.05)
    try:
        sampler.sample()
        assert memory.rss_bytes(child.pid) > 64 * memory.MB
    finally:
        child.kill()
        child.wait()
    sampler.sample()  # after the child is gone, the sum falls; the peak keeps the earlier one
    peak = sampler.peak
    own = memory.rss_bytes(os.getpid())
    assert peak.rss > own + 64 * memory.MB
    assert peak.processes >= 2 and peak.samples == 2
    assert "within the 16 GB bound" in peak.summary()


def test_connect_workers_are_counted_by_their_main_class():
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)",
                               "org.apache.kafka.connect.cli.ConnectDistributed"])
    try:
        deadline = time.monotonic() + 10  # until the child has exec'd: its command line is the parent's before
        while "ConnectDistributed" not in " ".join(memory.cmdline(worker.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert memory.kind_of(worker.pid) == "connect worker"
        sampler = memory.Sampler()
        sampler.sample()
        assert sampler.peak.connect_workers == 1
    finally:
        worker.kill()
        worker.wait()


def test_sampled_returns_the_value_and_prints_the_peak(capsys):
    assert memory.sampled(lambda: 7, interval=0.05) == 7
    assert "[tests.memory] peak resident memory" in capsys.readouterr().out


def test_the_timeline_has_the_machine_s_cpu_use_per_minute():
    sampler = memory.Sampler(interval=0.05)
    sampler.started = time.monotonic()
    sampler.sample()
    sum(range(2_000_000))  # some CPU between the samples
    sampler.sample()
    [minute] = sampler.minutes
    assert 0 < minute.busy <= minute.total and minute.rss > 0
    assert minute.line(0).startswith("  min   0: CPU ")


def test_the_cpu_a_child_burned_is_counted_under_its_kind_after_it_exits():
    # A stand-in Kafka broker (by its main class) that spins for half a second of CPU, then waits to be sampled.
    code = ("import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\n"
            "print('spun', flush=True)\ntime.sleep(30)")
    child = subprocess.Popen([sys.executable, "-c", code, "kafka.Kafka"], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "spun"
        sampler = memory.Sampler()
        sampler.sample()
    finally:
        child.kill()
        child.wait()
    sampler.sample()  # the child is gone; its last reading stays
    used = sampler.cpu.by_kind()
    assert 0.45 <= used["kafka"] < 5, used
    assert "kafka" in sampler.cpu.summary() and "CPU used by the suite's processes" in sampler.cpu.summary()
