"""The variant of ``opposite_values_impl.py`` really takes the other side.

``test_readme_level_accepts_other_values.py`` shows that the readme level
accepts the variant; that proof is empty unless the variant does accept what
the reference refuses (and the reverse) and answers in other shapes. These
checks drive both builds through the same fake-host calls, each in a process
of its own (importing the variant patches the reference where it is
imported), and compare what they observe.
"""

from __future__ import annotations

from typing import Any

import pytest

# The same calls for both builds; prints one JSON object of observations.
_PROBE = r"""
import importlib, json, sys
implementation = importlib.import_module(sys.argv[1]).IMPLEMENTATION
START = 1_767_225_600_000  # 2026-01-01T00:00:00Z
host = implementation.open_host(start_ms=START)
host.load_plugin("schedule")
agent = host.create_agent()

def call(name, arguments):
    outcome = agent.call_tool(name, arguments)
    assert not outcome.is_error, outcome
    return outcome.value

def local(zone):
    return {"date": "2026-07-01", "time": "12:00:00", "time_zone": zone}

seen = {}
seen["unknown_key"] = call("schedule_create", {"prompt": "a", "after_seconds": 60, "note": 1})
seen["minus_zero"] = call("schedule_create", {"prompt": "b", "at": "2026-01-02T08:30:00-00:00"})
seen["plus_24"] = call("schedule_create", {"prompt": "c", "at": "2026-01-02T08:30:00+24:00"})
seen["lower_zone"] = call("schedule_create", {"prompt": "d", "at": local("america/new_york")})
seen["exact_zone"] = call("schedule_create", {"prompt": "e", "at": local("America/New_York")})
seen["local_extra_key"] = call("schedule_create", {"prompt": "f", "at": {
    **local("UTC"), "offset": "+00:00"}})
seen["feff_prompt"] = call("schedule_create", {"prompt": "\ufeffh\x85", "after_seconds": 600})
created = call("schedule_create", {"prompt": "g", "after_seconds": 1})
seen["list"] = call("schedule_list", {})
seen["deleted"] = call("schedule_delete", {"id": seen["exact_zone"]["id"]})
seen["not_found"] = call("schedule_delete", {"id": "nope"})
host.advance(2)
seen["framings"] = [e["data"]["content"][0]["text"] for e in agent.events()
                    if e["type"] == "user/message" and "SCHEDULE REMINDER" in str(e["data"])]
seen["log_instants"] = [e["data"]["schedule"]["scheduledAt"] for e in agent.events()
                        if e["type"] == "schedule/change" and "schedule" in e["data"]]
for zone in ("asia/shanghai", "Asia/Shanghai"):
    try:
        implementation.open_host(start_ms=START).load_plugin("time-context", {"timeZone": zone})
        seen[f"tc_{zone}"] = "loaded"
    except Exception as exc:
        seen[f"tc_{zone}"] = type(exc).__name__
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def reference(variant_runs: Any) -> dict[str, Any]:
    return variant_runs.observe(_PROBE, "dsh_reference.implementation")


@pytest.fixture(scope="module")
def variant(variant_runs: Any) -> dict[str, Any]:
    return variant_runs.observe(_PROBE, "opposite_values_impl")


def test_unknown_create_keys_are_ignored_not_refused(reference, variant):
    assert reference["unknown_key"]["code"] == "invalid_selector"
    assert variant["unknown_key"]["afterSeconds"] == 60, variant["unknown_key"]


def test_minus_zero_is_read_as_utc_and_other_invalid_offsets_stay_invalid(reference, variant):
    assert reference["minus_zero"]["code"] == "invalid_rule"
    assert variant["minus_zero"]["scheduledAt"] == "2026-01-02T08:30:00.000+00:00"
    assert reference["plus_24"] == variant["plus_24"] and variant["plus_24"]["code"]


def test_prompts_are_trimmed_by_another_whitespace_set(reference, variant):
    assert reference["feff_prompt"]["prompt"] == "h\x85"
    assert variant["feff_prompt"]["prompt"] == "\ufeffh"


def test_zone_names_must_match_case_exactly(reference, variant):
    assert reference["lower_zone"]["scheduledAt"] == "2026-07-01T16:00:00.000Z"
    assert variant["lower_zone"]["code"] == "invalid_time_zone"
    assert variant["exact_zone"]["scheduledAt"] == "2026-07-01T16:00:00.000+00:00"
    assert variant["tc_asia/shanghai"] != "loaded" and reference["tc_asia/shanghai"] == "loaded"
    assert variant["tc_Asia/Shanghai"] == "loaded"


def test_what_the_readme_rejects_is_still_rejected(variant):
    assert variant["local_extra_key"]["code"] == "invalid_rule"  # "extra keys" of a local at


def test_an_actual_delete_has_another_shape_and_not_found_is_kept(reference, variant):
    assert reference["deleted"] == {"id": "schedule-2", "deleted": True}
    assert variant["deleted"] == {"id": variant["exact_zone"]["id"], "status": "deleted"}
    assert variant["not_found"] == reference["not_found"] == {
        "id": "nope", "deleted": False, "code": "schedule_not_found"}


def test_instants_in_values_and_framings_are_spelled_with_plus_zero(reference, variant):
    assert all(view["scheduledAt"].endswith("+00:00") for view in variant["list"])
    assert all(view["scheduledAt"].endswith("Z") for view in reference["list"])
    assert variant["framings"] and all("+00:00" in text for text in variant["framings"])
    assert all(text.endswith("Z") for text in variant["log_instants"])  # the log is unchanged
