"""times.py: the one parser of ISO-8601 date-times (every flag and stored time goes through it), the refusal of a
--to-datetime in the future (a typo such as 2062 would otherwise act as --to-latest), and the short ages that
`backups --older-than` takes (30d, 2h, 1w2d)."""
from __future__ import annotations

import datetime as dt
import types

import pytest

from kubectl_offsets import times
from kubectl_offsets.errors import ExitStatus, InputError


class Python310Datetime(dt.datetime):
    """datetime.fromisoformat as Python 3.10 has it (allowed by pyproject): no "Z" suffix, fractions of exactly 3 or
    6 digits, offsets only as +HH:MM[:SS]. Python 3.11 accepts all of these; the parser must not depend on it."""

    @classmethod
    def fromisoformat(cls, text):  # type: ignore[override]
        import re

        if text.endswith(("Z", "z")) or re.search(r"\.(\d{1,2}|\d{4,5}|\d{7,})(?=$|[+-])", text) \
                or re.search(r"[+-]\d{2}(\d{2})?$", text) or "T" in text and len(text.split("T")[1]) < 5:
            raise ValueError(f"Invalid isoformat string: {text!r}")
        return super().fromisoformat(text)


@pytest.fixture
def python310(monkeypatch):
    monkeypatch.setattr(times, "dt", types.SimpleNamespace(datetime=Python310Datetime, timezone=dt.timezone,
                                                           timedelta=dt.timedelta, date=dt.date))


NINE_UTC = dt.datetime(2026, 11, 21, 9, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("text,expected", [
    ("2026-11-21T09:00:00Z", NINE_UTC),
    ("2026-11-21T09:00:00z", NINE_UTC),
    ("2026-11-21t09:00:00Z", NINE_UTC),
    ("2026-11-21 09:00:00Z", NINE_UTC),
    ("2026-11-21T09:00Z", NINE_UTC),
    ("2026-11-21T09:00:00", NINE_UTC),  # no zone: UTC
    ("2026-11-21T10:00:00+01:00", NINE_UTC),
    ("2026-11-21T10:00:00+0100", NINE_UTC),
    ("2026-11-21T10:00:00+01", NINE_UTC),
    ("2026-11-21T04:30:00-04:30", NINE_UTC),
    ("2026-11-21T09:00:00.5Z", NINE_UTC + dt.timedelta(milliseconds=500)),
    ("2026-11-21T09:00:00.250Z", NINE_UTC + dt.timedelta(milliseconds=250)),
    ("2026-11-21T09:00:00.123456789Z", NINE_UTC + dt.timedelta(microseconds=123456)),
    ("2026-11-21T09:00:00,25Z", NINE_UTC + dt.timedelta(milliseconds=250)),
    ("2026-11-21", dt.datetime(2026, 11, 21, tzinfo=dt.timezone.utc)),
])
def test_the_documented_forms_parse_without_python_3_11(python310, text, expected):
    parsed = times.parse_instant(text)
    assert parsed == expected and parsed.tzinfo is not None
    assert times.parse_datetime(text, now=NINE_UTC + dt.timedelta(days=1)) == int(expected.timestamp() * 1000)


@pytest.mark.parametrize("text", ["yesterday", "21/11/2026", "", "2026-13-01T00:00:00Z", "2026-11-21T25:00:00Z",
                                  "2026-11-21T09:00:00+25:00", "2026-11-21T09:00:00ZZ", "2026-02-30"])
def test_what_is_not_a_date_time_is_refused(python310, text):
    with pytest.raises(ValueError):
        times.parse_instant(text)
    with pytest.raises(InputError, match="not an ISO-8601 date-time"):
        times.parse_datetime(text)


def test_a_future_datetime_is_refused_unless_meant():
    now = dt.datetime(2026, 11, 26, 5, tzinfo=dt.timezone.utc)
    with pytest.raises(InputError) as refused:
        times.parse_datetime("2062-11-21T09:00:00Z", now=now)
    assert refused.value.exit_status == ExitStatus.USAGE
    assert "2062-11-21T09:00:00Z is in the future" in refused.value.message
    assert "--to-latest" in refused.value.message and "--allow-future" in (refused.value.advice or "")
    meant = times.parse_datetime("2062-11-21T09:00:00Z", now=now, allow_future=True)
    assert meant == int(dt.datetime(2062, 11, 21, 9, tzinfo=dt.timezone.utc).timestamp() * 1000)
    # A clock a little behind the broker's (the user typed a time read from a log) is not "the future".
    assert times.parse_datetime("2026-11-26T05:00:30Z", now=now) > 0


def test_no_module_parses_times_with_fromisoformat():
    """Every date-time goes through times.parse_instant: datetime.fromisoformat depends on the Python version."""
    from pathlib import Path

    package = Path(times.__file__).parent
    users = sorted(str(p.relative_to(package)) for p in package.rglob("*.py") if "fromisoformat" in p.read_text())
    assert users == ["times.py"]  # its docstring says why it is not used


@pytest.mark.parametrize("text, expected", [
    ("30d", dt.timedelta(days=30)),
    ("2h", dt.timedelta(hours=2)),
    ("1w2d", dt.timedelta(days=9)),
    ("90m", dt.timedelta(minutes=90)),
    ("45s", dt.timedelta(seconds=45)),
    ("1d12h", dt.timedelta(days=1, hours=12)),
    ("P1DT2H", dt.timedelta(days=1, hours=2)),  # ISO-8601 too, as --by-duration takes it
])
def test_older_than_takes_kubectl_style_ages_and_iso_durations(text, expected):
    assert times.parse_duration(text, "--older-than") == expected


@pytest.mark.parametrize("text", ["", "30", "d", "3x", "2h30", "-1d", "1.5.2h"])
def test_a_bad_age_is_refused_naming_the_flag(text):
    with pytest.raises(InputError) as caught:
        times.parse_duration(text, "--older-than")
    assert "--older-than" in caught.value.message and "30d" in (caught.value.advice or "")
