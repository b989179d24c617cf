"""The release executable's entry point: one binary, two names.

krew links exactly one executable per plugin (``bin:``; krew issue #812), but kubectl looks for a second one,
``kubectl_complete-offsets``, to complete ``kubectl offsets <TAB>``. So the binary looks at the name it was started
under: through a link named ``kubectl_complete-offsets`` it answers completion requests, under any other name it
is the plugin. A Cobra-style ``kubectl-offsets __complete ARG...`` (what Cobra plugins' shims send) is accepted too,
which lets the archive's small ``kubectl_complete-offsets`` script (a plain file: krew unpacks no symlinks) and
the Windows ``.cmd`` simply call the main executable.
"""

import sys

COMPLETION_PREFIX = "kubectl_complete-"
COBRA_REQUESTS = ("__complete", "__completeNoDesc")


def wants_completion(argv: list[str]) -> bool:
    # Both separators: the same check must hold for a Windows path whatever platform runs the tests.
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1] if argv else ""
    return name.startswith(COMPLETION_PREFIX) or (len(argv) > 1 and argv[1] in COBRA_REQUESTS)


def main() -> None:
    from kubectl_offsets.__main__ import complete_main, main as plugin_main

    if wants_completion(sys.argv):
        complete_main()
    else:
        plugin_main()


if __name__ == "__main__":
    main()
