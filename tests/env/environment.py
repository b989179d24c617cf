"""The whole test environment: start it, describe it (env.json), reload it, stop it.

Start-up runs two independent chains in parallel, which roughly halves the wall time on 2 cores:
    pki -> etcd -> kube-apiserver -> CRDs        and        storage format -> Kafka broker -> Connect
and then the Strimzi operator emulator, which needs both. If anything fails, everything already started is
stopped and the error names the component and shows the tail of its log.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from . import (assets, crds, emulator_process, flux, kafka, kube, kubelet_process, operator_faults, pki, spark,
               strimzi_operator)
from .emulator import profiles
from .kubeconfig import write_kubeconfig
from .kuberest import KubeRest
from .processes import (ComponentError, Proc, StartupAborted, abort_startup, alive, spawn, spawn_mark, spawned_since,
                        stop)

BASE_DIR = Path(os.environ.get("KO_ENV_BASE", "/tmp/kubectl-offsets-env"))
POINTER = BASE_DIR / "current.json"
ADMIN_USER, ADMIN_GROUPS = "admin", ("system:masters",)
LIMITED_USER = "limited-user"
OPERATORS = ("strimzi", "emulator")
GITOPS_CONTROLLERS = ("flux",)  # `up --gitops`: a GitOps controller in the loop (tests/env/flux.py)
# The operator's default, for `up` and the pytest session (KO_OPERATOR): Strimzi's real operator, or the emulator.
DEFAULT_OPERATOR = os.environ.get("KO_OPERATOR", "strimzi")
# Stop order: the operator first (it talks to both sides), then the kubelet stand-in (its workers use Kafka), then
# both chains in parallel, each from its top.
STOP_FIRST = ("flux-kustomize-controller", "flux-source-controller", "git-server", "strimzi-emulator",
              "strimzi-operator", "kubelet")
STOP_CHAINS = (("kafka-connect", "kafka"), ("kube-apiserver", "etcd"))


def say(message: str) -> None:
    """Human progress goes to stderr: stdout of `up --json` must stay a single JSON object."""
    print(f"[tests.env {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Env:
    run_dir: str
    kubeconfig: str
    limited_kubeconfig: str
    api_server: str
    etcd_url: str
    bootstrap_servers: str
    connect_url: str
    faults_file: str
    emulator_log: str
    emulator_command: list[str]
    versions: dict[str, str]
    strimzi: str = profiles.DEFAULT  # the Strimzi profile: CRDs served and the emulator's rules (emulator/profiles.py)
    crds: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    processes: dict[str, Proc] = field(default_factory=dict)
    # What runs the connectors' reconcile: "emulator" (tests/env/emulator, with its fault knobs) or "strimzi" (a
    # real operator, tests/env/kind; no knobs, so tests marked `exclusive` cannot run against it).
    operator: str = "emulator"
    # {"implementation": "strimzi"|"emulator", "version": the Strimzi release (strimzi only), "log": ...,
    #  "kubelet_log", "kafka_version" (the release's default Kafka version), "health_url", "hosts"}
    operator_info: dict = field(default_factory=dict)
    # With the real operator, connect_url is a router over every Connect worker; this is the environment's own one.
    plain_connect_url: str = ""
    kind_cluster: str = ""
    # Where the custom resources' pods reach Kafka, when not where the test process does (kind: in-cluster DNS).
    cluster_bootstrap_servers: str = ""
    # kind: the directory shared by the host and the Connect pods (FileStream files must live there).
    shared_dir: str = ""
    # kind: what a test's own KafkaConnect spec needs on this cluster (the image with the FileStream connectors).
    connect_spec: dict = field(default_factory=dict)
    spark_master_url: str | None = None  # set by `up --spark-cluster` (tests/env/spark.py)
    # Set by `up --gitops flux` (tests/env/flux.py): controller, version, git_url, repo_dir, branch, path, namespace.
    gitops: dict = field(default_factory=dict)

    # ---- persistence -------------------------------------------------------------------------------------
    @property
    def env_json(self) -> Path:
        return Path(self.run_dir) / "env.json"

    def to_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k != "processes"}
        data["env_json"] = str(self.env_json)
        data["logs"] = {name: p.log for name, p in self.processes.items()}
        data["logs"]["strimzi-emulator-log"] = self.emulator_log
        data["processes"] = {name: p.to_json() for name, p in self.processes.items()}
        return data

    def save(self) -> Path:
        tmp = self.env_json.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        os.replace(tmp, self.env_json)
        return self.env_json

    @classmethod
    def load(cls, path: str | Path) -> "Env":
        data = json.loads(Path(path).read_text())
        data.pop("env_json", None)
        data.pop("logs", None)
        data["processes"] = {n: Proc.from_json(p) for n, p in data.get("processes", {}).items()}
        return cls(**data)

    @property
    def profile(self) -> profiles.Profile:
        """The Strimzi profile's facts (served versions, MM2 layouts, state rules) for era-aware tests."""
        return profiles.get(self.strimzi)

    def emulator_setting(self, option: str) -> str | None:
        """The running (or configured) emulator's value of a command-line option, e.g. ``--interval``."""
        proc = self.processes.get("strimzi-emulator")
        command = proc.argv if proc is not None and alive(proc) else self.emulator_command
        return command[command.index(option) + 1] if option in command else None

    # ---- credentials ----------------------------------------------------------------------------------------
    @property
    def pki(self) -> pki.Pki:
        return pki.Pki(Path(self.run_dir) / "pki")

    def kubeconfig_for(self, user: str, groups: tuple[str, ...] = ()) -> str:
        """A kubeconfig authenticating as `user` in `groups` (a client certificate made on demand).

        `limited-user` without groups is the token-authenticated unprivileged user; nothing binds any role to
        it, tests grant what they need. The admin kubeconfig is `self.kubeconfig`.
        """
        if user == LIMITED_USER and not groups:
            return self.limited_kubeconfig
        crt, key = pki.issue_client_cert(self.pki, user, tuple(groups))
        path = Path(self.run_dir) / "kubeconfigs" / f"{crt.stem.removeprefix('client-')}.kubeconfig"
        path.parent.mkdir(exist_ok=True)
        return str(write_kubeconfig(path, self.api_server, self.pki.ca_crt, user, cert=crt, key=key))

    def admin_rest(self) -> KubeRest:
        crt, key = pki.issue_client_cert(self.pki, ADMIN_USER, ADMIN_GROUPS)
        return KubeRest(self.api_server, self.pki.ca_crt, cert=crt, key=key)

    # ---- health ----------------------------------------------------------------------------------------------
    def dead_components(self) -> list[str]:
        """Components not running, as env.json records them now: a component another process restarted (the
        operator after a crash fault, tests/env/operator_faults.py) is followed to its new process."""
        recorded = {name: p for name, p in self.current_processes().items() if not name.endswith("(earlier)")}
        self.processes.update(recorded)
        return [name for name, p in self.processes.items() if not alive(p)]

    def check_alive(self) -> None:
        """Fail loudly, with log tails, when a component has died since start-up."""
        dead = self.dead_components()
        if dead:
            raise ComponentError(", ".join(dead), "no longer running",
                                 [self.processes[n].log for n in dead])

    # ---- the emulator and its faults -------------------------------------------------------------------------
    def write_faults(self, faults: dict) -> None:
        emulator_process.write_faults(self.faults_file, faults)

    def clear_faults(self) -> None:
        self.write_faults({})

    def stop_emulator(self) -> None:
        proc = self.processes.pop("strimzi-emulator", None)
        if proc:
            stop(proc, timeout=10)
            self.save()

    def start_emulator(self, interval: float | None = None, cadence: str | None = None) -> Proc:
        """Start the emulator; ``interval``/``cadence`` override the environment's defaults for this run only
        (a global knob: tests that use it are marked ``exclusive``)."""
        if "strimzi-emulator" in self.processes and alive(self.processes["strimzi-emulator"]):
            raise RuntimeError("the emulator is already running; use restart_emulator()")
        if cadence is not None and cadence not in emulator_process.CADENCES:
            raise ValueError(f"cadence must be one of {emulator_process.CADENCES}, not {cadence!r}")
        command = emulator_process.with_option(self.emulator_command, "--interval",
                                               None if interval is None else f"{interval:g}")
        command = emulator_process.with_option(command, "--cadence", cadence)
        self.processes["strimzi-emulator"] = emulator_process.start(Path(self.run_dir), command)
        self.save()
        return self.processes["strimzi-emulator"]

    # ---- the real operator's faults (tests/env/operator_faults.py) ---------------------------------------------
    def pause_operator(self) -> None:
        operator_faults.pause_operator(self)

    def resume_operator(self) -> None:
        operator_faults.resume_operator(self)

    def kill_operator(self) -> None:
        operator_faults.kill_operator(self)

    def restart_operator(self) -> Proc:
        return operator_faults.restart_operator(self)

    def delete_connect_pod(self, namespace: str, cluster: str, kind: str = "KafkaConnect") -> list[str]:
        return operator_faults.delete_connect_pod(self, namespace, cluster, kind)

    def ensure_emulator_running(self) -> None:
        """Run the emulator with its default command line again if a test stopped it, it died, or a test
        restarted it with another interval: the next test expects the standard operator."""
        proc = self.processes.get("strimzi-emulator")
        if proc is not None and alive(proc) and proc.argv == self.emulator_command:
            return
        self.stop_emulator()
        self.start_emulator()

    def restart_emulator(self, interval: float | None = None, cadence: str | None = None) -> Proc:
        self.stop_emulator()
        return self.start_emulator(interval, cadence)

    def start_reaper(self, owner_pid: int | None = None) -> Proc:
        """Have a watchdog stop this environment if `owner_pid` (default: this process) dies without stopping it."""
        return start_reaper(["--env-json", str(self.env_json)], Path(self.run_dir) / "logs" / "reaper.log", owner_pid)

    # ---- shutdown ----------------------------------------------------------------------------------------------
    def stop(self, purge: bool = False) -> None:
        """Stop every component (SIGTERM, SIGKILL after a timeout); drop the data dirs, keep the logs."""
        stop_all(self.current_processes())
        self.processes.clear()
        self.save()
        shutil.rmtree(Path(self.run_dir) / "data", ignore_errors=True)
        if purge:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    def current_processes(self) -> dict[str, Proc]:
        """Our processes as env.json records them now: a pytest worker that restarted the emulator (an exclusive
        test) saved the new one there, and the process that stops the environment (the suite, ``down``) may still
        hold the first. Both are stopped: ``stop`` skips a record whose process is gone (the start time in the
        record guards against a reused pid)."""
        processes = dict(self.processes)
        try:
            recorded = Env.load(self.env_json).processes
        except (OSError, ValueError, KeyError, TypeError):
            return processes  # no readable record: what we hold is all we know
        for name, proc in recorded.items():
            held = processes.get(name)
            if held is not None and held.pid != proc.pid:
                processes[f"{name} (earlier)"] = held
            processes[name] = proc  # the recorded one keeps its place in the stop order (the emulator first)
        return processes

    def public(self) -> dict:
        """What `up --json` prints: endpoints, file paths and versions; never a secret."""
        keys = ("run_dir", "strimzi", "operator", "operator_info", "kubeconfig", "limited_kubeconfig", "api_server", "etcd_url",
                "bootstrap_servers", "connect_url", "faults_file", "emulator_log", "versions", "crds", "timings")
        data = {k: getattr(self, k) for k in keys}
        data["served_versions"] = list(self.profile.served)
        data["emulator"] = {"cadence": self.emulator_setting("--cadence"),
                            "interval_seconds": float(self.emulator_setting("--interval") or 0)}
        if self.spark_master_url:
            data["spark_master_url"] = self.spark_master_url
        if self.gitops:
            data["gitops"] = self.gitops
        data["env_json"] = str(self.env_json)
        data["pids"] = {name: p.pid for name, p in self.processes.items()}
        data["logs"] = {name: p.log for name, p in self.processes.items()}
        return data


