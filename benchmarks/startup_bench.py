"""Start-up latency of kubectl-offsets against ``kubectl version --client``, measured in the same run.

    .venv/bin/python benchmarks/startup_bench.py                       # pip install + the built release executable
    .venv/bin/python benchmarks/startup_bench.py --runs 40 --json
    .venv/bin/python benchmarks/startup_bench.py --exe onefile=/tmp/onefile/kubectl-offsets \
        --exe pip-regular=build/release-venv-linux-amd64/bin/kubectl-offsets

Each installation answers ``--help``, ``version --client``, ``completion bash`` and one completion request (what
``kubectl offsets <TAB>`` costs: ``kubectl_complete-offsets ""``), each run directly, and ``--help`` and ``list
--help`` also through kubectl's plugin dispatch (``kubectl offsets --help`` with the installation first on PATH),
as users run them. The runs are interleaved round-robin, so a
machine that gets busier halfway slows every candidate alike, and each figure is also given as a ratio to
kubectl's own median from the same run: absolute seconds depend on the machine, the ratio much less. CPU seconds
(user + system) are reported too: on a busy machine they still say what the program itself costs.
Target (issue 7): ``--help`` under 0.3 s median for the pip install. Not a test: it only prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_HELP_SECONDS = 0.3
COMMANDS = {"--help": ["--help"], "version --client": ["version", "--client"],
            "completion bash": ["completion", "bash"], "<TAB> request": None}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    installs = candidates(args)
    cases = cases_for(installs, args.kubectl)
    timings = measure(cases, args.runs, args.warmup)
    rows = summarize(timings, baseline="kubectl version --client")
    print(json.dumps(rows, indent=2) if args.json else render(rows, args.runs))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=25, help="timed runs per case (default 25)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs per case first (default 3)")
    parser.add_argument("--kubectl", default=shutil.which("kubectl") or "kubectl", help="the kubectl to compare with")
    parser.add_argument("--exe", action="append", default=[], metavar="NAME=PATH",
                        help="another kubectl-offsets executable to measure (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def candidates(args) -> dict[str, Path]:
    """name -> kubectl-offsets executable: the pip install next to this interpreter, the staged release build when
    there is one, and any --exe given."""
    found = {"pip": Path(sys.executable).parent / "kubectl-offsets"}
    staged = sorted((ROOT / "build" / "stage").glob("kubectl-offsets-*/kubectl-offsets"))
    if staged:
        found["packaged"] = staged[-1]
    for item in args.exe:
        name, _, path = item.partition("=")
        found[name] = Path(path)
    missing = [str(p) for p in found.values() if not p.exists()]
    if missing:
        raise SystemExit(f"not found: {', '.join(missing)} (build the release with packaging/build_archive.py)")
    return found


THROUGH_KUBECTL = {"--help": ["--help"], "list --help": ["list", "--help"]}


def cases_for(installs: dict[str, Path], kubectl: str) -> dict[str, list[str]]:
    cases = {"kubectl version --client": [kubectl, "version", "--client"]}
    for name, exe in installs.items():
        for label, args in THROUGH_KUBECTL.items():
            # kubectl finds kubectl-offsets on PATH; env(1) puts this installation's directory first.
            cases[f"{name}: kubectl offsets {label}"] = ["env", f"PATH={exe.parent}:{os.environ.get('PATH', '')}",
                                                         kubectl, "offsets", *args]
        for label, args in COMMANDS.items():
            if args is None:  # the completion helper next to the executable, else the release binary's own entry
                helper = exe.with_name("kubectl_complete-offsets")
                command = [str(helper), ""] if helper.exists() else [str(exe), "__complete", ""]
            else:
                command = [str(exe), *args]
            cases[f"{name}: {label}"] = command
    return cases


def measure(cases: dict[str, list[str]], runs: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    """Wall-clock seconds and CPU seconds (user + system, of the child and its children) per run."""
    timings = {name: {"wall": [], "cpu": []} for name in cases}
    for round_ in range(warmup + runs):
        for name, command in cases.items():
            cpu_before = _children_cpu()
            started = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            elapsed = time.perf_counter() - started
            if result.returncode:
                raise SystemExit(f"{name}: exit status {result.returncode} from {' '.join(command)}")
            if round_ >= warmup:
                timings[name]["wall"].append(elapsed)
                timings[name]["cpu"].append(_children_cpu() - cpu_before)
    return timings


def _children_cpu() -> float:
    """CPU time of finished children so far. On a busy machine wall-clock time mostly measures the neighbours;
    CPU time is what the program itself costs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def summarize(timings: dict[str, dict[str, list[float]]], baseline: str) -> list[dict]:
    base = statistics.median(timings[baseline]["wall"])
    base_cpu = statistics.median(timings[baseline]["cpu"])
    rows = []
    for name, series in timings.items():
        wall, cpu = series["wall"], series["cpu"]
        median = statistics.median(wall)
        p90 = statistics.quantiles(wall, n=10)[-1] if len(wall) >= 2 else median
        rows.append({"case": name, "median_s": round(median, 4), "p90_s": round(p90, 4),
                     "ratio_to_kubectl": round(median / base, 2), "cpu_median_s": round(statistics.median(cpu), 4),
                     "cpu_ratio_to_kubectl": round(statistics.median(cpu) / base_cpu, 2)})
    return rows


def render(rows: list[dict], runs: int) -> str:
    width = max(len(r["case"]) for r in rows)
    lines = [f"{'case':<{width}}  median    p90  x kubectl  |  cpu  x kubectl   ({runs} runs each, interleaved)"]
    for r in rows:
        lines.append(f"{r['case']:<{width}}  {r['median_s']:6.3f}  {r['p90_s']:6.3f}  {r['ratio_to_kubectl']:8.2f}"
                     f"  | {r['cpu_median_s']:5.3f}  {r['cpu_ratio_to_kubectl']:7.2f}")
    pip_help = next(r for r in rows if r["case"] == "pip: --help")["median_s"]
    verdict = "meets" if pip_help < TARGET_HELP_SECONDS else "MISSES"
    lines.append(f"pip --help median {pip_help:.3f} s {verdict} the {TARGET_HELP_SECONDS} s target")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
