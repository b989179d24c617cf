"""Strimzi's real cluster operator (built from source by tests/provision.sh, piece strimzi-operator) as a JVM process.

It watches every namespace (``STRIMZI_NAMESPACE=*``) through a token kubeconfig in ``system:masters`` (its fabric8
client cannot read the environment's EC client keys: "Invalid DER: object is not integer"), creates StrimziPodSets
and their pods itself, and reaches each Connect cluster's REST API at ``<name>-connect-api.<ns>.svc:8083``, which the
hosts file ``<run_dir>/hosts`` maps (``-Djdk.net.hosts.file``; the JDK reads that file on each lookup, so entries the
kubelet stand-in adds later are seen). The pods only become real when ``tests/env/kubelet.py`` runs them.

Its health server binds the hard-coded port 8080, and a taken port makes it exit (Main.startHealthServer fails the
start-up chain, which calls System.exit(1)). ``bind8080.so`` (LD_PRELOAD, built at provision time) moves that bind to
a free port per environment, so several operators run on one machine.
"""
from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import yaml

from .assets import AssetError, cache_dir
from .kubeconfig import write_kubeconfig
from .ports import HOST, free_ports
from .processes import ComponentError, Proc, spawn, wait_until

PROVISION = "bash tests/provision.sh strimzi-operator"
DEFAULT_VERSION = "1.2.0"
OPERATOR_USER = "strimzi-cluster-operator"
OPERATOR_GROUPS = ("system:masters",)
READY_TIMEOUT = 120.0
# Strimzi's defaults, unchanged: the periodic pass every 120 s, operations time out after 5 minutes.
FULL_RECONCILIATION_INTERVAL_MS = 120000
HEAP = "384m"
IMAGE_VARIABLES = ("STRIMZI_KAFKA_IMAGES", "STRIMZI_KAFKA_CONNECT_IMAGES", "STRIMZI_KAFKA_MIRROR_MAKER_2_IMAGES")
# MirrorMaker 1 was removed in 0.46; until then its image map is required too.
MM1_IMAGE_VARIABLE = "STRIMZI_KAFKA_MIRROR_MAKER_IMAGES"
# The release each Strimzi profile of the environment (tests/env/emulator/profiles.py) stands for.
RELEASE_OF_PROFILE = {"0.45": "0.45.2", "0.51": "0.51.0", "1.2": "1.2.0"}


@dataclass(frozen=True)
class Release:
    version: str
    home: Path  # jar, lib/, crds/, kafka-versions.yaml, JAVA_HOME

    @property
    def jar(self) -> Path:
        return self.home / f"cluster-operator-{self.version}.jar"

    @property
    def crd_dir(self) -> Path:
        return self.home / "crds"

    @property
    def java(self) -> str:
        return str(Path((self.home / "JAVA_HOME").read_text().strip()) / "bin" / "java")

    @property
    def profile(self) -> str:
        return profile_of(self.version)

    def kafka_versions(self) -> list[dict]:
        """The Kafka versions this release supports, oldest first ({version, default})."""
        entries = yaml.safe_load((self.home / "kafka-versions.yaml").read_text())
        return [{"version": str(e["version"]), "default": bool(e.get("default"))}
                for e in entries if e.get("supported")]

    def default_kafka_version(self) -> str:
        versions = self.kafka_versions()
        return next((v["version"] for v in versions if v["default"]), versions[-1]["version"])


def profile_of(version: str) -> str:
    for profile, release in RELEASE_OF_PROFILE.items():
        if release == version:
            return profile
    major, minor = version.split(".")[:2]
    return f"{major}.{minor}"


def release(version: str = DEFAULT_VERSION) -> Release:
    """The provisioned release, or an AssetError naming the command that provisions it."""
    variable = "STRIMZI_OPERATOR_" + version.replace(".", "_")
    home = Path(os.environ.get(variable) or cache_dir() / f"strimzi-operator-{version}")
    if not (home / ".complete").exists() and not os.environ.get(variable):
        raise AssetError(f"Strimzi's cluster operator {version} is not built ({home} has no .complete); run: "
                         f"STRIMZI_OPERATOR_VERSIONS={version} {PROVISION}")
    r = Release(version, home)
    if not r.jar.is_file():
        raise AssetError(f"{r.jar} does not exist; run: STRIMZI_OPERATOR_VERSIONS={version} {PROVISION}")
    return r


