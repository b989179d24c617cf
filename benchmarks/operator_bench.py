"""Strimzi's real cluster operator against the emulator, measured in the same run: operations, start-up, memory.

    .venv/bin/python benchmarks/operator_bench.py                       # both operators, one environment after the other
    .venv/bin/python benchmarks/operator_bench.py --operator strimzi --rounds 3 --json

For each operator, one environment at a time (``tests.env.start_environment(operator=...)``, stopped before the next
one starts), and in it:

- ``up``: the wall time of ``start_environment`` and the resident memory (RSS, from ``/proc``) of each component once
  it is up: the operator (the emulator or Strimzi's JVM), the kubelet stand-in (real operator only), Kafka, the
  environment's own Connect worker, kube-apiserver, etcd;
- a KafkaConnect (the time until it is Ready: with the real operator, its pod's Connect worker must start) and a
  running FileStreamSink; then ``--rounds`` rounds of ``alter --set`` / ``undo`` / ``reset`` / ``undo``, each a fresh
  ``kubectl-offsets`` process (wall time, and the client's CPU);
- a fleet of ``--connectors`` FileStreamSinks, ``reset -l SELECTOR --parallel 4`` ``--fleet-rounds`` times, in each
  layout of ``--layouts``: ``shared`` (every connector in one KafkaConnect) and ``own`` (a KafkaConnect per
  connector). With the real operator each KafkaConnect runs a Connect worker of its own (its pod), so ``own``
  is what a fleet of separate Connect clusters costs in memory; the emulator maps every KafkaConnect to its one
  worker.

The memory of each component and the number of Connect workers are read at every step; a sampler
(``tests/memory.py``) keeps the peak of the whole process tree (this process, the environment, the CLI runs).
Figures: median and range (min-max) per operation, and the ratio real / emulator of the medians. Not a test: it only
prints figures, which depend on the machine's load (printed with them); the ratios are measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fleet_bench  # noqa: E402  (beside this file)
import online_bench  # noqa: E402

from tests import memory  # noqa: E402

OPERATORS = ("emulator", "strimzi")
PARALLEL = 4
MB = 1024 * 1024


def component_memory(env) -> dict[str, float]:
    """RSS in MB of each component of the environment now, and of each Connect worker the kubelet stand-in runs
    (its children; ``connect worker <pod>``)."""
    sizes = {name: memory.rss_bytes(proc.pid) / MB for name, proc in env.processes.items()
             if name != "reaper" and memory.rss_bytes(proc.pid)}
    kubelet = env.processes.get("kubelet")
    if kubelet:
        for pid in memory.descendants(kubelet.pid):
            argv = memory.cmdline(pid)
            if any("ConnectDistributed" in a for a in argv):
                pod = Path(argv[-1]).name.removesuffix(".properties")
                sizes[f"connect worker {pod}"] = memory.rss_bytes(pid) / MB
    return {name: round(size) for name, size in sizes.items()}


def workers(sizes: dict[str, float]) -> list[float]:
    return [size for name, size in sizes.items() if name.startswith("connect worker ")]


def measure_operator(operator: str, args) -> dict:
    from tests.env import start_environment
    from tests.env.environment import new_run_dir

    figures: dict = {"operator": operator, "load_before": os.getloadavg()[0]}
    sampler = memory.Sampler(interval=2.0).start()
    started = time.perf_counter()
    env = start_environment(run_dir=new_run_dir(Path(args.base)), operator=operator)
    figures["up_s"] = time.perf_counter() - started
    figures["up_timings"] = env.timings
    env.start_reaper()  # stops the environment if this process is killed
    try:
        time.sleep(5)  # let the JVMs settle after start-up before reading their memory
        figures["memory_up"] = component_memory(env)
        figures.update(measure_online(env, args))
        for layout in args.layouts:
            figures[f"fleet_{layout}"] = measure_fleet(env, args, layout)
    finally:
        env.stop()
        peak = sampler.stop()
    figures["peak"] = {"rss_mb": round(peak.rss / MB), "connect_workers": peak.connect_workers,
                       "by_kind_mb": {k: round(v / MB) for k, v in peak.by_kind.items()},
                       "summary": peak.summary()}
    figures["load_after"] = os.getloadavg()[0]
    return figures


def measure_online(env, args) -> dict:
    started = time.perf_counter()
    lab = online_bench.Lab(env)
    ready = time.perf_counter() - started
    target = lab.sink()
    cases = {"alter": ["alter", target["name"], "--set", f"{target['topic']}:0=5"],
             "undo (after alter)": ["undo", target["name"]],
             "reset": ["reset", target["name"]],
             "undo (after reset)": ["undo", target["name"]]}
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, argv in cases.items():
            w, c = fleet_bench.run_cli(env, *argv, "-n", target["ns"], "--yes", "-q")
            wall[name].append(w)
            cpu[name].append(c)
    sizes = component_memory(env)
    remove_lab(lab)  # the fleets that follow count their own Connect workers only
    return {"memory_online": sizes, "connect_ready_s": ready, "online": {name: {"wall": wall[name], "cpu": cpu[name]} for name in cases}}


def remove_lab(lab) -> None:
    """Delete the online test's connector, KafkaConnect and namespace (its Connect worker, with the real operator)."""
    for plural in ("kafkaconnectors", "kafkaconnects"):
        lab.custom.delete_collection_namespaced_custom_object("kafka.strimzi.io", "v1", lab.ns, plural)
    lab.core.delete_namespace(lab.ns)


