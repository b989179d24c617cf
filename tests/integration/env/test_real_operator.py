"""Strimzi's real cluster operator in the test environment (tests/env/strimzi_operator.py, tests/env/kubelet.py)."""
from __future__ import annotations

import socket
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


def _serve_the_releases_other_crds(env, release, tmp_path) -> None:
    """The operator watches every kind of its release (Kafka, StrimziPodSet, KafkaNodePool, ...) and exits when a
    watch finds no such resource. An emulator environment serves only the four kinds of its profile: add the
    missing ones, never replacing one it serves (other tests run against those)."""
    import shutil

    from tests.env import crds

    served = set(env.crds)
    missing = [f for f in sorted(release.crd_dir.glob("*.yaml")) if yaml_name(f) not in served]
    if not missing:
        return
    extra = tmp_path / "extra-crds"
    extra.mkdir()
    for f in missing:
        shutil.copy(f, extra / f.name)
    crds.apply_crds(env.admin_rest(), env.processes["kube-apiserver"], extra)


def yaml_name(path: Path) -> str:
    import yaml

    return next(d for d in yaml.safe_load_all(path.read_text()) if d)["metadata"]["name"]


def test_two_operators_run_on_one_machine_with_port_8080_taken(env, namespace, tmp_path):
    """Strimzi's health server binds the hard-coded port 8080, and a failed bind exits the operator
    (Main.startHealthServer -> System.exit(1)); the bind shim gives each its own port."""
    release = strimzi_operator.release(strimzi_operator.RELEASE_OF_PROFILE[env.strimzi])
    _serve_the_releases_other_crds(env, release, tmp_path)
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
        # start() returned once each answered GET /ready on its health port, which the start-up chain binds before
        # anything else: both bound, neither exited, both still answer now.
        assert all(alive(o.proc) and strimzi_operator._status(f"{o.health_url}/ready") == 204 for o in started), \
            [o.proc.log for o in started]
        assert started[0].health_url != started[1].health_url
        assert all(":8080" not in o.health_url for o in started)
    finally:
        for operator in started:
            stop(operator.proc)
        if holder:
            holder.close()
