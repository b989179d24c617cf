"""A real standalone Spark cluster: one master and two workers, started from the pyspark installation.

`compute --master spark://...` must work on a cluster, where tasks run in executor JVMs that the workers launch
(not in the driver's JVM as with local[N]): jars travel from the driver's file server, the archive is read by the
executors, a live topic is read by the executors' Kafka consumers. This starts the same daemons a Spark
distribution's sbin/start-master.sh and start-worker.sh start (`spark-class org.apache.spark.deploy.master.Master`
and `...worker.Worker`), bound to 127.0.0.1 only, ports from the free-port helper, and sized to share a 2-core
machine: each worker offers one core and WORKER_MEMORY, and a job asks for EXECUTOR_MEMORY per executor (the
application's `spark.executor.memory`, which `session_conf()` gives, must fit into a worker's memory or the job
waits for resources forever).

The workers' executors inherit the workers' environment (SPARK_LOCAL_IP=127.0.0.1), so nothing listens beyond
the loopback interface. Everything runs on one machine: the archive paths the driver passes are readable by the
executors because they share the file system; on a real cluster the data must be on storage every node reads.
"""
from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .ports import HOST, free_ports
from .processes import ComponentError, Proc, spawn, wait_until

WORKERS = 2
WORKER_CORES = 1
WORKER_MEMORY = "1g"  # what a worker offers its executors
EXECUTOR_MEMORY = "512m"  # what a job's executor takes from it (spark.executor.memory)
# The JVM options of every Spark JVM the tests start: C1 and SerialGC, as for the environment's other JVMs. A test's
# job is seconds of work on tiny data, so C2's compilations never pay back: a local session's start and one small
# job cost 0.53x the CPU with them (benchmarks/spark_jvm_costs.py).
LIGHT_JVM_OPTS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
DAEMON_MEMORY = "256m"  # heap of the master and worker daemons themselves
READY_TIMEOUT = 120.0
NAMES = ("spark-master", *(f"spark-worker-{i}" for i in range(1, WORKERS + 1)))


@dataclass
class SparkCluster:
    master_url: str  # spark://127.0.0.1:PORT
    ui_url: str  # the master's web UI (its /json is the readiness probe)
    processes: dict[str, Proc]


def spark_home() -> Path:
    """The pyspark package directory: pip's pyspark is a Spark distribution (bin/spark-class, jars/)."""
    import importlib.util

    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        raise ComponentError("spark-master", "pyspark is not installed; pip install -e '.[spark,test]'")
    home = Path(spec.origin).parent
    if not (home / "bin" / "spark-class").exists():
        raise ComponentError("spark-master", f"{home}/bin/spark-class does not exist (a broken pyspark install?)")
    return home


def _daemon_env(home: Path, run_dir: Path) -> dict[str, str]:
    return {**os.environ,
            "SPARK_HOME": str(home),
            "SPARK_LOCAL_IP": HOST,  # the daemons' and their executors' bind address (and the web UIs')
            "SPARK_LOCAL_HOSTNAME": HOST,
            "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
            "SPARK_DAEMON_JAVA_OPTS": LIGHT_JVM_OPTS,
            "SPARK_LOG_DIR": str(run_dir / "logs"),
            "SPARK_CONF_DIR": str(run_dir / "config" / "spark"),  # empty: no spark-defaults from the machine
            "SPARK_NO_DAEMONIZE": "1"}


def use_light_driver_jvm() -> None:
    """Give the driver JVMs this process and its children start (an in-process SparkSession, `kubectl offsets
    compute`) the light options: spark-submit adds SPARK_SUBMIT_OPTS to the JVM it launches, which in client mode is
    the driver (in local mode, where every task runs). The product's own driver options (spark.driver.
    extraJavaOptions: its log configuration) apply beside these; a caller's own SPARK_SUBMIT_OPTS wins."""
    os.environ.setdefault("SPARK_SUBMIT_OPTS", LIGHT_JVM_OPTS)


def start_cluster(run_dir: Path, workers: int = WORKERS, worker_memory: str = WORKER_MEMORY,
                  worker_cores: int = WORKER_CORES) -> SparkCluster:
    """Start the master, then the workers; return once the master lists every worker ALIVE. On failure the
    processes already started are stopped and the error carries the logs' tails."""
    from .processes import stop

    home = spark_home()
    (run_dir / "config" / "spark").mkdir(parents=True, exist_ok=True)
    env = _daemon_env(home, run_dir)
    port, ui_port, *worker_ports = free_ports(2 + 2 * workers)
    master_url, ui_url = f"spark://{HOST}:{port}", f"http://{HOST}:{ui_port}"
    spark_class = str(home / "bin" / "spark-class")
    procs: dict[str, Proc] = {}
    try:
        procs["spark-master"] = spawn("spark-master", [
            spark_class, "org.apache.spark.deploy.master.Master",
            "--host", HOST, "--port", str(port), "--webui-port", str(ui_port)],
            run_dir / "logs" / "spark-master.log", cwd=run_dir, env=env)
        wait_until(procs["spark-master"], f"serving {ui_url}/json", lambda: _master_state(ui_url) is not None,
                   READY_TIMEOUT, interval=0.5)
        for i in range(workers):
            name, work_dir = f"spark-worker-{i + 1}", run_dir / "data" / f"spark-worker-{i + 1}"
            work_dir.mkdir(parents=True, exist_ok=True)
            procs[name] = spawn(name, [
                spark_class, "org.apache.spark.deploy.worker.Worker",
                "--host", HOST, "--port", str(worker_ports[2 * i]), "--webui-port", str(worker_ports[2 * i + 1]),
                "--cores", str(worker_cores), "--memory", worker_memory, "--work-dir", str(work_dir), master_url],
                run_dir / "logs" / f"{name}.log", cwd=work_dir, env=env)
        for name in list(procs)[1:]:
            wait_until(procs[name], f"registered with the master at {master_url}",
                       lambda: _alive_workers(ui_url) >= workers, READY_TIMEOUT, interval=0.5,
                       extra_logs=[procs["spark-master"].log])
    except BaseException:
        for proc in reversed(list(procs.values())):
            stop(proc)
        raise
    return SparkCluster(master_url, ui_url, procs)


def _master_state(ui_url: str) -> dict | None:
    with urllib.request.urlopen(f"{ui_url}/json/", timeout=5) as resp:
        state = json.loads(resp.read())
    return state if state.get("status") == "ALIVE" else None


def _alive_workers(ui_url: str) -> int:
    state = _master_state(ui_url) or {}
    return sum(1 for w in state.get("workers", ()) if w.get("state") == "ALIVE")


def session_conf(driver_memory: str | None = None) -> tuple[tuple[str, str], ...]:
    """What a job needs to fit this cluster: executors of EXECUTOR_MEMORY with one core each, at most one per
    worker. The driver binds to 127.0.0.1 by itself (kubectl_offsets.adapters.spark.session: a loopback master)."""
    conf = [("spark.executor.memory", EXECUTOR_MEMORY), ("spark.executor.cores", str(WORKER_CORES)),
            ("spark.cores.max", str(WORKERS * WORKER_CORES)), ("spark.sql.shuffle.partitions", "2"),
            ("spark.executor.extraJavaOptions", LIGHT_JVM_OPTS)]
    if driver_memory:
        conf.append(("spark.driver.memory", driver_memory))
    return tuple(conf)
