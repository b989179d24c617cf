"""Smaller GitOps parts: the finder's choices, the trigger Job manifests, names, texts, remote parsing, and the
manifest schemas staying in step with the CRDs."""

from __future__ import annotations

import pytest

from kubectl_offsets import strimzi
from kubectl_offsets.adapters import forge
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.errors import InputError
from kubectl_offsets.core.gitops import locate as manifests
from kubectl_offsets.core.gitops import publish as gitops_publish
from kubectl_offsets.core.gitops import trigger_job as gitops_job
from kubectl_offsets.core.gitops.plan import Plan

from . import crd_schemas
from .helpers import FIXTURES, cli, copy_fixture, snapshot


def test_manifest_schemas_match_the_crds():
    for name in crd_schemas.CRDS:
        assert (crd_schemas.ROOT / "schemas" / f"{name}.schema.json").read_text() == crd_schemas.render(name), \
            "regenerate with: python -m tests.unit.core.gitops.crd_schemas"


def test_finder_classifies_kustomize_patches_helm_and_argo():
    repo = manifests.scan(FIXTURES / "kustomize")
    prod = manifests.locate(repo, strimzi.KIND_CONNECTOR, "orders-sink", "prod")
    assert prod.definition.rel == "base/connector.yaml" and prod.in_overlay and prod.namespace == "prod"
    assert [p.rel for p in prod.patches] == ["overlays/prod/connector-patch.yaml"]
    assert prod.effective()["spec"]["state"] == "running"
    assert manifests.json6902_ops(repo, prod) == [("overlays/prod/kustomization.yaml (inline patch)", [
        {"op": "add", "path": "/metadata/labels/env", "value": "prod"}])]
    dev = manifests.locate(repo, strimzi.KIND_CONNECTOR, "dev-orders-sink", None)
    assert dev.cluster_name == "dev-orders-sink" and dev.name_in_root_inputs() == "orders-sink"
    helm = manifests.scan(FIXTURES / "helm")
    assert all("Helm chart" in why for why in helm.templated.values()) and not helm.files
    argo = manifests.locate(manifests.scan(FIXTURES / "argocd"), strimzi.KIND_CONNECTOR, "orders-sink", None)
    assert argo.definition.rel == "deploy/orders/sink.yaml" and not argo.in_overlay


def test_schema_violation_in_the_manifest_is_refused_before_writing(tmp_path):
    repo = copy_fixture("argocd", tmp_path)
    sink = repo / "deploy/orders/sink.yaml"
    sink.write_text(sink.read_text().replace("tasksMax: 1", "tasksMax: 0"))
    before = snapshot(repo)
    result = cli("gitops", "reset", "orders-sink", "--repo", str(repo))
    assert result.exit_code == 2 and "tasksMax" in result.stderr and "minimum" in result.stderr
    assert snapshot(repo) == before


def _mm2_target() -> strimzi.ConnectorTarget:
    return strimzi.ConnectorTarget(strimzi.KIND_MM2, "kafka", "mirror", "east->west.MirrorSourceConnector",
                                   ("spec", "mirrors", 0, "sourceConnector"), "MirrorSourceConnector", "east", "west")


@pytest.mark.parametrize("argocd", [False, True])
def test_trigger_job_manifests(argocd):
    docs = gitops_job.manifests(_mm2_target(), "0123456789abcdef", "kafka", "alter", "registry/kubectl:1.32",
                                argocd=argocd)
    assert [d["kind"] for d in docs] == ["ServiceAccount", "Role", "RoleBinding", "Job"]
    names = {d["metadata"]["name"] for d in docs}
    assert names == {"mirror-offsets-trigger-01234567"}
    rule, = docs[1]["rules"]
    assert rule == {"apiGroups": ["kafka.strimzi.io"], "resources": ["kafkamirrormaker2s"],
                    "resourceNames": ["mirror"], "verbs": ["get", "watch", "patch"]}
    job = docs[3]
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert container["image"] == "registry/kubectl:1.32"
    assert env["ANNOTATIONS"] == ("strimzi.io/connector-offsets=alter "
                                  "strimzi.io/mirrormaker-connector=east->west.MirrorSourceConnector")
    assert env["STATE_JSONPATH"] == '{.status.connectors[?(@.name=="east->west.MirrorSourceConnector")].connector.state}'
    script = container["command"][2]
    assert "--resource-version" in script and "already triggered" in script
    assert job["spec"]["ttlSecondsAfterFinished"] > 0 and job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    hook = (job["metadata"].get("annotations") or {}).get("argocd.argoproj.io/hook")
    assert hook == ("PostSync" if argocd else None)