def measure_fleet(env, args, layout: str) -> dict:
    clusters = 1 if layout == "shared" else args.connectors
    started = time.perf_counter()
    lab, selector, names = fleet_bench.build_fleet(env, args.connectors, clusters)
    built = time.perf_counter() - started
    try:
        sizes = component_memory(env)
        wall, cpu = [], []
        for _ in range(args.fleet_rounds):
            w, c = fleet_bench.run_cli(env, "reset", "-l", selector, "-n", lab.ns, "--yes", "-q",
                                       "--parallel", str(PARALLEL))
            wall.append(w)
            cpu.append(c)
    finally:
        fleet_bench.remove_fleet(env, lab, names)
    return {"connect_clusters": clusters, "build_s": built, "wall": wall, "cpu": cpu, "memory": sizes,
            "connect_workers": len(workers(sizes)), "connect_workers_mb": round(sum(workers(sizes)))}


# ---- the table ---------------------------------------------------------------------------------------------------

def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})"


def ratio(runs: dict, pick) -> str:
    if set(runs) != set(OPERATORS):
        return ""
    emulated, real = (statistics.median(pick(runs[op])) for op in OPERATORS)
    return f"{real / emulated:5.2f}" if emulated else ""


def render(runs: dict, args) -> str:
    ops = [op for op in OPERATORS if op in runs]
    width = 54
    header = f"{'seconds: median (min-max)':<{width}}" + "".join(f"{op:>24}" for op in ops)
    header += "  real/emulator" if len(ops) == 2 else ""
    lines = [header]

    def row(label: str, pick) -> None:
        cells = "".join(f"{spread(pick(runs[op])):>24}" for op in ops)
        lines.append(f"{label:<{width}}{cells}  {ratio(runs, pick)}")

    row("up (start_environment)", lambda f: [f["up_s"]])
    row("KafkaConnect created -> Ready", lambda f: [f["connect_ready_s"]])
    for name in runs[ops[0]]["online"]:
        row(f"{name} (fresh process, x{args.rounds})", lambda f, n=name: f["online"][n]["wall"])
    for layout in args.layouts:
        first = runs[ops[0]][f"fleet_{layout}"]
        label = (f"fleet reset {args.connectors} / {first['connect_clusters']} KafkaConnect"
                 f"{'s' if first['connect_clusters'] > 1 else ''} --parallel {PARALLEL} (x{args.fleet_rounds})")
        row(label, lambda f, k=layout: f[f"fleet_{k}"]["wall"])
        row("  (building that fleet, once)", lambda f, k=layout: [f[f"fleet_{k}"]["build_s"]])
    lines += ["", f"{'client CPU, s (median)':<{width}}" + "".join(f"{'':>24}" for _ in ops)]
    for name in runs[ops[0]]["online"]:
        lines.append(f"{name:<{width}}" + "".join(
            f"{statistics.median(runs[op]['online'][name]['cpu']):>24.3f}" for op in ops))

    lines += ["", f"{'RSS, MB':<{width}}" + "".join(f"{op:>24}" for op in ops)]
    names = ["strimzi-emulator", "strimzi-operator", "kubelet", "kafka", "kafka-connect", "kube-apiserver", "etcd"]
    for name in names:
        if any(name in runs[op]["memory_up"] for op in ops):
            lines.append(f"{name + ' (after up)':<{width}}" + "".join(
                f"{runs[op]['memory_up'].get(name, '-'):>24}" for op in ops))
    lines.append(f"{'environment total after up':<{width}}" + "".join(
        f"{sum(runs[op]['memory_up'].values()):>24}" for op in ops))
    lines.append(f"{'Connect workers after the online test':<{width}}" + "".join(
        f"{_workers(runs[op]['memory_online']):>24}" for op in ops))
    for layout in args.layouts:
        lines.append(f"{'Connect workers, fleet ' + layout:<{width}}" + "".join(
            f"{_workers(runs[op][f'fleet_{layout}']['memory']):>24}" for op in ops))
    lines.append(f"{'peak RSS of the whole run (sampled)':<{width}}" + "".join(
        f"{runs[op]['peak']['rss_mb']:>24}" for op in ops))
    label = "Connect workers at once (peak, with the env's own)"
    lines.append(f"{label:<{width}}" + "".join(
        f"{runs[op]['peak']['connect_workers']:>24}" for op in ops))
    lines.append("")
    for op in ops:
        f = runs[op]
        lines.append(f"{op}: load average {f['load_before']:.1f} before, {f['load_after']:.1f} after; "
                     f"{f['peak']['summary']}")
    lines.append(f"({os.cpu_count()} cores; one environment at a time; the ratio is of the medians)")
    return "\n".join(lines)


