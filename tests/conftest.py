"""pytest fixtures over the real test environment (tests/env). See tests/env/README.md.

Only tests under tests/integration/ may use `env` (or any fixture built on it); tests/unit/ runs without it.
The environment starts once per session in a fresh run dir, or is reused from KO_ENV_JSON=/path/to/env.json
(a running `python -m tests.env up`, for a fast local loop; it is then left running). A component that does
not start is an error for every test that needs it: never a skip.

KO_STRIMZI=0.45|0.51|1.2 (default 1.2) picks the Strimzi profile the session's environment runs (CRDs served, the
emulator's rules); `env.profile` tells tests what that era supports (tests/env/emulator/profiles.py).
"""
from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from tests.env import Env, start_environment
from tests.env import spark as spark_env
from tests.env.assets import spark_kafka_jars as _spark_kafka_jars
from tests.env.assets import versions
from tests.env.clients import ConnectRest, create_topic, kafka_conf, kube_api_client, producer_conf, unique_name
from tests.env.emulator import profiles

INTEGRATION_DIR = Path(__file__).resolve().parent / "integration"
STRIMZI_PLURALS = ("kafkaconnectors", "kafkamirrormaker2s", "kafkaconnects")


def _reused_env_json() -> str | None:
    return os.environ.get("KO_ENV_JSON") or None


def _interrupt_on_sigterm(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config):
    # A CI timeout sends SIGTERM; unwinding like Ctrl-C runs the fixtures' teardown, which stops the components
    # (a start-up in progress included). SIGKILL is covered by the reaper once the environment is up.
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupt_on_sigterm)
    spark_env.use_light_driver_jvm()  # the Spark drivers the tests start, in-process or through the plugin


def pytest_report_header(config):
    if _reused_env_json() and Path(_reused_env_json()).exists():
        v, origin = Env.load(_reused_env_json()).versions, f"reused from {_reused_env_json()}"
    else:
        v, origin = versions(), "provisioned"
    profile = profiles.selected()
    return ("real components (" + origin + "): " + ", ".join(f"{k} {val}" for k, val in v.items())
            + f"; Strimzi profile {profile.name} (serves {', '.join(profile.served)})")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the long fault-matrix columns spread over the workers first (tests/scheduling.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.scheduling import SpreadLongTestsFirst

    return SpreadLongTestsFirst(config, log)


# Fixtures that flip knobs of the one shared emulator (its faults file, stopping it): a test using them would disturb
# every test running beside it, so it is marked `exclusive` and tests/suite.py runs it alone.
GLOBAL_KNOB_FIXTURES = ("emulator", "faults")


def pytest_collection_modifyitems(config, items):
    """Mark tests that use global emulator knobs `exclusive`, and keep unit tests independent of the environment:
    using `env` outside tests/integration is an error."""
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in GLOBAL_KNOB_FIXTURES):
            item.add_marker(pytest.mark.exclusive)
    offenders = [item.nodeid for item in items
                 if "env" in getattr(item, "fixturenames", ()) and INTEGRATION_DIR not in Path(item.path).parents]
    if offenders:
        raise pytest.UsageError("only tests under tests/integration/ may use the `env` fixture: "
                                + ", ".join(offenders))


# ---- the environment -------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def env():
    reuse = _reused_env_json()
    wanted = os.environ.get(profiles.ENV_VAR)
    if reuse:
        environment = Env.load(reuse)
        if wanted and wanted != environment.strimzi:
            raise pytest.UsageError(f"{profiles.ENV_VAR}={wanted} but the reused environment ({reuse}) runs Strimzi "
                                    f"profile {environment.strimzi}; unset one of them")
        environment.check_alive()  # a dead component in a reused env fails loudly, with its log tail
        yield environment
        return
    environment = start_environment(strimzi=wanted or profiles.DEFAULT)  # the operator: KO_OPERATOR
    environment.start_reaper()  # stops the components even if this pytest process is killed
    try:
        yield environment
    finally:
        environment.stop()
        print(f"\n[tests.env] stopped; logs kept in {environment.run_dir}/logs")


@pytest.fixture(scope="module")
def private_strimzi_env():
    """An environment of the test module's own, running Strimzi's real operator (the session's Strimzi era), for tests
    that pause, kill or restart the operator or delete Connect pods (tests/env/operator_faults.py): done to the
    shared environment, that would disturb every test running beside them. Why not a second operator beside the
    shared one: the shared one watches every namespace, and STRIMZI_CUSTOM_RESOURCE_SELECTOR only selects by label
    equality (Labels.fromString, matchLabels), so it cannot be told to leave some resources alone.
    KO_PRIVATE_ENV_JSON reuses a running one (``up --operator strimzi``, yours alone); it is then left running."""
    reuse = os.environ.get("KO_PRIVATE_ENV_JSON")
    if reuse:
        environment = Env.load(reuse)
        if environment.operator != "strimzi":
            raise pytest.UsageError(f"KO_PRIVATE_ENV_JSON={reuse} runs the {environment.operator}, not Strimzi's "
                                    "real operator")
        environment.check_alive()
        yield environment
        return
    # The session's era (the shared environment's, KO_ENV_JSON): an era run's modules speak that era's API version.
    environment = start_environment(strimzi=profiles.selected_name(), operator="strimzi")
    environment.start_reaper()
    try:
        yield environment
    finally:
        environment.stop()
        print(f"\n[tests.env] private environment stopped; logs kept in {environment.run_dir}/logs")


