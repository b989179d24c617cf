"""compute on a real standalone Spark cluster (a master and two workers, tests/env/spark.py): the same answers as
local Spark and as a plain-Python scan, for archived data and for a live topic; the Kafka source's jars reach the
executors through --spark-jars (the driver's file server), the executors read the data themselves.

The cluster's driver runs in a child process: Spark allows one SparkContext per process and this one already runs
the local session of the `spark` fixture."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubectl_offsets.adapters.spark.session import SparkSettings, build_session
from kubectl_offsets.core.compute import positions as c
from kubectl_offsets.errors import InputError
from tests.env import spark as cluster_env
from tests.env.assets import REPO_ROOT, spark_kafka_jars
from tests.env.processes import ComponentError

from . import cluster_questions as q
from . import data

pytestmark = pytest.mark.slow
DRIVER_TIMEOUT = 900  # a driver JVM and two executor JVMs on a loaded 2-core machine


def _resume_points(document: dict) -> dict:
    from kubectl_offsets.model import OffsetsDocument

    doc = OffsetsDocument.from_json(document)
    kind = c.kind_of_document(doc)
    points = c.resume_positions(kind, doc)
    points.update({(e.partition["topic"], e.partition["partition"]): 0 for e in doc if e.offset is None})
    return {(t, p): o for (t, p), o in points.items()}


def _child_env() -> dict:
    # The jars must come from --spark-jars / the spec, not from a variable the child would inherit.
    env = {k: v for k, v in os.environ.items() if k != "SPARK_KAFKA_JARS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    return env


def test_cluster_answers_equal_local_spark_and_a_plain_scan(env, spark, spark_cluster, live_orders,
                                                            parquet_archive, recs, tmp_path):
    topic, live_recs = live_orders
    spec = {"master": spark_cluster, "jars_dir": str(spark_kafka_jars()[0].parent), "conf": cluster_env.session_conf(),
            "bootstrap": env.bootstrap_servers, "topic": topic, "archive": parquet_archive}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    run = subprocess.run([sys.executable, "-m", "tests.integration.compute.cluster_questions",
                          str(tmp_path / "spec.json")], capture_output=True, text=True, timeout=DRIVER_TIMEOUT,
                         cwd=tmp_path, env=_child_env())
    assert run.returncode == 0, run.stderr[-4000:]
    cluster = json.loads(run.stdout.strip().splitlines()[-1])
    assert cluster["master"] == spark_cluster
    assert len(cluster["executors"]) == 2, cluster["executors"]  # one executor JVM per worker did the work

    asked = q.questions(env.bootstrap_servers, topic, parquet_archive)
    for name, request in asked.items():
        assert cluster["answers"][name] == q.answer(request, spark), name  # the local[2] session's answer

    # ... and both equal what a plain scan of the records says.
    for name, tp_recs in (("archive", recs), ("live", live_recs)):
        tp = tp_recs[0].topic
        answers = cluster["answers"]
        assert _resume_points(answers[f"{name} to-datetime"]["document"]) == data.first_at_or_after(tp_recs, q.AT_MS)
        starts = {(tp, 0): 14, (tp, 2): 1}
        assert _resume_points(answers[f"{name} skip-poison"]["document"]) == \
            data.past_first_poison(tp_recs, data.invalid_json, starts)
        assert answers[f"{name} skip-poison"]["poison"] == sorted(
            [r.partition, r.offset] for r in tp_recs
            if data.invalid_json(r) and r.offset >= starts.get((tp, r.partition), 0))
        expected = data.first_match(tp_recs, lambda r: r.key == b"key-3"
                                    and (r.json_or_none() or {}).get("amount", 0) > 30)
        assert _resume_points(answers[f"{name} find"]["document"]) == {k: v for k, v in expected.items()}


def test_cli_scans_a_live_topic_on_the_cluster_with_spark_jars(env, spark_cluster, live_orders, tmp_path):
    """The user's path: `compute --master spark://... --spark-jars DIR`, the jars copied to a directory of their
    own so nothing else can supply them; the executors run the Kafka source's consumers."""
    import shutil

    topic, recs = live_orders
    jars = tmp_path / "jars"
    jars.mkdir()
    for jar in spark_kafka_jars():
        shutil.copy(jar, jars)
    current = tmp_path / "current.json"
    current.write_text(json.dumps(q.current_for(topic).to_json()))
    conf = [arg for k, v in cluster_env.session_conf() for arg in ("--spark-conf", f"{k}={v}")]
    out = subprocess.run([sys.executable, "-m", "kubectl_offsets", "compute", "--bootstrap-server",
                          env.bootstrap_servers, "--topic", topic, "--skip-poison", "--invalid", "json",
                          "--current", str(current), "--master", spark_cluster, "--spark-jars", str(jars), *conf,
                          "-o", "json"], capture_output=True, text=True, timeout=DRIVER_TIMEOUT, cwd=tmp_path,
                         env=_child_env())
    assert out.returncode == 0, out.stderr[-4000:]
    assert f"with Spark ({spark_cluster})" in out.stderr
    expected = data.past_first_poison(recs, data.invalid_json, {(topic, 0): 14, (topic, 2): 1})
    assert _resume_points(json.loads(out.stdout)) == expected


def test_a_session_on_another_master_is_refused_while_one_runs(spark):
    """getOrCreate() would hand back the running local session and scan locally without a word."""
    with pytest.raises(InputError, match="already runs a Spark session on local") as e:
        build_session(SparkSettings(master="spark://127.0.0.1:7077"))
    assert "spark.stop()" in e.value.advice


def test_a_cluster_that_cannot_start_is_an_error_with_its_log(tmp_path):
    for sub in ("logs", "config", "data"):
        (tmp_path / sub).mkdir()
    with pytest.raises(ComponentError, match="spark-worker-1") as e:
        cluster_env.start_cluster(tmp_path, workers=1, worker_memory="lots")  # the Worker rejects it and exits
    assert "last 30 lines" in str(e.value)
    pids = _pids_in_logs(tmp_path)  # the master's at least: it started, and must be stopped again
    assert pids and not any(Path(f"/proc/{pid}").exists() for pid in pids)


def _pids_in_logs(run_dir: Path) -> list[int]:
    """The daemons print their pid first ("Started daemon with process name: PID@host")."""
    pids = []
    for log in (run_dir / "logs").glob("spark-*.log"):
        for line in log.read_text(errors="replace").splitlines():
            if "Started daemon with process name:" in line:
                pids.append(int(line.rsplit(":", 1)[1].strip().split("@")[0]))
    return pids
