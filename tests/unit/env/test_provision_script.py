"""tests/provision.sh on its own, with a stand-in `go` so nothing is downloaded or built."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

# A `go` whose `build -o DEST` writes an etcd that, like the real one, prints several lines for --version (here
# many, so that a reader that stops after the first line reliably breaks the pipe).
FAKE_GO = """#!/bin/sh
case "$1" in
  build)
    while [ $# -gt 0 ]; do [ "$1" = -o ] && { dest=$2; break; }; shift; done
    printf '#!/bin/sh\\nfor i in $(seq 1 20000); do echo "etcd Version: 3.5.21 line $i"; done\\n' >"$dest"
    chmod +x "$dest" ;;
esac
exit 0
"""


def test_etcd_piece_completes_although_its_version_banner_is_longer_than_one_line(tmp_path):
    """`etcd --version | head -1` under `set -o pipefail` failed with 141 (SIGPIPE) on a fresh machine."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text(FAKE_GO)
    (bin_dir / "go").chmod(0o755)
    cache = tmp_path / "cache"
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "KO_CACHE": str(cache), "PYTHON": "false"}
    result = subprocess.run(["bash", str(ROOT / "tests" / "provision.sh"), "etcd"], env=env, text=True,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (cache / "etcd-v3.5.21" / ".complete").exists()
    assert "etcd Version: 3.5.21 line 1" in result.stderr
    assert result.stdout.strip() == str(cache / "env.sh")
