"""The fault matrix recovers as a user does (tests/faultmatrix.py): the recover command the plugin printed, else
``kubectl offsets recover TARGET``, then whatever recover command a refusal prints, exactly. The plugin's processes
are stood in for by their recorded stderr."""
from __future__ import annotations

from tests.faultmatrix import Bench, Run, Subject

MIRROR = Subject("MirrorMaker 2", "KafkaMirrorMaker2", "kafkamirrormaker2s", "mirror", "ns1",
                 "east->west.MirrorSourceConnector", {}, "offset", ("spec", "mirrors", 0, "sourceConnector"))
REFUSED = ["error: alter of 'east->west.MirrorSourceConnector' in progress by a1b2, last seen 3s ago: it may still be "
           "working on kafkamirrormaker2/mirror",
           "  hint: wait for it to finish; if its process is gone (killed, terminal closed, laptop asleep), take over "
           "with --force",
           "  next: kubectl offsets recover kafkamirrormaker2/mirror --connector 'east->west.MirrorSourceConnector' "
           "-n ns1 --force"]


class ScriptedBench(Bench):
    """A Bench whose plugin runs answer from a script, recording the arguments."""

    def __init__(self, answers: list[tuple[int, list[str]]]):  # no cluster: only run() is used
        self.answers, self.calls = list(answers), []

    def run(self, args, **_):
        self.calls.append(list(args))
        code, lines = self.answers.pop(0)
        return Run(["python", "-m", "kubectl_offsets", *args], code, lines)


def test_after_a_sigkill_the_user_types_recover_then_runs_the_printed_force_command():
    bench = ScriptedBench([(9, REFUSED), (0, ["==> finishing alter"])])

    outcome, ran = bench.recover_as_a_user(MIRROR, Run([], None, ["==> waiting for the operator"], killed=True))

    assert outcome == "recovered"
    assert ran == ["kubectl offsets recover kafkamirrormaker2/mirror --connector 'east->west.MirrorSourceConnector' "
                   "-n ns1", REFUSED[-1].removeprefix("  next: ")]
    assert bench.calls[1] == ["recover", "kafkamirrormaker2/mirror", "--connector", "east->west.MirrorSourceConnector",
                              "-n", "ns1", "--force"]


def test_a_recover_command_the_killed_run_printed_comes_first():
    printed = "kubectl offsets recover kafkaconnector/idle -n ns2"
    bench = ScriptedBench([(0, [])])

    _, ran = bench.recover_as_a_user(MIRROR, Run([], None, [f"  next: {printed}"], killed=True))

    assert ran == [printed]


def test_nothing_to_recover_and_a_failure_are_told_apart():
    nothing = ScriptedBench([(4, ["error: no interrupted kubectl-offsets operation on kafkaconnector/idle"])])
    assert nothing.recover_as_a_user(MIRROR, Run([], None, [], killed=True))[0] == "nothing to recover"
    stuck = ScriptedBench([(9, REFUSED), (9, REFUSED)])  # the printed command refused again: no loop
    outcome, ran = stuck.recover_as_a_user(MIRROR, Run([], None, [], killed=True))
    assert outcome.startswith("recover failed (exit 9)") and len(ran) == 2
