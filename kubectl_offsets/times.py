"""Times as the plugin takes and prints them: ISO-8601 date-times and durations in, epoch milliseconds out, and
epoch milliseconds back to ISO-8601 (UTC, millisecond precision) in the documents compute writes.

``parse_instant`` is the one parser of date-times, for flags (--to-datetime, --since) and for the times we store
(journal heartbeats, backup annotations) alike. It does not use ``datetime.fromisoformat``: before Python 3.11
(pyproject allows 3.10) that rejects the ``Z`` suffix our documentation shows, fractions other than 3 or 6 digits
and offsets without a colon."""

from __future__ import annotations

import datetime as dt
import re

from .errors import InputError

# A time further in the future than this is refused by --to-datetime unless --allow-future says it is meant. The
# margin lets a laptop whose clock is a little behind the brokers' pass a time copied from a record or a log.
FUTURE_MARGIN = dt.timedelta(seconds=60)

_INSTANT = re.compile(
    r"^(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})"
    r"(?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d{2}(?::?\d{2})?)?)?$")


def parse_instant(text: str) -> dt.datetime:
    """ISO-8601 date-time (or date) -> an aware datetime; without a zone it is UTC, so scripts do not depend on the
    machine's zone. Raises ValueError for anything else."""
    m = _INSTANT.match(text.strip())
    if not m:
        raise ValueError(f"not an ISO-8601 date-time: {text!r}")
    part = {k: int(v) for k, v in m.groupdict().items() if v and k not in ("fraction", "zone")}
    micro = int((m["fraction"] or "0")[:6].ljust(6, "0"))
    value = dt.datetime(part["year"], part["month"], part["day"], part.get("hour", 0), part.get("minute", 0),
                        part.get("second", 0), micro, tzinfo=_zone(m["zone"]))
    return value


def _zone(text: str | None) -> dt.timezone:
    if not text or text in "Zz":
        return dt.timezone.utc
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise ValueError(f"not a UTC offset: {text!r}")
    offset = dt.timedelta(hours=hours, minutes=minutes)
    return dt.timezone(-offset if text[0] == "-" else offset)


def parse_datetime(text: str, *, allow_future: bool = False, now: dt.datetime | None = None,
                   flag: str = "--to-datetime") -> int:
    """``--to-datetime`` -> epoch ms. A time in the future is refused unless ``allow_future``: no record is that
    new, so every partition would resume at its end, which is what --to-latest says plainly (a typo of the year
    must not silently skip everything)."""
    try:
        value = parse_instant(text)
    except ValueError:
        raise InputError(f"{flag} '{text}' is not an ISO-8601 date-time",
                         advice="for example 2026-11-21T09:00:00Z or 2026-11-21T10:00:00+01:00") from None
    now = now or dt.datetime.now(dt.timezone.utc)
    if value > now + FUTURE_MARGIN and not allow_future:
        shown = value.astimezone(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
        raise InputError(f"{flag} {shown} is in the future: no record is that new, so every partition would "
                         "resume at its end (as with --to-latest)",
                         advice="check the date (the year?); if that is what you mean, add --allow-future, or use "
                         "--to-latest")
    return int(value.timestamp() * 1000)


_DURATION = re.compile(r"^P(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$")
_SHORT_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|w|d|h|m|s)")
_BARE_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_SHORT_SCALE = {"w": 604800.0, "d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


# The longest duration any flag takes: a century reaches back before every Kafka record (1970) and beyond every
# wait anyone means, while a timedelta (at most 999999999 days), a datetime (year 1 at the earliest) and a
# thread's wait (about 292 years) would each overflow somewhere past it.
MAX_DURATION = dt.timedelta(days=36500)
# Kafka's record times count from the Unix epoch; before it, the broker's timestamp index has no answer.
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def parse_duration(text: str, flag: str = "--by-duration", *, bare_seconds: bool = False) -> dt.timedelta:
    """The one duration parser of every flag that takes one (--by-duration, --max-age, --since, --older-than,
    --timeout): kubectl's short form (``90s``, ``30m``, ``2h``, ``1h30m``, ``30d``, ``1w2d``) or ISO-8601
    ``PnDTnHnMnS`` as kafka-consumer-groups --by-duration takes it (``PT30M``, ``P1DT12H``), at most MAX_DURATION.
    ``flag`` names the flag in the error; ``bare_seconds``: a number without a unit is seconds (``--timeout 300``,
    as kubectl's)."""
    seconds = float(text) if bare_seconds and _BARE_NUMBER.match(text.strip()) else duration_seconds(text)
    if seconds is None:
        raise InputError(f"{flag} '{text}' is not a duration",
                         advice="a number and a unit, combined as needed (w d h m s ms): 30m, 2h, 1h30m, 30d, 1w2d, or "
                                "ISO-8601 PT30M, P1DT12H")
    if not seconds <= MAX_DURATION.total_seconds():  # also refuses inf and nan from a number of 400 digits
        raise InputError(f"{flag} '{_shown(text)}' is longer than {MAX_DURATION.days}d (100 years)",
                         advice="give a shorter duration, or a date-time where the flag takes one")
    return dt.timedelta(seconds=seconds)


def duration_seconds(text: str) -> float | None:
    """The seconds ``text`` says in either duration syntax, unbounded; None when it is not a duration."""
    short = _short_seconds(text.strip().lower())
    if short is not None:
        return short
    upper = text.strip().upper()
    m = _DURATION.match(upper)
    if not m or not any(m.groupdict().values()) or upper.endswith("T"):
        return None
    parts = {k: float(v) if v else 0.0 for k, v in m.groupdict().items()}
    return parts["d"] * 86400 + parts["h"] * 3600 + parts["m"] * 60 + parts["s"]


def _shown(text: str, limit: int = 40) -> str:
    """A flag's value cut short for a message (a 400-digit number is not worth repeating)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _short_seconds(text: str) -> float | None:
    parts = _SHORT_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _SHORT_SCALE[u] for n, u in parts)


def at_for_duration(text: str, now: dt.datetime | None = None, flag: str = "--by-duration") -> int:
    """``now`` minus the duration, in epoch ms; refused before 1970, where no record time can be."""
    now = now or dt.datetime.now(dt.timezone.utc)
    at = now - parse_duration(text, flag)
    if at < EPOCH:
        raise InputError(f"{flag} {_shown(text)} goes back before 1970, where Kafka's record times begin",
                         advice="use --to-earliest to start at the first record still kept")
    return int(at.timestamp() * 1000)


def iso_ms(ts_ms: int | None) -> str | None:
    if ts_ms is None:
        return None
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.timezone.utc).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")
