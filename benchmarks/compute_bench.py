"""Benchmark of ``kubectl offsets compute`` on archived Parquet (not a test; prints figures).

    nice -n 19 .venv/bin/python benchmarks/compute_bench.py [--records 20000000 200000000] [--partitions 8]
        [--poison-up-to 20000000] [--no-cluster] [--cache DIR]

Generates N synthetic Kafka-source records (one poison value in a thousand) as Parquet once, cached under
``~/.cache/kubectl-offsets-bench/records-N-pP`` (``--cache``), then measures for each N, each run in a fresh
process so memory figures are its own:

- ``--to-datetime`` and ``--skip-poison --invalid json`` through the real compute path (core.compute ->
  adapters.spark) with local[1], local[2] and a standalone cluster of two one-core workers on this machine
  (tests/env/spark.py: a master and two workers from the pyspark installation, on 127.0.0.1);
- the same two questions answered by a single-process pyarrow baseline (batch by batch, no Spark), the yardstick
  measured in the same run on the same files.

``--skip-poison`` is measured only up to ``--poison-up-to`` records: the single-process baseline calls json.loads
per value and would take half an hour per 200 M records.

Reported: records/s (job time, JVM start-up excluded and shown apart), peak RSS of the Python driver, peak RSS and
peak heap of the driver's JVM (in local mode also the executor; on the cluster the executors are other JVMs), and
ratios against the baseline; with several N, the driver's peak memory at the largest N over the smallest. The
answers of every run are compared with the baseline's, so a fast wrong answer cannot pass.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_MS = 1_763_712_000_000
POISON_EVERY = 1000
AT_FRACTION = 0.6  # --to-datetime lands 60 % into each partition


# --- data -------------------------------------------------------------------------------------------------------

def generate(directory: Path, records: int, partitions: int, files: int = 16) -> None:
    """Round-robin partitions, one record per 10 ms per partition; values are small JSON objects, every
    POISON_EVERY-th is truncated JSON. Written vectorised with pyarrow (no per-record Python)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    per_file = records // files
    for f in range(files):
        start = f * per_file
        n = per_file if f < files - 1 else records - start
        seq = pa.array(range(start, start + n), pa.int64())
        partition = pc.cast(pc.bit_wise_and(seq, partitions - 1) if partitions & (partitions - 1) == 0
                            else pc.subtract(seq, pc.multiply(pc.divide(seq, partitions), partitions)), pa.int32())
        offset = pc.divide(seq, partitions)
        ts = pc.cast(pc.add(pc.multiply(offset, 10), BASE_MS), pa.timestamp("ms", tz="UTC"))
        ids = pc.cast(seq, pa.string())
        good = pc.binary_join_element_wise('{"id":', ids, ',"status":"ok","amount":12.5}', "")
        bad = pc.binary_join_element_wise('{"id":', ids, ',"status":', "")
        poison = pc.equal(pc.subtract(seq, pc.multiply(pc.divide(seq, POISON_EVERY), POISON_EVERY)), 7)
        value = pc.cast(pc.if_else(poison, bad, good), pa.binary())
        key = pc.cast(pc.binary_join_element_wise("key-", pc.cast(offset, pa.string()), ""), pa.binary())
        table = pa.table({"key": key, "value": value, "topic": pa.array(["bench"] * n, pa.string()),
                          "partition": partition, "offset": offset, "timestamp": ts})
        pq.write_table(table, directory / f"part-{f:03d}.parquet", row_group_size=1_000_000)


def at_ms(records: int, partitions: int) -> int:
    return BASE_MS + int(records / partitions * AT_FRACTION) * 10 + 5


# --- measured runs (each in its own process) --------------------------------------------------------------------

def run_spark(data: str, master: str, records: int, partitions: int, questions: list[str],
              conf: tuple[tuple[str, str], ...] = ()) -> dict:
    from kubectl_offsets.adapters.spark.jobs import PoisonCriteria
    from kubectl_offsets.adapters.spark.session import SparkSettings, build_session
    from kubectl_offsets.adapters.spark.sources import Archive
    from kubectl_offsets.core.compute import positions as c

    t0 = time.monotonic()
    spark = build_session(SparkSettings(master=master, conf=(("spark.driver.memory", "2g"), *conf)))
    startup = time.monotonic() - t0
    source, out = Archive(data, "parquet"), {"startup_s": startup}
    for name, request in (
            ("to-datetime", c.ComputeRequest(source, c.Operation.TO_DATETIME, at_ms=at_ms(records, partitions))),
            ("skip-poison", c.ComputeRequest(source, c.Operation.SKIP_POISON, report_limit=100,
                                             poison=PoisonCriteria(invalid_json=True)))):
        if name not in questions:
            continue
        t = time.monotonic()
        result = c.compute(request, spark=lambda needs_kafka: spark)
        out[name] = {"seconds": time.monotonic() - t, "answer": _answer(result)}
    out["jvm"] = _jvm_memory(spark)
    out["python_peak_rss_mb"] = _self_peak_mb()
    spark.stop()
    return out


