"""Where the time of an online operation goes: the plugin itself versus waiting for the operator and Connect.

    .venv/bin/python benchmarks/online_bench.py                          # starts (and stops) its own environment
    .venv/bin/python benchmarks/online_bench.py --env-json /tmp/x/run-*/env.json --rounds 8 --json

Every wait of the online flow goes through ``Kube.watch_until`` (the operator removing an annotation, Connect
reporting a state); the benchmark wraps it and counts that time as *waiting*. Everything else is the plugin's
own time: Python start-up and imports (cold runs), building and validating input, JSON Patch and ConfigMap
requests, SelfSubjectAccessReviews, rendering. The API requests made outside waits are also timed, so the plugin
time splits into "API requests" and "local".

Measured, in one run and interleaved where it matters:
- ``kubectl version --client`` (the baseline; every figure is also given as a ratio to its median);
- ``kubectl offsets --help`` and a cold ``kubectl offsets list`` (a fresh process each time);
- warm, in-process: ``list``, ``alter --set``, ``undo``, ``reset`` on a running FileStreamSink, several rounds.

Targets (issue 3): the plugin adds under 0.5 s to an operation; ``--help`` starts in under 0.3 s. Not a test: it
prints figures only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32"
TARGET_PLUGIN_SECONDS = 0.5
TARGET_HELP_SECONDS = 0.3


# --- instrumentation (also used by the --child mode of a cold run) ------------------------------------------------

class Meter:
    """Wall time spent waiting, and wall time with at least one API request in flight outside waits (concurrent
    requests, like the preflight's access reviews, count once)."""

    def __init__(self):
        import threading

        self.wait = 0.0
        self.api = 0.0
        self.api_calls = 0
        self._in_wait = 0
        self._in_flight = 0
        self._since = 0.0
        self._lock = threading.Lock()

    def request_started(self) -> None:
        with self._lock:
            if self._in_flight == 0:
                self._since = time.perf_counter()
            self._in_flight += 1
            self.api_calls += 1

    def request_ended(self) -> None:
        with self._lock:
            self._in_flight -= 1
            if self._in_flight == 0:
                self.api += time.perf_counter() - self._since

    def snapshot(self) -> tuple[float, float, int]:
        return self.wait, self.api, self.api_calls


def install(meter: Meter) -> None:
    """Wrap Kube.watch_until (waiting) and ApiClient.call_api (requests made outside waits)."""
    from kubernetes.client import ApiClient

    from kubectl_offsets.adapters import kube as kube_module

    original_wait = kube_module.Kube.watch_until
    original_call = ApiClient.call_api

    def timed_wait(self, *args, **kwargs):
        started = time.perf_counter()
        meter._in_wait += 1
        try:
            return original_wait(self, *args, **kwargs)
        finally:
            meter._in_wait -= 1
            meter.wait += time.perf_counter() - started

    def timed_call(self, *args, **kwargs):
        if meter._in_wait:
            return original_call(self, *args, **kwargs)
        meter.request_started()
        try:
            return original_call(self, *args, **kwargs)
        finally:
            meter.request_ended()

    kube_module.Kube.watch_until = timed_wait
    ApiClient.call_api = timed_call


def child(argv: list[str]) -> int:
    """A cold CLI run with the meter installed once the CLI has imported the kube adapter; prints the split."""
    started = time.perf_counter()
    meter = Meter()
    import kubectl_offsets.core.online.operations as operations  # what the CLI imports for an online command anyway

    original_connect = operations.connect

    def connect(cluster):
        install(meter)
        return original_connect(cluster)

    operations.connect = connect
    from kubectl_offsets.cli.root import run

    with contextlib.redirect_stdout(io.StringIO()):
        status = run(argv)
    total = time.perf_counter() - started
    print(json.dumps({"status": status, "total": total, "wait": meter.wait, "api": meter.api,
                      "api_calls": meter.api_calls}), file=sys.stderr)
    return status


# --- the benchmark -----------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.child:
        return child(args.child)
    sys.path.insert(0, str(ROOT))
    from tests.env import Env, start_environment

    env = Env.load(args.env_json) if args.env_json else start_environment(operator=args.operator)
    try:
        lab = Lab(env)
        target = lab.sink()
        figures = {"baseline": measure_cold(env, target, args), "operations": measure_operations(env, target, args)}
    finally:
        if not args.env_json:
            env.stop()
    print(json.dumps(figures, indent=2) if args.json else render(figures, args))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env-json", help="use a running environment (python -m tests.env up --json) instead")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of list/alter/undo/reset/undo (default 5)")
    parser.add_argument("--runs", type=int, default=15, help="cold runs of --help and kubectl (default 15)")
    parser.add_argument("--cold-lists", type=int, default=5, help="cold list runs (default 5)")
    parser.add_argument("--kubectl", default=KUBECTL)
    parser.add_argument("--operator", choices=("emulator", "strimzi"),
                        help="the operator of the environment this run starts (default: the environment's default)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


class Lab:
    """A namespace with a KafkaConnect and a running FileStreamSink that has consumed 20 records."""

    def __init__(self, env):
        from kubernetes import client, config

        from tests.env.clients import unique_name
        from tests.env.kind.shared import connect_spec_for

        self.env, self.unique = env, unique_name
        api = config.new_client_from_config(config_file=env.kubeconfig)
        self.custom, self.core = client.CustomObjectsApi(api), client.CoreV1Api(api)
        self.ns = unique_name("bench")
        self.core.create_namespace({"metadata": {"name": self.ns}})
        self.custom.create_namespaced_custom_object("kafka.strimzi.io", "v1", self.ns, "kafkaconnects", {
            "apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnect",
            "metadata": {"name": "connect", "annotations": {"strimzi.io/use-connector-resources": "true"}},
            "spec": connect_spec_for(env, self.core, self.ns, "connect")})
        # Strimzi's real operator starts the connectors of a KafkaConnect only once its pod (a Connect worker of its
        # own, started by the kubelet stand-in) is Ready; the emulator reports Ready at once.
        deadline = time.monotonic() + 300
        while not self.connect_ready():
            if time.monotonic() > deadline:
                raise SystemExit(f"KafkaConnect {self.ns}/connect not Ready after 300 s")
            time.sleep(1)

    def connect_ready(self) -> bool:
        obj = self.custom.get_namespaced_custom_object("kafka.strimzi.io", "v1", self.ns, "kafkaconnects", "connect")
        conditions = (obj.get("status") or {}).get("conditions") or []
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)

    def sink(self) -> dict:
        from confluent_kafka import Producer
        from confluent_kafka.admin import AdminClient

        from tests.env.clients import create_topic, produce

        name, topic = self.unique("bench-sink"), self.unique("bench-topic")
        create_topic(AdminClient({"bootstrap.servers": self.env.bootstrap_servers}), topic)
        produce(Producer({"bootstrap.servers": self.env.bootstrap_servers}), topic, [b"x%d" % i for i in range(20)])
        string = "org.apache.kafka.connect.storage.StringConverter"
        self.custom.create_namespaced_custom_object("kafka.strimzi.io", "v1", self.ns, "kafkaconnectors", {
            "apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector",
            "metadata": {"name": name, "labels": {"strimzi.io/cluster": "connect"}},
            "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
                     "config": {"topics": topic, "file": f"/tmp/{name}.out", "key.converter": string,
                                "value.converter": string}}})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            obj = self.custom.get_namespaced_custom_object("kafka.strimzi.io", "v1", self.ns, "kafkaconnectors", name)
            if (((obj.get("status") or {}).get("connectorStatus") or {}).get("connector") or {}).get("state") \
                    == "RUNNING":
                break
            time.sleep(0.5)
        else:
            raise SystemExit(f"connector {name} did not start")
        return {"name": name, "topic": topic, "ns": self.ns}


