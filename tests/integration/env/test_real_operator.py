"""Strimzi's real cluster operator in the test environment (tests/env/strimzi_operator.py, tests/env/kubelet.py)."""
from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.env import strimzi_operator
from tests.env.processes import alive, stop


def _hold_port_8080() -> socket.socket | None:
    """Listen on 0.0.0.0:8080 ourselves, as anything else on the machine might; None when something already does."""
    s = socket.socket()
    try:
        s.bind(("0.0.0.0", 8080))
    except OSError:
        s.close()
        return None
    s.listen()
    return s


def test_two_operators_run_on_one_machine_with_port_8080_taken(env, namespace, tmp_path):
    """Strimzi's health server binds the hard-coded port 8080, and a failed bind exits the operator
    (Main.startHealthServer -> System.exit(1)); the bind shim gives each its own port."""
    release = strimzi_operator.release(strimzi_operator.RELEASE_OF_PROFILE[env.strimzi])
    kubeconfig = Path(env.run_dir) / "strimzi-operator.kubeconfig"
    holder = _hold_port_8080()
    started = []
    try:
        for name in ("first", "second"):
            run_dir = tmp_path / name
            (run_dir / "logs").mkdir(parents=True)
            (run_dir / "data").mkdir()
            started.append(strimzi_operator.start(release, run_dir, kubeconfig, name=f"operator-{name}",
                                                  namespace=namespace))
        time.sleep(3)
        assert all(alive(o.proc) for o in started), [o.proc.log for o in started]
        assert started[0].health_url != started[1].health_url
        assert all(":8080" not in o.health_url for o in started)
    finally:
        for operator in started:
            stop(operator.proc)
        if holder:
            holder.close()
