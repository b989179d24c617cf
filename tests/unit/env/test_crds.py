"""The committed CRD YAML must match its generator, and keep the Strimzi shape the project relies on (§1)."""
import importlib.util
import pathlib

import yaml

from tests.env.emulator import profiles

# tests/env/crds.py (the env's CRD applier) shadows the crds/ directory as a package, so load the generator by path.
_PATH = pathlib.Path(__file__).resolve().parents[2] / "env" / "crds" / "generate.py"
_SPEC = importlib.util.spec_from_file_location("crd_generate", _PATH)
generate = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(generate)


def load(name, profile="0.51"):
    return yaml.safe_load((generate.HERE / profile / name).read_text())


def test_committed_yaml_matches_generator():
    for profile in generate.ERAS:
        for filename, factory in generate.FILES.items():
            assert (generate.HERE / profile / filename).read_text() == generate.render(factory, profile), \
                f"{profile}/{filename} is stale: run python tests/env/crds/generate.py"


def served(crd):
    return [v["name"] for v in sorted(crd["spec"]["versions"], key=lambda v: not v["storage"]) if v["served"]]


def test_every_profile_has_crds_serving_its_versions():
    """The CRD directories and the emulator's profiles are one truth: same eras, same served versions."""
    assert set(generate.ERAS) == set(profiles.PROFILES)
    for name, profile in profiles.PROFILES.items():
        for filename in generate.FILES:
            assert tuple(served(load(filename, name))) == profile.served, f"{name}/{filename}"


def test_045_is_legacy_only_and_12_is_v1_only():
    beta, _ = spec_props(load("kafkamirrormaker2.yaml", "0.45"), "v1beta2")
    assert "target" not in beta and "clusters" in beta
    assert "source" not in beta["mirrors"]["items"]["properties"]
    assert "version" not in spec_props(load("kafkaconnector.yaml", "0.45"), "v1beta2")[0]  # added in 0.49
    assert "pause" in spec_props(load("kafkaconnector.yaml", "0.45"), "v1beta2")[0]
    v1, v1_v = spec_props(load("kafkamirrormaker2.yaml", "1.2"), "v1")
    assert v1_v["storage"] and "clusters" not in v1 and "heartbeatConnector" not in v1["mirrors"]["items"]["properties"]
    assert "pause" not in spec_props(load("kafkaconnector.yaml", "1.2"), "v1")[0]


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
