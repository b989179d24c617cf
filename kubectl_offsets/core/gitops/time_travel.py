"""`gitops alter --to-datetime/--by-duration/--to-earliest/--to-latest`: the same questions as online ``alter``
(``core/online/timetravel.py``), asked of the broker when phase 1 is planned. The offsets they resolve to are what
the phase-1 ConfigMap holds, so the reviewed change is exact; the commit message and pull request say what time was
asked and what each partition resolved to (``describe``)."""

from __future__ import annotations

from ...errors import InputError
from ...progress import Progress
from ...times import iso_ms
from ..online import timetravel
from ..online.timetravel import TimeTravel, TimeTravelRequest


def time_travel_request(travel: TimeTravel, other_inputs: bool, progress: Progress) -> TimeTravelRequest:
    """Checked before anything is planned or written: one question, no other offsets input, a broker to ask
    (a repository holds no reachable address, so --bootstrap-server is required) that answers."""
    travel.check_combination()
    if other_inputs:
        raise InputError(f"{travel.flag} cannot be combined with -f, --set, --skip-record, --to-offset or --shift-by",
                         advice="give either the offsets or a time-travel question")
    if not travel.bootstrap_server:
        raise InputError(f"gitops alter {travel.flag} needs --bootstrap-server HOST:PORT (the Kafka cluster the "
                         "connector reads; for MirrorMaker 2 its source cluster)",
                         advice="a port-forward works: kubectl port-forward -n NS pod/<broker-pod> 9092, then "
                                "--bootstrap-server localhost:9092")
    at_ms = travel.at_ms()
    broker = timetravel.probe_broker(travel.bootstrap_server, "--bootstrap-server", travel, progress)
    return TimeTravelRequest(travel, broker, at_ms)


def describe(request: TimeTravelRequest) -> list[str]:
    """What was asked and where each partition resumes: lines for the commit message, the PR and the terminal.
    Called after the change was built (the positions are filled then)."""
    travel = request.travel
    asked = travel.to_datetime or travel.by_duration
    question = f"{travel.flag} {asked}" if asked else travel.flag
    if request.at_ms is not None:
        question += f" (records at or after {iso_ms(request.at_ms)})"
    lines = [f"asked: {question}, resolved at {travel.bootstrap_server}"]
    for position in request.positions:
        record = f", record time {iso_ms(position.record_ms)}" if position.record_ms is not None else ""
        lines.append(f"{position.topic}:{position.partition} resumes at {position.resume_at} ({position.basis}"
                     f"{record})")
    return lines