def stop_all(processes: dict[str, Proc]) -> None:
    """Stop the operator, then the chains in parallel, each from its top down; unknown names last, together."""
    for name in STOP_FIRST:
        if name in processes:
            stop(processes[name], timeout=30 if name == "kubelet" else 15)  # the kubelet stops its workers first
    known = {*STOP_FIRST, *(n for chain in STOP_CHAINS for n in chain)}
    chains = [[processes[n] for n in chain if n in processes] for chain in STOP_CHAINS]
    chains.append([p for n, p in processes.items() if n not in known])
    threads = [threading.Thread(target=lambda c=c: [stop(p) for p in c]) for c in chains if c]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# ---- start-up ----------------------------------------------------------------------------------------------------

class _Timer:
    def __init__(self):
        self.t0 = time.monotonic()
        self.timings: dict[str, float] = {}

    def mark(self, what: str) -> None:
        self.timings[what] = round(time.monotonic() - self.t0, 1)
        say(f"{what} ready after {self.timings[what]:.1f}s")


def new_run_dir(base: Path = BASE_DIR) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=time.strftime("run-%Y%m%d-%H%M%S-"), dir=base))
    for sub in ("logs", "config", "data"):
        (run_dir / sub).mkdir()
    return run_dir


def _kube_chain(run_dir: Path, a: assets.Assets, timer: _Timer, profile: profiles.Profile,
                release: strimzi_operator.Release | None = None) -> dict:
    keys = pki.create_pki(run_dir / "pki")
    tokens = pki.write_token_file(keys, {ADMIN_USER: ADMIN_GROUPS, LIMITED_USER: (),
                                         strimzi_operator.OPERATOR_USER: strimzi_operator.OPERATOR_GROUPS})
    etcd = kube.start_etcd(run_dir, a.etcd)
    timer.mark("etcd")
    api = kube.start_apiserver(run_dir, a.kube_apiserver, etcd.url, keys)
    crt, key = pki.issue_client_cert(keys, ADMIN_USER, ADMIN_GROUPS)
    admin = KubeRest(api.url, keys.ca_crt, cert=crt, key=key)
    kubeconfig = write_kubeconfig(run_dir / "kubeconfig", api.url, keys.ca_crt, ADMIN_USER, cert=crt, key=key)
    limited = write_kubeconfig(run_dir / "limited-user.kubeconfig", api.url, keys.ca_crt, LIMITED_USER,
                               token=tokens[LIMITED_USER])
    kube.wait_apiserver_ready(api, admin)
    timer.mark("kube-apiserver")
    # The real operator brings its release's own CRDs (all of them: Kafka, KafkaNodePool, StrimziPodSet, ...).
    names = crds.apply_crds(admin, api.proc, release.crd_dir if release else crds.crd_dir(profile.name))
    timer.mark("CRDs")
    say(f"CRDs of Strimzi {release.version if release else 'profile ' + profile.name} serve "
        f"{', '.join(profile.served)}")
    result = {"etcd": etcd, "api": api, "kubeconfig": str(kubeconfig), "limited": str(limited), "crds": names}
    # Written for every environment: a test can start Strimzi's operator beside the emulator (fabric8 needs a token).
    operator_kubeconfig = strimzi_operator.write_operator_kubeconfig(
        run_dir, api.url, keys.ca_crt, tokens[strimzi_operator.OPERATOR_USER])
    if release:
        result["operator"] = strimzi_operator.start(release, run_dir, operator_kubeconfig)
        timer.mark(f"strimzi-operator {release.version}")
    return result


