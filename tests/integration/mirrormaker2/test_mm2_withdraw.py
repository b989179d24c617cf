"""A MirrorMaker 2 request can be withdrawn, and only our own: its connector name contains '->', which the API server
stores as '\\u003e', so JSON Patch value tests never match it (a bug that once made every MM2 withdrawal a no-op).

The request stays pending without any knob: an alter request without the alterOffsets stanza is one Strimzi's
operator answers with a Warning ("missing property alterOffsets") and leaves in place
(AbstractConnectOperator#alterConnectorOffsets), on the real operator as on the emulator; 0.45.2 leaves it in place
without a Warning."""

from kubectl_offsets import strimzi
from kubectl_offsets.core.online import operations
from kubectl_offsets.core.online.operator import OperatorClient
from kubectl_offsets.core.online.targets import TargetSpec, resolve
from kubectl_offsets.model import ClusterConfig, WaitSettings
from kubectl_offsets.progress import SilentProgress
from tests.env.emulator import profiles
from tests.waits import eventually, unchanged_for


def test_withdraw_removes_our_pending_mm2_request_only(mirror, env):
    kube = operations.connect(ClusterConfig(kubeconfig=env.kubeconfig, namespace=mirror.ns))
    live = resolve(kube, TargetSpec(mirror.target_arg, connector=mirror.connector()))
    client = OperatorClient(kube, live.target, WaitSettings(timeout=30), SilentProgress())

    client.place_request("alter", lambda resource: [])  # no alterOffsets: the operator leaves it pending

    assert client.target.pending_annotations(client.read()) == live.target.trigger_annotations("alter")
    if profiles.selected_name() == "0.45":
        # Strimzi 0.45.2 leaves it pending without a word (Ready, no Warning; seen 2026-11-27): wait until its
        # passes over the request have ended, the resource no longer written.
        unchanged_for("the resource after the operator's passes", lambda: client.read()["metadata"]["resourceVersion"],
                      quiet=10, timeout=120)
    else:
        eventually("the operator's answer to the request", lambda: any(
            c.get("reason") == "AlterOffsets" and "missing property alterOffsets" in str(c.get("message"))
            for c in (client.read().get("status") or {}).get("conditions") or []), timeout=120)
    assert client.target.pending_annotations(client.read()), "the operator took the request away"
    assert client.withdraw_request("reset") is False  # not the request we placed: left alone
    assert client.target.pending_annotations(client.read())
    assert client.withdraw_request("alter") is True
    annotations = client.read()["metadata"].get("annotations") or {}
    assert strimzi.ANNOTATION_CONNECTOR_OFFSETS not in annotations
    assert strimzi.ANNOTATION_MIRRORMAKER_CONNECTOR not in annotations
