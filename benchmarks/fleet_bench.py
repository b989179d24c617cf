"""A fleet reset against one-by-one resets: wall time and the plugin's own CPU per connector.

    .venv/bin/python benchmarks/fleet_bench.py                        # starts (and stops) its own environment
    .venv/bin/python benchmarks/fleet_bench.py --env-json /tmp/x/env.json --connectors 40 --json

One namespace, N running FileStreamSink connectors (each on its own topic with a few records) labelled so that
``-l`` selects exactly them, first all in one KafkaConnect, then spread over 8 (``--connect-clusters``). The
split matters: Strimzi reconciles every connector of one KafkaConnect under that KafkaConnect's lock
(AbstractOperator#withLock, named after the KafkaConnect by KafkaConnectAssemblyOperator#connectorEventHandler),
and the emulator does the same, so the operator's passes for one Connect cluster run one at a time whatever the
client does. Measured in one run, each a fresh ``kubectl-offsets`` process:

- the baseline: N single ``reset NAME --yes`` invocations, one after another (what a script would do);
- ``reset -l SELECTOR --yes --parallel P`` for P = 1, 4, 8.

Wall time is reported as a ratio to the baseline; the plugin's CPU (user + system of the child processes, so
Python start-up is included) per connector shows what one process for the whole fleet saves. The CPU each component
of the environment spent per connector (API server, etcd, Kafka, Connect, the operator emulator, from /proc) says
what bounds the wall time: they share the machine's cores with the plugin, so a run cannot take less than their sum
divided by the cores. Goals (issue 13):
``--parallel 8`` at least 4x faster than one by one; client CPU under 0.1 s per connector. Not a test: it only
prints figures. Every reset waits on the emulated operator and the real Connect worker, so the figures depend on
the machine's load: run it on a quiet machine, and compare the ratios, which are measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARALLELISM = (1, 4, 8)


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def environment_cpu(env) -> dict[str, float]:
    """CPU seconds each component of the environment (API server, etcd, Kafka, Connect, the operator) has used."""
    from tests.env.processes import cpu_seconds

    return {name: used for name, proc in env.processes.items() if (used := cpu_seconds(proc)) is not None}


def run_cli(env, *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``kubectl-offsets`` process."""
    exe = Path(sys.executable).parent / "kubectl-offsets"
    cpu, start = child_cpu(), time.perf_counter()
    completed = subprocess.run([str(exe), *args, "--kubeconfig", env.kubeconfig], capture_output=True, text=True,
                               env={**os.environ, "XDG_STATE_HOME": str(Path(env.run_dir) / "bench-state")})
    wall = time.perf_counter() - start
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed (exit {completed.returncode}):\n{completed.stderr[-3000:]}")
    return wall, child_cpu() - cpu


def build_fleet(env, count: int, connect_clusters: int = 1, *, live: bool = False):
    """A namespace with ``connect_clusters`` KafkaConnects and ``count`` running sinks spread over them round robin;
    returns (lab, selector, names). With the emulator all KafkaConnects are served by the environment's one Connect
    worker; with Strimzi's real operator each KafkaConnect has a Connect worker of its own (its pod). ``live``:
    each sink's topic also has a partition a producer keeps feeding (20 records/s; on two cores, 40 producers and
    the worker writing their records measure the machine more than the plugin, so it is off by default)."""
    from kubernetes import client as k8s

    from tests.env.clients import kube_api_client
    from tests.env.kind.shared import connect_spec_for
    from tests.integration.online.conftest import CONNECT, GROUP, VERSION, Cluster, Lab

    api = kube_api_client(env.kubeconfig)
    cluster = Cluster(api)
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": env.bootstrap_servers})
    tag = uuid.uuid4().hex[:6]
    ns, selector = f"fleet-bench-{tag}", f"kubectl-offsets-bench={tag}"
    cluster.core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=ns)))
    connects = [CONNECT] if connect_clusters == 1 else [f"{CONNECT}-{i}" for i in range(connect_clusters)]
    for connect in connects:
        cluster.create({"apiVersion": f"{GROUP}/{VERSION}", "kind": "KafkaConnect",
                        "metadata": {"name": connect, "namespace": ns,
                                     "annotations": {"strimzi.io/use-connector-resources": "true"}},
                        "spec": connect_spec_for(env, cluster.core, ns, connect)})
    wait_ready(cluster, ns, connects)
    workdir = Path(env.run_dir) / f"fleet-bench-{tag}"
    workdir.mkdir(parents=True, exist_ok=True)
    lab = Lab(env, cluster, admin, ns, workdir)
    names = []
    for i in range(count):
        lab.connect = connects[i % len(connects)]
        conn = lab.sink("bench", records=3, live=live)
        cluster.merge(ns, conn.name, {"metadata": {"labels": {"kubectl-offsets-bench": tag}}})
        names.append(conn.name)
    return lab, selector, names


def wait_ready(cluster, ns: str, connects: list[str], timeout: float = 600.0) -> None:
    """Every KafkaConnect Ready: Strimzi's real operator reconciles connectors only once their Connect cluster's pods
    are Ready (a worker each, started by the kubelet stand-in: on two cores, a dozen take minutes)."""
    from tests.integration.online.conftest import eventually

    def ready(name: str) -> bool:
        status = cluster.get(ns, name, "kafkaconnects").get("status") or {}
        return any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])

    eventually(f"{len(connects)} KafkaConnect(s) in {ns} Ready", lambda: all(ready(c) for c in connects) or None,
               timeout=timeout, interval=2.0)