def _kafka_chain(run_dir: Path, a: assets.Assets, timer: _Timer) -> dict:
    broker = kafka.start_broker(run_dir, a.kafka_lib)
    timer.mark("kafka")
    connect = kafka.start_connect(run_dir, a.kafka_lib, broker.bootstrap_servers)
    timer.mark("kafka-connect")
    return {"broker": broker, "connect": connect}


def _run_chains(run_dir: Path, a: assets.Assets, timer: _Timer, profile: profiles.Profile,
                release: strimzi_operator.Release | None = None) -> tuple[dict, dict]:
    """Run both chains; on the first failure (or Ctrl-C) make the other chain give up, then stop everything."""
    mark = spawn_mark()
    abort_startup.clear()
    results, errors = {}, []
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {pool.submit(_kube_chain, run_dir, a, timer, profile, release): "kube",
                       pool.submit(_kafka_chain, run_dir, a, timer): "kafka",
                       pool.submit(assets.versions): "versions"}
            try:
                for future in as_completed(futures):
                    try:
                        results[futures[future]] = future.result()
                    except Exception as e:  # noqa: BLE001 - collected and re-raised below
                        abort_startup.set()
                        errors.append(e)
            except BaseException:  # KeyboardInterrupt while waiting: the pool's exit waits for the chains
                abort_startup.set()
                raise
    except BaseException:
        stop_all({f"{p.name}#{p.pid}": p for p in spawned_since(mark)})
        raise
    finally:
        abort_startup.clear()
    if errors:
        stop_all({f"{p.name}#{p.pid}": p for p in spawned_since(mark)})
        # The root cause, not the other chain's "aborted" echo of it.
        raise next((e for e in errors if not isinstance(e, StartupAborted)), errors[0])
    return results["kube"], results["kafka"]


