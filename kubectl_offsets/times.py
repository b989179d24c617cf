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
_SHORT_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|d|h|m|s)")
_SHORT_SCALE = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(text: str, flag: str = "--by-duration") -> dt.timedelta:
    """The one duration parser of every flag that takes one (--by-duration, --max-age, --since): kubectl's short
    form (``90s``, ``30m``, ``2h``, ``1h30m``, ``1d``) or ISO-8601 ``PnDTnHnMnS`` as kafka-consumer-groups
    --by-duration takes it (``PT30M``, ``P1DT12H``). ``flag`` names the flag in the error."""
    short = _short_seconds(text.strip().lower())
    if short is not None:
        return dt.timedelta(seconds=short)
    upper = text.strip().upper()
    m = _DURATION.match(upper)
    if not m or not any(m.groupdict().values()) or upper.endswith("T"):
        raise InputError(f"{flag} '{text}' is not a duration",
                         advice="for example 30m, 2h, 1h30m, 1d, or ISO-8601 PT30M, P1DT12H")
    parts = {k: float(v) if v else 0.0 for k, v in m.groupdict().items()}
    return dt.timedelta(days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"])


def _short_seconds(text: str) -> float | None:
    parts = _SHORT_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _SHORT_SCALE[u] for n, u in parts)


def at_for_duration(text: str, now: dt.datetime | None = None, flag: str = "--by-duration") -> int:
    now = now or dt.datetime.now(dt.timezone.utc)
    return int((now - parse_duration(text, flag)).timestamp() * 1000)



def iso_ms(ts_ms: int | None) -> str | None:
    if ts_ms is None:
        return None
    return dt.datetime.fromtimestamp(ts_ms / 1000, dt.timezone.utc).isoformat(timespec="milliseconds") \
        .replace("+00:00", "Z")