def bind_shim() -> Path:
    path = Path(os.environ.get("KO_BIND_SHIM") or cache_dir() / "bind-shim-1" / "bind8080.so")
    if not path.is_file():
        raise AssetError(f"{path} does not exist; run: {PROVISION}")
    return path


def image_environment(r: Release) -> dict[str, str]:
    """Every supported Kafka version needs an image, or the operator exits at start-up; none is ever pulled."""
    images = " ".join(f"{v['version']}=quay.io/strimzi/kafka:{r.version}-kafka-{v['version']}"
                      for v in r.kafka_versions())
    names = IMAGE_VARIABLES + ((MM1_IMAGE_VARIABLE,) if _older_than(r.version, "0.46") else ())
    return {name: images for name in names}


def _older_than(version: str, other: str) -> bool:
    def key(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", v)[:3])
    return key(version) < key(other)


def write_hosts(path: Path) -> Path:
    """The hosts file the operator resolves names through; the kubelet stand-in adds the Connect services."""
    if not path.exists():
        path.write_text(f"{HOST} localhost\n")
    return path


def write_operator_kubeconfig(run_dir: Path, api_server: str, ca: Path, token: str) -> Path:
    return write_kubeconfig(run_dir / "strimzi-operator.kubeconfig", api_server, ca, OPERATOR_USER, token=token)


def command(r: Release, run_dir: Path, hosts: Path) -> list[str]:
    extra = ["-Dvertx.disableDnsResolver=true"] if _older_than(r.version, "0.46") else []  # Vert.x 4 ignores hosts
    return [r.java, f"-Xmx{HEAP}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
            f"-Djdk.net.hosts.file={hosts}", *extra, f"-Dvertx.cacheDirBase={run_dir / 'data' / 'vertx-cache'}",
            "-cp", f"{r.jar}:{r.home / 'lib'}/*", "io.strimzi.operator.cluster.Main"]


def environment(r: Release, kubeconfig: Path, health_port: int, namespace: str = "*") -> dict[str, str]:
    """A clean environment (the operator logs all of it at start-up): nothing of the caller's shell."""
    return {"PATH": "/usr/bin:/bin", "KUBECONFIG": str(kubeconfig),
            "STRIMZI_NAMESPACE": namespace, "STRIMZI_OPERATOR_NAME": "kubectl-offsets-test",
            "STRIMZI_FULL_RECONCILIATION_INTERVAL_MS": str(FULL_RECONCILIATION_INTERVAL_MS),
            "STRIMZI_NETWORK_POLICY_GENERATION": "false", "STRIMZI_LEADER_ELECTION_ENABLED": "false",
            "STRIMZI_FEATURE_GATES": "", **image_environment(r),
            "LD_PRELOAD": str(bind_shim()), "KO_BIND_8080_TO": str(health_port)}


@dataclass
class Operator:
    proc: Proc
    version: str
    health_url: str
    hosts: str


# Logged once the watches are open (Main.deployClusterOperatorVerticles): /ready answers 204 long before that.
STARTED = "Cluster Operator verticle started in namespace"


def start(r: Release, run_dir: Path, kubeconfig: Path, name: str = "strimzi-operator",
          namespace: str = "*") -> Operator:
    """Start the operator; ready when ``GET /ready`` on its (moved) health port answers 204 and its verticle has
    opened its watches."""
    hosts = write_hosts(run_dir / "hosts")
    (health_port,) = free_ports(1)
    log = run_dir / "logs" / f"{name}.log"
    proc = spawn(name, command(r, run_dir, hosts), log, cwd=run_dir,
                 env=environment(r, kubeconfig, health_port, namespace))
    url = f"http://{HOST}:{health_port}"
    wait_until(proc, f"answering GET {url}/ready with 204", lambda: _status(f"{url}/ready") == 204, READY_TIMEOUT,
               interval=0.5)
    wait_until(proc, f"logging '{STARTED}'", lambda: STARTED in Path(log).read_text(errors="replace"),
               READY_TIMEOUT, interval=0.5)
    return Operator(proc, r.version, url, str(hosts))


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


def check_release_matches(r: Release, profile: str) -> None:
    if r.profile != profile:
        raise ComponentError("strimzi-operator", f"Strimzi {r.version} is profile {r.profile}, not {profile}")
