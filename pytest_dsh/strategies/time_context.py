"""Hypothesis strategies for testing a dsh-time-context implementation.

* :func:`instants` - wall-clock instants in epoch milliseconds;
* :func:`pinned_zone_keys` - every zone key of the pinned ``tzdata`` release;
* :func:`host_neutral_zone_keys` - zones whose IANA name, offsets since 2000 and
  ``Intl``/ICU canonical name agree across current tz releases, for checks that
  must also hold for hosts with their own time-zone data;
* :func:`refresh_intervals` / :func:`invalid_refresh_intervals` - values of
  ``refreshIntervalMs`` that must load, and that must be refused;
* :func:`time_context_configs` - whole valid configurations.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from pytest_dsh.contract.tzdb import pinned_zone_keys as _pinned_zone_keys

__all__ = [
    "HOST_NEUTRAL_ZONES",
    "MAX_SAFE_INTEGER",
    "host_neutral_zone_keys",
    "instants",
    "invalid_refresh_intervals",
    "pinned_zone_keys",
    "refresh_intervals",
    "time_context_configs",
]

MAX_SAFE_INTEGER = 2**53 - 1

#: 2000-01-01T00:00:00.000Z and 2037-12-31T23:59:59.999Z.
_Y2000_MS = 946_684_800_000
_Y2038_MS = 2_145_916_800_000

#: Zones with a stable modern history whose ICU canonical id is the IANA name
#: (``Asia/Kolkata``/``Asia/Kathmandu`` are left out: ICU labels them
#: ``Asia/Calcutta``/``Asia/Katmandu``). Offsets cover -11:00 to +14:00,
#: half and quarter hours, southern-hemisphere and negative DST.
HOST_NEUTRAL_ZONES: tuple[str, ...] = (
    "UTC",
    "Africa/Johannesburg",
    "Africa/Nairobi",
    "America/Anchorage",
    "America/Chicago",
    "America/Denver",
    "America/Halifax",
    "America/Los_Angeles",
    "America/New_York",
    "America/Noronha",
    "America/Phoenix",
    "America/St_Johns",
    "Asia/Dubai",
    "Asia/Hong_Kong",
    "Asia/Seoul",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Atlantic/Azores",
    "Australia/Adelaide",
    "Australia/Perth",
    "Australia/Sydney",
    "Europe/Berlin",
    "Europe/Dublin",
    "Europe/London",
    "Europe/Paris",
    "Pacific/Auckland",
    "Pacific/Chatham",
    "Pacific/Honolulu",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
)


def instants(*, min_ms: int = _Y2000_MS, max_ms: int = _Y2038_MS - 1) -> st.SearchStrategy[int]:
    """Epoch milliseconds in ``[min_ms, max_ms]``, sub-second parts included."""
    return st.integers(min_value=min_ms, max_value=max_ms)


def pinned_zone_keys() -> st.SearchStrategy[str]:
    """Any key (canonical zone or link) of the pinned ``tzdata`` release."""
    return st.sampled_from(sorted(_pinned_zone_keys()))


def host_neutral_zone_keys() -> st.SearchStrategy[str]:
    """A zone from :data:`HOST_NEUTRAL_ZONES`; pair it with :func:`instants`' default range."""
    return st.sampled_from(HOST_NEUTRAL_ZONES)


def refresh_intervals(*, max_ms: int = MAX_SAFE_INTEGER) -> st.SearchStrategy[int]:
    """Valid ``refreshIntervalMs`` values: 0 (every attempt) or a positive safe integer."""
    return st.one_of(
        st.just(0),
        st.integers(min_value=1, max_value=min(max_ms, MAX_SAFE_INTEGER)),
    )


def invalid_refresh_intervals() -> st.SearchStrategy[float | int]:
    """Numbers ``refreshIntervalMs`` must refuse: negative, fractional, unsafe or non-finite."""
    return st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=MAX_SAFE_INTEGER + 1, max_value=2**64),
        st.floats(allow_nan=True, allow_infinity=True).filter(
            lambda x: not (math.isfinite(x) and x.is_integer() and 0 <= x <= MAX_SAFE_INTEGER)
        ),
    )


def time_context_configs(
    *, zones: st.SearchStrategy[str] | None = None, max_interval_ms: int = 86_400_000
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid configurations with an explicit ``timeZone`` (an omitted one would
    depend on the machine) and a present or omitted ``refreshIntervalMs``."""
    zone_keys = zones if zones is not None else host_neutral_zone_keys()
    return st.fixed_dictionaries(
        {"timeZone": zone_keys},
        optional={"refreshIntervalMs": refresh_intervals(max_ms=max_interval_ms)},
    )
