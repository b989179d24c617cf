"""The SparkSession: local by default, any ``--master`` passes through; Kafka connector jars found, never fetched.

Spark takes ``spark.jars`` only when its JVM starts, so the jars are decided before the first session in a process
(a later session in the same JVM cannot read ``format("kafka")``). We never set ``spark.jars.packages`` ourselves:
Ivy resolution at run time would contact repositories on the user's machine without saying so. A user who wants
that may pass ``--spark-conf spark.jars.packages=...`` explicitly.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.metadata
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ...errors import InputError, MissingExtraError

JARS_ENV = "SPARK_KAFKA_JARS"
CACHE_DIR = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kubectl-offsets-testbin"
KAFKA_SOURCE_JAR = "spark-sql-kafka-0-10"

# Spark's own INFO lines would bury our progress on stderr; errors still show.
_LOG4J2 = """\
status = error
# WARN at the root, as Spark's shell default: PySpark counts as a shell and otherwise prints "Setting default log
# level"; after start-up the session is set to ERROR.
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n%ex
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
logger.utils.name = org.apache.spark.util.Utils
logger.utils.level = error
"""


@dataclass(frozen=True)
class SparkSettings:
    master: str = "local[*]"
    jars_dir: str | None = None  # --spark-jars DIR
    needs_kafka: bool = False  # a live topic is read: the Kafka source jars must be on the classpath
    conf: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # --spark-conf k=v, applied last
    app_name: str = "kubectl-offsets-compute"


def require_pyspark() -> Any:
    """The pyspark module, or the error that tells how to install the extra."""
    try:
        import pyspark
    except ImportError:
        raise MissingExtraError("spark", "pyspark") from None
    return pyspark


def pyspark_version() -> str:
    try:
        return importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError:
        raise MissingExtraError("spark", "pyspark") from None


def kafka_jars(jars_dir: str | None = None) -> list[str]:
    """The Kafka source jars: --spark-jars DIR, else $SPARK_KAFKA_JARS, else the project's cache directory."""
    candidates = [(jars_dir, "--spark-jars"), (os.environ.get(JARS_ENV), f"${JARS_ENV}"),
                  (str(CACHE_DIR / f"spark-kafka-{pyspark_version()}"), "the cache directory")]
    for directory, origin in candidates:
        if not directory:
            continue
        jars = _jars_in(directory)
        if any(KAFKA_SOURCE_JAR in Path(j).name for j in jars):
            return jars
        if origin != "the cache directory":  # the user named it: say it is wrong rather than look elsewhere
            raise InputError(f"{origin} {directory} holds no {KAFKA_SOURCE_JAR} jar",
                             advice=_jars_advice())
    raise InputError("reading a live topic needs Spark's Kafka source jars, and none were found",
                     advice=_jars_advice())


def _jars_advice() -> str:
    v = pyspark_version()
    return (f"put org.apache.spark:spark-sql-kafka-0-10_2.13:{v} with its runtime dependencies "
            f"(spark-token-provider-kafka-0-10_2.13, kafka-clients, commons-pool2) into a directory and pass "
            f"--spark-jars DIR or set {JARS_ENV}=DIR; in a checkout, 'bash tests/provision.sh spark-kafka' does it "
            f"(into {CACHE_DIR}/spark-kafka-{v})")


def build_session(settings: SparkSettings) -> Any:
    """A new (or the process's existing) SparkSession without UI, in UTC; a local one listens on 127.0.0.1 only."""
    require_pyspark()
    if _on_loopback(settings.master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    _refuse_other_master(SparkContext._active_spark_context, settings.master)
    builder = SparkSession.builder.master(settings.master).appName(settings.app_name)
    for key, value in _base_conf(settings).items():
        builder = builder.config(key, value)
    for key, value in settings.conf:
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def _base_conf(settings: SparkSettings) -> dict[str, str]:
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",  # our own progress line replaces Spark's bar
        "spark.sql.session.timeZone": "UTC",  # timestamps in and out are UTC, whatever the machine's zone
        "spark.sql.variant.allowDuplicateKeys": "true",  # duplicate keys are valid JSON for the poison check
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={_log4j_file()}",
    }
    if _on_loopback(settings.master):
        # Loopback only: nothing outside this machine needs to reach a local driver, nor the driver of a cluster
        # whose master listens on loopback (its workers, and so their executors, run on this machine too). On any
        # other cluster the executors must reach the driver, so there Spark's (or --spark-conf's) address applies.
        conf.update({"spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"})
    if settings.master.startswith("local"):
        conf["spark.sql.shuffle.partitions"] = "8"  # the default 200 is for clusters; aggregates are tiny
    # Every jar of --spark-jars goes on the classpath (spark-avro for --format avro, too); a live topic also needs
    # the Kafka source among them (or in $SPARK_KAFKA_JARS / the cache).
    jars = kafka_jars(settings.jars_dir) if settings.needs_kafka else _jars_in(settings.jars_dir)
    if jars:
        conf["spark.jars"] = ",".join(jars)
    return conf


def _on_loopback(master: str) -> bool:
    """local[...], or a standalone master on this machine's loopback interface."""
    if master.startswith("local"):
        return True
    host = urlsplit(master).hostname if "://" in master else None
    return host in ("127.0.0.1", "localhost", "::1")


def _refuse_other_master(context: Any, master: str) -> None:
    """getOrCreate() hands back the process's running session whatever master is asked for: a library caller
    asking for a cluster after a local run would silently scan locally. Local vs local[N] is the same machine."""
    if context is None:
        return
    running = context.master
    if running != master and not (running.startswith("local") and master.startswith("local")):
        raise InputError(f"this process already runs a Spark session on {running}; Spark allows one per process, "
                         f"so it cannot also use {master}",
                         advice="stop that session first (spark.stop()), or run the job in another process")


def _jars_in(directory: str | None) -> list[str]:
    return sorted(str(p) for p in Path(directory).glob("*.jar")) if directory else []


@functools.lru_cache(maxsize=None)
def _log4j_file() -> str:
    """A private file (mkstemp: new, mode 0600, ours) for the JVM's log4j2 configuration. A fixed name in the shared
    temporary directory could be created first by another user, who would then choose what the JVM loads. The JVM
    reads it once at start-up; the file goes when the process ends."""
    descriptor, name = tempfile.mkstemp(prefix="kubectl-offsets-log4j2-", suffix=".properties")
    with os.fdopen(descriptor, "w") as out:
        out.write(_LOG4J2)
    atexit.register(_remove_quietly, name)
    return name


def _remove_quietly(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)