# How many environments may start at once on this machine (every process, every user of BASE_DIR): a start is
# a minute of JVM and Go start-ups on every core, and a suite's first minute used to start eight of them at once
# (the shared one, the fault matrices' private ones, the demos'), until Kafka's start timed out at 120 s.
STARTS_AT_ONCE = int(os.environ.get("KO_ENV_STARTS_AT_ONCE", "2"))


@contextlib.contextmanager
def start_slot(base: Path = BASE_DIR) -> Iterator[None]:
    """One of STARTS_AT_ONCE slots to start an environment in (a file lock each; waits for a free one)."""
    base.mkdir(parents=True, exist_ok=True)
    while True:
        for index in range(max(1, STARTS_AT_ONCE)):
            with open(base / f".start-slot-{index}", "w") as slot:
                try:
                    fcntl.flock(slot, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                try:
                    yield
                finally:
                    fcntl.flock(slot, fcntl.LOCK_UN)
                return
        time.sleep(0.5)


def start_reaper(guarded: list[str], log: Path, owner_pid: int | None = None) -> Proc:
    """A watchdog (tests/env/reaper.py) over ``guarded`` (``--env-json FILE`` or ``--procs-json FILE``) that stops
    those processes if ``owner_pid`` (default: this process) dies without stopping them."""
    command = [sys.executable, "-m", "tests.env.reaper", "--owner-pid", str(owner_pid or os.getpid()), *guarded]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(assets.REPO_ROOT),
                                                                    os.environ.get("PYTHONPATH")])))
    return spawn("reaper", command, log, cwd=assets.REPO_ROOT, env=env)


