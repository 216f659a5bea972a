"""The variant of ``relayout_impl.py`` really differs from the reference.

``test_readme_level_is_layout_free.py`` shows that the readme level accepts the
variant; that proof is empty unless the variant does differ in each pinned
detail. These checks drive both builds through the same fake-host calls, each
in a process of its own (importing the variant patches the reference where it
is imported), and compare what they observe.
"""

from __future__ import annotations

from typing import Any

import pytest

# The same calls for both builds; prints one JSON object of observations.
_PROBE = r"""
import importlib, json, sys
implementation = importlib.import_module(sys.argv[1]).IMPLEMENTATION
import dsh_reference.time_context.core.baselines as baselines
START = 1_767_225_600_000  # 2026-01-01T00:00:00Z
host = implementation.open_host(start_ms=START)
host.load_plugin("schedule")
host.load_plugin("schedule-invariant")
agent = host.create_agent()

def call(name, arguments, **options):
    outcome = agent.call_tool(name, arguments, **options)
    assert not outcome.is_error, outcome
    return outcome.value

def changes():
    return [e["data"] for e in agent.events() if e["type"] == "schedule/change"]

seen = {"tool_names": agent.tool_names()}
seen["after_view"] = call("schedule_create", {"prompt": " Stretch ", "after_seconds": 60})
seen["create_payload"] = changes()[-1]
seen["list"] = call("schedule_list", {})
seen["dst_gap"] = call("schedule_create", {"prompt": "x", "at": {
    "date": "2026-03-08", "time": "02:30:00", "time_zone": "America/New_York"}})
seen["padded_delete"] = call("schedule_delete", {"id": " a"})
seen["every_zero"] = call("schedule_create", {"prompt": "x", "every_seconds": 0})
seen["bad_at"] = call("schedule_create", {"prompt": "x", "at": "2026-01-02T00:00:00"})
seen["not_found"] = call("schedule_delete", {"id": "nope"})
before = len(changes())
seen["aborted"] = call("schedule_create", {"prompt": "x", "after_seconds": 60}, aborted=True)
seen["aborted_appended"] = len(changes()) - before
seen["deleted"] = call("schedule_delete", {"id": seen["after_view"]["id"]})
seen["delete_payload"] = changes()[-1]
host.advance(0)
every = call("schedule_create", {"prompt": "tick", "every_seconds": 300})
host.advance(301)
seen["every_dispatch"] = changes()[-1]

plain = implementation.open_host(start_ms=START)  # no invariant companion: it refuses the log
plain.load_plugin("schedule")
official = plain.create_agent(seed=[{"type": "schedule/change", "seq": 0, "time": START,
    "data": {"version": 1, "operation": "create", "schedule": {"id": "schedule-1",
    "kind": "after", "prompt": "Old", "afterSeconds": 60,
    "scheduledAt": "2026-01-01T00:01:00.000Z"}}}])
outcome = official.call_tool("schedule_list", {})
seen["official_log_list"] = outcome.value

seen["duration_3661s"] = baselines.format_duration(3_661_000)
tc = implementation.open_host(start_ms=START)
tc.load_plugin("time-context", {"timeZone": "Asia/Shanghai"})
reader = tc.create_agent()
reader.prompt("hello")
seen["reading"] = [e["data"]["content"][0]["text"] for e in reader.events()
                   if e["type"] == "user/message"
                   and e["data"].get("source", {}).get("kind") == "plugin"]
try:
    implementation.open_host(start_ms=START).load_plugin(
        "time-context", {"timeZone": "Not/A_Zone", "refreshIntervalMs": -1})
except Exception as exc:
    seen["load_error"] = str(exc)
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def reference(variant_runs: Any) -> dict[str, Any]:
    return variant_runs.observe(_PROBE, "dsh_reference.implementation")


@pytest.fixture(scope="module")
def variant(variant_runs: Any) -> dict[str, Any]:
    return variant_runs.observe(_PROBE, "relayout_impl")


def test_the_create_payload_has_another_layout(reference, variant):
    assert set(reference["create_payload"]) == {"version", "operation", "schedule"}
    payload = variant["create_payload"]
    assert not {"version", "operation", "schedule", "kind", "id", "prompt"} & set(payload), payload
    # what the README states is still there: the id, the trimmed prompt, scheduledAt
    view = variant["after_view"]
    assert {view["id"], "Stretch", view["scheduledAt"], 60} <= set(payload.values()), payload


def test_delete_and_dispatch_payloads_have_another_layout(reference, variant):
    assert reference["delete_payload"]["operation"] == "delete"
    assert "operation" not in variant["delete_payload"]
    assert "operation" not in variant["every_dispatch"]
    assert "acceptedAt" in variant["every_dispatch"]


def test_views_have_no_kind_and_other_field_names(reference, variant):
    assert reference["after_view"]["kind"] == "after"
    assert "kind" not in variant["after_view"] and "prompt" not in variant["after_view"]
    assert [list(item) for item in variant["list"]] != [list(item) for item in reference["list"]]
    assert variant["after_view"]["state"] == "scheduled"
    assert variant["after_view"]["deliveryMode"] == "session-local"


def test_tools_are_registered_in_another_order(reference, variant):
    assert reference["tool_names"] == ["schedule_create", "schedule_list", "schedule_delete"]
    assert variant["tool_names"] == ["schedule_delete", "schedule_list", "schedule_create"]


def test_ids_are_spelled_otherwise(reference, variant):
    assert reference["after_view"]["id"] == "schedule-1"
    assert variant["after_view"]["id"] == "r-1"


@pytest.mark.parametrize("case", ["dst_gap", "padded_delete", "every_zero", "bad_at"])
def test_rejections_get_other_closed_codes_in_other_fields(reference, variant, case):
    assert "code" in reference[case] and "code" not in variant[case], variant[case]
    assert variant[case]["error"] != reference[case]["code"], (reference[case], variant[case])


def test_the_stated_not_found_value_is_kept(reference, variant):
    assert variant["not_found"] == {"id": "nope", "deleted": False, "code": "schedule_not_found"}
    assert reference["not_found"] == variant["not_found"]


def test_an_aborted_call_gets_another_answer(reference, variant):
    assert reference["aborted"]["code"] == "internal_error"
    assert reference["aborted_appended"] == 0
    assert variant["aborted"]["text"] == "x" and variant["aborted_appended"] == 1


def test_the_official_layout_is_not_read(reference, variant):
    assert [view["id"] for view in reference["official_log_list"]] == ["schedule-1"]
    assert variant["official_log_list"] == {
        "error": "corrupt_schedule_log",
        "reason": "The reminders of this session cannot be read from its log.",
    }


def test_time_context_spells_readings_otherwise(reference, variant):
    elapsed = "\nElapsed since the preceding model-visible message: 0s."
    assert reference["reading"][0].endswith("+08:00[Asia/Shanghai]" + elapsed)
    assert variant["reading"][0].endswith("+08:00 (Asia/Shanghai)" + elapsed)
    assert reference["duration_3661s"] == "1h 1m 1s" and variant["duration_3661s"] == "1h1m1s"
    assert reference["load_error"] != variant["load_error"]
    assert "refreshIntervalMs" in reference["load_error"]
    assert "timeZone" in variant["load_error"]  # the variant checks the zone first
