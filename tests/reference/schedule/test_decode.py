"""decode_schedule_change: exact messages and first-failure-wins order (notes §2.3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_reference.schedule.core import (
    ScheduleLogError,
    decode_schedule_change,
    js_trim,
    to_js_json,
)

AT = "2026-01-01T00:01:30.000Z"


def after(**overrides):
    record = {"id": "schedule-1", "kind": "after", "prompt": "p", "afterSeconds": 90}
    record["scheduledAt"] = AT
    record.update(overrides)
    return record


def at_record(**overrides):
    record = {"id": "schedule-1", "kind": "at", "prompt": "p", "scheduledAt": AT}
    record.update(overrides)
    return record


def every(**overrides):
    record = {"id": "schedule-1", "kind": "every", "prompt": "p", "everySeconds": 300}
    record["scheduledAt"] = AT
    record.update(overrides)
    return record


def create(record, **extra):
    return {"version": 1, "operation": "create", "schedule": record, **extra}


def dispatch(**fields):
    return {"version": 1, "operation": "dispatch", "id": "schedule-1", **fields}


def without(record, key):
    return {name: value for name, value in record.items() if name != key}


def message_of(value):
    with pytest.raises(ScheduleLogError) as caught:
        decode_schedule_change(value)
    assert caught.value.code == "corrupt_schedule_log"
    return caught.value.message


PAYLOAD = "schedule/change payload must be an object"
VERSION = "schedule/change version must be 1"
OPERATION = "schedule/change operation must be create, delete, or dispatch"
CREATE_KEYS = "schedule create must contain exactly version, operation, and schedule"
DELETE_KEYS = "schedule delete must contain exactly version, operation, and id"
DISPATCH_KEYS = "schedule dispatch must contain id and optional acceptedAt only"
RECORD = "schedule record must be an object"
KIND = 'v1 schedule kind must be "after", "at", or "every"'
AFTER_KEYS = "after schedule must contain exactly id, kind, prompt, afterSeconds, and scheduledAt"
AT_KEYS = "at schedule must contain exactly id, kind, prompt, and scheduledAt"
EVERY_KEYS = "every schedule must contain exactly id, kind, prompt, everySeconds, and scheduledAt"
AFTER_PROMPT = "after prompt must be non-empty and already trimmed"
AT_PROMPT = "at prompt must be non-empty and already trimmed"
EVERY_PROMPT = "every prompt must be non-empty and already trimmed"
AFTER_SECONDS = "afterSeconds must be a positive safe integer"
EVERY_SECONDS = "everySeconds must be a safe integer of at least 300"
ID = "schedule id must be a non-empty string without surrounding whitespace"
CANONICAL = "scheduledAt must be a canonical four-digit-year RFC 3339 UTC instant"
NOT_REAL = "scheduledAt is not a real UTC calendar instant"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, PAYLOAD),
        ([], PAYLOAD),
        ("create", PAYLOAD),
        (1, PAYLOAD),
        ({"version": "1", "operation": "delete", "id": "x"}, VERSION),
        ({"version": True, "operation": "delete", "id": "x"}, VERSION),
        ({"version": 2, "operation": "delete", "id": "x"}, VERSION),
        ({"version": 1.5, "operation": "delete", "id": "x"}, VERSION),
        ({"operation": "delete", "id": "x"}, VERSION),
        ({"version": 2, "operation": "bogus"}, VERSION),
        ({"version": 1, "operation": "bogus"}, OPERATION),
        ({"version": 1}, OPERATION),
        ({"version": 1, "operation": "Create", "schedule": after()}, OPERATION),
        (create(after(), extra=1), CREATE_KEYS),
        ({"version": 1, "operation": "create"}, CREATE_KEYS),
        (create("not-an-object", extra=1), CREATE_KEYS),
        ({"version": 1, "operation": "delete", "id": "x", "extra": 1}, DELETE_KEYS),
        ({"version": 1, "operation": "delete"}, DELETE_KEYS),
        (dispatch(extra=1), DISPATCH_KEYS),
        (dispatch(acceptedAt=AT, extra=1), DISPATCH_KEYS),
        ({"version": 1, "operation": "dispatch"}, DISPATCH_KEYS),
        (create(None), RECORD),
        (create(["after"]), RECORD),
        (create({"id": "x", "kind": "cron"}), KIND),
        (create(without(after(), "kind")), KIND),
        (create(after(extra=1)), AFTER_KEYS),
        (create(without(after(), "afterSeconds")), AFTER_KEYS),
        (create(without(at_record(), "scheduledAt")), AT_KEYS),
        (create(at_record(afterSeconds=90)), AT_KEYS),
        (create(every(extra=1)), EVERY_KEYS),
        (create(after(prompt=" p")), AFTER_PROMPT),
        (create(after(prompt="")), AFTER_PROMPT),
        (create(after(prompt=5)), AFTER_PROMPT),
        (create(after(prompt="\ufeffx")), AFTER_PROMPT),
        (create(at_record(prompt="p\n")), AT_PROMPT),
        (create(every(prompt="\u3000p")), EVERY_PROMPT),
        (create(after(afterSeconds=0)), AFTER_SECONDS),
        (create(after(afterSeconds=-1)), AFTER_SECONDS),
        (create(after(afterSeconds=1.5)), AFTER_SECONDS),
        (create(after(afterSeconds=True)), AFTER_SECONDS),
        (create(after(afterSeconds="90")), AFTER_SECONDS),
        (create(after(afterSeconds=2**53)), AFTER_SECONDS),
        (create(every(everySeconds=299)), EVERY_SECONDS),
        (create(every(everySeconds=299.5)), EVERY_SECONDS),
        (create(every(everySeconds=300.5)), EVERY_SECONDS),
        (create(every(everySeconds=True)), EVERY_SECONDS),
        (create(every(everySeconds=9007199254741)), EVERY_SECONDS),
        (create(after(id=" x")), ID),
        (create(after(id="")), ID),
        (create(after(id=5)), ID),
        (create(at_record(id="x\n")), ID),
        (create(every(id="\ufeffx")), ID),
        ({"version": 1, "operation": "delete", "id": "\tx"}, ID),
        (dispatch(id=""), ID),
        (create(after(scheduledAt="2026-02-30T00:00:00.000Z")), NOT_REAL),
        (create(after(scheduledAt="2025-02-29T00:00:00.000Z")), NOT_REAL),
        (create(at_record(scheduledAt="2026-04-31T00:00:00.000Z")), NOT_REAL),
        (create(after(scheduledAt="2026-01-01T00:00:00Z")), CANONICAL),
        (create(after(scheduledAt="0000-01-01T00:00:00.000Z")), CANONICAL),
        (create(after(scheduledAt="2026-01-01T00:00:00.000+00:00")), CANONICAL),
        (create(every(scheduledAt="2026-01-01T00:00:00.000z")), CANONICAL),
        (create(at_record(scheduledAt=1767225600000)), CANONICAL),
        (dispatch(acceptedAt="2026-01-01T00:00:00Z"), CANONICAL),
        (dispatch(acceptedAt="2026-02-30T00:00:00.000Z"), NOT_REAL),
        (dispatch(acceptedAt=None), CANONICAL),
    ],
)
def test_each_rule_reports_its_exact_message(value, message):
    assert message_of(value) == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (create(after(extra=1, prompt="")), AFTER_KEYS),
        (create(after(prompt="", afterSeconds=0)), AFTER_PROMPT),
        (create(after(afterSeconds=0, id="")), AFTER_SECONDS),
        (create(after(id="", scheduledAt="bad")), ID),
        (create(at_record(prompt="", id="")), AT_PROMPT),
        (create(every(prompt=" ", everySeconds=1)), EVERY_PROMPT),
        (create(every(everySeconds=1, id="")), EVERY_SECONDS),
        (dispatch(id="", acceptedAt="bad"), ID),
        ({"version": "1", "operation": "bogus", "extra": 1}, VERSION),
    ],
)
def test_the_first_failing_rule_wins(value, message):
    assert message_of(value) == message


@pytest.mark.parametrize("version", [1, 1.0])
def test_version_one_is_accepted_as_an_integral_number(version):
    decoded = decode_schedule_change({"version": version, "operation": "delete", "id": "x"})
    assert decoded == {"version": 1, "operation": "delete", "id": "x"}
    assert type(decoded["version"]) is int


@pytest.mark.parametrize("schedule_id", ["catalog-after", "x\u0085", "a b", "Schedule-1"])
def test_any_trimmed_non_empty_id_is_accepted(schedule_id):
    assert decode_schedule_change(dispatch(id=schedule_id))["id"] == schedule_id


def test_prompt_ending_in_a_character_javascript_does_not_trim_is_already_trimmed():
    decoded = decode_schedule_change(create(after(prompt="x\u001c")))
    assert decoded["schedule"]["prompt"] == "x\u001c"


def test_largest_every_interval_whose_milliseconds_stay_safe_is_accepted():
    decoded = decode_schedule_change(create(every(everySeconds=9007199254740)))
    assert decoded["schedule"]["everySeconds"] == 9007199254740


def test_integral_float_seconds_decode_as_integers():
    decoded = decode_schedule_change(create(every(everySeconds=300.0)))
    assert decoded["schedule"]["everySeconds"] == 300
    assert type(decoded["schedule"]["everySeconds"]) is int


def test_create_is_rebuilt_in_canonical_key_order():
    stored = {
        "schedule": {
            "scheduledAt": AT,
            "afterSeconds": 90,
            "prompt": "p",
            "kind": "after",
            "id": "schedule-1",
        },
        "operation": "create",
        "version": 1,
    }
    assert to_js_json(decode_schedule_change(stored)) == (
        '{"version":1,"operation":"create","schedule":{"id":"schedule-1","kind":"after",'
        '"prompt":"p","afterSeconds":90,"scheduledAt":"2026-01-01T00:01:30.000Z"}}'
    )


def test_every_dispatch_is_rebuilt_in_canonical_key_order():
    stored = {"acceptedAt": AT, "id": "schedule-1", "operation": "dispatch", "version": 1}
    assert to_js_json(decode_schedule_change(stored)) == (
        '{"version":1,"operation":"dispatch","id":"schedule-1",'
        '"acceptedAt":"2026-01-01T00:01:30.000Z"}'
    )


def test_one_shot_dispatch_decodes_to_the_id_only():
    assert decode_schedule_change(dispatch()) == {
        "version": 1,
        "operation": "dispatch",
        "id": "schedule-1",
    }


def test_consistency_between_fields_is_not_checked():
    # afterSeconds need not agree with scheduledAt; every targets need not be aligned.
    decoded = decode_schedule_change(create(after(afterSeconds=1, scheduledAt=AT)))
    assert decoded["schedule"]["afterSeconds"] == 1


_TRIMMED_TEXT = st.text(min_size=1).filter(lambda text: js_trim(text) == text and text != "")
_INSTANTS = st.sampled_from(
    ["0001-01-01T00:00:00.000Z", "2026-01-01T00:01:30.000Z", "9999-12-31T23:59:59.999Z"]
)
_CANONICAL_RECORDS = st.one_of(
    st.fixed_dictionaries(
        {
            "id": _TRIMMED_TEXT,
            "kind": st.just("after"),
            "prompt": _TRIMMED_TEXT,
            "afterSeconds": st.integers(1, 2**53 - 1),
            "scheduledAt": _INSTANTS,
        }
    ),
    st.fixed_dictionaries(
        {
            "id": _TRIMMED_TEXT,
            "kind": st.just("at"),
            "prompt": _TRIMMED_TEXT,
            "scheduledAt": _INSTANTS,
        }
    ),
    st.fixed_dictionaries(
        {
            "id": _TRIMMED_TEXT,
            "kind": st.just("every"),
            "prompt": _TRIMMED_TEXT,
            "everySeconds": st.integers(300, 9007199254740),
            "scheduledAt": _INSTANTS,
        }
    ),
)


_CANONICAL_ORDER = ("id", "kind", "prompt", "afterSeconds", "everySeconds", "scheduledAt")


@given(_CANONICAL_RECORDS)
def test_decoding_a_canonical_create_returns_it_unchanged(generated):
    record = {key: generated[key] for key in _CANONICAL_ORDER if key in generated}
    change = create(record)
    decoded = decode_schedule_change(change)
    assert decoded == change
    assert to_js_json(decoded) == to_js_json(change)