def _workers(sizes: dict[str, float]) -> str:
    found = workers(sizes)
    if not found:
        return "0"
    return f"{len(found)} x {statistics.median(found):.0f} = {sum(found):.0f}"


def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")  # unwinds, so the environment of this run is stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--operator", choices=("both", *OPERATORS), default="both")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of alter/undo/reset/undo (default 5)")
    parser.add_argument("--connectors", type=int, default=12, help="connectors in the fleet (default 12)")
    parser.add_argument("--fleet-rounds", type=int, default=3, help="fleet resets per layout (default 3)")
    parser.add_argument("--layouts", nargs="+", choices=("shared", "own"), default=["shared", "own"],
                        help="shared: one KafkaConnect for the fleet; own: a KafkaConnect per connector")
    parser.add_argument("--base", default="/tmp/ko-bench", help="where the run dirs go (default /tmp/ko-bench)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--save", help="also write the figures as JSON to this file")
    parser.add_argument("--render", metavar="FILE", help="print the table of figures saved with --save; measure nothing")
    args = parser.parse_args(argv)
    if args.render:
        print(render(json.loads(Path(args.render).read_text()), args))
        return 0
    signal.signal(signal.SIGTERM, _interrupt)
    runs = {}
    for operator in (OPERATORS if args.operator == "both" else (args.operator,)):
        print(f"[operator_bench {time.strftime('%H:%M:%S')}] {operator}: starting", file=sys.stderr, flush=True)
        runs[operator] = measure_operator(operator, args)
        print(f"[operator_bench {time.strftime('%H:%M:%S')}] {operator}: done", file=sys.stderr, flush=True)
    if args.save:
        Path(args.save).write_text(json.dumps(runs, indent=2) + "\n")
    print(json.dumps(runs, indent=2) if args.json else render(runs, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
