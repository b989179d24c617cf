"""schemas/kafkaconnector.schema.json and kafkamirrormaker2.schema.json are the CRDs' openAPIV3Schema per served
version (tests/env/crds/0.51: the era that serves both v1beta2 and v1), chosen by apiVersion.
Regenerate: python -m tests.unit.core.gitops.crd_schemas"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[4]
CRDS = {"kafkaconnector": "kafkaconnector.yaml", "kafkamirrormaker2": "kafkamirrormaker2.yaml"}


def schema_for(name: str) -> dict:
    crd = yaml.safe_load((ROOT / "tests/env/crds/0.51" / CRDS[name]).read_text())
    group = crd["spec"]["group"]
    versions = {v["name"]: v["schema"]["openAPIV3Schema"] for v in crd["spec"]["versions"] if v.get("served")}
    branches = [{"if": {"properties": {"apiVersion": {"const": f"{group}/{v}"}}}, "then": {"$ref": f"#/$defs/{v}"}}
                for v in versions]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": f"{name}.schema.json",
            "title": f"{crd['spec']['names']['kind']} manifest (from the CRD; GitOps edits are checked against it)",
            "type": "object", "required": ["apiVersion", "kind", "metadata"],
            "properties": {"apiVersion": {"enum": [f"{group}/{v}" for v in versions]},
                           "kind": {"const": crd["spec"]["names"]["kind"]}},
            "allOf": branches, "$defs": versions}


def render(name: str) -> str:
    return json.dumps(schema_for(name), indent=2) + "\n"


if __name__ == "__main__":
    for name in CRDS:
        (ROOT / "schemas" / f"{name}.schema.json").write_text(render(name))
