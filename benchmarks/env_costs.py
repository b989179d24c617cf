"""What the test environment's Kafka JVMs cost, with and without the environment's savings (not a test; prints figures).

    .venv/bin/python benchmarks/env_costs.py [--starts 3] [--idle 30]

A suite run starts a Connect worker about two hundred times and keeps a dozen of them idle beside the tests, so the
suite's time follows what a worker costs. On one broker of its own (tests/env/kafka.py), measured in the same run:

- a worker's start: CPU seconds of the JVM from its launch to its first REST answer, without and with the class-data
  archive (tests/env/cds.py), the median of ``--starts`` starts each;
- an idle worker: CPU of the worker, and of the broker beside it, over ``--idle`` seconds once it has settled, with
  Kafka's default fetch.max.wait.ms (500) and with the environment's 5000 (tests/env/kubelet.IDLE_FRIENDLY_DEFAULTS);
  the broker alone over the same time is the baseline its share is counted from.

Figures are ratios against the baseline of the same run (without the archive, with the default fetch wait).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.env import cds, kafka  # noqa: E402
from tests.env.assets import find_assets  # noqa: E402
from tests.env.processes import Proc, spawn, stop  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(proc: Proc) -> float:
    fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/connectors", timeout=2):
            return True
    except OSError:
        return False


def start_worker(run_dir: Path, lib: Path, bootstrap: str, name: str, jvm: list[str],
                 props: dict[str, str]) -> tuple[Proc, str, float]:
    """A worker of its own group and topics; returns it, its URL and its CPU seconds to the first REST answer."""
    config, url = kafka.connect_config(run_dir, bootstrap)
    text = config.read_text().replace(kafka.CONNECT_GROUP, name)
    text = "".join(f"{line}\n" for line in text.splitlines() if line.split("=", 1)[0] not in props)
    text += "".join(f"{key}={value}\n" for key, value in props.items())
    config = config.with_name(f"{name}.properties")
    config.write_text(text)
    proc = spawn(name, kafka._java(run_dir, lib, "org.apache.kafka.connect.cli.ConnectDistributed", str(config),
                                   jvm=jvm), run_dir / "logs" / f"{name}.log")
    deadline = time.monotonic() + 180
    while not answers(url):
        if time.monotonic() > deadline:
            raise SystemExit(f"{name} did not answer on {url} within 180 s (log: {run_dir}/logs/{name}.log)")
        time.sleep(0.05)
    return proc, url, cpu_seconds(proc)


def starts(run_dir: Path, lib: Path, bootstrap: str, count: int) -> dict[str, float]:
    archive = cds.flags(lib, "connect")
    if not archive:
        raise SystemExit("no Connect archive: run `bash tests/provision.sh cds` first")
    medians = {}
    for label, jvm in (("without the archive", []), ("with the archive", archive)):
        seconds = []
        for i in range(count):
            proc, _url, cpu = start_worker(run_dir, lib, bootstrap, f"start-{len(medians)}-{i}", jvm, {})
            seconds.append(cpu)
            stop(proc, timeout=30)
        medians[label] = statistics.median(seconds)
    return medians


def idle(run_dir: Path, lib: Path, broker: Proc, bootstrap: str, window: float) -> dict[str, tuple[float, float]]:
    """{label: (worker CPU, broker CPU)} over ``window`` seconds; "broker alone" has no worker."""
    figures = {}
    before = cpu_seconds(broker)
    time.sleep(window)
    figures["broker alone"] = (0.0, cpu_seconds(broker) - before)
    for label, wait in (("fetch.max.wait.ms=500 (Kafka's default)", "500"),
                        ("fetch.max.wait.ms=5000 (the environment's)", "5000")):
        proc, _url, _ = start_worker(run_dir, lib, bootstrap, f"idle-{wait}", cds.flags(lib, "connect"),
                                     {"fetch.max.wait.ms": wait})
        time.sleep(10)  # settled: joined its group, read its topics to the end
        worker_before, broker_before = cpu_seconds(proc), cpu_seconds(broker)
        time.sleep(window)
        figures[label] = (cpu_seconds(proc) - worker_before, cpu_seconds(broker) - broker_before)
        stop(proc, timeout=30)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle measured per worker")
    args = parser.parse_args()
    lib = find_assets().kafka_lib
    with tempfile.TemporaryDirectory(prefix="ko-env-costs-") as tmp:
        run_dir = Path(tmp)
        broker = kafka.start_broker(run_dir, lib)
        try:
            started = starts(run_dir, lib, broker.bootstrap_servers, args.starts)
            idled = idle(run_dir, lib, broker.proc, broker.bootstrap_servers, args.idle)
        finally:
            stop(broker.proc, timeout=30)
    base = started["without the archive"]
    print(f"\nA Connect worker's start, CPU seconds to its first REST answer (median of {args.starts}):")
    for label, seconds in started.items():
        print(f"  {label:<22} {seconds:6.2f} s   {seconds / base:5.2f}x")
    alone = idled.pop("broker alone")[1]
    print(f"\nAn idle worker over {args.idle:.0f} s, % of one core (the broker's share: beyond the broker alone, "
          f"{100 * alone / args.idle:.2f}%):")
    base_total = None
    for label, (worker, broker_cpu) in idled.items():
        share = max(0.0, broker_cpu - alone)
        total = worker + share
        base_total = base_total or total
        print(f"  {label:<44} worker {100 * worker / args.idle:5.2f}%  broker +{100 * share / args.idle:5.2f}%  "
              f"total {100 * total / args.idle:5.2f}%   {total / base_total:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
