"""Times as compute takes and prints them: ISO-8601 date-times and durations in, epoch milliseconds out, and
epoch milliseconds back to ISO-8601 (UTC, millisecond precision) in the documents compute writes."""

from __future__ import annotations

import datetime as dt
import re

from .errors import InputError


def parse_datetime(text: str) -> int:
    """ISO-8601 -> epoch ms. Without a zone the time is UTC (said in --help), so scripts do not depend on the
    machine's zone."""
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError:
        raise InputError(f"--to-datetime '{text}' is not an ISO-8601 date-time",
                         advice="for example 2026-11-21T09:00:00Z or 2026-11-21T10:00:00+01:00") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return int(value.timestamp() * 1000)


_DURATION = re.compile(r"^P(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$")


def parse_duration(text: str) -> dt.timedelta:
    """ISO-8601 ``PnDTnHnMnS`` as kafka-consumer-groups --by-duration takes it."""
    m = _DURATION.match(text.strip().upper())
    if not m or not any(m.groupdict().values()) or text.strip().upper().endswith("T"):
        raise InputError(f"--by-duration '{text}' is not an ISO-8601 duration",
                         advice="for example PT30M (30 minutes), PT6H, P1DT12H")
    parts = {k: float(v) if v else 0.0 for k, v in m.groupdict().items()}
    return dt.timedelta(days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"])


def at_for_duration(text: str, now: dt.datetime | None = None) -> int:
    now = now or dt.datetime.now(dt.timezone.utc)
    return int((now - parse_duration(text)).timestamp() * 1000)



def iso_ms(ts_ms: int | None) -> str | None:
    if ts_ms is None:
        return None
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.timezone.utc).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")


_AGE_PART = re.compile(r"(\d+)([wdhms])")
_AGE_UNITS = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def parse_age(text: str, flag: str) -> dt.timedelta:
    """``30d``, ``2h``, ``1w2d``, ``90m`` (kubectl-style, as ``kubectl get`` prints ages), or an ISO-8601 duration
    (``P30D``) -> a timedelta. ``flag`` names the option in the error."""
    cleaned = text.strip()
    if cleaned.upper().startswith("P"):
        try:
            return parse_duration(cleaned)
        except InputError:
            pass
    parts = _AGE_PART.findall(cleaned)
    if not parts or "".join(n + u for n, u in parts) != cleaned:
        raise InputError(f"{flag} '{text}' is not a duration",
                         advice="a number and a unit, combined as needed: 30d, 12h, 90m, 1w2d (w d h m s), or "
                                "ISO-8601 such as P30D")
    return sum((dt.timedelta(**{_AGE_UNITS[u]: int(n)}) for n, u in parts), dt.timedelta())
