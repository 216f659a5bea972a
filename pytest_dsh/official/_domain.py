"""The official pure domain functions, called through the bridge.

For differential tests: the same inputs go to the official build and to a
Python expectation (fixture tables, the reference implementation), and the
answers are compared. A thrown ``ScheduleInputError``/``ScheduleLogError``
comes back as :class:`Thrown`, a returned value as itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, final

from pytest_dsh.npm.bridge.process import BridgeProcess, acquire_process, release_process

__all__ = ["OfficialDomain", "Thrown", "official_domain"]


@dataclass(frozen=True, slots=True)
class Thrown:
    """An error the official function threw: ``name``, ``code`` and ``message``."""

    name: str
    code: str | None
    message: str


def _outcome(raw: dict[str, Any]) -> Any:
    if "thrown" in raw:
        thrown = raw["thrown"]
        return Thrown(thrown["name"], thrown["code"], thrown["message"])
    return raw.get("value")


@final
class OfficialDomain:
    """Calls into ``@deepseek-ai/dsh-schedule``'s pure exports on one bridge process."""

    def __init__(self, process: BridgeProcess) -> None:
        self._process = process

    def call(self, fn: str, *args: Any) -> Any:
        """``fn(*args)``: the returned value, or a :class:`Thrown`."""
        result, _ = self._process.request("domain", fn=fn, args=list(args))
        return _outcome(result)

    def call_many(self, fn: str, args_list: Sequence[Sequence[Any]]) -> list[Any]:
        """Many calls of ``fn`` in one round trip."""
        result, _ = self._process.request(
            "domain_batch", fn=fn, args_list=[list(args) for args in args_list]
        )
        return [_outcome(raw) for raw in result]

    def zone_info(self, zone: str, instants_ms: Sequence[int]) -> dict[str, Any]:
        """This runtime's ICU view of ``zone``: ``{"resolved", "offsets"}`` or ``{"error"}``."""
        result, _ = self._process.request("zone_info", zone=zone, instants=list(instants_ms))
        info: dict[str, Any] = result
        return info

    def runtime(self) -> dict[str, Any]:
        """``{"node", "icu", "tz"}`` of the bridge's Node runtime, with
        ``stack_frames`` (what errors capture) and ``stack_readers`` (the
        packages under test that can read a stack)."""
        result, _ = self._process.request("runtime")
        versions: dict[str, Any] = result
        return versions


@contextmanager
def official_domain() -> Iterator[OfficialDomain]:
    """An :class:`OfficialDomain` on a pooled bridge process."""
    from pytest_dsh.official._implementation import IMPLEMENTATION

    process = acquire_process(IMPLEMENTATION.prepare())
    try:
        yield OfficialDomain(process)
    finally:
        release_process(process)
