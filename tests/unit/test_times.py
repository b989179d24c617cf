"""times.py: the short ages that `backups --older-than` takes (30d, 2h, 1w2d), and what it refuses."""

from __future__ import annotations

import datetime as dt

import pytest

from kubectl_offsets.errors import InputError
from kubectl_offsets.times import parse_age


@pytest.mark.parametrize("text, expected", [
    ("30d", dt.timedelta(days=30)),
    ("2h", dt.timedelta(hours=2)),
    ("1w2d", dt.timedelta(days=9)),
    ("90m", dt.timedelta(minutes=90)),
    ("45s", dt.timedelta(seconds=45)),
    ("1d12h", dt.timedelta(days=1, hours=12)),
    ("P1DT2H", dt.timedelta(days=1, hours=2)),  # ISO-8601 too, as --by-duration takes it
])
def test_parse_age_accepts_kubectl_style_and_iso_durations(text, expected):
    assert parse_age(text, "--older-than") == expected


@pytest.mark.parametrize("text", ["", "30", "d", "3x", "2h30", "-1d", "1.5.2h"])
def test_parse_age_refuses_what_is_not_a_duration_naming_the_flag(text):
    with pytest.raises(InputError) as caught:
        parse_age(text, "--older-than")
    assert "--older-than" in caught.value.message and "30d" in (caught.value.advice or "")
