"""The parallel phase's scheduler (tests/scheduling.py), driven by xdist's own scheduling code with stand-in workers
that record what they are sent."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.scheduling import SPREAD_FILES, SpreadLongTestsFirst

MATRIX = sorted(SPREAD_FILES)[0]


class Worker:
    def __init__(self, name: str):
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[str] = []
        self.collection: list[str] = []

    def send_runtest_some(self, indexes):
        self.sent += [self.collection[i] for i in indexes]

    def shutdown(self):
        self.shutting_down = True


def _schedule(collection: list[str], workers: int) -> list[Worker]:
    config = SimpleNamespace(getvalue={"tx": [f"{workers}*popen"]}.get, option=SimpleNamespace(loadscopereorder=True))
    scheduler = SpreadLongTestsFirst(config)
    nodes = [Worker(f"gw{i}") for i in range(workers)]
    for node in nodes:
        node.collection = list(collection)
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    return nodes


@pytest.fixture
def collection() -> list[str]:
    big = [f"tests/integration/a/test_big.py::test_{i}" for i in range(9)]
    small = [f"tests/integration/b/test_small.py::test_{i}" for i in range(2)]
    matrix = [f"{MATRIX}::test_every_injected_fault_leaves_the_connector_safe[{c}]" for c in ("m-a", "m-r", "c-a")]
    return big + matrix + small


def test_each_fault_matrix_column_starts_first_on_its_own_worker(collection):
    nodes = _schedule(collection, workers=3)
    firsts = [node.sent[0] for node in nodes]
    assert firsts == [t for t in collection if t.startswith(MATRIX)]


def test_other_files_stay_whole_on_one_worker(collection):
    nodes = _schedule(collection, workers=3)
    for prefix in ("tests/integration/a/test_big.py", "tests/integration/b/test_small.py"):
        holders = [node for node in nodes if any(t.startswith(prefix) for t in node.sent)]
        assert len(holders) == 1, f"{prefix} split over {[n.gateway.id for n in holders]}"
    sent = [t for node in nodes for t in node.sent]
    assert sorted(sent) == sorted(collection), "every test is sent exactly once"


def test_a_long_file_with_a_shared_fixture_starts_first_and_whole(monkeypatch):
    """Plain loadfile sends the files with the most tests first: a file of few tests, each minutes long, sharing one
    module fixture, would start last and make the phase as long as itself."""
    first = "tests/integration/online/test_long_shared.py"
    monkeypatch.setattr("tests.scheduling.FIRST_FILES", (first,))
    others = [f"tests/integration/{d}/test_f.py::test_{i}" for d, n in (("a", 9), ("b", 6), ("c", 5)) for i in range(n)]
    faults = [f"{first}::test_fault[{c}]" for c in ("hung", "crash")]
    nodes = _schedule(others + faults, workers=2)
    holders = [node for node in nodes if any(t.startswith(first) for t in node.sent)]
    assert len(holders) == 1, "the file is split over workers"
    assert holders[0].sent[:2] == faults


def test_the_long_files_go_out_in_the_order_listed_longest_first(monkeypatch):
    """FIRST_FILES in their order (the longest first), whatever their number of tests: the last one handed out is
    a short file, not the Spark cluster's twelve minutes."""
    longest, shorter = "tests/integration/k/test_longest.py", "tests/integration/s/test_shorter.py"
    monkeypatch.setattr("tests.scheduling.FIRST_FILES", (longest, shorter))
    others = [f"tests/integration/{d}/test_f.py::test_{i}" for d, n in (("a", 9), ("b", 6)) for i in range(n)]
    collection = others + [f"{shorter}::test_{i}" for i in range(3)] + [f"{longest}::test_0"]
    [node] = _schedule(collection, workers=1)
    files = list(dict.fromkeys(t.split("::")[0] for t in node.sent))
    assert files[:2] == [longest, shorter]  # plain loadfile: the three-test file before the one-test file


def test_a_file_whose_fixture_is_built_in_the_background_goes_out_last(monkeypatch):
    """The krew tests wait for the release archive the suite builds from its start: handed out last, not first, so
    that no worker sits idle while it is built."""
    last = "tests/integration/krew/test_install.py"
    monkeypatch.setattr("tests.scheduling.LAST_FILES", (last,))
    others = [f"tests/integration/{d}/test_f.py::test_{i}" for d, n in (("a", 9), ("b", 6), ("c", 3)) for i in range(n)]
    collection = [f"{last}::test_{i}" for i in range(12)] + others
    config = SimpleNamespace(getvalue={"tx": ["1*popen"]}.get, option=SimpleNamespace(loadscopereorder=True))
    scheduler = SpreadLongTestsFirst(config)
    node = Worker("gw0")
    node.collection = list(collection)
    scheduler.add_node(node)
    scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    handed_out = list(dict.fromkeys(t.split("::")[0] for t in node.sent))
    queued = list(scheduler.workqueue)
    assert last not in handed_out, handed_out  # plain loadfile: the twelve-test file first
    assert queued[-1] == last, queued
