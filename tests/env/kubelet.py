"""A kubelet stand-in for Strimzi's real operator: the Connect pods it creates become real Connect worker processes.

    python -m tests.env.kubelet --kubeconfig K --run-dir D --kafka-lib LIB --hosts FILE --plain-connect-url URL
                                --bootstrap-servers HOST:PORT --proxy-port P --log FILE

No kubelet (nor scheduler, controller-manager or garbage collector) runs in the environment. This process:

- polls the pods of every namespace labelled ``strimzi.io/kind`` KafkaConnect or KafkaMirrorMaker2 (what the
  operator's StrimziPodSet controller creates) and starts one ``connect-distributed`` worker per pod, configured from
  what the operator generated: the ConfigMap the pod mounts (key ``kafka-connect.properties``; Strimzi 0.45 passes the
  configuration in the container's environment instead) and the container's environment. Only what must differ here
  is overridden: the REST listener on a loopback address of the pod's own (127.x.y.z:18083, behind a front on
  port 8083, the one the operator calls: tests/env/path_front.py injects the tests' Connect errors there and
  encodes what Strimzi before 0.46 sends raw), no ``plugin.path`` (the environment's Kafka jars hold the
  connectors), no Strimzi Kubernetes-secret config provider (its jar is not in those jars);
- maps the pod's Service names (``<cluster>-connect-api.<ns>.svc``, ``<cluster>-mirrormaker2-api.<ns>.svc``) and its
  own DNS name to that address in the hosts file the operator resolves names through. The address stays with the
  Service: a pod created again (a deleted pod, which the operator's StrimziPodSet controller re-creates) gets the
  same one once the old worker has ended, as a Service keeps its ClusterIP whatever its pods do (the operator's JVM
  caches a resolved name for 30 s, and would call a dead address meanwhile);
- gives the workers the in-cluster names of Strimzi Kafka clusters, as a cluster's DNS would: every
  ``<kafka>-kafka-bootstrap[.<ns>[.svc[.cluster.local]]]:9092`` that a KafkaConnect or KafkaMirrorMaker2 names is
  mapped, in the workers' own hosts file (``<run_dir>/worker-hosts``, ``-Djdk.net.hosts.file``), to a loopback
  address whose port 9092 forwards to the environment's broker. Only the workers resolve them: the operator does not
  need them and the plugin, outside the cluster, cannot reach them, as with a real cluster;
- patches ``pods/status`` Running/Ready when the worker's REST API reports healthy, NotReady when the process dies
  (and restarts it, as a kubelet would under ``restartPolicy: Always``);
- stops the worker when its pod is deleted, and deletes the pods and StrimziPodSets of a KafkaConnect or
  KafkaMirrorMaker2 that no longer exists (no garbage collector cascades ownerReferences here);
- serves one Connect REST URL for the tests (tests/env/connect_router.py): ``/connectors/NAME/...`` goes to the worker
  that runs NAME, ``GET /connectors`` merges all of them, the rest goes to the environment's own plain worker.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import logging
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import cds, connect_router, path_front
from .connect_faults import Injector
from .kafka import IDLE_FETCH_MAX_WAIT_MS, LOG4J2_PROPERTIES
from .kuberest import KubeRest
from .tcpproxy import TcpProxy

LOG = logging.getLogger("kubelet")
KINDS = {"KafkaConnect": "kafkaconnects", "KafkaMirrorMaker2": "kafkamirrormaker2s"}
CONNECT_PORT = 8083  # Strimzi's REST_API_PORT: the operator calls <service>:8083
FRONTED_WORKER_PORT = 18083  # the worker's REST port behind its front (tests/env/path_front.py)
CONFIG_KEY = "kafka-connect.properties"
POLL_SECONDS = 0.5
IDLE_POLL_SECONDS = 2.0  # the pause once nothing has moved for a few passes
RESTART_BACKOFF_SECONDS = 5.0
# A kubelet's CrashLoopBackOff: each restart of a worker that never got Ready waits twice as long as the one before,
# up to five minutes. Without it, a KafkaConnect whose Kafka no worker can reach (tests create them on purpose, and
# no garbage collector removes them) restarted a JVM every 5 s for the rest of the run, and two dozen of them kept a
# 2-core machine at a load average of 80.
MAX_RESTART_BACKOFF_SECONDS = 300.0


def restart_delay(crashes: int) -> float:
    """Seconds to wait before the next start of a worker that exited ``crashes`` times in a row without getting
    Ready (1 for the first exit)."""
    return min(RESTART_BACKOFF_SECONDS * 2 ** max(crashes - 1, 0), MAX_RESTART_BACKOFF_SECONDS)
# A kubelet's wait between SIGTERM and SIGKILL when a pod is deleted: the pod's terminationGracePeriodSeconds, which
# Strimzi sets to 30 unless a template says otherwise (WorkloadUtils). It matters: a worker killed before it has left
# its group leaves "lost" assignments, which Connect gives to another worker only after scheduled.rebalance.max.delay.ms
# (5 minutes); with 10 s here, a loaded CI machine (2026-11-29) had a pod-gone cell's connector without a status for
# over 300 s while a graceful shutdown takes 5-7 s on an idle one.
DEFAULT_GRACE_SECONDS = 30.0
TEARDOWN_GRACE_SECONDS = 10.0  # the environment's own shutdown: nothing waits for the group afterwards
WORKER_HEAP = os.environ.get("KO_CONNECT_WORKER_HEAP", "256m")
# Config providers the worker cannot load here (Strimzi's KubernetesSecretConfigProvider ships in its image only).
UNAVAILABLE_PROVIDERS = ("strimzisecrets",)
IMAGE_KAFKA_HOME = "/opt/kafka"  # Kafka's home in Strimzi's images; a directory per pod stands in for it
KAFKA_PLAIN_PORT = 9092  # the plain listener of a Strimzi Kafka cluster's bootstrap Service (TLS, 9093, is not here)
# KafkaResources.bootstrapServiceName: <kafka>-kafka-bootstrap, short (the pod's namespace) or qualified.
_BOOTSTRAP_SERVICE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?-kafka-bootstrap"
                                r"(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.svc(\.cluster\.local)?)?)?$")


# ---- the worker configuration -----------------------------------------------------------------------------------

def parse_properties(text: str) -> dict[str, str]:
    """The ``key=value`` lines of a Java properties text as Strimzi writes them (comments and blanks skipped)."""
    props: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        key, sep, value = line.partition("=")
        if sep:
            props[key.strip()] = value.strip()
    return props


def operator_configuration(configmaps: dict[str, dict], container_env: dict[str, str]) -> dict[str, str]:
    """What the operator generated for the worker: the mounted ConfigMap's ``kafka-connect.properties`` (0.46 and
    later), else the 0.45 container environment (KAFKA_CONNECT_BOOTSTRAP_SERVERS + KAFKA_CONNECT_CONFIGURATION, which
    the image's start script turned into the file)."""
    for data in configmaps.values():
        if CONFIG_KEY in data:
            return parse_properties(data[CONFIG_KEY])
    if "KAFKA_CONNECT_BOOTSTRAP_SERVERS" not in container_env:
        raise ValueError(f"neither a mounted ConfigMap with {CONFIG_KEY} nor KAFKA_CONNECT_BOOTSTRAP_SERVERS")
    props = {"bootstrap.servers": container_env["KAFKA_CONNECT_BOOTSTRAP_SERVERS"]}
    props.update(parse_properties(container_env.get("KAFKA_CONNECT_CONFIGURATION", "")))
    return props


# Worker settings the pod's spec did not choose, picked for a machine that runs dozens of mostly idle workers: what
# a worker costs while nobody uses it (measured by benchmarks/env_costs.py).
IDLE_FRIENDLY_DEFAULTS = {
    "fetch.max.wait.ms": str(IDLE_FETCH_MAX_WAIT_MS),  # tests/env/kafka.py says why
    # MirrorMaker 2's specs leave Connect's 25 offsets partitions (a KafkaConnect's spec here asks for 5): every
    # partition is created, assigned and read to its end at each start.
    "offset.storage.partitions": "5",
    "status.storage.partitions": "1",
}


def worker_properties(generated: dict[str, str], address: str, image_root: Path,
                      port: int = CONNECT_PORT) -> dict[str, str]:
    """``generated`` with only what must differ here: the REST listener on the pod's own loopback address, plugins
    from the classpath, no config provider whose class is not there, the image's /opt/kafka paths (e.g. the
    directory config provider's allowed paths, which must exist) under ``image_root``."""
    generated = {k: v.replace(IMAGE_KAFKA_HOME, str(image_root)) for k, v in generated.items()}
    props = {k: v for k, v in generated.items()
             if k != "plugin.path" and not any(k.startswith(f"config.providers.{p}.") for p in UNAVAILABLE_PROVIDERS)}
    if "config.providers" in props:
        kept = [p for p in props["config.providers"].split(",") if p.strip() and p.strip() not in UNAVAILABLE_PROVIDERS]
        props["config.providers"] = ",".join(kept)
        if not kept:
            del props["config.providers"]
    props.update({"listeners": f"http://{address}:{port}", "rest.advertised.host.name": address,
                  "rest.advertised.port": str(port), "plugin.discovery": "service_load"})
    for key, value in IDLE_FRIENDLY_DEFAULTS.items():
        props.setdefault(key, value)
    return props


def sends_raw_paths(image: str) -> bool:
    """Whether the pod's image (``quay.io/strimzi/kafka:<release>-kafka-<version>``) is of a Strimzi release before
    0.46, whose operator puts MirrorMaker 2 connector names into paths unencoded (tests/env/path_front.py)."""
    match = re.search(r":(\d+)\.(\d+)\.\d+[^:]*-kafka-", image)
    return bool(match) and (int(match.group(1)), int(match.group(2))) < (0, 46)


def host_names(pod: dict) -> list[str]:
    """The names the operator (or a peer worker) may use for this pod: its component's API Service and its own
    DNS name under the headless Service."""
    meta = pod["metadata"]
    ns, component = meta["namespace"], meta["labels"].get("strimzi.io/name", "")
    names = []
    for suffix in (f"{ns}.svc", f"{ns}.svc.cluster.local"):
        names += [f"{component}-api.{suffix}", f"{meta['name']}.{component}.{suffix}"]
    return names


def service_of(pod: dict) -> tuple[str, str]:
    """The pod's namespace and component (``<cluster>-connect``, ``<cluster>-mirrormaker2``): its API Service."""
    meta = pod["metadata"]
    return meta["namespace"], (meta.get("labels") or {}).get("strimzi.io/name", meta["name"])


def free_loopback_address(taken: set[str], port: int = CONNECT_PORT) -> str:
    """A 127.x.y.z whose ``port`` is free (other environments on this machine pick theirs the same way)."""
    for _ in range(1000):
        address = f"127.{random.randint(100, 254)}.{random.randint(0, 255)}.{random.randint(2, 254)}"
        if address in taken:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((address, port))
            except OSError:
                continue
        return address
    raise RuntimeError(f"no free loopback address for port {port}")


def kafka_bootstrap_names(spec: object) -> set[str]:
    """The Strimzi bootstrap Service names on the plain port that a KafkaConnect or KafkaMirrorMaker2 spec names,
    in whichever layout (``spec.bootstrapServers``; MirrorMaker 2's ``clusters[]``, ``target``, ``mirrors[].source``)."""
    names: set[str] = set()
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "bootstrapServers" and isinstance(value, str):
                for server in value.split(","):
                    host, _, port = server.strip().lower().rpartition(":")
                    if port == str(KAFKA_PLAIN_PORT) and _BOOTSTRAP_SERVICE.match(host):
                        names.add(host)
            else:
                names |= kafka_bootstrap_names(value)
    elif isinstance(spec, list):
        for item in spec:
            names |= kafka_bootstrap_names(item)
    return names


# ---- workers ------------------------------------------------------------------------------------------------------

def _die_with_parent() -> None:
    """A worker must not outlive this process (SIGKILLed kubelet): PR_SET_PDEATHSIG. Only the main thread spawns."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


@dataclass
class Worker:
    key: str  # the pod's uid
    namespace: str
    pod: str
    kind: str
    cluster: str
    address: str
    names: list[str]
    props_file: Path
    log_file: Path
    env: dict[str, str]
    rest_port: int = FRONTED_WORKER_PORT  # the worker's own, behind the front that serves CONNECT_PORT
    # The front (tests/env/path_front.py) on address:CONNECT_PORT, served only while the pod is Ready: the
    # operator calls the pod through its Service, whose endpoints are the Ready pods, and Strimzi 0.51 and 1.2 probe
    # readiness on GET /health, as _healthy does (0.45.2 probes "/", which answers earlier; its client does not
    # retry a 409 on create, so it cannot loop as below). Forwarded to a worker still
    # starting, a request met a 404 (its REST resources not up yet, or its configs not read yet); Strimzi took that
    # for "no such connector" and POSTed it again and again (409 "already exists", 9,000 times in 9 minutes: 1.2.0's
    # createConnector retries a 409 with a fresh back-off each time), holding the KafkaConnect's lock for good.
    front: Any = None
    encode_paths: bool = False  # percent-encode what Jetty 12 refuses (a release before 0.46 sends it raw)
    popen: subprocess.Popen | None = None
    ready: bool = False
    restarts: int = 0
    crashes: int = 0  # exits in a row without getting Ready (the back-off's exponent)
    died_at: float = 0.0
    started_at: str = field(default_factory=lambda: _now())
    grace: float = DEFAULT_GRACE_SECONDS  # the pod's terminationGracePeriodSeconds: SIGTERM, then SIGKILL after it

    @property
    def url(self) -> str:
        return f"http://{self.address}:{self.rest_port}"

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Kubelet:
    def __init__(self, kube: KubeRest, run_dir: Path, kafka_lib: Path, hosts: Path, api_version: str,
                 kafka_service: tuple[str, int] | None = None):
        """``kafka_service``: the broker that in-cluster Kafka bootstrap names lead the workers to."""
        self.kube, self.run_dir, self.kafka_lib, self.hosts = kube, run_dir, kafka_lib, hosts
        self.worker_hosts = run_dir / "worker-hosts"
        self.api_version = api_version
        self.workers: dict[str, Worker] = {}
        # (namespace, component): the address its Service names resolve to, kept across the pods it has over time
        self.service_addresses: dict[tuple[str, str], str] = {}
        self.ending: dict[str, threading.Thread] = {}  # address -> the thread ending a gone pod's worker there
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self._hosts_text = ""
        self._worker_hosts_text = ""
        self.kafka_names: set[str] = set()
        self.kafka_forwarder = TcpProxy(*kafka_service, listen=(free_loopback_address(set(), KAFKA_PLAIN_PORT),
                                                                KAFKA_PLAIN_PORT)) if kafka_service else None
        self._podset_version = self._discover_podset_version()
        self.connect_faults = Injector(run_dir)  # the tests' Connect faults, shared by every worker's front
        self.log4j = run_dir / "config" / "log4j2.properties"
        if not self.log4j.exists():
            self.log4j.parent.mkdir(parents=True, exist_ok=True)
            self.log4j.write_text(LOG4J2_PROPERTIES)

    # ---- the loop --------------------------------------------------------------------------------------------
    def run(self) -> None:
        pause = POLL_SECONDS
        while not self.stopping.is_set():
            try:
                busy = self.sync()
            except Exception:  # noqa: BLE001 - the stand-in must survive API-server hiccups
                LOG.exception("sync failed; retrying")
                busy = True
            # Quick while pods come, go or get ready; slower while nothing moves (each pass lists every pod and
            # every Connect cluster, which an idle environment's API server would otherwise serve twice a second).
            pause = POLL_SECONDS if busy else min(pause * 2, IDLE_POLL_SECONDS)
            self.stopping.wait(pause)

    def sync(self) -> bool:
        """One pass; True when something moved or is on its way (a worker started, stopped, not Ready yet)."""
        pods = self._list_pods()
        owners = self._existing_owners()
        self._write_hosts()  # before any worker starts: the Kafka names of the owners just read
        seen, new = set(), []
        for pod in pods:
            meta = pod["metadata"]
            labels = meta.get("labels") or {}
            owner = (labels["strimzi.io/kind"], meta["namespace"], labels.get("strimzi.io/cluster", ""))
            if owners is not None and owner not in owners:
                self._delete_orphan(pod, owner)
                continue
            if meta.get("deletionTimestamp"):
                continue
            seen.add(meta["uid"])
            worker = self.workers.get(meta["uid"])
            if worker is None:
                new.append(pod)
            else:
                self._check_worker(worker)
        # The gone first: a pod created again under the same name takes its Service's address once it is free.
        gone = [k for k in self.workers if k not in seen]
        for key in gone:
            self._stop_worker(self.workers[key], "its pod is gone")
        for pod in new:
            self._start_worker(pod)
        self._write_hosts()
        with self.lock:
            # a worker starting up (a dead one in its back-off waits seconds to minutes: no hurry for it)
            waiting = any(not worker.ready and worker.alive() for worker in self.workers.values())
        return bool(gone or new or waiting)

    # ---- kube ------------------------------------------------------------------------------------------------
    def _list_pods(self) -> list[dict]:
        selector = urllib.parse.quote(f"strimzi.io/kind in ({','.join(KINDS)})")
        # resourceVersion=0: served from the API server's watch cache instead of read through from etcd; this list of
        # every Strimzi pod runs twice a second while any worker starts. (The owners below are read through: a pod
        # must never be taken for an orphan because a cache has not seen its new owner yet.)
        status, body = self.kube.get(f"/api/v1/pods?labelSelector={selector}&resourceVersion=0")
        if status != 200:
            raise RuntimeError(f"listing pods: HTTP {status}: {str(body)[:300]}")
        return body.get("items") or []

    def _existing_owners(self) -> set[tuple[str, str, str]] | None:
        """The KafkaConnects and KafkaMirrorMaker2s that exist (None: unknown), noting the Kafka names they use."""
        owners, names = set(), set()
        for kind, plural in KINDS.items():
            status, body = self.kube.get(f"/apis/kafka.strimzi.io/{self.api_version}/{plural}")
            if status == 404:
                continue  # that CRD is not installed
            if status != 200:
                return None  # unknown: delete nothing
            for o in body.get("items") or []:
                owners.add((kind, o["metadata"]["namespace"], o["metadata"]["name"]))
                names |= kafka_bootstrap_names(o.get("spec"))
        with self.lock:
            self.kafka_names |= names  # never forgotten: a worker still running may use a name its owner dropped
        return owners

    def _discover_podset_version(self) -> str:
        status, body = self.kube.get("/apis/core.strimzi.io")
        if status == 200:
            return body["preferredVersion"]["version"]
        return "v1beta2"

    def _delete_orphan(self, pod: dict, owner: tuple[str, str, str]) -> None:
        """What the garbage collector would do: the StrimziPodSet (else the operator re-creates the pod), the pod."""
        kind, ns, cluster = owner
        selector = urllib.parse.quote(f"strimzi.io/kind={kind},strimzi.io/cluster={cluster}")
        self.kube.request("DELETE", f"/apis/core.strimzi.io/{self._podset_version}/namespaces/{ns}/strimzipodsets"
                                    f"?labelSelector={selector}")
        status, _ = self.kube.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{pod['metadata']['name']}")
        LOG.info("%s %s/%s is gone: deleted its StrimziPodSets and pod %s (HTTP %s)", kind, ns, cluster,
                 pod["metadata"]["name"], status)
        worker = self.workers.get(pod["metadata"]["uid"])
        if worker:
            self._stop_worker(worker, f"its {kind} is gone")

    def _configmaps(self, pod: dict) -> dict[str, dict]:
        ns = pod["metadata"]["namespace"]
        result = {}
        for volume in pod["spec"].get("volumes") or []:
            name = (volume.get("configMap") or {}).get("name")
            if name:
                status, body = self.kube.get(f"/api/v1/namespaces/{ns}/configmaps/{name}")
                if status == 200:
                    result[name] = body.get("data") or {}
        return result

    def _patch_status(self, worker: Worker, pod: dict | None, ready: bool, reason: str = "") -> None:
        now = _now()
        flag = "True" if ready else "False"
        containers = (pod or {}).get("spec", {}).get("containers") or [{"name": worker.kind.lower(), "image": ""}]
        state = {"running": {"startedAt": worker.started_at}} if ready or worker.alive() else \
            {"terminated": {"exitCode": worker.popen.returncode if worker.popen else 1, "reason": reason or "Error",
                            "finishedAt": now}}
        status = {"status": {
            "phase": "Running", "podIP": worker.address, "podIPs": [{"ip": worker.address}], "hostIP": "127.0.0.1",
            "startTime": worker.started_at,
            "conditions": [{"type": "Initialized", "status": "True", "lastTransitionTime": worker.started_at},
                           {"type": "ContainersReady", "status": flag, "lastTransitionTime": now},
                           {"type": "Ready", "status": flag, "lastTransitionTime": now}],
            "containerStatuses": [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": ready,
                                   "started": worker.alive(), "restartCount": worker.restarts, "state": state}
                                  for c in containers]}}
        code, body = self.kube.request("PATCH", f"/api/v1/namespaces/{worker.namespace}/pods/{worker.pod}/status",
                                       status, content_type="application/merge-patch+json")
        if code != 200:
            LOG.warning("patching %s/%s status: HTTP %s %s", worker.namespace, worker.pod, code, str(body)[:200])

    # ---- workers ---------------------------------------------------------------------------------------------
    def _start_worker(self, pod: dict) -> None:
        meta = pod["metadata"]
        labels = meta["labels"]
        container = pod["spec"]["containers"][0]
        container_env = {e["name"]: e["value"] for e in container.get("env") or [] if "value" in e}
        try:
            generated = operator_configuration(self._configmaps(pod), container_env)
        except ValueError as e:
            LOG.info("pod %s/%s not started yet: %s", meta["namespace"], meta["name"], e)
            return
        address = self._address_for(service_of(pod))
        if address is None:
            LOG.info("pod %s/%s not started yet: the previous worker of its Service still ends", meta["namespace"],
                     meta["name"])
            return
        base = f"{meta['namespace']}.{meta['name']}"
        props_file = self.run_dir / "config" / "workers" / f"{base}.properties"
        props_file.parent.mkdir(parents=True, exist_ok=True)
        image_root = self.run_dir / "data" / "pods" / base / "opt-kafka"
        image_root.mkdir(parents=True, exist_ok=True)
        props = worker_properties(generated, address, image_root, FRONTED_WORKER_PORT)
        props_file.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "JAVA_HOME")}
        env.update(container_env)
        env["ADVERTISED_HOSTNAME"] = address
        worker = Worker(key=meta["uid"], namespace=meta["namespace"], pod=meta["name"], kind=labels["strimzi.io/kind"],
                        cluster=labels.get("strimzi.io/cluster", ""), address=address, names=host_names(pod),
                        props_file=props_file, log_file=self.run_dir / "logs" / "workers" / f"{base}.log", env=env,
                        grace=float(pod.get("spec", {}).get("terminationGracePeriodSeconds", DEFAULT_GRACE_SECONDS)))
        # The operator calls address:CONNECT_PORT once the pod is Ready (_open_front): the front there injects the
        # tests' Connect faults and, for a release before 0.46, encodes the paths it sends raw. The tests' router
        # calls the worker itself.
        worker.encode_paths = sends_raw_paths(container.get("image") or "")
        with self.lock:
            self.workers[worker.key] = worker
        self._write_hosts()
        self._spawn(worker)

    def _address_for(self, service: tuple[str, str]) -> str | None:
        """The Service's address when no live worker holds it (None while the worker of a gone pod still ends), else
        a new one (a second replica)."""
        with self.lock:
            held = {w.address for w in self.workers.values()}
            address = self.service_addresses.get(service)
            if address is not None and address not in held:
                ending = self.ending.get(address)
                if ending is not None and ending.is_alive():
                    return None
                return address
            address = free_loopback_address(held | set(self.service_addresses.values()))
            self.service_addresses.setdefault(service, address)
            return address

    def _spawn(self, worker: Worker) -> None:
        worker.log_file.parent.mkdir(parents=True, exist_ok=True)
        argv = ["java", "-Xms64m", f"-Xmx{WORKER_HEAP}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                *cds.flags(self.kafka_lib, "connect"), "-Djava.awt.headless=true", "-Djava.net.preferIPv4Stack=true",
                f"-Djdk.net.hosts.file={self.worker_hosts}",
                f"-Dlog4j2.configurationFile={self.log4j}", "-cp", f"{self.kafka_lib}/*",
                "org.apache.kafka.connect.cli.ConnectDistributed", str(worker.props_file)]
        with open(worker.log_file, "ab") as out:
            worker.popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                            env=worker.env, start_new_session=True, preexec_fn=_die_with_parent)
        worker.ready, worker.started_at = False, _now()
        LOG.info("pod %s/%s: started Connect worker pid %s on %s (%s), log %s", worker.namespace, worker.pod,
                 worker.popen.pid, worker.url, ", ".join(worker.names[:1]), worker.log_file)

    def _check_worker(self, worker: Worker) -> None:
        if not worker.alive():
            if worker.ready or not worker.died_at:
                worker.crashes = 1 if worker.ready else worker.crashes + 1
                LOG.warning("pod %s/%s: worker exited with %s; NotReady, restarting in %.0fs", worker.namespace,
                            worker.pod, worker.popen.returncode if worker.popen else None,
                            restart_delay(worker.crashes))
                worker.ready, worker.died_at = False, time.monotonic()
                _close_front(worker)
                self._patch_status(worker, self._get_pod(worker), ready=False)
            elif time.monotonic() - worker.died_at > restart_delay(worker.crashes):
                worker.restarts += 1
                worker.died_at = 0.0
                self._spawn(worker)
            return
        if not worker.ready and _healthy(worker.url):
            worker.ready, worker.crashes = True, 0
            self._open_front(worker)
            self._patch_status(worker, self._get_pod(worker), ready=True)
            LOG.info("pod %s/%s: Connect REST answers on %s; Ready", worker.namespace, worker.pod, worker.url)

    def _open_front(self, worker: Worker) -> None:
        """Serve the pod's address to the operator: the Service has this pod among its endpoints now."""
        if worker.front is None:
            worker.front = path_front.serve(worker.address, CONNECT_PORT, worker.url, self.connect_faults,
                                            encode=worker.encode_paths)

    def _get_pod(self, worker: Worker) -> dict | None:
        status, body = self.kube.get(f"/api/v1/namespaces/{worker.namespace}/pods/{worker.pod}")
        return body if status == 200 else None

    def _stop_worker(self, worker: Worker, why: str) -> None:
        with self.lock:
            self.workers.pop(worker.key, None)
        LOG.info("pod %s/%s: stopping its worker (%s)", worker.namespace, worker.pod, why)
        ending = threading.Thread(target=_terminate, args=(worker,), daemon=True)
        with self.lock:
            self.ending[worker.address] = ending
        ending.start()

    def stop_all(self) -> None:
        with self.lock:
            workers = list(self.workers.values())
            self.workers.clear()
        threads = [threading.Thread(target=_terminate, args=(w, TEARDOWN_GRACE_SECONDS)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self._write_hosts()
        if self.kafka_forwarder:
            self.kafka_forwarder.close()

    def ready_urls(self) -> list[str]:
        with self.lock:
            return [w.url for w in self.workers.values() if w.ready]

    # ---- the hosts files --------------------------------------------------------------------------------------
    def _write_hosts(self) -> None:
        """The operator's hosts file (the Connect services) and the workers' (the same, plus this machine's name,
        which the JDK looks up through the file too, and the in-cluster Kafka names)."""
        with self.lock:
            lines = ["127.0.0.1 localhost"] + [f"{w.address} {' '.join(w.names)}" for w in self.workers.values()]
            kafka_names = sorted(self.kafka_names)
        text = "\n".join(lines) + "\n"
        if text != self._hosts_text:
            _replace(self.hosts, text)
            self._hosts_text = text
        worker_lines = lines + [f"127.0.0.1 {socket.gethostname()}"]
        if self.kafka_forwarder and kafka_names:
            worker_lines.append(f"{self.kafka_forwarder.address} {' '.join(kafka_names)}")
        worker_text = "\n".join(worker_lines) + "\n"
        if worker_text != self._worker_hosts_text:
            _replace(self.worker_hosts, worker_text)
            self._worker_hosts_text = worker_text


def _replace(path: Path, text: str) -> None:
    """Write ``path`` atomically: the JDK re-reads a hosts file whenever it changes, and must never see half of it."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=1) as resp:
            return json.loads(resp.read()).get("status") == "healthy"
    except (OSError, ValueError, urllib.error.URLError):
        return False


def _close_front(worker: Worker) -> None:
    """The pod is no longer among its Service's endpoints: the operator's calls are refused, as by a Service without
    a Ready pod."""
    if worker.front is not None:
        path_front.stop(worker.front)
        worker.front = None


def _terminate(worker: Worker, timeout: float | None = None) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds (default: the pod's grace period), as a kubelet ends a pod."""
    timeout = worker.grace if timeout is None else timeout
    _close_front(worker)
    popen = worker.popen
    if popen is None or popen.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(popen.pid, sig)
        except ProcessLookupError:
            return
        try:
            popen.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _kube_from_kubeconfig(path: str) -> KubeRest:
    config = json.loads(Path(path).read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    return KubeRest(cluster["server"], Path(cluster["certificate-authority"]),
                    cert=Path(user["client-certificate"]) if "client-certificate" in user else None,
                    key=Path(user["client-key"]) if "client-key" in user else None, token=user.get("token"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.env.kubelet", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kubeconfig", required=True)
    p.add_argument("--run-dir", required=True, type=Path)
    p.add_argument("--kafka-lib", required=True, type=Path)
    p.add_argument("--hosts", required=True, type=Path)
    p.add_argument("--api-version", default="v1", help="the Strimzi CRDs' version to read KafkaConnects through")
    p.add_argument("--plain-connect-url", required=True, help="the environment's own Connect worker")
    p.add_argument("--bootstrap-servers", help="the environment's broker (HOST:PORT), where the workers' in-cluster "
                                               "Kafka bootstrap names lead")
    p.add_argument("--proxy-port", type=int, required=True)
    p.add_argument("--log", required=True)
    args = p.parse_args(argv)
    logging.basicConfig(filename=args.log, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    kafka_service = None
    if args.bootstrap_servers:
        host, _, port = args.bootstrap_servers.split(",")[0].rpartition(":")
        kafka_service = (host, int(port))
    kubelet = Kubelet(_kube_from_kubeconfig(args.kubeconfig), args.run_dir, args.kafka_lib, args.hosts,
                      args.api_version, kafka_service)
    router = connect_router.serve(args.proxy_port, args.plain_connect_url, kubelet.ready_urls)

    def _stop(signum, _frame):
        LOG.info("signal %s: stopping", signum)
        kubelet.stopping.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    LOG.info("watching Connect and MirrorMaker 2 pods; Connect REST router on port %s", args.proxy_port)
    if kubelet.kafka_forwarder:
        LOG.info("in-cluster Kafka bootstrap names lead the workers to %s:%s, forwarded to %s:%s",
                 kubelet.kafka_forwarder.address, KAFKA_PLAIN_PORT, *kafka_service)
    try:
        kubelet.run()
    finally:
        router.shutdown()
        kubelet.stop_all()
        LOG.info("stopped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