def remove_fleet(env, lab, names: list[str]) -> None:
    """Stop the producers, delete the connectors and the namespace, so the next run does not share the machine with
    this fleet. The operator removes a deleted KafkaConnector from Connect, but drops the event when the KafkaConnect's
    lock stays busy for 10 s (as Strimzi does, which then relies on the KafkaConnect's next periodic pass): whatever
    Connect still runs after a minute is deleted through its REST API."""
    from tests.env.clients import ConnectRest
    from tests.integration.online.conftest import GROUP, VERSION

    connect = ConnectRest(env.connect_url)
    lab.stop_feeders()
    lab.cluster.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnectors")
    deadline = time.monotonic() + 60
    while True:
        _, running = connect.get("/connectors")
        left = set(running or []) & set(names)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(2)
    for name in left:
        connect.delete(ConnectRest.connector_path(name))
    lab.cluster.custom.delete_collection_namespaced_custom_object(GROUP, VERSION, lab.ns, "kafkaconnects")
    lab.cluster.core.delete_namespace(lab.ns)


def measure(env, count: int, connect_clusters: int = 1, *, live: bool = False) -> dict:
    lab, selector, names = build_fleet(env, count, connect_clusters, live=live)
    try:
        return _measure(env, lab.ns, selector, names, connect_clusters, live)
    finally:
        remove_fleet(env, lab, names)


def _measure(env, ns: str, selector: str, names: list[str], connect_clusters: int, live: bool) -> dict:
    count = len(names)
    figures: dict = {"connectors": count, "connect_clusters": connect_clusters, "live": live}
    wall = cpu = 0.0
    before = environment_cpu(env)
    for name in names:
        w, c = run_cli(env, "reset", name, "-n", ns, "--yes", "-q")
        wall, cpu = wall + w, cpu + c
    figures["one_by_one"] = {"wall_s": round(wall, 2), "cpu_per_connector_s": round(cpu / count, 3),
                             "environment_cpu_per_connector_s": _per_connector(before, environment_cpu(env), count)}
    for parallel in PARALLELISM:
        before = environment_cpu(env)
        w, c = run_cli(env, "reset", "-l", selector, "-n", ns, "--yes", "-q", "--parallel", str(parallel))
        spent = _per_connector(before, environment_cpu(env), count)
        # No run can be shorter than all the CPU it needs spread over every core: the lower bound of its wall time.
        floor = (c / count + spent["total"]) * count / (os.cpu_count() or 1)
        figures[f"parallel_{parallel}"] = {
            "wall_s": round(w, 2), "cpu_per_connector_s": round(c / count, 3),
            "speed_up_vs_one_by_one": round(wall / w, 2), "environment_cpu_per_connector_s": spent,
            "cpu_floor_s": round(floor, 1), "speed_up_at_the_cpu_floor": round(wall / floor, 2)}
    figures["cores"] = os.cpu_count()
    return figures


def _per_connector(before: dict[str, float], after: dict[str, float], count: int) -> dict[str, float]:
    """What each component of the environment spent per connector during one run (and the total)."""
    spent = {name: round((after[name] - before[name]) / count, 3) for name in after if name in before}
    spent["total"] = round(sum(spent.values()), 3)
    return spent


def _interrupt(signum, _frame):
    # SIGTERM unwinds like Ctrl-C, so the environment this run started is stopped, not leaked.
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env-json", help="reuse a running environment (python -m tests.env up --json)")
    parser.add_argument("--connectors", type=int, default=40)
    parser.add_argument("--connect-clusters", type=int, nargs="+", default=[1, 8],
                        help="measure with the connectors spread over this many KafkaConnects (each a run)")
    parser.add_argument("--live", action="store_true",
                        help="give every sink a partition that a producer keeps feeding during the runs")
    parser.add_argument("--operator", choices=("emulator", "strimzi"),
                        help="the operator of the environment this run starts (default: the environment's default)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    sys.path.insert(0, str(ROOT))
    from tests.env import Env, start_environment

    env = Env.load(args.env_json) if args.env_json else start_environment(operator=args.operator)
    try:
        runs = [measure(env, args.connectors, k, live=args.live) for k in args.connect_clusters]
    finally:
        if not args.env_json:
            env.stop()
    if args.json:
        print(json.dumps(runs, indent=2))
        return 0
    for figures in runs:
        base = figures["one_by_one"]
        print(f"{figures['connectors']} FileStreamSink connectors over {figures['connect_clusters']} KafkaConnect(s), "
              f"reset{' (live partitions)' if figures['live'] else ''}")
        print(f"  one by one ({figures['connectors']} processes): {base['wall_s']:.1f} s wall, "
              f"{base['cpu_per_connector_s']:.3f} s client CPU per connector; {_environment(base)}")
        for parallel in PARALLELISM:
            f = figures[f"parallel_{parallel}"]
            print(f"  reset -l --parallel {parallel}: {f['wall_s']:.1f} s wall ({f['speed_up_vs_one_by_one']:.2f}x "
                  f"faster), {f['cpu_per_connector_s']:.3f} s client CPU per connector; {_environment(f)}; "
                  f"the CPU it needed over {figures['cores']} cores takes at least {f['cpu_floor_s']:.1f} s "
                  f"({f['speed_up_at_the_cpu_floor']:.2f}x)")
    return 0


def _environment(figures: dict) -> str:
    spent = figures["environment_cpu_per_connector_s"]
    parts = ", ".join(f"{name} {seconds:.3f}" for name, seconds in spent.items() if name != "total")
    return f"environment CPU per connector {spent['total']:.3f} s ({parts})"


if __name__ == "__main__":
    sys.exit(main())