def measure_cold(env, target, args) -> dict[str, list[float]]:
    """Fresh processes, interleaved: kubectl version --client, kubectl offsets --help, a cold list (split)."""
    exe = str(Path(sys.executable).parent / "kubectl-offsets")
    cases = {"kubectl version --client": [args.kubectl, "version", "--client"],
             "kubectl get kafkaconnector (one API read)": [args.kubectl, "--kubeconfig", env.kubeconfig, "get",
                                                           "kafkaconnector", target["name"], "-n", target["ns"],
                                                           "-o", "json"],
             "kubectl offsets --help": [exe, "--help"]}
    timings: dict[str, list[float]] = {name: [] for name in cases}
    cold_list: list[dict] = []
    list_argv = ["list", target["name"], "-n", target["ns"], "--kubeconfig", env.kubeconfig, "-q"]
    for round_ in range(2 + args.runs):
        for name, command in cases.items():
            started = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if result.returncode:
                raise SystemExit(f"{name}: exit status {result.returncode}")
            if round_ >= 2:
                timings[name].append(time.perf_counter() - started)
        if 2 <= round_ < 2 + args.cold_lists:
            started = time.perf_counter()
            result = subprocess.run([sys.executable, __file__, "--child", *list_argv], capture_output=True, text=True)
            wall = time.perf_counter() - started
            split = json.loads(result.stderr.strip().splitlines()[-1])
            if split["status"]:
                raise SystemExit(f"cold list failed: {result.stderr}")
            split["wall"] = wall
            cold_list.append(split)
    timings["kubectl offsets list (cold, wall)"] = [c["wall"] for c in cold_list]
    timings["kubectl offsets list (cold, plugin = wall - wait)"] = [c["wall"] - c["wait"] for c in cold_list]
    timings["kubectl offsets list (cold, waiting)"] = [c["wait"] for c in cold_list]
    return timings