def _answer(result) -> dict:
    return {f"{p.topic}:{p.partition}": p.resume_at for p in result.positions}


def _jvm_memory(spark) -> dict:
    """Peak heap from the JVM's own memory pools, and the JVM process's peak RSS (VmHWM)."""
    jvm = spark.sparkContext._jvm
    pools = jvm.java.lang.management.ManagementFactory.getMemoryPoolMXBeans()
    heap_peak = sum(p.getPeakUsage().getUsed() for p in pools if str(p.getType()) == "Heap memory")
    pid = int(jvm.java.lang.ProcessHandle.current().pid())
    return {"heap_peak_mb": heap_peak / 2**20, "rss_peak_mb": _vm_hwm_mb(pid), "pid": pid}


def _vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _self_peak_mb() -> float:
    """This process's own peak RSS. Not getrusage's ru_maxrss: Linux keeps that across fork+exec, so a child
    would report the generating parent's peak."""
    return _vm_hwm_mb(os.getpid())


def run_baseline(data: str, records: int, partitions: int, questions: list[str]) -> dict:
    """One process, pyarrow batches: vectorised for the timestamp question; json.loads per value for validity
    (pyarrow has no JSON validator for single values)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    dataset = ds.dataset(data, format="parquet")
    at = at_ms(records, partitions)
    t = time.monotonic()
    first, last = {}, {}
    for batch in dataset.to_batches(columns=["topic", "partition", "offset", "timestamp"]):
        ts = pc.cast(batch.column("timestamp"), "int64")
        late = batch.filter(pc.greater_equal(ts, at))
        for row in pa.Table.from_batches([late]).group_by(["topic", "partition"]).aggregate([("offset", "min")]).to_pylist():
            key = f"{row['topic']}:{row['partition']}"
            first[key] = min(first.get(key, row["offset_min"]), row["offset_min"])
        for row in pa.Table.from_batches([batch]).group_by(["topic", "partition"]).aggregate([("offset", "max")]).to_pylist():
            key = f"{row['topic']}:{row['partition']}"
            last[key] = max(last.get(key, row["offset_max"]), row["offset_max"])
    answer = {k: first.get(k, last[k] + 1) for k in last}
    out = {"to-datetime": {"seconds": time.monotonic() - t, "answer": answer}}
    if "skip-poison" not in questions:
        out["python_peak_rss_mb"] = _self_peak_mb()
        return out
    t = time.monotonic()
    poison = {}
    for batch in dataset.to_batches(columns=["topic", "partition", "offset", "value"]):
        topics, parts, offsets = (batch.column(n).to_pylist() for n in ("topic", "partition", "offset"))
        for i, value in enumerate(batch.column("value").to_pylist()):
            if value is not None and not _valid_json(value):
                key = f"{topics[i]}:{parts[i]}"
                poison[key] = min(poison.get(key, offsets[i]), offsets[i])
    out["skip-poison"] = {"seconds": time.monotonic() - t, "answer": {k: o + 1 for k, o in poison.items()}}
    out["python_peak_rss_mb"] = _self_peak_mb()
    return out


def _valid_json(value: bytes) -> bool:
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


# --- driver -----------------------------------------------------------------------------------------------------

QUESTIONS = ("to-datetime", "skip-poison")


def report(records: int, runs: dict) -> None:
    base = runs["pyarrow baseline (1 process)"]
    print(f"\n{records:,} records; records/s = records / job seconds (JVM start-up shown apart)\n")
    header = f"{'run':30} {'question':12} {'seconds':>8} {'records/s':>12} {'vs baseline':>11}"
    print(header + f" {'py driver MB':>12} {'JVM RSS MB':>10} {'JVM heap MB':>11}", flush=True)
    for name, run in runs.items():
        for question in QUESTIONS:
            if question not in run:
                continue
            seconds = run[question]["seconds"]
            ratio = base[question]["seconds"] / seconds
            jvm = run.get("jvm", {})
            print(f"{name:30} {question:12} {seconds:8.1f} {records / seconds:12,.0f} {ratio:10.2f}x"
                  f" {run['python_peak_rss_mb']:12.0f} {jvm.get('rss_peak_mb', 0):10.0f}"
                  f" {jvm.get('heap_peak_mb', 0):11.0f}")
            assert run[question]["answer"] == base[question]["answer"], f"{name} {question}: answers differ"
        if "startup_s" in run:
            print(f"{'':30} (Spark session start-up {run['startup_s']:.1f}s)")
    print("\nevery run's answers equal the baseline's", flush=True)


def memory_growth(by_size: dict[int, dict]) -> None:
    """The driver's peak memory at the largest size over the smallest: flat means ~1.0."""
    small, large = min(by_size), max(by_size)
    if small == large:
        return
    print(f"\ndriver peak memory, {large:,} / {small:,} records:")
    for name, run in by_size[large].items():
        before = by_size[small].get(name)
        if not before:
            continue
        line = f"  {name:30} Python {run['python_peak_rss_mb'] / before['python_peak_rss_mb']:.2f}x"
        if "jvm" in run:
            line += (f", JVM RSS {run['jvm']['rss_peak_mb'] / before['jvm']['rss_peak_mb']:.2f}x"
                     f", JVM heap {run['jvm']['heap_peak_mb'] / before['jvm']['heap_peak_mb']:.2f}x")
        print(line, flush=True)


