"""schedule_view and tool result values, rendered as compact JSON (notes §5.2, §5.3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.js_semantics import to_js_json
from dsh_reference.schedule.core import (
    corrupt_log_result,
    delete_result,
    error_result,
    internal_error_result,
    persistence_uncertain_result,
    render_tool_value,
    schedule_view,
)

TARGET = 1_767_225_690_000  # 2026-01-01T00:01:30.000Z
AFTER = {
    "id": "schedule-1",
    "kind": "after",
    "prompt": "Stand up",
    "afterSeconds": 90,
    "scheduledAt": "2026-01-01T00:01:30.000Z",
}
AT = {
    "id": "schedule-3",
    "kind": "at",
    "prompt": "Call Bob",
    "scheduledAt": "2026-01-02T08:30:00.500Z",
}
EVERY = {
    "id": "schedule-2",
    "kind": "every",
    "prompt": "Check metrics",
    "everySeconds": 3600,
    "scheduledAt": "2026-01-01T00:01:30.000Z",
}


@pytest.mark.parametrize(
    ("now", "state"), [(TARGET - 1, "scheduled"), (TARGET, "overdue"), (TARGET + 10**9, "overdue")]
)
def test_state_is_overdue_from_the_target_onwards(now, state):
    assert schedule_view(AFTER, now)["state"] == state


@pytest.mark.parametrize(
    ("record", "text"),
    [
        (
            AFTER,
            '{"id":"schedule-1","kind":"after","prompt":"Stand up","afterSeconds":90,'
            '"scheduledAt":"2026-01-01T00:01:30.000Z","state":"scheduled",'
            '"deliveryMode":"session-local"}',
        ),
        (
            AT,
            '{"id":"schedule-3","kind":"at","prompt":"Call Bob",'
            '"scheduledAt":"2026-01-02T08:30:00.500Z","state":"scheduled",'
            '"deliveryMode":"session-local"}',
        ),
        (
            EVERY,
            '{"id":"schedule-2","kind":"every","prompt":"Check metrics","everySeconds":3600,'
            '"scheduledAt":"2026-01-01T00:01:30.000Z","state":"scheduled",'
            '"deliveryMode":"session-local"}',
        ),
    ],
)
def test_views_render_record_keys_then_state_and_delivery_mode(record, text):
    assert render_tool_value(schedule_view(record, TARGET - 1)) == text


def test_view_key_order_does_not_depend_on_the_records_key_order():
    shuffled = dict(reversed(list(AFTER.items())))
    assert list(schedule_view(shuffled, 0)) == [
        "id",
        "kind",
        "prompt",
        "afterSeconds",
        "scheduledAt",
        "state",
        "deliveryMode",
    ]


def test_an_empty_list_renders_as_an_empty_array():
    assert render_tool_value([]) == "[]"


def test_a_list_renders_views_in_the_given_order_without_spaces():
    views = [schedule_view(AT, TARGET), schedule_view(AFTER, TARGET)]
    assert render_tool_value(views).startswith('[{"id":"schedule-3",')
    assert '"state":"overdue","deliveryMode":"session-local"}]' in render_tool_value(views)


def test_non_ascii_prompts_render_literally():
    record = {**AT, "prompt": "Café 😀 </x>"}
    assert '"prompt":"Café 😀 </x>"' in render_tool_value(schedule_view(record, 0))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (
            internal_error_result(),
            '{"code":"internal_error","message":"The schedule operation failed."}',
        ),
        (
            corrupt_log_result(),
            '{"code":"corrupt_schedule_log","message":"The session schedule log is corrupt."}',
        ),
        (
            error_result("not_future", "The scheduled time must be strictly in the future."),
            '{"code":"not_future","message":"The scheduled time must be strictly in the future."}',
        ),
        (
            persistence_uncertain_result("list"),
            '{"code":"persistence_uncertain","message":"Schedule persistence is uncertain; retry'
            ' with schedule_list before relying on this result.","operation":"list"}',
        ),
        (
            persistence_uncertain_result("create", "schedule-4"),
            '{"code":"persistence_uncertain","message":"Schedule persistence is uncertain; retry'
            ' with schedule_list before relying on this result.","operation":"create",'
            '"id":"schedule-4"}',
        ),
        (delete_result("schedule-1", deleted=True), '{"id":"schedule-1","deleted":true}'),
        (
            delete_result("Schedule-1", deleted=False),
            '{"id":"Schedule-1","deleted":false,"code":"schedule_not_found"}',
        ),
    ],
)
def test_fixed_tool_values_render_exactly(value, text):
    assert render_tool_value(value) == text


# Flat values with ASCII text take json's C encoder; it must write what
# JSON.stringify (to_js_json) writes, escapes and integer edges included.
_ASCII = st.text(st.characters(max_codepoint=0x7F))
_TEXT = st.text(st.characters(exclude_categories=()))  # lone surrogates too
_MEMBERS = (_ASCII | _TEXT | st.integers(-(2**60), 2**60) | st.booleans() | st.none()
            | st.floats(allow_nan=True) | st.lists(st.integers(), max_size=2))


@given(st.dictionaries(_ASCII | _TEXT, _MEMBERS, max_size=8))
def test_rendering_a_flat_value_is_json_stringify(value):
    assert render_tool_value(value) == to_js_json(value)


@pytest.mark.parametrize(
    "text", ['"', "\\", "\b\f\n\r\t", "\x00\x01\x1f\x7f", "</x>", "\u2028", "\ud800", "a\udfff"]
)
def test_rendering_escapes_as_json_stringify(text):
    value = {"prompt": text, "n": 2**53 - 1, "m": -(2**53 - 1), "b": False, "z": None}
    assert render_tool_value(value) == to_js_json(value)
    assert render_tool_value({text: "key"}) == to_js_json({text: "key"})


@pytest.mark.parametrize("member", [60.0, 1e21, 1e-7, 2**53, -(2**53) - 1, ["x"], {"k": "v"}])
def test_rendering_numbers_and_nesting_as_json_stringify(member):
    value = {"id": "schedule-1", "value": member}
    assert render_tool_value(value) == to_js_json(value)
