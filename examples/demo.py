"""The demo behind `make demo`: a real kube-apiserver, Kafka, Connect and the Strimzi operator emulator, a sink
connector that hits a poison record, and kubectl-offsets getting it going again.

    make demo            # provisions everything, then runs this
    .venv/bin/python examples/demo.py [--keep]   # --keep leaves the environment running for you to explore

What it shows, with real components end to end:
1. a FileStreamSink connector (a KafkaConnector) copies topic `orders` into a file;
2. `kubectl offsets list` shows where it stands;
3. `kubectl offsets alter --skip-record` moves it past one record, and `--shift-by` replays some (the real sink
   writes them again);
4. `kubectl offsets compute` finds the poison record in the topic with PySpark and computes the offsets just past
   it, and `kubectl offsets alter -f` applies that document (with `--skip-record` when the spark extra is absent);
5. `kubectl offsets undo` puts the offsets back from the automatic backup.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.env.environment import start_environment  # noqa: E402  (the repo's own test environment)

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.32" if Path("/usr/lib/google-cloud-sdk/bin/kubectl.1.32").exists() \
    else "kubectl"
PLUGIN = str(ROOT / ".venv" / "bin" / "kubectl-offsets")
NS = "demo"
ORDERS = [b'{"id": %d, "amount": %d}' % (i, 10 * i) for i in range(10)]
ORDERS[4] = b"{this is not json"  # the poison record at offset 4


def banner(text: str) -> None:
    print(f"\n\033[1m### {text}\033[0m", flush=True)


def run(*args: str, env: dict, check: bool = True) -> str:
    print("$ " + " ".join(shlex.quote(a) for a in args), flush=True)
    result = subprocess.run(args, env=env, text=True, capture_output=True)
    if result.stdout:
        print(result.stdout.rstrip(), flush=True)
    if result.returncode and check:
        print(result.stderr, file=sys.stderr)
        raise SystemExit(f"demo step failed: {' '.join(args)}")
    return result.stdout


def apply(manifest: str, env: dict) -> None:
    subprocess.run([KUBECTL, "apply", "-f", "-"], input=manifest, text=True, env=env, check=True,
                   capture_output=True)


def produce(bootstrap: str) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})  # keep a reference: the futures need a live handle
    admin.create_topics([NewTopic("orders", 1, 1)])["orders"].result()
    producer = Producer({"bootstrap.servers": bootstrap})
    for value in ORDERS:
        producer.produce("orders", value)
    producer.flush()


def wait_for_lines(path: Path, count: int, timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count:
            return lines
        time.sleep(0.5)
    raise SystemExit(f"the sink wrote {len(lines)} lines to {path}, expected {count}")


def connector_manifests(bootstrap: str, sink_file: Path) -> str:
    return f"""
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaConnect
metadata: {{name: demo-connect, namespace: {NS}, annotations: {{strimzi.io/use-connector-resources: "true"}}}}
spec: {{bootstrapServers: "{bootstrap}", replicas: 1}}
---
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaConnector
metadata: {{name: orders-sink, namespace: {NS}, labels: {{strimzi.io/cluster: demo-connect}}}}
spec:
  class: org.apache.kafka.connect.file.FileStreamSinkConnector
  tasksMax: 1
  config:
    topics: orders
    file: {sink_file}
    value.converter: org.apache.kafka.connect.storage.StringConverter
    key.converter: org.apache.kafka.connect.storage.StringConverter
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="leave the environment running afterwards")
    args = parser.parse_args()

    banner("Starting real etcd, kube-apiserver, Kafka (KRaft), Kafka Connect and the Strimzi operator emulator")
    environment = start_environment()
    try:
        demo(environment)
    finally:
        if args.keep:
            print(f"\nThe environment keeps running. KUBECONFIG={environment.kubeconfig}\n"
                  f"Stop it with: .venv/bin/python -m tests.env down --run-dir {environment.run_dir}")
        else:
            environment.stop()


def demo(environment) -> None:
    env = {**os.environ, "KUBECONFIG": str(environment.kubeconfig)}
    workdir = Path(tempfile.mkdtemp(prefix="kubectl-offsets-demo-"))
    sink_file = workdir / "orders.out"
    subprocess.run([KUBECTL, "create", "namespace", NS], env=env, check=True, capture_output=True)
    produce(environment.bootstrap_servers)
    apply(connector_manifests(environment.bootstrap_servers, sink_file), env)

    banner("A FileStreamSink connector copies topic 'orders' (10 records, offset 4 is poison) into a file")
    wait_for_lines(sink_file, 10)
    run(KUBECTL, "get", "kafkaconnectors", "-n", NS, env=env)
    run(PLUGIN, "list", "orders-sink", "-n", NS, env=env)

    banner("Replay the last 3 records: --shift-by -3 (the real sink writes them again)")
    run(PLUGIN, "alter", "orders-sink", "-n", NS, "--shift-by", "-3", "--topic", "orders", "--yes", env=env)
    lines = wait_for_lines(sink_file, 13)
    print(f"the sink file now has {len(lines)} lines; the last three: {lines[-3:]}")

    if _spark_available():
        banner("Find the poison record with PySpark and compute where the sink must resume (just past it)")
        offsets = workdir / "past-poison.json"
        computed = run(PLUGIN, "compute", "--bootstrap-server", environment.bootstrap_servers, "--topic", "orders",
                       "--skip-poison", "--invalid", "json", "--current", str(_current(env, workdir)),
                       "--for", "sink", "-o", "json", env=env)
        offsets.write_text(computed)
        banner("Apply the computed document: kubectl offsets alter -f (the dry run shows the patches first)")
        run(PLUGIN, "alter", "orders-sink", "-n", NS, "-f", str(offsets), "--dry-run", env=env)
        run(PLUGIN, "alter", "orders-sink", "-n", NS, "-f", str(offsets), "--yes", env=env)
    else:
        banner("Skip the poison record at offset 4: --skip-record orders:0:4 (a sink then resumes at offset 5)")
        run(PLUGIN, "alter", "orders-sink", "-n", NS, "--skip-record", "orders:0:4", "--dry-run", env=env)
        run(PLUGIN, "alter", "orders-sink", "-n", NS, "--skip-record", "orders:0:4", "--yes", env=env)
    lines = wait_for_lines(sink_file, 18)
    print(f"the sink re-read offsets 5..9: {lines[13:]}")

    banner("Undo: put back the offsets from before the last alter (taken automatically as a backup)")
    run(PLUGIN, "undo", "orders-sink", "-n", NS, "--yes", env=env)
    run(KUBECTL, "get", "configmaps", "-n", NS, "-l", "kubectl-offsets.io/role=backup", env=env)
    banner("Done: every change went through Strimzi's own mechanism, verified, with the connector's state restored")


def _current(env: dict, workdir: Path) -> Path:
    """Where the connector stands, as compute's --current wants it; rewound to 0 so the scan sees the poison."""
    path = workdir / "current.json"
    path.write_text('{"offsets": [{"partition": {"kafka_topic": "orders", "kafka_partition": 0}, '
                    '"offset": {"kafka_offset": 0}}]}')
    return path


def _spark_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspark") is not None


if __name__ == "__main__":
    main()