def start_environment(run_dir: Path | None = None, with_emulator: bool = True, strimzi: str | None = None,
                      cadence: str | None = None, interval: float | None = None,
                      with_spark_cluster: bool = False, operator: str | None = None,
                      strimzi_version: str | None = None, gitops: str | None = None) -> Env:
    """Start everything for one Strimzi profile (default: emulator/profiles.DEFAULT), with Strimzi's real cluster
    operator (``operator="strimzi"``, release ``strimzi_version``, default the profile's) or the emulator; at most
    STARTS_AT_ONCE starts at a time on the machine."""
    with start_slot():
        return _start_environment(run_dir, with_emulator, strimzi, cadence, interval, with_spark_cluster, operator,
                                  strimzi_version, gitops)


def _start_environment(run_dir: Path | None, with_emulator: bool, strimzi: str | None, cadence: str | None,
                       interval: float | None, with_spark_cluster: bool, operator: str | None,
                       strimzi_version: str | None, gitops: str | None) -> Env:
    operator = operator or DEFAULT_OPERATOR
    if operator not in OPERATORS:
        raise ValueError(f"operator must be one of {OPERATORS}, not {operator!r}")
    release = None
    if operator == "strimzi":
        version = strimzi_version or strimzi_operator.RELEASE_OF_PROFILE.get(strimzi or profiles.DEFAULT)
        release = strimzi_operator.release(version or strimzi_operator.DEFAULT_VERSION)
        if strimzi and strimzi != release.profile:
            raise ValueError(f"Strimzi {release.version} is profile {release.profile}, not {strimzi}")
        strimzi = release.profile
        strimzi_operator.bind_shim()  # fail before starting anything when it is not provisioned
    if gitops is not None and gitops not in GITOPS_CONTROLLERS:
        raise ValueError(f"gitops must be one of {GITOPS_CONTROLLERS}, not {gitops!r}")
    for controller in flux.CONTROLLERS if gitops else ():
        flux.build(controller)  # not provisioned: fail before starting anything
    profile = profiles.get(strimzi)
    if cadence is not None and cadence not in emulator_process.CADENCES:
        raise ValueError(f"cadence must be one of {emulator_process.CADENCES}, not {cadence!r}")
    a = assets.find_assets()
    run_dir = run_dir or new_run_dir()
    say(f"run dir {run_dir} (component logs in {run_dir / 'logs'}); Strimzi profile {profile.name}; operator "
        + (f"Strimzi {release.version}" if release else "emulator"))
    timer = _Timer()
    try:
        kube_part, kafka_part = _run_chains(run_dir, a, timer, profile, release)
    except BaseException:
        shutil.rmtree(run_dir / "data", ignore_errors=True)  # etcd preallocates ~120 MB; logs stay for the error
        raise
    faults = run_dir / "emulator-faults.json"
    emulator_process.write_faults(faults, {})
    emulator_log = run_dir / "logs" / "strimzi-emulator.log"
    env = Env(run_dir=str(run_dir), kubeconfig=kube_part["kubeconfig"], limited_kubeconfig=kube_part["limited"],
              api_server=kube_part["api"].url, etcd_url=kube_part["etcd"].url,
              bootstrap_servers=kafka_part["broker"].bootstrap_servers, connect_url=kafka_part["connect"].url,
              faults_file=str(faults), emulator_log=str(emulator_log),
              emulator_command=emulator_process.argv(
                  kube_part["kubeconfig"], kafka_part["connect"].url, str(faults), str(emulator_log), profile.name,
                  interval=emulator_process.DEFAULT_INTERVAL if interval is None else interval,
                  cadence=cadence or emulator_process.DEFAULT_CADENCE),
              versions=assets.versions(), strimzi=profile.name, crds=kube_part["crds"], timings=timer.timings,
              processes={"etcd": kube_part["etcd"].proc, "kube-apiserver": kube_part["api"].proc,
                         "kafka": kafka_part["broker"].proc, "kafka-connect": kafka_part["connect"].proc},
              operator=operator, plain_connect_url=kafka_part["connect"].url,
              operator_info={"implementation": operator, "log": str(emulator_log)})
    if release:
        _adopt_real_operator(env, release, kube_part["operator"], a, timer)
    env.save()
    if not release:
        _start_emulator(env, with_emulator, timer)
    if with_spark_cluster:
        _start_spark_cluster(env, timer)
    if gitops:
        _start_gitops(env, kube_part["api"].proc, timer)
    timer.mark("total")
    env.timings = timer.timings
    env.save()
    return env


