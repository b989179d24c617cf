"""``python -m tests.env.emulator --kubeconfig K --connect-url URL --faults FILE --interval SECONDS --log FILE``

The command line is the contract with the environment that starts this process (tests/env); stopping the process
is how "operator not running" is emulated.
"""
import argparse
import logging
import signal
import sys
import threading

from .operator import Operator


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.env.emulator",
                                     description="Strimzi cluster-operator emulator (connectors and offsets only)")
    parser.add_argument("--kubeconfig", required=True, help="admin kubeconfig of the test kube-apiserver")
    parser.add_argument("--connect-url", required=True, help="REST URL of the shared Kafka Connect worker")
    parser.add_argument("--faults", default=None, help="fault-knob JSON file, re-read on every reconcile")
    parser.add_argument("--interval", type=float, default=120.0,
                        help="seconds between full reconciliations (Strimzi default 120)")
    parser.add_argument("--log", default=None, help="decision log file (default: stderr)")
    parser.add_argument("--workers", type=int, default=4, help=argparse.SUPPRESS)
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
    operator = Operator(args.kubeconfig, args.connect_url, args.faults, args.interval, args.workers)
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
