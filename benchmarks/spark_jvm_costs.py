"""What a Spark driver JVM of the tests costs, with Java's default options and with the tests' light ones (not a
test; prints figures).

    .venv/bin/python benchmarks/spark_jvm_costs.py [--rounds 3]

The compute tests start local SparkSessions, in-process and through `kubectl offsets compute`: each one is a JVM
that loads Spark and runs seconds of work on tiny data. tests/env/spark.py gives those JVMs C1 and SerialGC
(SPARK_SUBMIT_OPTS, LIGHT_JVM_OPTS) as the environment's other JVMs have. Each round starts a local[2] session in
a process of its own, runs a small aggregate and a JSON read (the shapes the compute jobs use), and reads the JVM's
own CPU seconds (/proc/<pid>/stat, user + system) before stopping it; the median of ``--rounds`` rounds each way.
Figures are ratios against the baseline of the same run (Java's defaults).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.env.spark import LIGHT_JVM_OPTS  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def child() -> None:
    """One round: a session, the work, then the driver JVM's CPU seconds on stdout."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.range(0, 200_000).selectExpr("id % 7 AS k", "id").groupBy("k").count().collect()
    spark.read.json(spark.sparkContext.parallelize(['{"a": 1}', '{"a": 2}'])).count()
    pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    print((int(fields[11]) + int(fields[12])) / HZ)
    spark.stop()


def one_round(jvm_opts: str | None) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "SPARK_SUBMIT_OPTS"}
    if jvm_opts:
        env["SPARK_SUBMIT_OPTS"] = jvm_opts
    started = time.monotonic()
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1]), time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return 0
    results = {}
    for name, opts in (("Java's defaults (baseline)", None), (f"the tests' {LIGHT_JVM_OPTS}", LIGHT_JVM_OPTS)):
        rounds = [one_round(opts) for _ in range(args.rounds)]
        results[name] = (statistics.median(c for c, _ in rounds), statistics.median(w for _, w in rounds))
    base_cpu, base_wall = next(iter(results.values()))
    print(f"a local[2] driver JVM: start, one aggregate, one JSON read (median of {args.rounds} rounds each)")
    for name, (cpu, wall) in results.items():
        print(f"  {name:55s} CPU {cpu:5.1f} s ({cpu / base_cpu:.2f}x)   wall {wall:5.1f} s ({wall / base_wall:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