def _adopt_real_operator(env: Env, release: strimzi_operator.Release, operator: strimzi_operator.Operator,
                         a: assets.Assets, timer: _Timer) -> None:
    """Record the running operator, then start the kubelet stand-in; connect_url becomes its router."""
    env.processes["strimzi-operator"] = operator.proc
    env.operator_info = {"implementation": "strimzi", "version": release.version, "log": operator.proc.log,
                         "kafka_version": release.default_kafka_version(), "health_url": operator.health_url,
                         "hosts": operator.hosts, "namespace": "*"}
    env.emulator_command = []
    try:
        kubelet = kubelet_process.start(Path(env.run_dir), env.kubeconfig, a.kafka_lib, Path(operator.hosts),
                                        env.plain_connect_url, env.profile.storage, env.bootstrap_servers)
    except BaseException:
        env.stop()
        raise
    env.processes["kubelet"] = kubelet.proc
    env.connect_url = kubelet.router_url
    env.operator_info["kubelet_log"] = kubelet.log
    timer.mark("kubelet")


def _start_emulator(env: Env, wanted: bool, timer: _Timer) -> None:
    if not wanted:
        say("strimzi-emulator not started (disabled)")
        return
    if not emulator_process.available():
        # An environment asked for the emulator and started without it would pass as up, and only the tests that
        # need it would say so, one by one: a component that cannot start fails the start-up.
        env.stop()
        raise ComponentError("strimzi-emulator", f"{emulator_process.MODULE} is missing (no "
                             f"{emulator_process.MAIN.relative_to(emulator_process.REPO_ROOT)}): the operator "
                             "emulator cannot start; restore it from git, or start the environment with "
                             "--operator strimzi")
    try:
        env.start_emulator()
    except BaseException:
        env.stop()
        raise
    timer.mark("strimzi-emulator")


def _start_gitops(env: Env, apiserver: Proc, timer: _Timer) -> None:
    """Last: Flux applies to the API server and its repository holds Strimzi resources for the operator."""
    try:
        setup = flux.start_gitops(Path(env.run_dir), env.kubeconfig, env.admin_rest(), apiserver)
    except BaseException:
        env.stop()
        raise
    env.processes.update(setup.processes)
    env.gitops = setup.description
    env.save()
    timer.mark(f"flux {env.gitops['version']}")


def _start_spark_cluster(env: Env, timer: _Timer) -> None:
    """After the rest: the cluster is optional and only the compute cluster tests use it."""
    try:
        cluster = spark.start_cluster(Path(env.run_dir))
    except BaseException:
        env.stop()
        raise
    env.processes.update(cluster.processes)
    env.spark_master_url = cluster.master_url
    env.save()
    timer.mark("spark-cluster")
