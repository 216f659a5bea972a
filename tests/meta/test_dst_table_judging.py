"""The DST replay's quick agreement never hides a disagreement.

``dsh_conformance.dst.table_judging.agrees`` settles most creates of a table
replay without the full judgement's walks. It must be a sufficient condition
only: whenever it says a create agrees, the full judgement (which alone words
failures) finds nothing at either level; its helpers answer as the layout-free
helpers they shortcut. A replay over a driver that answers wrong still names
each case's zone, local time and the expected against the observed value.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_conformance.dst import test_dst_tables as replay
from dsh_conformance.dst.table_judging import (
    Problems,
    TableCase,
    agrees,
    holds_text,
    judge_in_full,
    no_closed_code,
    table_cases,
)
from dsh_conformance.layout_free import CLOSED_CODES, closed_codes_in
from dsh_conformance.schedule.tool_values import epoch_ms, instants_in
from pytest_dsh.driving.tool_outcomes import ToolOutcome

ZONE = "Africa/Algiers"
TEXT = "1971-04-25T22:59:59.999Z"
ROW = {
    "zone": ZONE, "kind": "gap",
    "before": {"date": "1971-04-25", "time": "22:59:59.999", "scheduledAt": TEXT},
    "inside": {"date": "1971-04-25", "time": "23:30:00", "code": "invalid_rule"},
    "after": {"date": "1971-04-26", "time": "00:00:00", "scheduledAt": "1971-04-25T23:00:00.000Z"},
}
BEFORE, INSIDE, AFTER = table_cases([ROW])

#: Strings a value may hold: the expected instant in several spellings, other
#: instants, closed codes and plain words.
_STRINGS = st.sampled_from([
    TEXT, "1971-04-25T22:59:59.999+00:00", "1971-04-25T22:59:59.9990Z", "1971-04-25T23:00:00Z",
    "1971-04-25T22:59:59.998Z", "schedule-1", "dst", "scheduled", "invalid_rule", "not_future",
    "schedule_not_found", "code", "scheduledAt", "schedule",
]) | st.text(max_size=4)
_KEYS = st.sampled_from(["id", "code", "scheduledAt", "schedule", "prompt", "invalid_rule"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _STRINGS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=8,
)
_OBJECTS = st.dictionaries(_KEYS, _JSON, max_size=5)
#: Values and changes near the official answers, so that many of them agree.
_NEAR_TEXTS = st.sampled_from([TEXT, "1971-04-25T22:59:59.999+00:00", "1971-04-25T23:00:00Z"])
_NEAR_CODES = st.sampled_from(["invalid_rule", "not_future", "odd"])
_NEAR_VALUES = st.fixed_dictionaries(
    {"scheduledAt": _NEAR_TEXTS}, optional={"id": _JSON, "state": _NEAR_CODES, "code": _JSON}
) | st.fixed_dictionaries({"code": _NEAR_CODES}, optional={"message": _JSON, "id": _JSON})
_NEAR_CHANGES = st.fixed_dictionaries(
    {"schedule": st.fixed_dictionaries({"scheduledAt": _NEAR_TEXTS}, optional={"id": _JSON})},
    optional={"version": _JSON, "operation": _JSON},
) | st.fixed_dictionaries({"record": st.lists(_NEAR_TEXTS, max_size=2)})


def _full(case: TableCase, value: Any, changes: list[Any]) -> Problems:
    problems = Problems([], [])
    judge_in_full(ZONE, case, value, changes, problems)
    return problems


@given(_JSON)
def test_no_closed_code_answers_as_the_layout_free_walk(value: Any) -> None:
    assert no_closed_code(value) == (not closed_codes_in(value))


@given(_JSON)
def test_holding_the_text_means_holding_its_instant(change: Any) -> None:
    if holds_text(change, TEXT):
        assert epoch_ms(TEXT) in instants_in(change)


@settings(max_examples=200)
@given(_NEAR_VALUES | _OBJECTS | _JSON, st.lists(_NEAR_CHANGES | _OBJECTS | _JSON, max_size=3),
       st.sampled_from([BEFORE, INSIDE]))
def test_an_agreeing_create_has_no_problem_at_either_level(
    value: Any, changes: list[Any], case: TableCase
) -> None:
    if agrees(case, value, changes):
        assert _full(case, value, changes) == Problems([], [])


@pytest.mark.parametrize(
    "text", [TEXT, "1971-04-25T22:59:59.999+00:00", "1971-04-25T22:59:59.9990Z"])
@pytest.mark.parametrize("place", ["official", "elsewhere"])
def test_the_instant_may_sit_anywhere_in_any_spelling(text: str, place: str) -> None:
    value = {"id": "schedule-1", "scheduledAt": TEXT}
    change = ({"schedule": {"scheduledAt": text}} if place == "official"
              else {"record": [{"at": {"utc": text}}]})
    assert _full(BEFORE, value, [change]) == Problems([], [])
    # Only the official text is settled quickly; the full judgement accepts the others.
    assert agrees(BEFORE, value, [change]) == (text == TEXT)


_VALUE = {"id": "schedule-1", "kind": "at", "prompt": "dst", "scheduledAt": TEXT,
          "state": "scheduled", "deliveryMode": "session-local"}
_CHANGE = {"version": 1, "operation": "create",
           "schedule": {"id": "schedule-1", "kind": "at", "prompt": "dst", "scheduledAt": TEXT}}
_GAP_VALUE = {"code": "invalid_rule", "message": "..."}


def test_the_official_answers_are_settled_quickly() -> None:
    assert agrees(BEFORE, _VALUE, [_CHANGE])
    assert agrees(INSIDE, _GAP_VALUE, [])


#: One step from an official answer, each wrong at one level at least.
NEAR_MISSES = {
    "gap-with-an-append": (INSIDE, _GAP_VALUE, [{"operation": "create"}]),
    "gap-with-another-code": (INSIDE, {"code": "not_future"}, []),
    "gap-accepted": (INSIDE, _VALUE, [_CHANGE]),
    "two-appends": (BEFORE, _VALUE, [_CHANGE, _CHANGE]),
    "no-append": (BEFORE, _VALUE, []),
    "a-code-in-the-value": (BEFORE, {**_VALUE, "state": "not_future"}, [_CHANGE]),
    "a-code-as-a-key": (BEFORE, {**_VALUE, "invalid_rule": True}, [_CHANGE]),
    "a-nested-code": (BEFORE, {**_VALUE, "note": ["internal_error"]}, [_CHANGE]),
    "another-instant-appended": (
        BEFORE, _VALUE, [{"schedule": {"scheduledAt": "1971-04-25T22:59:59.998Z"}}]),
    "the-text-only-as-a-key": (BEFORE, _VALUE, [{"schedule": {TEXT: 1}}]),
    "another-spelling-in-the-value": (
        BEFORE, {**_VALUE, "scheduledAt": "1971-04-25T22:59:59.999+00:00"}, [_CHANGE]),
    "a-host-error": (BEFORE, {"host_error": "boom"}, []),
}


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_a_near_miss_is_judged_in_full_and_fails(name: str) -> None:
    case, value, changes = NEAR_MISSES[name]
    assert not agrees(case, value, changes)
    assert _full(case, value, changes) != Problems([], [])


def test_each_disagreement_names_the_case_and_what_was_expected_and_observed() -> None:
    got = "1971-04-25T23:59:59.999Z"
    resolved = _full(BEFORE, {"scheduledAt": got}, [{"schedule": {"scheduledAt": got}}])
    label = "Africa/Algiers 1971-04-25T22:59:59.999 (gap before)"
    assert resolved.readme == [f"{label}: expected the create record to contain {TEXT}, got {got}"]
    assert resolved.pinned == [f"{label}: expected scheduledAt {TEXT}, got {got}"]
    gap = _full(INSIDE, {"code": "not_future"}, [{"schedule": {}}])
    label = "Africa/Algiers 1971-04-25T23:30:00 (gap inside)"
    assert gap.readme == [f"{label}: expected a rejection with a closed code and nothing "
                          "appended (gap), got not_future and 1 appended changes"]
    assert gap.pinned == [f"{label}: expected invalid_rule (gap), got not_future"]


def test_a_gap_case_must_carry_a_closed_code() -> None:
    assert "invalid_rule" in CLOSED_CODES
    broken = {**ROW, "inside": {"date": "1971-04-25", "time": "23:30:00", "code": "odd"}}
    try:
        table_cases([broken])
    except ValueError as exc:
        assert "closed code" in str(exc)
    else:
        raise AssertionError("a gap case without a closed code was accepted")


class _Agent:
    """Accepts every create at one fixed instant (right for none of ROW's cases but one)."""

    def __init__(self) -> None:
        self.log: list[dict[str, Any]] = []

    def call_tool(self, name: str, arguments: Any) -> ToolOutcome:
        value = {"id": "schedule-1", "scheduledAt": "1971-04-25T23:00:00.000Z"}
        self.log.append({"type": "schedule/change", "data": {"schedule": dict(value)}})
        return ToolOutcome(is_error=False, value=value, text="")

    def events(self, start: int = 0) -> list[dict[str, Any]]:
        return self.log[start:]


class _Host:
    def load_plugin(self, name: str) -> None:
        assert name == "schedule"

    def create_agent(self) -> _Agent:
        return _Agent()


def test_a_replay_reports_every_wrong_case_by_zone_and_local_time() -> None:
    problems = replay._replay(lambda start_ms: _Host(), ZONE, [BEFORE, INSIDE, AFTER])
    assert problems.readme == [
        f"Africa/Algiers 1971-04-25T22:59:59.999 (gap before): expected the create record to "
        f"contain {TEXT}, got 1971-04-25T23:00:00.000Z",
        "Africa/Algiers 1971-04-25T23:30:00 (gap inside): expected a rejection with a closed "
        "code and nothing appended (gap), got {'id': 'schedule-1', 'scheduledAt': "
        "'1971-04-25T23:00:00.000Z'} and 1 appended changes",
    ]
    assert len(problems.pinned) == 2
