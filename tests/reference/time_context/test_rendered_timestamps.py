"""Date.parse behaviour the invariant relies on (notes §7, V8 quirks)."""

from __future__ import annotations

import pytest

from dsh_reference.time_context.core import parse_rendered_timestamp

BASE = 1_783_987_200_000  # 2026-07-14T00:00:00.000Z


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-14T00:00:00Z", BASE),
        ("2026-07-14T08:00:00+08:00", BASE),
        ("2026-07-13T20:00:00-04:00", BASE),
        ("2026-07-14T05:45:00+05:45", BASE),
        ("2026-07-13T21:30:00-02:30", BASE),
        ("2026-02-30T00:00:00Z", 1_772_409_600_000),  # rolls over to 2026-03-02
        ("2026-07-13T24:00:00Z", BASE),
        ("1970-01-01T00:00:00+23:59", -86_340_000),
        ("0000-01-01T00:00:00Z", -62_167_219_200_000),
    ],
)
def test_accepted_timestamps(text, expected):
    assert parse_rendered_timestamp(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-32T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-00-01T00:00:00Z",
        "2026-01-00T00:00:00Z",
        "2026-07-14T23:60:00Z",
        "2026-07-14T23:59:60Z",
        "2026-07-14T24:00:01Z",
        "2026-07-14T25:00:00Z",
        "2026-07-14T00:00:00+24:00",
        "2026-07-14T00:00:00+08:60",
        "2026-07-14T00:00:00+08:05:43",
        "2026-07-14T00:00:00",
        "2026-07-14 00:00:00Z",
    ],
)
def test_rejected_timestamps(text):
    assert parse_rendered_timestamp(text) is None