@pytest.fixture(autouse=True)
def _components_alive(request):
    """Before each integration test, check that no component died during the previous ones, and that a test marked
    `emulator_only` has the emulator (it fails, never skips, against Strimzi's real operator)."""
    if "env" in request.fixturenames:
        environment = request.getfixturevalue("env")
        environment.check_alive()
        marker = request.node.get_closest_marker("emulator_only")
        if marker and environment.operator != "emulator":
            reason = marker.args[0] if marker.args else marker.kwargs.get("reason", "")
            pytest.fail(f"this test needs the operator emulator ({reason}) and {environment.run_dir} runs "
                        f"{environment.operator}: run it with KO_OPERATOR=emulator (python -m tests.suite does)")


# ---- Kubernetes ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def kube_api(env):
    """`kubernetes` ApiClient authenticated as the admin (group system:masters)."""
    client = kube_api_client(env.kubeconfig)
    yield client
    client.close()


@pytest.fixture(scope="session")
def limited_api(env):
    """ApiClient for `limited-user` (token auth, no groups, no bindings: grant it Roles in the test)."""
    client = kube_api_client(env.kubeconfig_for("limited-user"))
    yield client
    client.close()


@pytest.fixture
def kube_client_for(env):
    """Factory: kube_client_for("alice", groups=("team",)) -> ApiClient with a client certificate for that user."""
    made = []

    def make(user: str, groups: tuple[str, ...] = ()):
        made.append(kube_api_client(env.kubeconfig_for(user, tuple(groups))))
        return made[-1]

    yield make
    for client in made:
        client.close()


def _namespace_name(request) -> str:
    base = re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower()).strip("-")[:40].strip("-") or "test"
    return unique_name(base)


@pytest.fixture
def namespace(kube_api, env, request):
    """A fresh namespace per test. Teardown deletes the Strimzi CRs in it (so the emulator removes their
    connectors) and then the namespace, without waiting: with no kube-controller-manager it never finishes."""
    from kubernetes import client

    name = _namespace_name(request)
    core = client.CoreV1Api(kube_api)
    labels = {"kubectl-offsets-test": "true"}
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name, labels=labels)))
    yield name
    custom = client.CustomObjectsApi(kube_api)
    version = env.profile.storage
    for plural in STRIMZI_PLURALS:
        try:
            custom.delete_collection_namespaced_custom_object("kafka.strimzi.io", version, name, plural)
        except client.ApiException as e:
            if e.status != 404:  # 404: that CRD is not installed
                raise
    core.delete_namespace(name)


# ---- Kafka Connect and the operator emulator -----------------------------------------------------------------------

@pytest.fixture(scope="session")
def connect(env):
    """Connect REST helper: connect.get("/connectors") -> (status, json); also put/post/delete/patch."""
    return ConnectRest(env.connect_url)


@pytest.fixture(scope="session")
def judge(env):
    """The readers a test judges the plugin's work by, never the plugin itself (tests/judges.py): Connect's stored
    offsets and state, a sink's consumer group, a topic's records."""
    from tests.judges import Judges

    return Judges(env.connect_url, env.bootstrap_servers)


@pytest.fixture
def connect_faults(env, request):
    """Connect's 4xx/5xx for the operator's calls to this test's connectors (tests/env/connect_faults.py):
    ``connect_faults.write({"connector": NAME, "method": "PATCH", "path_regex": "/offsets$", "status": 400})``; the
    front on every Connect worker answers them, the test's own reads (``judge``) go past it. Cleared afterwards."""
    from tests.env.connect_faults import FaultFile

    if env.operator != "strimzi" or getattr(env, "kind_cluster", ""):
        pytest.fail("Connect faults are answered by the fronts of the Connect pods that the local environment's kubelet "
                    f"stand-in runs for Strimzi's real operator, and {env.run_dir} runs "
                    + ("a kind cluster" if getattr(env, "kind_cluster", "") else f"the {env.operator}"))
    with FaultFile(env.run_dir, re.sub(r"[^A-Za-z0-9_.-]+", "-", request.node.nodeid)[-120:]) as faults:
        yield faults


@pytest.fixture
def emulator(env):
    """The environment, for emulator control in a test: env.write_faults({...}), env.stop_emulator(),
    env.restart_emulator(interval=...). Teardown clears the faults and makes sure the emulator runs again."""
    if env.operator != "emulator":
        pytest.fail(f"this test turns the operator emulator's knobs, and {env.run_dir} runs Strimzi's real operator "
                    f"({env.operator}): run it with KO_OPERATOR=emulator (python -m tests.suite does), or deselect "
                    "such tests with -m 'not exclusive'")
    yield env
    env.clear_faults()
    env.ensure_emulator_running()


# ---- Kafka --------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def kafka_admin(env):
    from confluent_kafka.admin import AdminClient

    return AdminClient(kafka_conf(env.bootstrap_servers))


@pytest.fixture
def kafka_producer(env):
    from confluent_kafka import Producer

    producer = Producer(producer_conf(env.bootstrap_servers))
    yield producer
    producer.flush(10)


@pytest.fixture
def kafka_consumer(env):
    """Factory: kafka_consumer(group_id=None, **conf) -> Consumer reading from the earliest offset; closed after."""
    from confluent_kafka import Consumer

    made = []

    def make(group_id: str | None = None, **conf):
        settings = kafka_conf(env.bootstrap_servers, **{"group.id": group_id or unique_name("test-group"),
                                                        "auto.offset.reset": "earliest", **conf})
        made.append(Consumer(settings))
        return made[-1]

    yield make
    for consumer in made:
        consumer.close()


@pytest.fixture
def topic(kafka_admin, request):
    """A fresh single-partition topic; for more partitions use tests.env.clients.create_topic directly."""
    return create_topic(kafka_admin, _namespace_name(request))


@pytest.fixture(scope="session")
def spark_kafka_jars() -> str:
    """Comma-separated Spark Kafka connector jars for `spark.jars` (provisioned by tests/provision.sh)."""
    return ",".join(str(p) for p in _spark_kafka_jars())