def measure_operations(env, target, args) -> dict[str, dict[str, list[float]]]:
    """Warm, in-process CLI runs: total, waiting, API requests outside waits, local."""
    from kubectl_offsets.cli.root import run

    meter = Meter()
    install(meter)
    base = ["-n", target["ns"], "--kubeconfig", env.kubeconfig, "-q"]
    operations = {"list": ["list", target["name"]],
                  "alter --set": ["alter", target["name"], "--set", f"{target['topic']}:0=5", "--yes"],
                  "undo (after alter)": ["undo", target["name"], "--yes"],
                  "reset": ["reset", target["name"], "--yes"],
                  "undo (after reset)": ["undo", target["name"], "--yes"]}
    results: dict[str, dict[str, list[float]]] = {
        name: {"total": [], "wait": [], "plugin": [], "api": [], "local": [], "api_calls": []} for name in operations}
    for _ in range(args.rounds):
        for name, argv in operations.items():
            wait0, api0, calls0 = meter.snapshot()
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                status = run([*argv, *base])
            total = time.perf_counter() - started
            if status:
                raise SystemExit(f"{name} failed ({status}): {err.getvalue()}")
            wait1, api1, calls1 = meter.snapshot()
            row = results[name]
            row["total"].append(total)
            row["wait"].append(wait1 - wait0)
            row["plugin"].append(total - (wait1 - wait0))
            row["api"].append(api1 - api0)
            row["local"].append(total - (wait1 - wait0) - (api1 - api0))
            row["api_calls"].append(calls1 - calls0)
    return results


def render(figures: dict, args) -> str:
    base = statistics.median(figures["baseline"]["kubectl version --client"])
    lines = [f"baseline: kubectl version --client median {base:.3f} s", "",
             f"{'cold start (fresh process)':<52} {'median':>7} {'p90':>7} {'x kubectl':>9}"]
    for name, values in figures["baseline"].items():
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1] if len(values) > 1 else median
        lines.append(f"{name:<52} {median:7.3f} {p90:7.3f} {median / base:9.2f}")
    lines += ["", f"{'operation (warm, in-process; medians)':<24} {'total':>7} {'waiting':>8} {'plugin':>7} "
              f"{'api':>6} {'local':>6} {'calls':>5} {'plugin x kubectl':>16}"]
    worst = 0.0
    for name, row in figures["operations"].items():
        m = {k: statistics.median(v) for k, v in row.items()}
        worst = max(worst, m["plugin"])
        lines.append(f"{name:<24} {m['total']:7.3f} {m['wait']:8.3f} {m['plugin']:7.3f} {m['api']:6.3f} "
                     f"{m['local']:6.3f} {m['api_calls']:5.0f} {m['plugin'] / base:16.2f}")
    help_median = statistics.median(figures["baseline"]["kubectl offsets --help"])
    lines += ["", f"plugin time per operation (worst median) {worst:.3f} s: "
              f"{'meets' if worst < TARGET_PLUGIN_SECONDS else 'MISSES'} the {TARGET_PLUGIN_SECONDS} s target",
              f"--help median {help_median:.3f} s: "
              f"{'meets' if help_median < TARGET_HELP_SECONDS else 'MISSES'} the {TARGET_HELP_SECONDS} s target",
              f"({args.rounds} rounds of operations, {args.runs} cold runs; load average {os.getloadavg()[0]:.1f})"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
