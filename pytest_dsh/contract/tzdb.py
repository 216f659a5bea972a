"""Time-zone data from the pinned ``tzdata`` package, never from the machine.

``zoneinfo.ZoneInfo(key)`` searches the system ``TZPATH`` before the ``tzdata``
package, so results would depend on whatever the host ships. Everything in this
project that needs zone rules goes through :func:`pinned_zone`, which reads the
compiled zone file straight out of the installed ``tzdata`` distribution.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.resources
import re
from collections.abc import Callable, Iterator
from zoneinfo import ZoneInfo

__all__ = [
    "TZDATA_VERSION",
    "UnknownZoneError",
    "ZoneLookupError",
    "guarded_lookups",
    "pinned_zone",
    "pinned_zone_keys",
]

#: Version of the installed ``tzdata`` distribution (e.g. ``"2026.6"``), and the
#: IANA release it packages when the distribution records one.
TZDATA_VERSION: str = importlib.metadata.version("tzdata")

_KEY_SHAPE = re.compile(r"[A-Za-z0-9_+.-]+(?:/[A-Za-z0-9_+.-]+)*")


class UnknownZoneError(LookupError):
    """The key names no zone in the pinned ``tzdata`` package."""


class ZoneLookupError(LookupError):
    """The zone data could not be read (a host fault; see :func:`guarded_lookups`)."""


# Consulted before every lookup while a host loads a plugin (the fake host's
# zone-lookup fault); None otherwise.
_lookup_guard: Callable[[], None] | None = None


@contextlib.contextmanager
def guarded_lookups(guard: Callable[[], None]) -> Iterator[None]:
    """Call ``guard`` before each :func:`pinned_zone` lookup made inside the
    block; it raises :class:`ZoneLookupError` to fail that lookup."""
    global _lookup_guard
    previous, _lookup_guard = _lookup_guard, guard
    try:
        yield
    finally:
        _lookup_guard = previous


@functools.cache
def pinned_zone_keys() -> frozenset[str]:
    """Every zone key the pinned ``tzdata`` package ships (canonical zones and links)."""
    listing = importlib.resources.files("tzdata").joinpath("zones").read_text("utf-8")
    return frozenset(line.strip() for line in listing.splitlines() if line.strip())


def iana_release() -> str:
    """The IANA release (e.g. ``"2026a"``) packaged by the installed ``tzdata``."""
    import importlib

    return str(getattr(importlib.import_module("tzdata"), "IANA_VERSION", "unknown"))


def pinned_zone(key: str) -> ZoneInfo:
    """Load ``key`` exactly (case-sensitive) from the pinned ``tzdata`` package.

    Raises :class:`UnknownZoneError` when the package has no such key, and
    :class:`ZoneLookupError` when a host fault fails the lookup.
    """
    guard = _lookup_guard
    if guard is not None:
        guard()
    return _load_zone(key)


@functools.cache
def _load_zone(key: str) -> ZoneInfo:
    if not _KEY_SHAPE.fullmatch(key) or key not in pinned_zone_keys():
        raise UnknownZoneError(key)
    resource = importlib.resources.files("tzdata.zoneinfo").joinpath(*key.split("/"))
    with resource.open("rb") as handle:
        return ZoneInfo.from_file(handle, key=key)
