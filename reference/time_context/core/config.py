"""Load-time configuration of time-context: validation and zone resolution.

Two optional keys, checked in this order (the first failure wins):

1. ``refreshIntervalMs``: absent (or ``None``, which YAML and the JavaScript
   schema layer treat as absent) or a non-negative safe integer. An integral
   float such as ``60000.0`` is the number 60000; a bool is not a number.
2. ``timeZone``: absent (``None`` likewise) or an IANA zone key of the pinned
   ``tzdata`` release. Keys match case-insensitively, as ``Intl`` matches them,
   and the reading's ``[Zone]`` label is the key's canonical spelling
   (``asia/shanghai`` -> ``Asia/Shanghai``). Links are not resolved: a
   configured ``Asia/Kolkata`` stays ``Asia/Kolkata``.

When ``timeZone`` is absent the *process zone* is resolved once, at load, by
:func:`resolve_process_zone_key` (see there). Errors carry the protocol's exact
messages.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final
from zoneinfo import ZoneInfo

from pytest_dsh.contract.tzdb import pinned_zone, pinned_zone_keys

from .js_values import is_safe_integer, js_json_text, js_string

__all__ = [
    "SYSTEM_ZONE_MESSAGE",
    "TimeContextConfigError",
    "TimeContextSettings",
    "canonical_zone_key",
    "invalid_interval_message",
    "invalid_zone_message",
    "parse_config",
    "resolve_process_zone_key",
    "validate_refresh_interval",
    "validate_time_zone",
]

SYSTEM_ZONE_MESSAGE: Final = "time-context: failed to resolve the system time zone"

_ZONEINFO_DIR: Final = "/zoneinfo/"


class TimeContextConfigError(ValueError):
    """The configuration is refused; ``str(error)`` is the protocol message."""


@dataclass(frozen=True, slots=True)
class TimeContextSettings:
    """A validated configuration: the display zone and the refresh interval.

    ``zone_key`` is the label printed in brackets; ``refresh_interval_ms`` is 0
    when every eligible attempt should inject.
    """

    zone_key: str
    refresh_interval_ms: int

    @property
    def zone(self) -> ZoneInfo:
        return pinned_zone(self.zone_key)


def invalid_interval_message(value: object) -> str:
    return (
        "time-context: refreshIntervalMs must be a non-negative safe integer, "
        f"got {js_string(value)}"
    )


def invalid_zone_message(value: object) -> str:
    return f"time-context: invalid IANA timeZone {js_json_text(value)}"


@functools.cache
def _keys_by_folded_name() -> dict[str, str]:
    return {key.casefold(): key for key in pinned_zone_keys()}


def canonical_zone_key(name: str) -> str | None:
    """The pinned zone key that ``name`` names, case-insensitively, or ``None``."""
    if not name.isascii():
        return None
    return _keys_by_folded_name().get(name.casefold())


def validate_refresh_interval(value: object) -> int:
    """``refreshIntervalMs`` as an int (0 when absent); raises on anything else."""
    if value is None:
        return 0
    if not is_safe_integer(value) or value < 0:
        raise TimeContextConfigError(invalid_interval_message(value))
    return int(value)


def validate_time_zone(value: object) -> str:
    """The canonical pinned key of an explicit ``timeZone``; raises when unknown."""
    key = canonical_zone_key(value) if isinstance(value, str) else None
    if key is None:
        raise TimeContextConfigError(invalid_zone_message(value))
    return key


def resolve_process_zone_key(tz: str | None, localtime_target: str | None) -> str:
    """The process zone, as a pinned key, from what the operating system says.

    * ``tz`` is the ``TZ`` environment variable (``None`` when unset). When set,
      it wins: a leading ``:`` is dropped and the rest must name a pinned zone
      (case-insensitively), otherwise :data:`SYSTEM_ZONE_MESSAGE` is raised. An
      empty ``TZ`` means UTC, as POSIX specifies.
    * Without ``TZ``, ``localtime_target`` is the target of the
      ``/etc/localtime`` symlink (``None`` when it is not a symlink); the part
      after ``/zoneinfo/`` (without a ``posix/`` or ``right/`` prefix) is used
      when it is a pinned key.
    * Otherwise the zone is ``UTC``.
    """
    if tz is not None:
        name = tz.removeprefix(":")
        if not name:
            return "UTC"
        key = canonical_zone_key(name)
        if key is None:
            raise TimeContextConfigError(SYSTEM_ZONE_MESSAGE)
        return key
    if localtime_target is not None and _ZONEINFO_DIR in localtime_target:
        name = localtime_target.rsplit(_ZONEINFO_DIR, 1)[1]
        for prefix in ("posix/", "right/"):
            name = name.removeprefix(prefix)
        if name in pinned_zone_keys():
            return name
    return "UTC"


def parse_config(
    config: Mapping[str, object], *, process_zone: Callable[[], str]
) -> TimeContextSettings:
    """Validate ``config`` (interval first, then zone).

    ``process_zone`` is called only when ``timeZone`` is absent; it returns the
    process zone key or raises :class:`TimeContextConfigError`.
    """
    interval = validate_refresh_interval(config.get("refreshIntervalMs"))
    zone_value = config.get("timeZone")
    zone_key = process_zone() if zone_value is None else validate_time_zone(zone_value)
    try:
        pinned_zone(zone_key)  # the zone's rules are resolved once, here, at load
    except LookupError as exc:
        message = SYSTEM_ZONE_MESSAGE if zone_value is None else invalid_zone_message(zone_value)
        raise TimeContextConfigError(message) from exc
    return TimeContextSettings(zone_key=zone_key, refresh_interval_ms=interval)
