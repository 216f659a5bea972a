"""The fault plan: how a test makes a host's services misbehave.

Both hosts honour it (the fake host in process, the Node bridge through its
driver): a planned fault makes the Nth flush, append, maintenance claim,
follow-up, clock or event read, background start, follow-up message or zone
lookup from now fail (a flush may also hang or detach, until the test
releases it), and :class:`FlushRecord` is what a host reports of each flush.
Faults are counted per kind from the moment they are planned ("the 2nd flush
from now"), so a test states intent without knowing how many flushes came
before.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, final

from pytest_dsh.contract import AppendRejectedError
from pytest_dsh.contract.tzdb import ZoneLookupError
from pytest_dsh.driving.agent_actions import PlanFault

__all__ = [
    "Durability",
    "FaultPlan",
    "FlushOutcome",
    "FlushRecord",
    "PlannedFault",
    "ReleaseOutcome",
    "check_durability",
]

FlushOutcome = Literal["durable", "falsy", "rejected", "detached", "hang"]
#: How a released hung flush ends.
ReleaseOutcome = Literal["durable", "falsy", "rejected", "detached"]

Durability = Literal["flush", "per-event"]
_DURABILITIES: tuple[Durability, ...] = ("flush", "per-event")


def check_durability(mode: str) -> Durability:
    """``mode`` when it is a :data:`Durability` (``ValueError`` otherwise), on both hosts."""
    for known in _DURABILITIES:
        if mode == known:
            return known
    raise ValueError(f"unknown durability {mode!r}; expected one of {list(_DURABILITIES)}")


_FAULTS: frozenset[str] = frozenset({"falsy", "rejected", "detached", "hang"})
_RELEASES: frozenset[str] = frozenset({"durable", "falsy", "rejected", "detached"})


@dataclass(frozen=True, slots=True)
class FlushRecord:
    """One call to ``sessions.flush`` as the host saw it.

    ``outcome`` is ``"durable"`` only once the store holds the log (for a file
    store: written and fsynced); a flush the store refused is ``"rejected"``
    and ``reason`` says why (empty for a fault the plan made)."""

    session_id: str
    outcome: FlushOutcome
    wall_ms: int
    durable_length: int
    reason: str = ""


@dataclass(slots=True)
class _Window:
    kind: str
    outcome: str
    first: int
    count: int | None
    event_type: str | None = None
    data: dict[str, Any] | None = None
    seen: int = 0
    #: The epoch ms a faked clock read returns (outcome ``"value"``).
    value: int | None = None
    #: A window a PlanFault action starts: it counts nothing until the host wakes it.
    dormant: bool = False
    #: Its number in its plan (1, 2, ...): how another host names it.
    id: int = 0

    def claims(self) -> bool:
        """Count one matching call; True when this call falls in the window."""
        if self.dormant:
            return False
        self.seen += 1
        if self.seen < self.first:
            return False
        return self.count is None or self.seen < self.first + self.count


@final
class PlannedFault:
    """One planned fault, as a ``fail_*`` method of :class:`FaultPlan` returns it."""

    def __init__(self, plan: FaultPlan, window: _Window) -> None:
        self._plan = plan
        self._window = window

    @property
    def seen(self) -> int:
        """How many matching calls this fault has counted so far."""
        return self._window.seen

    @property
    def id(self) -> int:
        """The window's number in its plan (how a PlanFault action names it)."""
        return self._window.id

    @property
    def dormant(self) -> bool:
        """True while a PlanFault action that starts it has not run yet."""
        return self._window.dormant

    def clear(self) -> None:
        """Forget this fault only; every other planned fault keeps counting."""
        self._plan._forget(self._window)


