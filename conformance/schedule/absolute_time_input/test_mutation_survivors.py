"""Behaviours mutation runs of the reference showed the suite did not yet pin
(docs/conformance-power.md): the exact ends of the four-digit-year range, in the
string and in the local form (where year 1 west of UTC needs the zone's local
mean time), and which idle transitions make the live owner recompute (pinned
detail SCH-IDLE-TRIGGER)."""

from __future__ import annotations

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import closed_codes_in
from dsh_conformance.schedule.session_logs import suite_instant

pytestmark = [pytest.mark.dsh_requires("schedule")]


def _create(agent, at):
    result = agent.call_tool("schedule_create", {"prompt": "Reminder", "at": at})
    assert result.is_error is False, readme(
        "SCH-039", "a domain failure to be a tool value, not a host error", result.error)
    return result.value


YEAR_ONE = pytest.mark.parametrize(
    "at", ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000+00:00"])


# The range is inclusive at both ends (official build: epoch < MIN or > MAX is
# out of range), so the first instant of year 1 is in range and merely past. The
# README lists both codes without saying which rejection gets which: readme level
# asks for a closed code, the compat twin (exact value) for not_future.
@pytest.mark.spec("SCH-026", "SCH-039")
@YEAR_ONE
def test_the_first_instant_of_year_one_is_not_future_rather_than_out_of_range(agent, at):
    value = _create(agent, at)
    assert len(closed_codes_in(value)) == 1, readme(
        "SCH-026, SCH-039", f"{at}, a past target, to be rejected with one closed code", value)


YEAR_ONE_MS = -62_135_596_800_000  # 0001-01-01T00:00:00.000Z, the first four-digit-year instant


# Detroit kept local mean time (-05:32:11) until 1905; in 9999 it is on -05:00.
# Ten minutes into year 1, some instants near this local time have a Detroit
# local time before year 1: reading the zone's offset there from the wrong end
# of its history gives -05:00 and a false, earlier match.
@pytest.mark.spec("SCH-025", "SCH-027")
def test_a_local_time_at_the_start_of_year_one_uses_the_zones_local_mean_time(
    dsh_host_factory,
):
    host = dsh_host_factory(start_ms=YEAR_ONE_MS)
    host.load_plugin("schedule")
    at = {"date": "0001-01-01", "time": "00:10:00", "time_zone": "America/Detroit"}
    value = _create(host.create_agent(), at)
    assert suite_instant(value.get("scheduledAt")) == "0001-01-01T05:42:11.000Z", readme(
        "SCH-025, SCH-027",
        f"{at}, read with Detroit's local mean time -05:32:11 in force in year 1, to be "
        "scheduledAt 0001-01-01T05:42:11.000Z", value)


# Zones on UTC in December 9999 (UTC itself and an Area/Location one) put this
# local time exactly on the last representable instant, which is in range.
@pytest.mark.spec("SCH-015", "SCH-025", "SCH-030")
@pytest.mark.parametrize("zone", ["UTC", "Africa/Abidjan"])
def test_the_last_local_millisecond_of_year_9999_on_utc_is_a_valid_target(agent, zone):
    at = {"date": "9999-12-31", "time": "23:59:59.999", "time_zone": zone}
    value = _create(agent, at)
    assert suite_instant(value.get("scheduledAt")) == "9999-12-31T23:59:59.999Z", readme(
        "SCH-015, SCH-025, SCH-030",
        f"{at}, the last four-digit-year instant, to be accepted as scheduledAt "
        "9999-12-31T23:59:59.999Z", value)
