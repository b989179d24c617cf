"""Entry points: ``kubectl-offsets`` (``kubectl offsets`` once on PATH) and ``kubectl_complete-offsets``.

The CLI is imported inside the functions so that ``python -m kubectl_offsets`` pays for nothing it does not use.
"""

import sys


def main() -> None:
    from .cli.root import run

    sys.exit(run(sys.argv[1:]))


def complete_main() -> None:
    """kubectl (1.26+) runs ``kubectl_complete-offsets __complete <args>`` to complete ``kubectl offsets <TAB>``."""
    from .cli.complete import run_plugin_completion

    sys.exit(run_plugin_completion(sys.argv[1:]))


if __name__ == "__main__":
    main()
