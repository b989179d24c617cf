"""The kind workflow (.github/workflows/e2e-kind.yml) runs the black-box tests against a real Strimzi on kind, where
no local process of ours runs: no operator emulator, no operator JVM to pause or kill, no kubelet stand-in. Docker
is not here, so the workflow cannot run here; this collects its exact selection (its pytest command, read from the
workflow) and fails on any test that needs the local environment (issue 32)."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / ".github" / "workflows" / "e2e-kind.yml"
# What only the local environment (tests/env without --kind) provides: the emulator and its knobs, a private
# environment whose operator a test pauses or kills, the fault matrices (they hang, kill or restart the operator,
# delete pods through the kubelet stand-in, cut the API connection through a local proxy), a local Spark cluster.
LOCAL_MARKERS = {"exclusive", "emulator_only", "fault_matrix", "local_operator"}
LOCAL_FIXTURES = {"emulator", "faults", "emu_env", "private_strimzi_env", "spark_cluster"}

DUMP = '''
import json, os

def pytest_collection_finish(session):
    with open(os.environ["KO_COLLECTED"], "w") as out:
        json.dump([{"nodeid": item.nodeid, "markers": sorted({m.name for m in item.iter_markers()}),
                    "fixtures": sorted(getattr(item, "fixturenames", ()))} for item in session.items], out)
'''


def workflow_pytest_command() -> list[str]:
    """The workflow's pytest command, its arguments as the shell passes them."""
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["e2e"]["steps"]
    scripts = [step["run"] for step in steps if "pytest" in step.get("run", "")]
    assert len(scripts) == 1, scripts
    command = next(line for line in scripts[0].replace("\\\n", " ").splitlines() if "-m pytest" in line)
    words = shlex.split(command)
    return words[words.index("pytest") + 1:]


def collect(args: list[str], tmp_path: Path) -> list[dict]:
    """What ``pytest ARGS`` selects, collected in a subprocess: each test's nodeid, markers and fixtures."""
    (tmp_path / "ko_collected_dump.py").write_text(DUMP)
    out = tmp_path / "collected.json"
    result = subprocess.run([sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider",
                             "-p", "ko_collected_dump"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**_environ(), "PYTHONPATH": f"{tmp_path}:{ROOT}", "KO_COLLECTED": str(out)})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return json.loads(out.read_text())


def test_the_kind_workflow_selects_no_test_that_needs_the_local_environment(tmp_path):
    items = collect([a for a in workflow_pytest_command() if not a.startswith("--basetemp")], tmp_path)
    assert len(items) > 100, f"the selection collects only {len(items)} tests"
    needs = {item["nodeid"]: (set(item["markers"]) & LOCAL_MARKERS) | (set(item["fixtures"]) & LOCAL_FIXTURES)
             for item in items}
    local = [f"{nodeid} ({', '.join(sorted(why))})" for nodeid, why in needs.items() if why]
    assert not local, f"{len(local)} tests the kind workflow selects need the local environment:\n" + "\n".join(local)


def _environ() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("KO_ENV_JSON", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}


def test_the_workflow_says_what_the_local_tests_run_against():
    header = " ".join(WORKFLOW.read_text().split("\nname:", 1)[0].replace("#", " ").split())
    assert "run locally against the operator emulator" not in header
    assert "Locally (`make test`) the same tests run against Strimzi's real cluster operator" in header, header
