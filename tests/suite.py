"""The whole suite against the real components: `python -m tests.suite` (what `make test` runs).

Most integration tests spend their time waiting on the Strimzi operator and Connect, not on the CPU, so they run in
parallel (pytest-xdist) against ONE environment started here, running Strimzi's real cluster operator (built from
source; its Connect pods are real Connect workers), each test isolated by its own namespace, topics and connector
names. Three chains run side by side:

- the parallel phase: every test but those below, KO_TEST_WORKERS workers (default 4), its demos (`make demo`,
  one per Strimzi release, each with an environment of its own) handed out first;
- beside it, the fault matrices (marker fault_matrix; their operator-fault columns start environments of their
  own), then the emulator's phase: tests marked `emulator_only` (the emulator's own tests, and behaviour only it
  produces on demand; each says why) and `exclusive` (they turn the emulator's global knobs: its faults file,
  stopping it, its reconcile interval), on KO_EMULATOR_WORKERS workers (default 2) that each start an emulator
  environment of their own and run its tests one at a time;
- the era matrix (below), an era as each demo ends, the longest era first: the demos' environments and the fault
  matrices' own make the run's memory peak, and an era's environment takes the place of a demo's.

    python -m tests.suite                  # every Strimzi era, KO_TEST_WORKERS workers (default 4)
    python -m tests.suite --no-eras        # the default Strimzi profile only (a quicker local loop)
    python -m tests.suite -- -k mm2        # extra arguments after -- go to every pytest run
    python -m tests.suite --forgive-reruns # local runs only: a test that passed on its rerun does not fail the run

The era matrix: for every other Strimzi profile (tests/env/emulator/profiles.py), an environment running that era's
real operator runs the black-box online, MirrorMaker 2 and GitOps-trigger scenarios, then a slice of the real
faults and the tests that hold or kill the operator (tests/run_eras.py; `make test-eras` runs the matrix alone).
The eras run at once, KO_ERA_WORKERS workers each (default 2); their pytest output is printed when they end.

The release archive that the krew tests install is built in the background from the start (PyInstaller), and those
tests are handed out last (tests/scheduling.py).

Every environment is stopped at the end, even on Ctrl-C or SIGTERM (and by its reaper if this process is killed).
A component that does not start fails the run: nothing is skipped. Nothing passes quietly either: a phase that
selects no test fails the run (unless extra pytest arguments chose the selection), and so does a peak resident
memory over the 16 GB bound (tests/memory.py).

A failed test is run once more, so that its second outcome tells a flaky test from a broken one, and the run fails
either way: a rerun of any test, of the plugin or of the harness, is a defect (CI, `.ci/run`, runs exactly so).
Before the closing tally every rerun is listed under "RERUNS (each is a defect to fix)" with its test id and the
first lines of its first failure (tests/reruns.py logs them), tests of the plugin apart from tests of the harness
(tests/*/env/). --forgive-reruns, for a local run only, lists them without failing the run. The closing tally
counts the tests of the plugin apart from the harness's own.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.env import Env

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WORKERS = 4
# The fault matrices' columns (tests marked fault_matrix) mostly wait: for the operator, for a paused or restarted
# operator, for a new Connect worker. Twelve columns of 5-15 minutes each, on workers of their own beside the
# parallel phase, finish within it.
DEFAULT_FAULT_WORKERS = 6
# The emulator's phase: tests that turn its global knobs run one at a time per emulator, and mostly wait (on its
# reconcile interval, a stopped emulator): two workers with an emulator each halve the phase for one environment more.
DEFAULT_EMULATOR_WORKERS = 2
# Each era's scenarios: their tests mostly wait on the era's operator. Measured in fresh-clone runs of 2026-11-28 on
# the 2-core machine: two workers each (commit daee672) took 1193 s (0.45) and 1563 s (0.51), three (335a19b) 1241 s
# and 1521 s, the machine at 100% CPU either way. Two, then: the third bought no time, only a longer queue at each
# era's operator, and three of CI's four reruns of 2026-11-28 were an era's operator or worker slower than a wait.
DEFAULT_ERA_WORKERS = 2
# One rerun of a failed test: its second outcome tells a flaky test from a broken one. A rerun is a defect to fix,
# never a pass: pytest marks it ("R", -rR), tests/reruns.py logs each one, the closing summary lists them all under
# "RERUNS", and the run fails (unless --forgive-reruns, for local runs).
PYTEST_COMMON = ["-p", "no:cacheprovider", "-p", "tests.reruns", "-p", "tests.finished", "-q", "-raR",
                 "--durations=15", "--reruns", "1", "--reruns-delay", "5"]
# The harness's own tests (the test environment, the operator emulator, the suite's scheduler): a rerun there is a
# defect of the harness, not a signal about the plugin.
HARNESS_TESTS = ("tests/integration/env/", "tests/unit/env/")


@dataclass
class Phase:
    """One pytest run: which tests (a marker expression), how many workers."""
    title: str
    marker: str
    workers: int
    paths: list[str] = field(default_factory=lambda: ["tests"])
    operator: str = "strimzi"  # what the phase's environment runs: Strimzi's real operator, or the emulator
    deselect: list[str] = field(default_factory=list)  # test ids this phase leaves out
    private: bool = False  # the environment is the phase's alone: the private_strimzi_env fixture reuses it
    # Each pytest worker starts an environment of its own (the env fixture, KO_OPERATOR=operator): tests that turn
    # the emulator's global knobs run one at a time per environment, so N environments run N of them at once.
    own_environments: bool = False


@dataclass
class Rerun:
    """A test that failed, then passed (or failed again) on its rerun; ``where`` is the phase or era."""
    where: str
    nodeid: str
    when: str
    reason: str
    detail: list[str] = field(default_factory=list)  # the failure message's next lines

    @property
    def of_harness(self) -> bool:
        return self.nodeid.startswith(HARNESS_TESTS)

    def line(self) -> str:
        return "\n".join([self.short(), *(f"      {line}" for line in self.detail)])

    def short(self) -> str:
        phase = "" if self.when == "call" else f" (in {self.when})"
        return f"  {self.nodeid} [{self.where}]{phase}: {self.reason[:SHORT_REASON]}"


# A rerun's reason in the closing recap: CI shows only a run's last lines, a dozen or so.
SHORT_REASON = 160


@dataclass
class Failure:
    """A test that failed (its last run, reruns apart), with the first line of its message."""
    where: str
    nodeid: str
    message: str

    def line(self) -> str:
        return f"  {self.nodeid} [{self.where}]: {self.message[:SHORT_REASON]}"


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0

    def line(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


@dataclass
class Tally:
    """Every phase's tests, those of the plugin apart from the harness's own (tests/*/env/), and every rerun."""
    plugin: Counts = field(default_factory=Counts)
    harness: Counts = field(default_factory=Counts)
    reruns: list[Rerun] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.plugin.failed + self.harness.failed

    def add_junit(self, report: Path, where: str = "") -> None:
        """The outcomes of a phase's junit report, and the reruns its sibling log (reruns_log(report)) names."""
        from tests import reruns

        self.reruns += [Rerun(where or report.stem, e["nodeid"], e["when"], e["reason"], e.get("detail") or [])
                        for e in reruns.read(reruns_log(report))]
        if not report.exists():
            return
        for case in ET.parse(report).getroot().iter("testcase"):
            counts = self.harness if _of_harness(case.get("classname", "")) else self.plugin
            outcomes = {child.tag for child in case}
            if outcomes & {"failure", "error"}:
                counts.failed += 1
                self.failures.append(_failure(case, where or report.stem))
            elif "skipped" in outcomes:
                counts.skipped += 1
            else:
                counts.passed += 1

    def lines(self) -> list[str]:
        """The closing tally: the plugin's tests, the harness's, then (the last line) every test."""
        every = Counts(*(getattr(self.plugin, name) + getattr(self.harness, name)
                         for name in ("passed", "failed", "skipped")))
        return [f"tests of the plugin: {self.plugin.line()}", f"tests of the harness: {self.harness.line()}",
                every.line()]


def _failure(case: ET.Element, where: str) -> Failure:
    """A failed junit testcase as a Failure: its pytest node id (file::name) and its message's first line."""
    classname, name = case.get("classname", ""), case.get("name", "")
    module, _, cls = classname.partition(".Test")  # "tests.x.test_y.TestZ" -> tests/x/test_y.py::TestZ::name
    nodeid = module.replace(".", "/") + ".py::" + (f"Test{cls}::" if cls else "") + name
    element = next(child for child in case if child.tag in ("failure", "error"))
    message = (element.get("message") or element.text or element.tag).strip().splitlines() or [element.tag]
    return Failure(where, nodeid, f"{element.tag}: {message[0][:300]}")


def _of_harness(classname: str) -> bool:
    """A junit classname ("tests.integration.env.test_emulator", "...test_x.TestClass") of a test of the harness."""
    return (classname.replace(".", "/") + "/").startswith(HARNESS_TESTS)


def phases(workers: int, fault_workers: int, emulator_workers: int) -> tuple[Phase, Phase, Phase]:
    """The fault matrices, the parallel phase, the emulator's phase (run_default_profile says when each runs)."""
    return (
        Phase("fault matrices: each column on a worker of its own, beside the parallel phase, against Strimzi's real "
              "operator (the operator-fault columns each start an environment of their own)",
              "fault_matrix and not era_slice and not exclusive and not emulator_only", fault_workers),
        Phase("parallel: every other test not marked exclusive or emulator_only, against Strimzi's real operator",
              "not exclusive and not emulator_only and not fault_matrix", workers),
        Phase(f"emulator: tests that need the operator emulator (emulator_only) or turn its global knobs "
              f"(exclusive), on {emulator_workers} workers each with an emulator environment of its own, one test "
              "at a time on each", "emulator_only or exclusive", emulator_workers, operator="emulator",
              own_environments=True),
    )


def era_reports(reports: Path, era: str) -> tuple[Path, Path]:
    """An era's junit reports: its black-box scenarios', then its fault slice's (tests/run_eras.py)."""
    return reports / f"era-{era}.xml", reports / f"era-{era}-faults.xml"


def print_fault_tables(folder: Path) -> None:
    """Every fault-matrix column's table (tests/faultmatrix.publish), as measured in this run."""
    tables = sorted(folder.glob("*.md")) if folder.is_dir() else []
    if tables:
        print("\n[tests.suite] the fault matrices' tables (docs/fault-matrix.md):", flush=True)
        for table in tables:
            print(table.read_text(), flush=True)


def reruns_log(report: Path) -> Path:
    """Where a phase's reruns are logged (tests/reruns.py), beside its junit report."""
    return report.with_suffix(".reruns.jsonl")


def finished_log(report: Path) -> Path:
    """Where a phase logs each test once it is over (tests/finished.py), beside its junit report."""
    return report.with_suffix(".finished")


def print_reruns(reruns: list[Rerun], strict: bool) -> bool:
    """The closing list of reruns, each a defect to fix. True when ``strict`` and any test, of the plugin or of the
    harness, needed its rerun: that fails the run."""
    if not reruns:
        return False
    print(f"\n[tests.suite] RERUNS (each is a defect to fix): {len(reruns)} test(s) failed once and were run again",
          flush=True)
    plugin = [r for r in reruns if not r.of_harness]
    harness = [r for r in reruns if r.of_harness]
    for title, group in (("tests of the plugin", plugin), ("tests of the harness", harness)):
        if group:
            print(f"[tests.suite] {title}:", flush=True)
            for rerun in group:
                print(rerun.line(), flush=True)
    if strict:
        print(f"[tests.suite] {len(reruns)} rerun(s) fail the run", flush=True)
        return True
    print("[tests.suite] --forgive-reruns: not failing the run (CI would)", flush=True)
    return False


def run_phase(phase: Phase, env_json: str, extra: list[str], report: Path, log=None) -> int:
    cmd = [sys.executable, "-m", "pytest", *phase.paths, *PYTEST_COMMON, "-m", phase.marker,
           f"--junitxml={report}", f"--reruns-log={reruns_log(report)}", f"--finished-log={finished_log(report)}",
           *(f"--deselect={test}" for test in phase.deselect), *extra]
    if phase.workers > 1:
        # loadfile keeps a module's tests on one worker, so module-scoped fixtures (a mirror, a Spark session) are
        # built once, not once per worker.
        cmd += ["-n", str(phase.workers), "--dist", "loadfile"]
    out = log or sys.stdout
    print(f"\n[tests.suite] {phase.title}\n[tests.suite] $ {' '.join(cmd)}", file=out, flush=True)
    started = time.monotonic()
    environ = {**os.environ, "KO_ENV_JSON": env_json, **({"KO_PRIVATE_ENV_JSON": env_json} if phase.private else {})}
    if phase.own_environments and not env_json:
        environ.pop("KO_ENV_JSON")
        environ["KO_OPERATOR"] = phase.operator
    status = subprocess.call(cmd, cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT if log else None)
    print(f"[tests.suite] {phase.title}: exit {status} in {time.monotonic() - started:.0f}s", file=out, flush=True)
    return _empty_is_a_failure(status, phase.title, extra, out)


def _empty_is_a_failure(status: int, title: str, extra: list[str], out) -> int:
    """pytest's 5 (no test selected): a failure, since a phase that lost its tests would otherwise pass quietly;
    only the user's own pytest arguments (a -k filter) may empty a phase."""
    if status != 5:
        return status
    if extra:
        print(f"[tests.suite] {title}: no test selected by {' '.join(extra)}", file=out, flush=True)
        return 0
    print(f"[tests.suite] {title}: no test selected: an empty phase fails the run", file=out, flush=True)
    return 1


def _interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.suite", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=int(os.environ.get("KO_TEST_WORKERS", DEFAULT_WORKERS)))
    parser.add_argument("--fault-workers", type=int,
                        default=int(os.environ.get("KO_FAULT_WORKERS", DEFAULT_FAULT_WORKERS)))
    parser.add_argument("--emulator-workers", type=int,
                        default=int(os.environ.get("KO_EMULATOR_WORKERS", DEFAULT_EMULATOR_WORKERS)))
    parser.add_argument("--era-workers", type=int,
                        default=int(os.environ.get("KO_ERA_WORKERS", DEFAULT_ERA_WORKERS)),
                        help="pytest workers per era of the era matrix")
    parser.add_argument("--no-eras", dest="eras", action="store_false",
                        help="skip the other Strimzi profiles' scenarios (the default profile only)")
    parser.add_argument("--forgive-reruns", dest="strict_reruns", action="store_false",
                        help="local runs only (never in .ci/run): a test that passed on its rerun does not fail the "
                             "run (reruns are listed at the end either way)")
    parser.add_argument("pytest_args", nargs="*", help="passed to every pytest run (after --)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, closing: list[str] | None = None) -> int:
    """Run the suite; its closing summary goes to ``closing`` when given (printed after the memory table), else to
    standard output."""
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)

    sys.path.insert(0, str(ROOT))
    from tests.env.emulator import profiles

    compile_once()

    if lint() != 0:  # seconds, and no environment to start for nothing
        print("[tests.suite] lint failed (make lint): not starting the environment", flush=True)
        return 1
    reused = os.environ.get("KO_ENV_JSON")
    status, tally, timings = 0, Tally(), {}
    with tempfile.TemporaryDirectory(prefix="ko-suite-") as reports:
        os.environ["KO_FAULT_REPORTS"] = str(Path(reports) / "fault-tables")  # tests/faultmatrix.publish
        build = prebuild_release_archive(Path(reports), args.pytest_args)
        eras = EraMatrix(args.era_workers, args.pytest_args, Path(reports)) if args.eras and not reused else None
        try:
            started = time.monotonic()
            status = run_default_profile(reused, args, Path(reports), tally, eras)
            timings[profiles.DEFAULT] = time.monotonic() - started
            if eras:
                status = eras.finish(tally, timings) or status
        except KeyboardInterrupt as e:
            print(f"[tests.suite] interrupted ({e or 'Ctrl-C'})", flush=True)
            status = 130
        finally:
            if build and build.poll() is None:  # still building (interrupted): it and its PyInstaller go too
                os.killpg(build.pid, signal.SIGTERM)
        print_fault_tables(Path(reports) / "fault-tables")
    summary, status = closing_summary(tally, timings, args.strict_reruns, status)
    if closing is None:
        print(summary, end="", flush=True)
    else:
        closing.append(summary)
    return status


def closing_summary(tally: Tally, timings: dict, strict_reruns: bool, status: int) -> tuple[str, int]:
    """The run's closing lines (each era's time, every rerun, every failed test, the tally) and its status (a rerun
    fails a strict run). CI shows a run's last lines: whatever failed must be named there, not an hour up."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print()
        for era, seconds in timings.items():
            print(f"[tests.suite] Strimzi {era}: {seconds:.0f}s")
        if print_reruns(tally.reruns, strict_reruns):
            status = status or 1
        if tally.reruns:  # once more, a line each: the details above may be past what CI shows
            print(f"\n[tests.suite] RERUN: {len(tally.reruns)} test(s)")
            print(*(rerun.short() for rerun in tally.reruns), sep="\n")
        if tally.failures:
            print(f"{'' if tally.reruns else chr(10)}[tests.suite] FAILED: {len(tally.failures)} test(s)")
            print(*(failure.line() for failure in tally.failures), sep="\n")
        *split, every = tally.lines()
        print("", *(f"[tests.suite] {line}" for line in split), every, sep="\n")
        if status and not tally.failures and not tally.reruns:
            print(f"[tests.suite] exit status {status} with no failed test: a phase or an environment failed (its "
                  "output is above, under [tests.suite] ... exit)")
    return out.getvalue(), status


class EraMatrix:
    """The other eras, each its own environment, all at once in background threads (``workers`` pytest workers
    each), each started as one of the parallel phase's demos ends (start_eras_after_the_demos), beside the rest of the
    parallel phase, the fault matrices and the emulator's phase: their tests mostly wait on the operator."""

    def __init__(self, workers: int, extra: list[str], reports: Path):
        from tests.env.emulator import profiles

        # The longest first: an era serving two API versions runs its MirrorMaker 2 and GitOps scenarios once per
        # version (0.51: 175 tests, 0.45: 166), and its chain ended the run 2 minutes after everything else.
        others = [p for p in profiles.PROFILES if p != profiles.DEFAULT]
        self.eras = sorted(others, key=lambda p: len(profiles.PROFILES[p].served), reverse=True)
        self.workers = max(1, workers)
        self.extra, self.reports = extra, reports
        self.results: dict[str, tuple[int, float]] = {}
        self.threads: list[threading.Thread] = []

    def log_path(self, era: str) -> Path:
        return self.reports / f"era-{era}.log"

    def start(self, era: str, why: str) -> None:
        print(f"\n[tests.suite] era matrix: Strimzi {era} ({self.workers} workers) starts ({why}); its output "
              "follows when the era matrix ends", flush=True)
        thread = threading.Thread(target=self._run, args=(era,), name=f"era-{era}", daemon=True)
        thread.start()
        self.threads.append(thread)

    def _run(self, era: str) -> None:
        from tests.run_eras import run_era

        with open(self.log_path(era), "w", buffering=1) as log:
            try:
                self.results[era] = run_era(era, self.workers, self.extra, self.reports, log=log)
            except Exception as error:  # noqa: BLE001 - an era whose environment fails to start fails the run
                print(f"[tests.suite] Strimzi {era}: {error!r}", file=log, flush=True)
                self.results[era] = (1, 0.0)

    def finish(self, tally: Tally, timings: dict) -> int:
        if not self.threads:
            return 0
        for thread in self.threads:
            thread.join()
        status = 0
        for era in self.eras:
            print(self.log_path(era).read_text(), end="", flush=True)
            code, seconds = self.results.get(era, (1, 0.0))
            timings[era] = seconds
            for report in era_reports(self.reports, era):
                tally.add_junit(report, where=f"Strimzi {era}")
            status = status or code
        return status


def prebuild_release_archive(reports: Path, extra: list[str]) -> subprocess.Popen | None:
    """Start building the release archive (packaging/build_archive.py, PyInstaller) now, in the background, unless it
    is already built from these sources, given (KO_RELEASE_ARCHIVE), or the run was narrowed by pytest arguments
    (``extra``: the krew tests may not be among them; if they are, they build it themselves as before). The krew
    tests, handed out last (tests/scheduling.LAST_FILES), wait for it (tests/integration/krew/conftest.py): building
    it in their own worker held one of the four idle for 24 min. Its exit status goes to the file named by
    KO_RELEASE_ARCHIVE_BUILD once it ends, its output to the log beside it."""
    from tests.integration.krew.krewtools import BACKGROUND_BUILD, build_log

    sys.path.insert(0, str(ROOT / "packaging"))
    import release_names

    sys.path.pop(0)
    if extra or os.environ.get("KO_RELEASE_ARCHIVE") or release_names.archive_is_fresh(ROOT / "dist"):
        return None
    status = reports / "release-archive.status"
    log = build_log(status)
    with open(log, "w") as out:
        build = subprocess.Popen([sys.executable, str(ROOT / "packaging" / "build_archive.py")], cwd=ROOT,
                                 stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
    threading.Thread(target=lambda: status.write_text(f"{build.wait()}\n"), name="release archive build",
                     daemon=True).start()
    os.environ[BACKGROUND_BUILD] = str(status)
    print(f"[tests.suite] building the release archive in the background (log: {log})", flush=True)
    return build


def compile_once() -> None:
    """Byte-compile the plugin and the tests once, up front, and let the suite's processes keep their caches.

    The tests start thousands of ``python -m kubectl_offsets`` processes and a pytest worker per slot. Where
    PYTHONDONTWRITEBYTECODE is set (it is on CI's machines) none of them writes a .pyc, so each one compiled the
    plugin's modules from source again (about 0.2 s of CPU a process, measured), and each worker rewrote every test
    module's assertions again."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False
    for folder in ("kubectl_offsets", "tests", "examples"):
        compileall.compile_dir(str(ROOT / folder), quiet=1, workers=1)


LINTERS = ([sys.executable, "-m", "ruff", "check", "kubectl_offsets", "tests", "examples", "benchmarks", "packaging"],
           [sys.executable, "-m", "mypy"])


def lint() -> int:
    """ruff and mypy as configured in pyproject.toml (the same as make lint); the first failure fails the run."""
    for command in LINTERS:
        print(f"[tests.suite] {' '.join(command[2:])}", flush=True)
        status = subprocess.run(command, cwd=ROOT).returncode
        if status:
            return status
    return 0


def run_default_profile(reused: str | None, args, reports: Path, tally: Tally, eras: EraMatrix | None) -> int:
    """Every test on the default profile, in two chains side by side: the parallel phase against Strimzi's real
    operator; beside it the fault matrices against the same environment, then the emulator's phase. The era matrix
    starts an era as each of the parallel phase's demos ends (start_eras_after_the_demos). A reused environment (KO_ENV_JSON)
    serves the phases whose operator it runs (the emulator's then one test at a time); the others get environments
    of their own."""
    from tests.env import Env

    environments: dict[str, Env] = {}
    results: dict[Path, int] = {}
    if reused:
        loaded = Env.load(reused)
        environments[loaded.operator] = loaded
    faults, parallel, emulator = phases(args.workers, args.fault_workers, args.emulator_workers)
    if "emulator" in environments:
        emulator.workers = 0
    try:
        strimzi = environments.get("strimzi") or _start("strimzi", environments)
        def where(phase: Phase) -> str:
            return f"Strimzi {strimzi.strimzi} ({phase.operator}), {phase.marker}"

        background = [(faults, reports / "phase-0.xml"), (emulator, reports / "phase-2.xml")]

        def beside() -> None:
            for phase, report in background:
                env_json = str(strimzi.env_json) if phase is faults else (
                    str(environments["emulator"].env_json) if "emulator" in environments else "")
                with open(report.with_suffix(".log"), "w", buffering=1) as log:
                    results[report] = run_phase(phase, env_json, args.pytest_args, report, log=log)
                if phase is faults:
                    faults_over.set()

        print(f"\n[tests.suite] {faults.title}, then {emulator.title.split(':')[0]}: in the background; the era "
              "matrix an era as each demo ends; their output follows the parallel phase's", flush=True)
        faults_over, parallel_over, interrupted = threading.Event(), threading.Event(), threading.Event()
        thread = threading.Thread(target=beside, name="beside the parallel phase", daemon=True)
        thread.start()
        gate = start_eras_after_the_demos(eras, finished_log(reports / "phase-1.xml"), [faults_over, parallel_over],
                                          interrupted)
        try:
            status = run_phase(parallel, str(strimzi.env_json), args.pytest_args, reports / "phase-1.xml")
        except BaseException:
            interrupted.set()  # no era starts then
            raise
        finally:
            parallel_over.set()  # a run narrowed to no demo: the gate stops waiting
        tally.add_junit(reports / "phase-1.xml", where=where(parallel))
        gate.join()
        thread.join()
        for phase, report in background:
            print(report.with_suffix(".log").read_text() if report.with_suffix(".log").exists() else "", end="",
                  flush=True)
            tally.add_junit(report, where=where(phase))
            status = status or results.get(report, 1)
    finally:
        for operator, environment in environments.items():
            if str(environment.env_json) != reused:
                environment.stop()
                print(f"[tests.suite] environment ({operator}) stopped; logs kept in {environment.run_dir}/logs",
                      flush=True)
    return status


# The era matrix's environments start as the parallel phase's demos end, one era per demo over: the demos'
# environments (one per Strimzi release, `make demo` as a user runs it), beside the fault matrices' own, make the run's
# memory peak (12.35 GB at minute 4 of the warm fresh-clone run of 2026-11-28; 6.6 GB at minute 6, once they were
# gone), and an era's environment (1.1 GB idle, measured, and its Connect workers) takes the place of a demo's. They
# waited for the whole fault matrices before (minute 12 instead of 6), and the run's last ten minutes were the 0.51
# era alone, the machine mostly idle; waiting for all three demos still left its last two minutes (352cb5c).
DEMO_TESTS = "tests/integration/demo/"
GATE_POLL = 5.0  # seconds between two reads of the parallel phase's finished-log


def demos_finished(finished: Path) -> int:
    """How many demo tests the finished-log (tests/finished.py) shows over."""
    from tests import finished as finished_plugin

    return sum(1 for nodeid in finished_plugin.read(finished) if nodeid.startswith(DEMO_TESTS))


def start_eras_after_the_demos(eras: EraMatrix | None, finished: Path, fallbacks: list[threading.Event],
                               interrupted: threading.Event, poll: float = GATE_POLL) -> threading.Thread:
    """A thread that starts each era of ``eras``, in their order, once one more of the parallel phase's demos (one
    per Strimzi release) is over in its finished-log: each era's environment takes the place of a demo's that is
    gone, so the memory peak stays the demos', and the longest era gets the earliest start. The rest start at once
    when any of ``fallbacks`` is set (the fault matrices over, the parallel phase over: a run narrowed to fewer
    demos); none starts once ``interrupted`` is set. Join it before the eras' finish(): it has started them by
    then, unless interrupted."""
    from tests.integration.demo.test_make_demo import RELEASES

    def wait_then_start() -> None:
        waiting = list(eras.eras)
        while waiting:
            over, started = demos_finished(finished), len(eras.eras) - len(waiting)
            if over >= len(RELEASES):
                due, why = len(waiting), "the demos are over"
            elif any(event.is_set() for event in fallbacks):
                due, why = len(waiting), "the fault matrices or the parallel phase are over before the demos"
            else:
                due, why = max(0, over - started), f"{over} of the {len(RELEASES)} demos over"
            if interrupted.is_set():  # read after the fallbacks: an interrupted phase sets its fallback too
                return
            for era in waiting[:due]:
                eras.start(era, why)
            waiting = waiting[due:]
            if waiting:
                time.sleep(poll)

    thread = threading.Thread(target=wait_then_start if eras else lambda: None, name="era gate", daemon=True)
    thread.start()
    return thread


def _start(operator: str, environments: dict) -> "Env":
    """A new environment running ``operator``, recorded in ``environments`` (so it is stopped even when its start
    is the last thing that happens), with a reaper that stops it if this process is killed."""
    from tests.env import start_environment

    print(f"\n[tests.suite] starting an environment with the {operator} operator", flush=True)
    environment = start_environment(operator=operator)
    environments[operator] = environment
    environment.start_reaper()
    return environment

def run_measured(argv: list[str] | None = None) -> int:
    """main() with the suite's peak resident memory sampled beside it (every environment, worker and pytest); the
    memory table, then the closing summary: CI shows a run's last lines, and what failed must be among them."""
    from tests import memory

    closing: list[str] = []
    status = memory.sampled(lambda: main(argv, closing=closing))
    print(*closing, sep="", end="", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(run_measured())
