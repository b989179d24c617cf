"""`make demo`, the README's first command, run exactly as the README says: `make demo` from the repository root.

It goes through `setup` and `provision` (cached, so quick once provisioned) and then examples/demo.py, which starts
its own environment in its own run dir (never the shared pointer /tmp/kubectl-offsets-env/current.json) and stops
it at the end. The test fails when the demo fails, and checks what the demo is there to show from its output.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.env.environment import POINTER, Env
from tests.waits import eventually

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 900  # seconds; it took 3 to 6 minutes on a 2-core machine under a load average of 11 to 30


def _pointer() -> str | None:
    return os.readlink(POINTER) if POINTER.is_symlink() else None


def _run_make_demo(*make_args: str) -> tuple[int, str]:
    # Its own session: on a time-out (or pytest being stopped) SIGTERM reaches make and the demo, and the demo
    # stops its environment on the way out.
    # As a user runs it: whatever operator this pytest session was told to use (KO_OPERATOR), the demo's own
    # default applies.
    environ = {k: v for k, v in os.environ.items() if k not in ("KO_OPERATOR", "KO_STRIMZI")}
    proc = subprocess.Popen(["make", "demo", *make_args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env=environ)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
        pytest.fail(f"make demo did not finish in {TIMEOUT}s; its output:\n{out[-8000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(120)
    return proc.returncode, out


# The README's `make demo`, and its `make demo DEMO_ARGS="--strimzi 0.45"` for another release (0.51 too).
RELEASES = {None: "1.2.0", "0.45": "0.45.2", "0.51": "0.51.0"}


@pytest.mark.slow
@pytest.mark.parametrize("profile", list(RELEASES), ids=[f"strimzi-{p or 'default'}" for p in RELEASES])
def test_make_demo_shows_the_sink_replayed_the_mirror_rewound_and_the_gitops_diff(profile):
    code, out = _run_make_demo(*([f"DEMO_ARGS=--strimzi {profile}"] if profile else []))

    assert code == 0, f"make demo exited {code}:\n{out[-8000:]}"
    # Strimzi's own cluster operator of that release did the work, not the emulator
    release = re.escape(RELEASES[profile])
    assert re.search(rf"ready after \d+s: Strimzi {release}'s cluster operator", out), out[:3000]
    # the sink: stuck in front of the poison record; compute finds it, alter -f gets the sink going, undo puts it
    # back in front of it, and --skip-record gets it going again (orders 5..9 written a second time)
    stuck = out[out.index("### The sink wrote orders 0..3"):out.index("### Which record")]
    assert re.search(r"^orders\s+0\s+4\s*$", stuck, re.M) and "task 0: FAILED" in stuck, stuck
    assert "computed: resume orders partition 0 at offset 5" in out, out
    assert "the file has orders [0, 1, 2, 3, 5, 6, 7, 8, 9]" in out, out
    undo = out[out.index("### Undo"):]
    assert re.search(r"^orders\s+0\s+10\s+4\s+changed\s*$", undo, re.M), undo  # BEFORE 10, AFTER 4 again
    assert "replayed: the sink wrote orders [5, 6, 7, 8, 9] again; the file has 14 orders" in out, out
    # MirrorMaker 2: rewound, it copies orders 7..9 to the target topic a second time
    assert "re-replicated: east.orders now holds 13 records; the new ones are orders [7, 8, 9]" in out, out
    # GitOps phase 1 as a diff: the connector stopped and handed the new offsets, never the one-shot annotation
    gitops = out[out.index("### GitOps"):]
    assert '+  state: "stopped"' in gitops and "+  alterOffsets:" in gitops, gitops
    assert "strimzi.io/connector-offsets" not in gitops, gitops
    assert "Done in" in out

    # its own environment, stopped at the end; the shared pointer never pointing at it
    run_dir = re.search(r"run dir (\S+)", out).group(1)
    # (others on the machine move the shared pointer as they start environments: it must just never be the demo's)
    assert Path(run_dir).parent == POINTER.parent and not str(_pointer()).startswith(run_dir), _pointer()
    recorded = Env.load(Path(run_dir) / "env.json")
    assert recorded.processes == {}, f"the demo left components running: {recorded.processes}"
    # (its watchdog, which names the run dir too, notices within a second that there is nothing left to guard)
    eventually("the demo's environment to end", lambda: not _processes_mentioning(run_dir), 10, 0.5)


def _processes_mentioning(text: str) -> list[str]:
    """Command lines of running processes that mention ``text`` (every component's command names its run dir)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        if text in argv:
            found.append(argv[:200])
    return found
