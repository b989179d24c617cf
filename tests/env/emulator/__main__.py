"""``python -m tests.env.emulator --kubeconfig K --connect-url URL --faults FILE --interval SECONDS --log FILE
--strimzi PROFILE --cadence realistic|fast [--lock-timeout S] [--mm2-readiness S]``

The command line is the contract with the environment that starts this process (tests/env); stopping the process
is how "operator not running" is emulated.
"""
import argparse
import logging
import signal
import sys
import threading

from . import profiles
from .operator import CADENCES, make_operator


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.env.emulator",
                                     description="Strimzi cluster-operator emulator (connectors and offsets only)")
    parser.add_argument("--kubeconfig", required=True, help="admin kubeconfig of the test kube-apiserver")
    parser.add_argument("--connect-url", required=True, help="REST URL of the shared Kafka Connect worker")
    parser.add_argument("--faults", default=None, help="fault-knob JSON file, re-read on every reconcile")
    parser.add_argument("--interval", type=float, default=120.0,
                        help="seconds between full reconciliations (Strimzi default 120)")
    parser.add_argument("--log", default=None, help="decision log file (default: stderr)")
    parser.add_argument("--strimzi", default=profiles.DEFAULT, choices=sorted(profiles.PROFILES),
                        help=f"Strimzi profile whose rules to follow (default {profiles.DEFAULT})")
    parser.add_argument("--cadence", default="realistic", choices=CADENCES,
                        help="realistic: per-event reconciles under locks that drop events (default); "
                             "fast: the old coalescing, re-queueing work queue")
    parser.add_argument("--lock-timeout", type=float, default=10.0,
                        help="seconds to wait for a resource lock before dropping the event (Strimzi: 10)")
    parser.add_argument("--mm2-readiness", type=float, default=2.0,
                        help="simulated MirrorMaker 2 pod-readiness wait before its connectors, realistic cadence")
    return parser.parse_args(argv)


def setup_logging(path):
    handler = logging.FileHandler(path) if path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("emulator")
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    logger.propagate = False
    # The kubernetes/urllib3 loggers can echo request details; keep them quiet so no token reaches a log.
    for noisy in ("kubernetes", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv=None):
    args = parse_args(argv)
    setup_logging(args.log)
    operator = make_operator(args.cadence, args.kubeconfig, args.connect_url, args.faults, args.interval,
                             profiles.get(args.strimzi), lock_timeout=args.lock_timeout,
                             mm2_readiness_seconds=args.mm2_readiness)
    done = threading.Event()

    def _stop(signum, _frame):
        logging.getLogger("emulator").info("signal %s: stopping", signum)
        operator.stop()
        done.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    operator.start()
    while not done.wait(1.0):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
