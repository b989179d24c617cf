"""Strimzi version profiles: what differs between the operator releases the test environment can pretend to be.

One profile per era (read in strimzi-kafka-operator's source and CHANGELOG.md at the tags named in ``release``).
The CRDs (tests/env/crds/<profile>/), the emulator's rules and the era-aware test fixtures all read these facts from
here, so a profile is one line of truth.

| profile | served (storage first)  | operator reads | pause honoured | FAILED stop | initial_state | REST messages            |
|---------|-------------------------|----------------|----------------|-------------|---------------|--------------------------|
| 0.45    | v1beta2                 | v1beta2        | yes            | no          | no            | Vert.x ("(Bad Request)") |
| 0.51    | v1beta2 (storage), v1   | v1beta2        | yes            | no          | no            | java.net.http, unwrapped |
| 1.2     | v1                      | v1             | no             | yes         | yes           | java.net.http, wrapped   |
"""
from __future__ import annotations

import os
from dataclasses import dataclass

# The legacy MirrorMaker 2 layout (spec.clusters/connectCluster, mirrors[].sourceCluster/targetCluster,
# heartbeatConnector) is a v1beta2 schema; the new one (spec.target, mirrors[].source) is the v1 schema's.
LAYOUT_LEGACY, LAYOUT_V1 = "v1beta2", "v1"


@dataclass(frozen=True)
class Profile:
    name: str                 # what `--strimzi` takes
    release: str              # the release whose source the rules were read from
    served: tuple             # API versions the CRDs serve, storage version first
    honours_pause: bool       # AbstractConnectOperator#updateState reads spec.pause when state is absent (<= 0.51)
    failed_can_stop: bool     # #updateState: FAILED -> stop allowed, pause fails the reconcile (>= 1.1, #12750)
    creates_with_initial_state: bool  # KafkaConnectApiImpl#createConnector: POST with initial_state (>= 1.2, #12974)
    vertx_http_client: bool   # KafkaConnectApi.ConnectRestException built from a Vert.x response (<= 0.45)
    wraps_completion: bool    # Future.fromCompletionStage keeps the CompletionException (>= 1.0, #12579)
    mm2_layouts: tuple        # MirrorMaker 2 layouts the CRD schema (and the operator) accept
    list_configmap_1x: bool   # AbstractConnectOperator#generateListOffsetsConfigMap rewritten in 1.0 (#12463, #12451)
    block_owner_deletion: bool  # ModelUtils#createOwnerReference: true from 0.49

    @property
    def storage(self) -> str:
        return self.served[0]

    @property
    def read_version(self) -> str:
        """The version the operator reads and writes its custom resources through (the storage version: 0.49-0.51
        still read v1beta2 although v1 is served)."""
        return self.storage

    @property
    def preferred_version(self) -> str:
        """The version kubectl (and a user's manifests) would pick: v1 whenever it is served."""
        return "v1" if "v1" in self.served else self.served[0]

    @property
    def superset_version(self) -> str:
        """The version whose schema shows every stored field (v1beta2 while it is served)."""
        return "v1beta2" if "v1beta2" in self.served else "v1"

    def connect_rest_status_text(self, status: int) -> str:
        """The ``(<statusMessage>)`` part: Vert.x gives the reason phrase, java.net.http only the number."""
        if self.vertx_http_client:
            import http

            try:
                return http.HTTPStatus(status).phrase
            except ValueError:
                return str(status)
        return str(status)


PROFILES = {
    "0.45": Profile(name="0.45", release="0.45.2", served=("v1beta2",), honours_pause=True, failed_can_stop=False,
                    creates_with_initial_state=False, vertx_http_client=True, wraps_completion=False,
                    mm2_layouts=(LAYOUT_LEGACY,), list_configmap_1x=False, block_owner_deletion=False),
    "0.51": Profile(name="0.51", release="0.51.0", served=("v1beta2", "v1"), honours_pause=True,
                    failed_can_stop=False, creates_with_initial_state=False, vertx_http_client=False,
                    wraps_completion=False, mm2_layouts=(LAYOUT_LEGACY, LAYOUT_V1), list_configmap_1x=False,
                    block_owner_deletion=True),
    "1.2": Profile(name="1.2", release="1.2.0", served=("v1",), honours_pause=False, failed_can_stop=True,
                   creates_with_initial_state=True, vertx_http_client=False, wraps_completion=True,
                   mm2_layouts=(LAYOUT_V1,), list_configmap_1x=True, block_owner_deletion=True),
}
DEFAULT = "1.2"
ENV_VAR = "KO_STRIMZI"  # pytest: which profile the session's environment runs


def get(name: str | None) -> Profile:
    name = name or DEFAULT
    if name not in PROFILES:
        raise ValueError(f"unknown Strimzi profile {name!r}; choose one of {', '.join(PROFILES)}")
    return PROFILES[name]


def selected_name() -> str:
    """The profile a test session runs: the reused environment's (KO_ENV_JSON), else KO_STRIMZI, else the default.

    Read at collection time too (fixtures parametrized by what the profile supports), so it never starts anything.
    """
    reused = os.environ.get("KO_ENV_JSON")
    if reused and os.path.exists(reused):
        import json

        with open(reused, encoding="utf-8") as fh:
            return json.load(fh).get("strimzi") or DEFAULT
    return os.environ.get(ENV_VAR) or DEFAULT


def selected() -> Profile:
    return get(selected_name())
