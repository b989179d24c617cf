"""Real test environment for kubectl-offsets: etcd + kube-apiserver (RBAC), Kafka (KRaft) + Connect, and the
Strimzi operator emulator, each a real process on a free 127.0.0.1 port. See tests/env/README.md.

    from tests.env import start_environment
    env = start_environment()      # blocks until every component is ready; raises ComponentError otherwise
    ...
    env.stop()
"""
from .assets import AssetError, versions
from .environment import LIMITED_USER, Env, start_environment
from .processes import ComponentError

__all__ = ["AssetError", "ComponentError", "Env", "LIMITED_USER", "start_environment", "versions"]
