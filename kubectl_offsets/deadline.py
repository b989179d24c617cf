"""A hard deadline for a blocking call. Standard library only.

Socket timeouts do not bound everything a cluster call can block on: the DNS look-up of a cluster-internal name
(``x.svc`` from a laptop), an exec credential plugin waiting for a browser login. Completion and ``version`` must
answer at once regardless, so the call runs in a daemon thread that is simply abandoned when time is up (it dies
with the process).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def within(seconds: float, work: Callable[[], T]) -> T:
    """``work()``'s result, its exception re-raised here, or TimeoutError after ``seconds``."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            box["error"] = error

    thread = threading.Thread(target=target, name="deadline", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise TimeoutError(f"no answer within {seconds:g}s")
    if "error" in box:
        raise box["error"]
    return box["value"]
