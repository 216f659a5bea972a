"""Differential check: decoder and fold verdicts of the official build against
the corrupt-log corpus (literal diagnostics written from the README and the
notes) and a few decoder cases of our own.

Readable corpus logs are folded by the official ``foldScheduleEvents`` with the
header's ``seedLength``: a corrupt log must throw ``ScheduleLogError`` with the
corpus diagnostic, a valid one must give the corpus views and ``seenIds``.
Unreadable files are a file-format verdict and never reach a fold.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dsh_fixtures import fixture_path
from pytest_dsh.official import Thrown

pytestmark = pytest.mark.usefixtures("bridge_available")


def _cases() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(fixture_path("corrupt", "cases.json").read_text("utf-8"))
    return document


def _readable() -> list[Any]:
    return [
        pytest.param(case, id=case["name"])
        for case in _cases()["cases"]
        if case["verdict"] != "unreadable"
    ]


def _log(case: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    # Only "\n" ends a line: str.splitlines() would also split inside prompts
    # holding U+2028, U+0085 or other separators.
    lines = fixture_path("corrupt", case["file"]).read_text("utf-8").split("\n")
    header, *events = (json.loads(line) for line in lines if line)
    return header, events


@pytest.mark.parametrize("case", _readable())
def test_fold_verdict_matches_the_corpus(domain, case):
    header, events = _log(case)
    seed_length = header.get("seedLength")
    # The runtime folds with `header.seedLength ?? 0`: null and absent are 0.
    folded = domain.call("foldScheduleEvents", events, 0 if seed_length is None else seed_length)
    if case["verdict"] == "corrupt":
        assert folded == Thrown("ScheduleLogError", "corrupt_schedule_log", case["diagnostic"])
        return
    assert not isinstance(folded, Thrown), folded
    now = _cases()["nowMs"]
    views = [domain.call("scheduleView", record, now) for record in folded["active"]]
    assert views == case["state"]
    assert folded["seenIds"] == case["seenIds"]


DECODER_CASES = [
    (
        {"version": "1", "operation": "delete", "id": "schedule-1"},
        "schedule/change version must be 1",
    ),
    ({"version": 2, "operation": "bogus"}, "schedule/change version must be 1"),
    (
        {"version": 1, "operation": "delete", "id": "schedule-1", "extra": 0},
        "schedule delete must contain exactly version, operation, and id",
    ),
    (
        {"version": 1, "operation": "dispatch", "id": "schedule-1", "x": 1},
        "schedule dispatch must contain id and optional acceptedAt only",
    ),
    (
        {"version": 1, "operation": "dispatch", "id": "s", "acceptedAt": "2026-01-01T00:00:00Z"},
        "scheduledAt must be a canonical four-digit-year RFC 3339 UTC instant",
    ),
    (
        {
            "version": 1,
            "operation": "create",
            "schedule": {
                "id": "schedule-1",
                "kind": "every",
                "prompt": "p",
                "everySeconds": 9007199254741,
                "scheduledAt": "2026-01-01T00:05:00.000Z",
            },
        },
        "everySeconds must be a safe integer of at least 300",
    ),
    (
        {
            "version": 1,
            "operation": "create",
            "schedule": {
                "id": "schedule-1",
                "kind": "after",
                "prompt": "\ufeffx",
                "afterSeconds": 5,
                "scheduledAt": "2026-01-01T00:00:05.000Z",
            },
        },
        "after prompt must be non-empty and already trimmed",
    ),
    (
        {
            "version": 1,
            "operation": "create",
            "schedule": {
                "id": "schedule-1",
                "kind": "at",
                "prompt": "p",
                "scheduledAt": "2026-02-30T00:00:00.000Z",
            },
        },
        "scheduledAt is not a real UTC calendar instant",
    ),
    (
        {"version": 1, "operation": "create", "schedule": {"id": "s", "kind": "cron"}},
        'v1 schedule kind must be "after", "at", or "every"',
    ),
]


@pytest.mark.parametrize(("payload", "message"), DECODER_CASES)
def test_decoder_messages_match_the_notes(domain, payload, message):
    assert domain.call("decodeScheduleChange", payload) == Thrown(
        "ScheduleLogError", "corrupt_schedule_log", message
    )


@pytest.mark.parametrize(
    "payload",
    [
        {"version": 1.0, "operation": "delete", "id": "catalog-after"},
        {
            "version": 1,
            "operation": "create",
            "schedule": {
                "id": "schedule-1",
                "kind": "every",
                "prompt": "x\u001c",
                "everySeconds": 9007199254740,
                "scheduledAt": "2026-01-01T00:05:00.000Z",
            },
        },
    ],
)
def test_decoder_accepts_edge_values(domain, payload):
    assert not isinstance(domain.call("decodeScheduleChange", payload), Thrown)
