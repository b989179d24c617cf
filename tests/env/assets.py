"""Where the provisioned binaries and jars are, and which versions they are.

tests/provision.sh writes `<cache>/env.sh` with TEST_ASSET_ETCD, TEST_ASSET_KUBE_APISERVER, KAFKA_LIB and
SPARK_KAFKA_JARS (the envtest naming). Variables already set in the environment win, so a developer can point
at other builds. A missing asset is an error with the command that provisions it, never a skip.
"""
from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
PROVISION = "bash tests/provision.sh"


class AssetError(RuntimeError):
    pass


def cache_dir() -> Path:
    if os.environ.get("KO_CACHE"):
        return Path(os.environ["KO_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kubectl-offsets-testbin"


def _env_sh_values() -> dict[str, str]:
    """Parse the `export NAME=value` lines of the provision script's env.sh (no shell involved)."""
    path = cache_dir() / "env.sh"
    values: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            m = re.match(r"\s*export\s+([A-Z_]+)=(.*)$", line)
            if m:
                values[m.group(1)] = shlex.split(m.group(2))[0] if m.group(2).strip() else ""
    return values


def _lookup(name: str, piece: str, want_dir: bool) -> Path:
    value = os.environ.get(name) or _env_sh_values().get(name)
    if not value:
        raise AssetError(f"{name} is not set and {cache_dir()}/env.sh does not define it; run: {PROVISION} {piece}")
    path = Path(value)
    ok = path.is_dir() if want_dir else (path.is_file() and os.access(path, os.X_OK))
    if not ok:
        raise AssetError(f"{name}={path} does not exist (or is not {'a directory' if want_dir else 'executable'});"
                         f" run: {PROVISION} {piece}")
    return path


@dataclass(frozen=True)
class Assets:
    etcd: Path
    kube_apiserver: Path
    kafka_lib: Path


def find_assets() -> Assets:
    return Assets(etcd=_lookup("TEST_ASSET_ETCD", "etcd", False),
                  kube_apiserver=_lookup("TEST_ASSET_KUBE_APISERVER", "kube-apiserver", False),
                  kafka_lib=_lookup("KAFKA_LIB", "kafka", True))


def spark_kafka_jars() -> list[Path]:
    """The Spark Kafka connector jars matching the installed pyspark (for the compute tests)."""
    return sorted(_lookup("SPARK_KAFKA_JARS", "spark-kafka", True).glob("*.jar"))


def _first_line(argv: list[str]) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unknown ({e})"
    return out.strip().splitlines()[0] if out.strip() else "unknown"


def kafka_version(lib: Path) -> str:
    jars = sorted(lib.glob("kafka-clients-*.jar"))
    return jars[0].name[len("kafka-clients-"):-len(".jar")] if jars else "unknown"


def _dist_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@functools.lru_cache(maxsize=1)
def versions() -> dict[str, str]:
    """Versions of every real component, as the components themselves report them (best effort per item)."""
    result: dict[str, str] = {}
    try:
        a = find_assets()
    except AssetError as e:
        return {"error": str(e), "pyspark": _dist_version("pyspark"), "python": platform.python_version()}
    # `kube-apiserver --version` prints "Kubernetes v1.32.13"; etcd prints "etcd Version: 3.5.21".
    result["kube_apiserver"] = _first_line([str(a.kube_apiserver), "--version"]).split()[-1]
    result["etcd"] = _first_line([str(a.etcd), "--version"]).split()[-1]
    result["kafka"] = kafka_version(a.kafka_lib)
    result["pyspark"] = _dist_version("pyspark")
    result["python"] = platform.python_version()
    result["java"] = _java_version()
    return result


def _java_version() -> str:
    try:
        err = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    m = re.search(r'version "([^"]+)"', err)
    return m.group(1) if m else "unknown"
