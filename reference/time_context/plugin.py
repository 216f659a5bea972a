"""Runtime of the reference time-context plugin and its invariant companion.

The runtime only sequences the pure core. Before each step it samples the host
clock once, asks :func:`~dsh_reference.time_context.core.prepare_reading` what
the raw log calls for and, when a reading is due, appends it with
``agent.inject``. The only thing it keeps between steps is a projection of the
newest reading's time per session, which is what the log says (a log it has not
seen is rescanned): a later step, turn, process or plugin instance reaches the
same decision from the same log.

The pre-step implementation is ``tryfirst`` so it runs before every other
listener (automatic compaction included), and it never delegates or rolls
back: when a later listener fails or cancels the attempt, the reading stays.
An append refused by the host (an invariant, a failing store) propagates and
fails the turn.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast, final

from pytest_dsh.contract import (
    Agent,
    Clock,
    HostServices,
    PluginConfigError,
    SessionEvent,
    Signal,
    UserMessage,
    hookimpl,
)

from .core import (
    INVARIANT_OWNER,
    PLUGIN_NAME,
    LatestReading,
    TimeContextConfigError,
    TimeContextSettings,
    check_log,
    check_reading,
    is_reading,
    parse_config,
    prepare_reading,
    reading_message,
    resolve_process_zone_key,
)

__all__ = [
    "TIME_CONTEXT_INVARIANT_PLUGIN",
    "TIME_CONTEXT_PLUGIN",
    "TimeContextInvariantPlugin",
    "TimeContextInvariantPluginFactory",
    "TimeContextPlugin",
    "TimeContextPluginFactory",
    "process_zone_key",
]

_LOCALTIME: Final = "/etc/localtime"


def process_zone_key() -> str:
    """Resolve the process zone now, from ``TZ`` or the ``/etc/localtime`` link
    (see :func:`~dsh_reference.time_context.core.resolve_process_zone_key`)."""
    try:
        target: str | None = os.readlink(_LOCALTIME)
    except OSError:  # missing, or a copied file rather than a link
        target = None
    return resolve_process_zone_key(os.environ.get("TZ"), target)


@final
class TimeContextPlugin:
    """A loaded time-context plugin: one prepended pre-step listener."""

    def __init__(self, clock: Clock, settings: TimeContextSettings) -> None:
        self._clock = clock
        self.settings = settings
        # Per session id, a projection of the newest reading. It only caches what
        # the log says (a log it has not seen is rescanned), so state still lives
        # in the log alone.
        self._latest: dict[object, LatestReading] = {}

    @hookimpl(tryfirst=True)
    def dsh_pre_step(self, agent: Agent, turn: int, step: int, signal: Signal) -> None:
        if signal.aborted:
            return
        now_ms = self._clock.now_ms()  # sampled once for decision, timestamp and elapsed
        session = agent.session
        latest = self._latest.setdefault(getattr(session, "id", ""), LatestReading())
        text = prepare_reading(
            session.events,
            now_ms=now_ms,
            turn=turn,
            step=step,
            settings=self.settings,
            latest=latest,
        )
        if text is not None:
            agent.inject(cast(UserMessage, reading_message(text)))


@final
@dataclass(frozen=True, slots=True)
class TimeContextPluginFactory:
    """Loads :class:`TimeContextPlugin`; the zone is resolved here, once."""

    name: str = PLUGIN_NAME
    requires: frozenset[str] = frozenset({"clock"})
    resolve_process_zone: Callable[[], str] = process_zone_key

    def load(self, services: HostServices, config: Mapping[str, Any]) -> TimeContextPlugin:
        try:
            settings = parse_config(config, process_zone=self.resolve_process_zone)
        except TimeContextConfigError as exc:
            raise PluginConfigError(str(exc)) from exc
        return TimeContextPlugin(services.clock, settings)


def _check(
    events: Sequence[SessionEvent], candidate: SessionEvent | None, seed_length: int
) -> None:
    if candidate is None:
        check_log(events, seed_length=seed_length)
    elif is_reading(candidate):
        check_reading(events, candidate)


@final
class TimeContextInvariantPlugin:
    """A loaded companion: registered with the invariants service until disposed."""

    def __init__(self, unregister: Callable[[], None]) -> None:
        self._unregister = unregister

    async def dispose(self) -> None:
        self._unregister()


@final
@dataclass(frozen=True, slots=True)
class TimeContextInvariantPluginFactory:
    """Loads the companion. Registering checks every reading already in every
    live session; afterwards every appended reading is checked against the log
    before it. Other events are ignored."""

    name: str = "time-context-invariant"
    requires: frozenset[str] = frozenset({"invariants"})

    def load(
        self, services: HostServices, config: Mapping[str, Any]
    ) -> TimeContextInvariantPlugin:
        invariants = services.invariants
        assert invariants is not None  # guaranteed by `requires`
        return TimeContextInvariantPlugin(invariants.register(INVARIANT_OWNER, _check))


#: The time-context plugin (name ``time-context``, requires the clock).
TIME_CONTEXT_PLUGIN: Final = TimeContextPluginFactory()
#: The invariant companion (name ``time-context-invariant``).
TIME_CONTEXT_INVARIANT_PLUGIN: Final = TimeContextInvariantPluginFactory()
