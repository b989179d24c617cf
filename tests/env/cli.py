"""`python -m tests.env ...`: start, inspect and stop a detached environment from a shell.

up       start everything, print one JSON object (--json) on stdout, leave it running
down     stop what `up` started (the current one, or --run-dir / --env-json)
status   which components are alive
emulator start|stop|restart the Strimzi operator emulator
faults   replace the emulator's faults file with the JSON given (or {} to clear)
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from . import emulator_process
from .assets import AssetError
from .emulator import profiles
from .environment import DEFAULT_OPERATOR, GITOPS_CONTROLLERS, OPERATORS, POINTER, Env, say, start_environment
from .processes import ComponentError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.env", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start every component and leave it running")
    up.add_argument("--json", action="store_true", help="print the environment as one JSON object on stdout")
    up.add_argument("--operator", choices=OPERATORS, default=DEFAULT_OPERATOR,
                    help="what reconciles the Strimzi resources: Strimzi's real cluster operator, built from source "
                         "(tests/provision.sh strimzi-operator), whose Connect pods run as local Connect workers; or "
                         f"the emulator (tests/env/emulator), with its fault knobs (default {DEFAULT_OPERATOR}; "
                         "env KO_OPERATOR)")
    up.add_argument("--strimzi-version", default=None,
                    help="the real operator's release, e.g. 1.2.0, 0.51.0, 0.45.2 (default: --strimzi's release); "
                         "it decides the profile")
    up.add_argument("--no-emulator", action="store_true", help="do not start the Strimzi operator emulator")
    up.add_argument("--run-dir", help="use this (new or empty) directory as the run dir instead of a fresh one under "
                                      "the shared base")
    up.add_argument("--strimzi", choices=sorted(profiles.PROFILES, key=_version_key), default=None,
                    help=f"Strimzi profile: CRDs and operator rules of that era (default {profiles.DEFAULT})")
    up.add_argument("--cadence", choices=emulator_process.CADENCES, default=None,
                    help="operator reconcile semantics (default realistic; fast = the old re-queueing work queue)")
    up.add_argument("--interval", type=float, default=None,
                    help=f"periodic reconcile interval in seconds (default {emulator_process.DEFAULT_INTERVAL:g})")
    up.add_argument("--kind", action="store_true",
                    help="a kind cluster with the real Strimzi release of --strimzi instead (needs Docker, kind, "
                    "kubectl; tests/env/kind)")
    up.add_argument("--gitops", choices=GITOPS_CONTROLLERS, default=None,
                    help="also run a GitOps controller: flux = Flux's source-controller and kustomize-controller "
                         "(tests/provision.sh flux), a git server over HTTP and a Kustomization that applies the "
                         "repository's ./deploy to namespace gitops; `gitops` in the JSON says where to commit")
    up.add_argument("--spark-cluster", action="store_true",
                    help="also start a standalone Spark cluster (a master and two workers on 127.0.0.1); its URL is "
                         "spark_master_url in the JSON")
    sub.add_parser("cds", help="build the Kafka JVMs' class-data sharing archives that are missing (tests/env/cds.py; "
                               "tests/provision.sh runs it)")
    for name in ("down", "status", "emulator", "faults"):
        s = sub.add_parser(name)
        s.add_argument("--run-dir", help="the environment's run dir (default: the one `up` started last)")
        s.add_argument("--env-json", help="path to an env.json (alternative to --run-dir)")
        if name == "down":
            s.add_argument("--purge", action="store_true", help="also delete the run dir (logs included)")
        if name == "status":
            s.add_argument("--json", action="store_true")
        if name == "emulator":
            s.add_argument("action", choices=("start", "stop", "restart"))
            s.add_argument("--interval", type=float, help="reconcile interval in seconds")
            s.add_argument("--cadence", choices=emulator_process.CADENCES, help="reconcile semantics")
        if name == "faults":
            s.add_argument("json_text", help="the faults JSON, e.g. '{}' to clear")
    return p


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.split("."))


def _env_json_path(args) -> Path:
    if getattr(args, "env_json", None):
        return Path(args.env_json)
    if getattr(args, "run_dir", None):
        return Path(args.run_dir) / "env.json"
    if os.environ.get("KO_ENV_JSON"):
        return Path(os.environ["KO_ENV_JSON"])
    if POINTER.exists():
        return POINTER.resolve()
    raise SystemExit(f"no environment found: {POINTER} does not exist; give --run-dir")


def cmd_up(args) -> int:
    if args.kind and args.gitops:
        raise SystemExit("tests.env up: --gitops runs Flux's controllers beside the local API server; it does not "
                         "combine with --kind")
    if args.kind:
        return cmd_up_kind(args)
    run_dir = None
    if args.run_dir:
        run_dir = Path(args.run_dir).resolve()
        if run_dir.exists() and any(run_dir.iterdir()):
            raise SystemExit(f"--run-dir {run_dir} is not empty; give a new directory (or `down --purge` it first)")
        for sub in ("logs", "config", "data"):
            (run_dir / sub).mkdir(parents=True, exist_ok=True)
    try:
        env = start_environment(run_dir=run_dir, with_emulator=not args.no_emulator, strimzi=args.strimzi,
                                cadence=args.cadence, interval=args.interval, with_spark_cluster=args.spark_cluster,
                                operator=args.operator, strimzi_version=args.strimzi_version,
                                gitops=args.gitops)
    except ValueError as e:
        raise SystemExit(f"tests.env up: {e}") from None
    POINTER.parent.mkdir(parents=True, exist_ok=True)
    tmp = POINTER.with_name(f".current.{os.getpid()}")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(env.env_json)
    os.replace(tmp, POINTER)  # the well-known pointer follows env.json, including later emulator restarts
    say(f"up in {env.timings['total']}s; versions: "
        + ", ".join(f"{k} {v}" for k, v in env.versions.items()))
    say(f"stop with: python -m tests.env down --run-dir {env.run_dir}")
    if args.json:
        print(json.dumps(env.public(), indent=2))
    else:
        print(f"export KUBECONFIG={env.kubeconfig} KO_ENV_JSON={env.env_json}")
    return 0


def cmd_up_kind(args) -> int:
    from .environment import new_run_dir
    from .kind import up as kind

    kind.check_tools()  # one line and exit 1 without Docker, before a run dir is made
    document = kind.up(args.strimzi or profiles.DEFAULT, new_run_dir())
    say(f"kind cluster {document['kind_cluster']} with Strimzi {document['versions']['strimzi']} is up; "
        f"stop with: python -m tests.env down --run-dir {document['run_dir']}")
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        print(f"export KUBECONFIG={document['kubeconfig']} KO_ENV_JSON={document['run_dir']}/env.json")
    return 0


def cmd_down(args) -> int:
    path = _env_json_path(args)
    document = json.loads(path.read_text())
    if document.get("kind_cluster"):
        from .kind import up as kind

        kind.down(document)
        say(f"deleted kind cluster {document['kind_cluster']}")
        return 0
    env = Env.load(path)
    say(f"stopping {', '.join(env.processes) or 'nothing'} in {env.run_dir}")
    env.stop(purge=args.purge)
    if POINTER.is_symlink() and Path(os.readlink(POINTER)) == path.resolve():
        POINTER.unlink()
    say("stopped")
    return 0


def cmd_status(args) -> int:
    env = Env.load(_env_json_path(args))
    dead = set(env.dead_components())
    state = {name: ("dead" if name in dead else "running") for name in env.processes}
    if args.json:
        print(json.dumps({"run_dir": env.run_dir, "components": state, **env.public()}, indent=2))
    else:
        print(f"run dir {env.run_dir}")
        for name, s in state.items():
            print(f"  {name:18} {s:8} pid {env.processes[name].pid}  log {env.processes[name].log}")
    return 1 if dead or not state else 0


def cmd_emulator(args) -> int:
    env = Env.load(_env_json_path(args))
    if args.action == "stop":
        env.stop_emulator()
    elif args.action == "start":
        env.start_emulator(args.interval, args.cadence)
    else:
        env.restart_emulator(args.interval, args.cadence)
    say(f"emulator {args.action}: done")
    return 0


def cmd_faults(args) -> int:
    env = Env.load(_env_json_path(args))
    env.write_faults(json.loads(args.json_text))
    say(f"wrote {env.faults_file}")
    return 0


def _terminate(signum, _frame):
    # SIGTERM (a CI timeout, `kill`) unwinds like Ctrl-C, so a half-started environment is stopped, not leaked.
    raise KeyboardInterrupt(f"signal {signum}")


def cmd_cds(_args) -> int:
    from . import cds

    return cds.main()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    handler = {"up": cmd_up, "down": cmd_down, "status": cmd_status, "emulator": cmd_emulator,
               "faults": cmd_faults, "cds": cmd_cds}[args.command]
    try:
        return handler(args)
    except (ComponentError, AssetError) as e:
        print(f"tests.env {args.command} FAILED: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        print(f"tests.env {args.command} interrupted ({e or 'Ctrl-C'}); stopped what it had started",
              file=sys.stderr)
        return 130
