"""The demo behind `make demo`: kubectl-offsets at work on real components (a kube-apiserver with the Strimzi CRDs,
Kafka, Kafka Connect and the Strimzi operator's connector handling, from tests/env).

    make demo                                        # provisions everything, then runs this
    .venv/bin/python examples/demo.py [--keep] [--strimzi 0.45|0.51|1.2]

What it shows, in the API version and resource layout the cluster serves:
1. a sink: a FileStreamSink KafkaConnector (JsonConverter) writes topic `orders` to a file and gets stuck on order 4,
   which is not JSON (its task FAILED). `list` shows where it stands; `compute` finds the poison record with PySpark
   and the offset just past it; `alter -f` applies that and the sink goes on; `undo` puts the offsets back (stuck
   again); `alter --skip-record orders:0:4` does the same by hand (orders 5..9 are written again);
2. MirrorMaker 2: a KafkaMirrorMaker2 replicates `orders` to `east.orders`; `list kmm2/mirror --connector source`
   shows the last record replicated, and `alter --to-offset 7` makes it replicate orders 7..9 again;
3. GitOps: phase 1 of a change as a diff of a copy of examples/gitops/repo (no cluster needed).

Each step prints the commands it runs and their output. When a step fails, the command's own error is printed and
the demo exits 1 naming the step. The environment is stopped at the end, also on failure or Ctrl-C (and by a
watchdog if this process is killed); `--keep` leaves it running for you to explore.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.env.clients import (create_topic, kafka_conf, kube_api_client, one_mirror_mm2, produce,  # noqa: E402
                               producer_conf)
from tests.env.emulator import profiles  # noqa: E402
from tests.env.environment import start_environment  # noqa: E402  (the repository's own test environment)
from tests.env.kind.shared import cluster_bootstrap, connect_spec_for  # noqa: E402

NS = "demo"
CONNECT, SINK, MIRROR = "demo-connect", "orders-sink", "mirror"
TOPIC, SOURCE_ALIAS, TARGET_ALIAS = "orders", "east", "west"
MIRRORED_TOPIC = f"{SOURCE_ALIAS}.{TOPIC}"  # MirrorMaker 2's DefaultReplicationPolicy
POISON = 4
ORDERS = [b'{"id": %d, "amount": %d}' % (i, 10 * i) for i in range(10)]
ORDERS[POISON] = b"{this is not json"
GITOPS_REPO = ROOT / "examples" / "gitops" / "repo"
WAIT = 120.0  # seconds any one wait may take (the operator's reconcile, Connect's rebalance, a busy machine)


# ---- steps, commands and failures ---------------------------------------------------------------------------

class StepFailed(Exception):
    """A step of the demo did not work; ``detail`` says what (the command's own error is already printed)."""

    def __init__(self, step: str, detail: str):
        super().__init__(f"{step}: {detail}")
        self.step, self.detail = step, detail


_current_step = ["starting"]


@contextlib.contextmanager
def step(title: str) -> Iterator[None]:
    """A titled step: its banner, and any error inside it reported as this step's failure."""
    _current_step[0] = title
    print(f"\n\033[1m### {title}\033[0m", flush=True)
    try:
        yield
    except (StepFailed, KeyboardInterrupt):
        raise
    except Exception as error:  # noqa: BLE001 - anything else is still this step's failure, named as such
        raise StepFailed(title, f"{type(error).__name__}: {error}") from error


def fail(detail: str) -> StepFailed:
    return StepFailed(_current_step[0], detail)


def show(argv: list[str], note: str = "") -> None:
    print("$ " + " ".join(shlex.quote(a) for a in argv) + (f"   # {note}" if note else ""), flush=True)


def run(argv: list[str], env: dict, *, stdin: str | None = None, quiet: bool = False, note: str = "",
        output: Callable[[str], str] | None = None) -> str:
    """Run one command as a user would type it; print it and what it printed (stdout and stderr, in order).

    ``quiet``: print nothing unless it fails. ``output``: what to print instead of the full output (a shortened
    form). On failure, everything it printed (its own error message included) is shown and the step fails."""
    if not quiet:
        show(argv, note)
    result = subprocess.run(argv, env=env, input=stdin, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = result.stdout.rstrip()
    if result.returncode:
        if quiet:
            show(argv, note)
        print(text, flush=True)
        raise fail(f"`{' '.join(argv[:3])} ...` exited {result.returncode} (its message is above)")
    if not quiet and text:
        print(output(text) if output else text, flush=True)
    return result.stdout


def run_json(argv: list[str], env: dict) -> Any:
    """Run a command that prints JSON on stdout (progress on stderr, shown only if it fails)."""
    result = subprocess.run(argv, env=env, text=True, capture_output=True)
    if result.returncode:
        show(argv)
        print((result.stdout + result.stderr).rstrip(), flush=True)
        raise fail(f"`{' '.join(argv[:3])} ...` exited {result.returncode} (its message is above)")
    return json.loads(result.stdout)


def apply(manifests: list[dict], env: dict) -> None:
    """`kubectl apply` the manifests (a List), named in one line rather than printed whole."""
    api_versions = sorted({m["apiVersion"] for m in manifests})
    what = ", ".join(f"{m['kind']} {m['metadata']['name']}" for m in manifests)
    run(["kubectl", "apply", "-f", "-"], env, note=f"{what} ({', '.join(api_versions)})",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": manifests}))


def wait_until(what: str, probe: Callable[[], Any], timeout: float = WAIT, interval: float = 0.5) -> Any:
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    raise fail(f"timed out after {timeout:.0f}s waiting for {what}; last seen: {str(last)[:500]}")


# ---- the demo ------------------------------------------------------------------------------------------------

class Demo:
    def __init__(self, environment, workdir: Path):
        self.environment, self.workdir = environment, workdir
        self.profile = environment.profile
        self.version = self.profile.preferred_version  # what a user's manifests and kubectl use in this era
        self.layout = profiles.LAYOUT_V1 if profiles.LAYOUT_V1 in self.profile.mm2_layouts else profiles.LAYOUT_LEGACY
        self.sink_file = workdir / "orders.out"
        # `kubectl offsets` is this checkout's plugin: .venv/bin first on PATH, this source tree on PYTHONPATH.
        self.shell = {**os.environ, "KUBECONFIG": str(environment.kubeconfig),
                      "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
                      "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                      "XDG_STATE_HOME": str(workdir / "state")}  # the local backup copies stay in the demo's dir
        self.api = kube_api_client(environment.kubeconfig)
        from confluent_kafka import Producer
        from confluent_kafka.admin import AdminClient

        self.admin = AdminClient(kafka_conf(environment.bootstrap_servers))
        self.producer = Producer(producer_conf(environment.bootstrap_servers))

    def offsets(self, *args: str) -> list[str]:
        return ["kubectl", "offsets", *args]

    # -- set-up
    def create_resources(self) -> None:
        from kubernetes import client as k8s

        with step(f"Create topic '{TOPIC}' with orders 0..3, a sink connector that writes it to a file, and a "
                  f"MirrorMaker 2 (Strimzi {self.profile.name}: kafka.strimzi.io/{self.version})"):
            create_topic(self.admin, TOPIC)
            self.produce(ORDERS[:POISON])
            run(["kubectl", "create", "namespace", NS], self.shell)
            group = f"kafka.strimzi.io/{self.version}"
            connect = {"apiVersion": group, "kind": "KafkaConnect",
                       "metadata": {"name": CONNECT, "namespace": NS,
                                    "annotations": {"strimzi.io/use-connector-resources": "true"}},
                       "spec": connect_spec_for(self.environment, k8s.CoreV1Api(self.api), NS, CONNECT)}
            sink = {"apiVersion": group, "kind": "KafkaConnector",
                    "metadata": {"name": SINK, "namespace": NS, "labels": {"strimzi.io/cluster": CONNECT}},
                    "spec": {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "tasksMax": 1,
                             "config": {"topics": TOPIC, "file": str(self.sink_file),
                                        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
                                        # a value that is not JSON fails the task, as in production
                                        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                                        "value.converter.schemas.enable": "false"}}}
            mirror = {"sourceConnector": {"tasksMax": 1, "config": {
                          # notice the topic at once, copy records only: the target holds exactly what was copied
                          "refresh.topics.interval.seconds": 1, "sync.topic.configs.enabled": False,
                          "heartbeats.replication.enabled": False}},
                      "topicsPattern": f"^{TOPIC}$"}
            mm2 = one_mirror_mm2(MIRROR, SOURCE_ALIAS, TARGET_ALIAS, cluster_bootstrap(self.environment), mirror,
                                 self.profile)
            mm2["metadata"]["namespace"] = NS
            apply([connect, sink, mm2], self.shell)

    def produce(self, values: list[bytes]) -> None:
        produce(self.producer, TOPIC, values)

    def close(self) -> None:
        """Drop the Kafka clients while the broker still runs (librdkafka would log refused connections)."""
        import gc

        self.producer = self.admin = None
        gc.collect()

    # -- reading the cluster: the resources' status, as the operator (emulated or real) reports it, and Kafka
    def custom(self, plural: str, name: str) -> dict:
        from kubernetes import client as k8s

        return k8s.CustomObjectsApi(self.api).get_namespaced_custom_object(
            "kafka.strimzi.io", self.version, NS, plural, name)

    def sink_running(self) -> bool:
        status = self.custom("kafkaconnectors", SINK).get("status") or {}
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        state = ((status.get("connectorStatus") or {}).get("connector") or {}).get("state")
        return ready and state == "RUNNING"

    def mirror_running(self) -> list:
        entries = (self.custom("kafkamirrormaker2s", MIRROR).get("status") or {}).get("connectors") or []
        return [e["name"] for e in entries if (e.get("connector") or {}).get("state") == "RUNNING"]

    def committed(self) -> int | None:
        """The sink's committed offset of partition 0 (its consumer group is connect-<name>)."""
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        request = ConsumerGroupTopicPartitions(f"connect-{SINK}", [TopicPartition(TOPIC, 0)])
        result = self.admin.list_consumer_group_offsets([request])[f"connect-{SINK}"].result(timeout=10)
        offset = result.topic_partitions[0].offset
        return offset if offset >= 0 else None

    def sink_orders(self) -> list[int]:
        """The order ids the sink wrote, in file order (JsonConverter hands it a map: {amount=.., id=..})."""
        text = self.sink_file.read_text() if self.sink_file.exists() else ""
        return [int(match) for match in re.findall(r"\bid=(\d+)", text)]

    def wait_for_orders(self, count: int) -> list[int]:
        return wait_until(f"{count} orders in {self.sink_file}", lambda: len(self.sink_orders()) >= count and self.sink_orders())

    def listed(self, *target: str) -> dict[int, int]:
        document = run_json(self.offsets("list", *target, "-n", NS, "-o", "json", "-q"), self.shell)
        return {e["partition"].get("kafka_partition", e["partition"].get("partition")): next(iter(e["offset"].values()))
                for e in document["offsets"] if e.get("offset")}

    def wait_for_stored(self, what: str, offset: int, *target: str) -> None:
        """Connect stores offsets every few seconds: wait until what `list` shows has caught up."""
        wait_until(f"{what}'s stored offset {offset}", lambda: self.listed(*target).get(0) == offset, interval=1)

    # -- 1. the sink
    def sink(self) -> None:
        with step(f"The sink wrote orders 0..3; then order {POISON} arrives, and it is not JSON: the sink is stuck"):
            wait_until(f"KafkaConnector {SINK} Ready and RUNNING", self.sink_running)
            self.wait_for_orders(POISON)
            wait_until(f"{SINK} to commit offset {POISON}", lambda: self.committed() == POISON)
            self.produce(ORDERS[POISON:])
            time.sleep(3)  # the task reads the poison record and fails; nothing moves any more
            run(self.offsets("list", SINK, "-n", NS), self.shell)
            run(["kubectl", "get", "kafkaconnector", SINK, "-n", NS, "-o",
                 "jsonpath=task 0: {.status.connectorStatus.tasks[0].state}{\"\\n\"}"], self.shell)
            print(f"the file has orders {self.sink_orders()}")

        with step("Which record is poison, and where should the sink resume? kubectl offsets compute (PySpark)"):
            if _spark_available():
                self.compute()
            else:
                print("skipped: pyspark is not installed (pip install 'kubectl-offsets[spark]')")
                (self.workdir / "past-poison.json").write_text(json.dumps({"offsets": [{
                    "partition": {"kafka_topic": TOPIC, "kafka_partition": 0},
                    "offset": {"kafka_offset": POISON + 1}}]}))

        with step("Apply it: kubectl offsets alter -f (stop, back up, alter, verify, resume: the sink goes on)"):
            run(self.offsets("alter", SINK, "-n", NS, "-f", str(self.workdir / "past-poison.json"), "--yes"),
                self.shell)
            print(f"the file has orders {self.wait_for_orders(len(ORDERS) - 1)}")

        with step("Undo puts back the offsets from before the alter (its automatic backup): stuck at the poison again"):
            run(self.offsets("undo", SINK, "-n", NS, "--yes", "-q"), self.shell)

        with step(f"The same by hand: --skip-record {TOPIC}:0:{POISON} (the sink writes orders 5..9 again)"):
            run(self.offsets("alter", SINK, "-n", NS, "--skip-record", f"{TOPIC}:0:{POISON}", "--yes", "-q"),
                self.shell)
            written = self.wait_for_orders(len(ORDERS) - 1 + len(ORDERS) - POISON - 1)
            print(f"replayed: the sink wrote orders {written[len(ORDERS) - 1:]} again; "
                  f"the file has {len(written)} orders")

    def compute(self) -> None:
        argv = self.offsets("compute", "--target", SINK, "-n", NS, "--bootstrap-server",
                            self.environment.bootstrap_servers, "--topic", TOPIC, "--skip-poison", "--invalid",
                            "json", "--master", "local[1]", "-o", "json")
        print("$ " + " ".join(shlex.quote(a) for a in argv) + " > past-poison.json", flush=True)
        result = subprocess.run(argv, env=self.shell, text=True, capture_output=True)
        if result.returncode:
            print((result.stdout + result.stderr).rstrip(), flush=True)
            raise fail(f"`kubectl offsets compute` exited {result.returncode} (its message is above)")
        report = [line for line in result.stderr.splitlines() if line.strip() and "WARN" not in line]
        print("\n".join(report[-5:]))  # the answer and the poison report (Spark's start-up chatter left out)
        computed = json.loads(result.stdout)
        resume = {e["partition"]["kafka_partition"]: e["offset"]["kafka_offset"] for e in computed["offsets"]}
        (self.workdir / "past-poison.json").write_text(result.stdout)
        print(f"computed: resume {TOPIC} partition 0 at offset {resume.get(0)}")

    # -- 2. MirrorMaker 2
    def mirror(self) -> None:
        source = f"{SOURCE_ALIAS}->{TARGET_ALIAS}.MirrorSourceConnector"
        target = (f"kmm2/{MIRROR}", "--connector", "source")
        with step(f"MirrorMaker 2 replicated '{TOPIC}' to '{MIRRORED_TOPIC}': the source connector's offsets"):
            wait_until(f"KafkaMirrorMaker2 {MIRROR}'s {source} RUNNING", lambda: source in self.mirror_running())
            self.target_values(len(ORDERS))
            self.wait_for_stored(source, len(ORDERS) - 1, *target)
            run(self.offsets("list", *target, "-n", NS), self.shell)

        with step("Rewind the mirror: --to-offset 7 stores 6, the last record replicated, so it copies 7..9 again"):
            run(self.offsets("alter", *target, "-n", NS, "--to-offset", "7", "--topic", TOPIC, "--yes", "-q"), self.shell)
            values = self.target_values(len(ORDERS) + 3)
            again = [json.loads(v)["id"] for v in values[len(ORDERS):]]
            print(f"re-replicated: {MIRRORED_TOPIC} now holds {len(values)} records; the new ones are orders {again}")

    def target_values(self, count: int) -> list[str]:
        """The records of the mirrored topic, once it holds at least ``count``."""
        from confluent_kafka import Consumer, KafkaException, TopicPartition

        consumer = Consumer(kafka_conf(self.environment.bootstrap_servers,
                                       **{"group.id": "demo-reader", "enable.auto.commit": False}))
        try:
            def high() -> int | None:
                try:
                    end = consumer.get_watermark_offsets(TopicPartition(MIRRORED_TOPIC, 0), timeout=5)[1]
                except KafkaException:
                    return None  # not created yet
                return end if end >= count else None

            end = wait_until(f"{count} records in {MIRRORED_TOPIC}", high)
            consumer.assign([TopicPartition(MIRRORED_TOPIC, 0, 0)])
            values: list[str] = []
            deadline = time.monotonic() + 30
            while len(values) < end and time.monotonic() < deadline:
                message = consumer.poll(1.0)
                if message is not None and not message.error():
                    values.append(message.value().decode(errors="replace"))
            return values
        finally:
            consumer.close()

    # -- 3. GitOps
    def gitops(self) -> None:
        with step("GitOps phase 1, as a reviewable diff of a copy of examples/gitops/repo (no cluster needed)"):
            repo = self.workdir / "deploy"
            shutil.copytree(GITOPS_REPO, repo)
            git = ["git", "-C", str(repo), "-c", "user.name=demo", "-c", "user.email=demo@example.invalid"]
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
                run([*git, *args], self.shell, quiet=True)
            run(self.offsets("gitops", "alter", SINK, "-n", "prod", "--repo", str(repo), "--set", f"{TOPIC}:0=5",
                             "-o", "diff"), self.shell, output=_short_diff)


def _short_diff(diff: str) -> str:
    """The diff, short: the first file (the connector's edit) whole; of the others only the changed lines, and a new
    file (the ConfigMap with the offsets document) as one line."""
    out: list[str] = []
    files, new_file = 0, False
    for line in diff.splitlines():
        if line.startswith("--- "):
            files, new_file = files + 1, line == "--- /dev/null"
        if files <= 1 or line.startswith(("--- ", "+++ ")):
            out.append(line)
        elif new_file:
            if line.startswith("@@"):
                out.append("+ ... (a new file: the ConfigMap with offsets.json, for Strimzi's alterOffsets)")
        elif line.startswith(("+", "-")):
            out.append(line)
    return "\n".join(out)


def _spark_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyspark") is not None


# ---- main ------------------------------------------------------------------------------------------------------

def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def _start(strimzi: str | None):
    """start_environment, its progress (a line per component) kept back unless it fails."""
    import io

    progress = io.StringIO()
    started = time.monotonic()
    try:
        with contextlib.redirect_stderr(progress):
            environment = start_environment(strimzi=strimzi)
    except BaseException:
        print(progress.getvalue().rstrip(), file=sys.stderr, flush=True)
        raise
    profile, info = environment.profile, environment.operator_info
    operator = (f"Strimzi {info['version']}'s cluster operator" if info.get("implementation") == "strimzi"
                else "the operator emulator (tests/env/emulator)")
    print(f"ready after {time.monotonic() - started:.0f}s: {operator}, Strimzi profile {profile.name} (CRDs serve "
          f"{', '.join(profile.served)}), run dir {environment.run_dir}", flush=True)
    return environment


def report(failure: StepFailed) -> int:
    print(f"\ndemo failed at step '{failure.step}': {failure.detail}", file=sys.stderr, flush=True)
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="leave the environment running afterwards")
    parser.add_argument("--strimzi", choices=sorted(profiles.PROFILES), default=os.environ.get(profiles.ENV_VAR),
                        help=f"the Strimzi profile (default: ${profiles.ENV_VAR}, else {profiles.DEFAULT})")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)  # a kill unwinds like Ctrl-C, so the environment is stopped
    started = time.monotonic()
    try:
        with step("Start real etcd, kube-apiserver (Strimzi CRDs), Kafka, Kafka Connect and Strimzi's cluster operator"):
            environment = _start(args.strimzi)
    except StepFailed as failure:
        return report(failure)
    reaper = environment.start_reaper()  # stops the environment if this process is killed outright
    workdir = Path(tempfile.mkdtemp(prefix="kubectl-offsets-demo-", dir=environment.shared_dir or None))
    demo = None
    try:
        demo = Demo(environment, workdir)
        demo.create_resources()
        demo.sink()
        demo.mirror()
        demo.gitops()
        print(f"\nDone in {time.monotonic() - started:.0f}s: every change went through Strimzi's own mechanism, "
              "verified, with each connector's state restored.")
        return 0
    except StepFailed as failure:
        return report(failure)
    except KeyboardInterrupt:
        print(f"\ndemo interrupted at step '{_current_step[0]}'", file=sys.stderr)
        return 130
    finally:
        if demo is not None:
            demo.close()
        if args.keep:
            from tests.env.processes import stop

            stop(reaper, timeout=5)  # the watchdog would stop the environment once this process exits
            print(f"\nThe environment keeps running: export KUBECONFIG={environment.kubeconfig}\n"
                  f"The sink's file and the GitOps repository copy are in {workdir}\n"
                  f"Stop it with: .venv/bin/python -m tests.env down --run-dir {environment.run_dir}")
        else:
            environment.stop()
            shutil.rmtree(workdir, ignore_errors=True)
            print(f"environment stopped (logs in {environment.run_dir}/logs)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