def test_branch_name_and_commit_message_say_what_and_why():
    plan = Plan(1, "alter", _mm2_target(), "0123456789abcdef", ConnectorKind.MIRROR_SOURCE,
                       configmap="mirror-offsets-01234567")
    assert gitops_publish.branch_name(plan) == "kubectl-offsets/mirror-east-source-alter-01234567-phase1"
    message = gitops_publish.commit_message(plan, "skip a poison record", "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    title, _, body = message.partition("\n\n")
    assert title == "offsets: stop east->west.MirrorSourceConnector and alter its offsets (phase 1 of 2)"
    assert "Why: skip a poison record." in body and "NOT committed" in body
    assert body.rstrip().endswith("Offsets-Operation: 0123456789abcdef\nOffsets-Phase: 1\n"
                                  "Offsets-Tree: 4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    # which connector the commit changes: a re-run tells this connector's earlier commit from another one's
    assert "\nOffsets-Target: KafkaMirrorMaker2/" in body and "/east->west.MirrorSourceConnector\n" in body


@pytest.mark.parametrize("url,expected", [
    ("git@github.com:team/deploy.git", ("github", "github.com", "team/deploy")),
    ("https://github.com/team/deploy", ("github", "github.com", "team/deploy")),
    ("https://user:secret@gitlab.example.com/group/sub/proj.git", ("gitlab", "gitlab.example.com", "group/sub/proj")),
    ("ssh://git@gitlab.com:2222/g/p.git", ("gitlab", "gitlab.com", "g/p")),
])
def test_remote_parsing(url, expected):
    remote = forge.parse_remote(url)
    assert (remote.forge, remote.host, remote.project) == expected


def test_compare_urls_and_api_bases_never_carry_a_token(monkeypatch):
    monkeypatch.delenv(forge.FORGE_URL_ENV, raising=False)
    gh = forge.Remote("github", "github.com", "team/deploy")
    assert forge.compare_url(gh, "main", "kubectl-offsets/x") == \
        "https://github.com/team/deploy/compare/main...kubectl-offsets/x?expand=1"
    gl = forge.Remote("gitlab", "gitlab.example.com", "g/p")
    assert forge.compare_url(gl, "main", "a/b").endswith("source_branch%5D=a%2Fb&merge_request%5Btarget_branch%5D=main")
    assert gh.api_base() == "https://api.github.com" and gl.api_base() == "https://gitlab.example.com/api/v4"
    assert forge.Remote("github", "ghe.example", "o/r").api_base() == "https://ghe.example/api/v3"
    with pytest.raises(InputError) as error:  # --pr's flags do not say which forge: exit 2, before any push
        forge.parse_remote("https://user:tok-123@unknown.example/o/r.git")
    assert "tok-123" not in str(error.value)


def test_json6902_patch_overriding_state_is_refused(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    kustomization = repo / "overlays/prod/kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("path: /metadata/labels/env", "path: /spec/state")
                             .replace("value: prod", "value: running"))
    before = snapshot(repo)
    result = cli("gitops", "reset", "orders-sink", "-n", "prod", "--repo", str(repo))
    assert result.exit_code == 5 and "JSON6902" in result.stderr
    assert snapshot(repo) == before


def test_path_selects_the_applied_overlay_even_though_the_base_is_outside_it(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    (repo / "overlays/staging").mkdir()
    (repo / "overlays/staging/kustomization.yaml").write_text("resources:\n- ../../base\n")
    before = snapshot(repo)
    ambiguous = cli("gitops", "reset", "orders-sink", "--repo", str(repo))
    assert ambiguous.exit_code == 2 and "declared 2 times" in ambiguous.stderr and "--path" in ambiguous.stderr
    assert snapshot(repo) == before
    result = cli("gitops", "reset", "orders-sink", "--repo", str(repo), "--path", "overlays/staging")
    assert result.exit_code == 0, result.stderr
    changed = {rel for rel, data in snapshot(repo).items() if before.get(rel) != data}
    assert changed == {"overlays/staging/kustomization.yaml", "overlays/staging/orders-sink.offsets-patch.yaml"}


def test_an_inline_patch_that_overrides_the_edit_is_caught_in_the_build(tmp_path):
    repo = copy_fixture("kustomize", tmp_path)
    kustomization = repo / "overlays/prod/kustomization.yaml"
    kustomization.write_text(kustomization.read_text() + """  - patch: |-
      apiVersion: kafka.strimzi.io/v1
      kind: KafkaConnector
      metadata:
        name: orders-sink
      spec:
        state: running
""")
    before = snapshot(repo)
    result = cli("gitops", "reset", "orders-sink", "-n", "prod", "--repo", str(repo))
    assert result.exit_code == 5 and "overrides it" in result.stderr, result.stderr
    assert snapshot(repo) == before
