"""Comments, docstrings and docs cite what a reader can check: upstream sources (Strimzi/Kafka files, classes and
methods, KIPs, documentation URLs) or this repository's docs/, never research notes kept outside the repository."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ["kubectl_offsets", "tests", "docs", "benchmarks", "examples", "README.md"]
# A research note by name or section ("research 2.8", "research/strimzi-offsets.md", "../shared/research"), or any
# path out of the repository into the shared folder, except the vendored Strimzi source tarballs that provisioning
# builds the operator from (shared/vendor/strimzi: data it reads, not a note it cites).
OUTSIDE = re.compile(r"\bresearch(?: \d|/|:)|\.\./shared/(?!vendor/strimzi)|[\w-]+\.md §|strimzi-cadence-and-eras|"
                     r"real-components\.md")


def test_no_reference_leaves_the_repository():
    found = []
    for top in SCANNED:
        path = ROOT / top
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.suffix in {".py", ".md", ".sh", ".yaml"}]
        for file in files:
            if file == Path(__file__) or "__pycache__" in file.parts:
                continue
            for number, line in enumerate(file.read_text(errors="replace").splitlines(), start=1):
                if OUTSIDE.search(line):
                    found.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "cite the upstream source or docs/ instead:\n" + "\n".join(found)
