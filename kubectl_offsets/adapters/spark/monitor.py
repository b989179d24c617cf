"""Progress while Spark works: a thread that polls Spark's status tracker and reports finished/total tasks.

Spark's own console bar is off (it would interleave with our stderr lines); this reports through a callback so the
CLI can show it as a spinner line on a terminal or as occasional lines in a log.
"""

from __future__ import annotations

import threading
from typing import Any, Callable


class TaskMonitor:
    """``with TaskMonitor(spark, report):`` calls ``report("3/8 tasks")`` when the figure changes, at most every
    ``interval`` seconds."""

    def __init__(self, spark: Any, report: Callable[[str], None], interval: float = 2.0):
        self._tracker = spark.sparkContext.statusTracker()
        self._report = report
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="spark-progress", daemon=True)

    def __enter__(self) -> "TaskMonitor":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        last = ""
        while not self._stop.wait(self._interval):
            text = self._describe()
            if text and text != last:
                self._report(text)
                last = text

    def _describe(self) -> str:
        done = total = 0
        for stage_id in self._tracker.getActiveStageIds():
            info = self._tracker.getStageInfo(stage_id)
            if info is not None:
                done, total = done + info.numCompletedTasks, total + info.numTasks
        return f"{done}/{total} tasks" if total else ""

