"""The committed CRD YAML must match its generator, and keep the Strimzi shape the project relies on (§1)."""
import importlib.util
import pathlib

import yaml

# tests/env/crds.py (the env's CRD applier) shadows the crds/ directory as a package, so load the generator by path.
_PATH = pathlib.Path(__file__).resolve().parents[2] / "env" / "crds" / "generate.py"
_SPEC = importlib.util.spec_from_file_location("crd_generate", _PATH)
generate = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(generate)


def load(name):
    return yaml.safe_load((generate.HERE / name).read_text())


def test_committed_yaml_matches_generator():
    for filename, factory in generate.FILES.items():
        assert (generate.HERE / filename).read_text() == generate.render(factory), \
            f"{filename} is stale: run python tests/env/crds/generate.py"


def spec_props(crd, version):
    v = [v for v in crd["spec"]["versions"] if v["name"] == version][0]
    return v["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"], v


def test_connector_versions_pause_and_scale():
    crd = load("kafkaconnector.yaml")
    assert crd["spec"]["names"]["shortNames"] == ["kctr"]
    beta, beta_v = spec_props(crd, "v1beta2")
    v1, v1_v = spec_props(crd, "v1")
    assert beta_v["storage"] and not v1_v["storage"] and beta_v["served"] and v1_v["served"]
    assert "pause" in beta and "pause" not in v1
    assert v1["state"]["enum"] == ["paused", "stopped", "running"]
    assert v1["listOffsets"]["required"] == ["toConfigMap"]
    assert v1["alterOffsets"]["required"] == ["fromConfigMap"]
    assert v1_v["subresources"]["scale"]["specReplicasPath"] == ".spec.tasksMax"
    assert v1_v["schema"]["openAPIV3Schema"]["required"] == ["spec"]


def test_mm2_layouts():
    crd = load("kafkamirrormaker2.yaml")
    assert crd["spec"]["names"]["shortNames"] == ["kmm2"]
    beta, _ = spec_props(crd, "v1beta2")
    v1, _ = spec_props(crd, "v1")
    beta_mirror = beta["mirrors"]["items"]["properties"]
    v1_mirror = v1["mirrors"]["items"]["properties"]
    assert {"sourceCluster", "targetCluster", "heartbeatConnector"} <= set(beta_mirror)
    assert "heartbeatConnector" not in v1_mirror and "sourceCluster" not in v1_mirror
    assert "connectCluster" in beta and "clusters" in beta and "connectCluster" not in v1
    assert set(v1["target"]["required"]) == {"alias", "bootstrapServers", "groupId", "configStorageTopic",
                                             "statusStorageTopic", "offsetStorageTopic"}
    assert "pause" not in v1_mirror["sourceConnector"]["properties"]
    assert "pause" in beta_mirror["sourceConnector"]["properties"]