def cached_data(cache: Path, records: int, partitions: int) -> Path:
    """The generated records, made once per (records, partitions) and kept (a .complete marker says whole)."""
    data = cache / f"records-{records}-p{partitions}"
    if not (data / ".complete").exists():
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        t = time.monotonic()
        generate(data, records, partitions, files=max(16, records // 3_125_000))
        (data / ".complete").write_text(f"{records} records, {partitions} partitions\n")
        print(f"generated {records:,} records in {time.monotonic() - t:.0f}s", flush=True)
    size = sum(p.stat().st_size for p in data.glob("*.parquet")) / 2**20
    print(f"data: {data} ({size:,.0f} MB Parquet, {len(list(data.glob('*.parquet')))} files)", flush=True)
    return data


# The bench's cluster is bigger than the tests' one (tests/env/spark.py defaults): the executors scan 200 M records.
CLUSTER_WORKER_MEMORY, CLUSTER_EXECUTOR_MEMORY = "2g", "1536m"


def start_cluster():
    """A master and two one-core workers on 127.0.0.1, as in the tests; (master URL, its Spark conf, stop)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.env.environment import stop_all
    from tests.env.spark import session_conf, start_cluster as start

    run_dir = Path(tempfile.mkdtemp(prefix="compute-bench-cluster-"))
    for sub in ("logs", "config", "data"):
        (run_dir / sub).mkdir()
    cluster = start(run_dir, worker_memory=CLUSTER_WORKER_MEMORY)
    conf = [(k, CLUSTER_EXECUTOR_MEMORY if k == "spark.executor.memory" else v) for k, v in session_conf()
            if k not in ("spark.sql.shuffle.partitions", "spark.executor.extraJavaOptions")]

    def stop():
        stop_all(cluster.processes)
        shutil.rmtree(run_dir, ignore_errors=True)
    return cluster.master_url, conf, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, nargs="+", default=[20_000_000])
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--poison-up-to", type=int, default=20_000_000,
                        help="measure --skip-poison only for record counts up to this")
    parser.add_argument("--no-cluster", action="store_true", help="skip the standalone cluster runs")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "kubectl-offsets-bench")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        spec = json.loads(args.child)
        result = run_baseline(spec["data"], spec["records"], args.partitions, spec["questions"]) \
            if spec["kind"] == "baseline" else run_spark(spec["data"], spec["master"], spec["records"],
                                                         args.partitions, spec["questions"],
                                                         tuple(map(tuple, spec.get("conf", ()))))
        print(json.dumps(result))
        return
    datasets = {n: cached_data(args.cache, n, args.partitions) for n in sorted(args.records)}
    cluster = None if args.no_cluster else start_cluster()
    try:
        by_size = {}
        for records, data in datasets.items():
            questions = list(QUESTIONS) if records <= args.poison_up_to else ["to-datetime"]
            configs = [("pyarrow baseline (1 process)", {"kind": "baseline"}),
                       ("spark local[1]", {"kind": "spark", "master": "local[1]"}),
                       ("spark local[2]", {"kind": "spark", "master": "local[2]"})]
            if cluster:
                configs.append(("spark standalone, 2 workers", {"kind": "spark", "master": cluster[0],
                                                                "conf": cluster[1]}))
            runs = {}
            for name, spec in configs:
                print(f"{records:,} records: running {name} ({', '.join(questions)}) ...", flush=True)
                runs[name] = child_with({**spec, "data": str(data), "records": records, "questions": questions},
                                        args.partitions)
                print(f"  {name}: {_brief(runs[name])}", flush=True)  # kept even if a later run is cut short
            report(records, runs)
            by_size[records] = runs
        memory_growth(by_size)
    finally:
        if cluster:
            cluster[2]()


def _brief(run: dict) -> str:
    parts = [f"{q} {run[q]['seconds']:.1f}s" for q in QUESTIONS if q in run]
    parts.append(f"Python peak {run['python_peak_rss_mb']:.0f} MB")
    if "jvm" in run:
        parts.append(f"JVM peak RSS {run['jvm']['rss_peak_mb']:.0f} MB, heap {run['jvm']['heap_peak_mb']:.0f} MB")
    if "startup_s" in run:
        parts.append(f"start-up {run['startup_s']:.1f}s")
    return ", ".join(parts)


def child_with(spec: dict, partitions: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--partitions", str(partitions), "--child",
           json.dumps(spec)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    if done.returncode != 0:
        raise SystemExit(f"{spec['kind']} run failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