@final
class FaultPlan:
    """Planned persistence, append and follow-up failures.

    ``first`` is 1-based and counts matching calls made *after* the fault was
    planned; ``count=None`` keeps failing until :meth:`clear`.
    """

    def __init__(self) -> None:
        self._windows: list[_Window] = []
        #: Whether any fault is planned (dormant ones included), kept by the
        #: plan itself (read it, never set it). With nothing planned every
        #: check below answers "no fault" and counts nothing, so a host on a
        #: hot path may skip the call: the outcome is the same.
        self.planned = False
        self._window_ids = itertools.count(1)
        self._hung: list[asyncio.Future[str]] = []
        #: Called after a release: the host runs until idle, so the released
        #: work has finished when the release returns (as on every host).
        self.after_release: Callable[[], None] | None = None

    # -- planning -------------------------------------------------------------

    def fail_flushes(
        self, outcome: FlushOutcome, *, first: int = 1, count: int | None = 1
    ) -> PlannedFault:
        """Make flushes ``first .. first+count-1`` (from now) end with ``outcome``:
        ``"falsy"`` (resolves false: no persistence listener), ``"rejected"``
        (raises), ``"detached"`` (raises: session not live in the store) or
        ``"hang"`` (never resolves until :meth:`release_hung_flushes`)."""
        if outcome not in _FAULTS:
            raise ValueError(f"unknown flush fault {outcome!r}; expected one of {sorted(_FAULTS)}")
        return self._plan(_Window("flush", outcome, _positive(first), _count(count)))

    def reject_nth_flush(self, n: int, outcome: FlushOutcome = "rejected") -> PlannedFault:
        """Only the ``n``-th flush from now fails, with ``outcome``."""
        return self.fail_flushes(outcome, first=n, count=1)

    def fail_appends(
        self,
        *,
        event_type: str | None = None,
        data: Mapping[str, Any] | None = None,
        first: int = 1,
        count: int | None = 1,
    ) -> PlannedFault:
        """Make matching ``session.append`` calls raise (the log is unchanged).
        ``data`` matches on the payload: every key it names must be present in
        the event's data with an equal (JSON) value."""
        window = _Window(
            "append",
            "rejected",
            _positive(first),
            _count(count),
            event_type,
            None if data is None else json.loads(json.dumps(dict(data))),
        )
        return self._plan(window)

    def fail_maintenance(self, *, first: int = 1, count: int | None = 1) -> PlannedFault:
        """Make ``agent.run_maintenance`` claims reject *asynchronously*: the
        claim returns an awaitable that raises ``MaintenanceRejectedError``
        and the task never runs (the synchronous busy rejection is unchanged)."""
        return self._plan(_Window("maintenance", "rejected", _positive(first), _count(count)))

    def fail_followups(self, *, first: int = 1, count: int | None = 1) -> PlannedFault:
        """Make ``agent.followup`` calls raise (nothing is queued)."""
        return self._plan(_Window("followup", "rejected", _positive(first), _count(count)))

    def fail_clock_reads(self, *, first: int = 1, count: int | None = 1) -> PlannedFault:
        """Make a plugin's wall-clock reads raise (the Clock service on the fake
        host; ``Date.now()`` called from the plugin's code on the bridge)."""
        return self._plan(_Window("clock", "rejected", _positive(first), _count(count)))

    def fail_event_reads(self, *, first: int = 1, count: int | None = 1) -> PlannedFault:
        """Make a plugin's reads of ``session.events`` raise (the host's own
        reads are unaffected)."""
        return self._plan(_Window("events", "rejected", _positive(first), _count(count)))

    def fail_background_starts(
        self, *, first: int = 1, count: int | None = 1
    ) -> PlannedFault:
        """Make the host refuse to start a plugin's background run: a task a
        plugin creates on the fake host's loop, ``ctx.agents.withoutInitiator``
        on the bridge (how the official Schedule starts each owner run). The
        start raises synchronously and the run never begins."""
        return self._plan(_Window("start", "rejected", _positive(first), _count(count)))

    def fail_followup_messages(
        self, *, first: int = 1, count: int | None = 1
    ) -> PlannedFault:
        """Make building a plugin's follow-up message raise, before it is
        offered to ``agent.followup`` (which never sees it, so
        :meth:`fail_followups` does not count it): nothing is queued."""
        return self._plan(_Window("message", "rejected", _positive(first), _count(count)))

    def fail_zone_lookups(self, *, first: int = 1, count: int | None = 1) -> PlannedFault:
        """Make a plugin's time-zone lookups raise while the host loads it
        (``pytest_dsh.contract.tzdb`` lookups on the fake host, ``Intl.DateTimeFormat``
        construction on the bridge). Lookups outside a load are never faulted
        nor counted."""
        return self._plan(_Window("zone", "rejected", _positive(first), _count(count)))

    def fake_clock_reads(
        self, epoch_ms: int, *, first: int = 1, count: int | None = 1
    ) -> PlannedFault:
        """Make a plugin's wall-clock reads (as :meth:`fail_clock_reads` counts
        them) return ``epoch_ms`` instead of the wall clock; nothing else moves.
        A read that a :meth:`fail_clock_reads` window fails still raises."""
        if isinstance(epoch_ms, bool) or not isinstance(epoch_ms, int):
            raise TypeError("a clock reading is an integer epoch ms")
        window = _Window("clock", "value", _positive(first), _count(count), value=epoch_ms)
        return self._plan(window)

    def plan_dormant(self, action: PlanFault) -> PlannedFault:
        """Plan the window ``action`` describes, dormant: it counts no call
        until :meth:`wake` (the host runs the action inside an agent's call,
        pytest_dsh.driving.agent_actions)."""
        kind = action.kind
        if kind == "flush":
            if action.outcome is None:
                raise ValueError("a flush fault needs an outcome")
            planned = self.fail_flushes(
                action.outcome, first=action.first, count=action.count  # type: ignore[arg-type]
            )
        elif kind == "append":
            planned = self.fail_appends(
                event_type=action.event_type, first=action.first, count=action.count
            )
        elif kind in _SIMPLE_FAULTS:
            planned = getattr(self, _SIMPLE_FAULTS[kind])(first=action.first, count=action.count)
        else:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {sorted(_KINDS)}")
        planned._window.dormant = True
        return planned

    def wake(self, window_id: int) -> None:
        """Start the dormant window ``window_id``: it counts calls from now on."""
        for window in self._windows:
            if window.id == window_id:
                window.dormant = False

    def clear(self) -> None:
        """Forget every planned fault (hung flushes stay hung until released);
        :meth:`PlannedFault.clear` forgets one."""
        self._windows.clear()
        self.planned = False

    def _plan(self, window: _Window) -> PlannedFault:
        window.id = next(self._window_ids)
        self._windows.append(window)
        self.planned = True
        return PlannedFault(self, window)

    def _forget(self, window: _Window) -> None:
        self._windows = [planned for planned in self._windows if planned is not window]
        self.planned = bool(self._windows)

    def release_hung_flushes(self, outcome: ReleaseOutcome = "durable") -> None:
        """Let every hung flush complete, in the order they hung, with ``outcome``."""
        _release_outcome(outcome)
        while self.hung_flushes:
            self.release_hung_flush(outcome)

    def release_hung_flush(self, outcome: ReleaseOutcome = "durable") -> None:
        """Let the oldest hung flush complete with ``outcome``: ``"durable"``,
        ``"falsy"`` (resolves false), ``"rejected"`` or ``"detached"`` (raise).
        A flush whose session stopped being live meanwhile ends detached."""
        _release_outcome(outcome)
        # Flushes of a crashed process are gone, not hung.
        self._hung = [future for future in self._hung if not future.done()]
        if not self._hung:
            raise ValueError("no flush is hung")
        self._hung.pop(0).set_result(outcome)
        if self.after_release is not None:
            self.after_release()

    @property
    def hung_flushes(self) -> int:
        """How many flushes hang now, waiting for a release."""
        return sum(1 for future in self._hung if not future.done())

    # -- for hosts that count calls elsewhere (e.g. in another process) ------

    def snapshot(self) -> list[dict[str, object]]:
        """The planned faults in planning order, with how many matching calls
        each has seen: ``{"kind", "outcome", "first", "count", "event_type", "data", "seen",
        "value"}``, every field a host needs to rebuild the window."""
        return [
            {
                "kind": window.kind,
                "outcome": window.outcome,
                "first": window.first,
                "count": window.count,
                "event_type": window.event_type,
                "data": window.data,
                "seen": window.seen,
                "value": window.value,
                "dormant": window.dormant,
                "id": window.id,
            }
            for window in self._windows
        ]

    def record_woken(self, window_ids: Sequence[int]) -> None:
        """Adopt the dormant windows another host woke."""
        for window_id in window_ids:
            self.wake(int(window_id))

    def record_seen(self, counts: Sequence[int]) -> None:
        """Adopt the matching-call counts another host observed, in the order of
        :meth:`snapshot`."""
        for window, seen in zip(self._windows, counts, strict=False):
            window.seen = int(seen)

    # -- consulted by the host ------------------------------------------------

    def next_flush_outcome(self) -> FlushOutcome:
        outcome: FlushOutcome = "durable"
        for window in self._windows:
            if window.kind == "flush" and window.claims() and outcome == "durable":
                outcome = window.outcome  # type: ignore[assignment]
        return outcome

    def append_fails(self, event_type: str, data: Any = None) -> bool:
        failed = False
        for window in self._windows:
            if (
                window.kind == "append"
                and window.event_type in (None, event_type)
                and _payload_matches(window.data, data)
            ):
                failed = window.claims() or failed
        return failed

    def maintenance_fails(self) -> bool:
        failed = False
        for window in self._windows:
            if window.kind == "maintenance":
                failed = window.claims() or failed
        return failed

    def followup_fails(self) -> bool:
        failed = False
        for window in self._windows:
            if window.kind == "followup":
                failed = window.claims() or failed
        return failed

    def _read_fails(self, kind: str) -> bool:
        failed = False
        for window in self._windows:
            if window.kind == kind:
                failed = window.claims() or failed
        return failed

    def plans(self, kind: str) -> bool:
        """Any planned window of ``kind`` (a cheap test before a costly caller check)."""
        return any(window.kind == kind for window in self._windows)

    def check_background_start(self) -> None:
        if self._read_fails("start"):
            raise RuntimeError("background start refused by the fault plan")

    def check_followup_message(self) -> None:
        if self._read_fails("message"):
            raise RuntimeError("follow-up message construction failed (fault plan)")

    def check_zone_lookup(self) -> None:
        if self._read_fails("zone"):
            raise ZoneLookupError("zone lookup failed (fault plan)")

    def check_clock_read(self) -> int | None:
        """Count one plugin clock read: raise when a failing window takes it,
        else the faked reading a value window gives (None: the real clock)."""
        failed = False
        reading: int | None = None
        for window in self._windows:
            if window.kind == "clock" and window.claims():
                if window.outcome == "value":
                    reading = window.value if reading is None else reading
                else:
                    failed = True
        if failed:
            raise RuntimeError("wall-clock read failed (fault plan)")
        return reading

    def check_event_read(self) -> None:
        if self._read_fails("events"):
            raise RuntimeError("session event read failed (fault plan)")

    def park(self, future: asyncio.Future[str]) -> None:
        self._hung.append(future)

    def check_append(self, event_type: str, data: Any = None) -> None:
        if self.append_fails(event_type, data):
            raise AppendRejectedError(f"append of {event_type!r} rejected by the fault plan")


_SIMPLE_FAULTS = {
    "events": "fail_event_reads",
    "clock": "fail_clock_reads",
    "followup": "fail_followups",
    "message": "fail_followup_messages",
}
_KINDS = frozenset({*_SIMPLE_FAULTS, "flush", "append"})


def _payload_matches(wanted: dict[str, Any] | None, data: Any) -> bool:
    if wanted is None:
        return True
    return isinstance(data, dict) and all(
        key in data and data[key] == value for key, value in wanted.items()
    )


def _release_outcome(outcome: str) -> None:
    if outcome not in _RELEASES:
        raise ValueError(
            f"unknown release outcome {outcome!r}; expected one of {sorted(_RELEASES)}"
        )


def _positive(first: int) -> int:
    if first < 1:
        raise ValueError("`first` counts from 1 (the next matching call)")
    return first


def _count(count: int | None) -> int | None:
    if count is not None and count < 1:
        raise ValueError("`count` must be positive, or None for 'until cleared'")
    return count


