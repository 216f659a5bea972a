"""The live owner: delivers due reminders of one root agent.

Theory of operation. The owner holds no reminder state of its own: every
decision reads the fold of the log at that moment, through the agent's
:class:`~dsh_reference.schedule.core.ScheduleProjection` (it folds only what
was appended since its last read, and refolds a log it has not seen). A
*drive* runs inside the agent's transaction queue:

1. preflight: flush the session; an unconfirmed suffix is never acted upon;
2. fold the owned suffix and decide at a fresh wall-clock sample;
3. nothing due: arm one timer for the earliest target (split to the platform
   limit, so a long wait wakes early and simply drives again);
4. something due: claim the agent's idle phase with ``run_maintenance``. When a
   turn or another task owns the agent the claim is refused; the owner waits for
   ``when_idle()`` and drives again. Inside the claim it refolds, decides at one
   decision time, queues the follow-up, then appends the dispatch events;
5. barrier: flush again, then drive again for the next due reminder or timer.

Failures follow a table (README "Delivery lifecycle"):

================================  ========  ==============  =====================
event                             faulted   dispatch        recovery
================================  ========  ==============  =====================
preflight flush fails             no        no              next trigger
corrupt log                       yes       no              none
framing / follow-up fails         no        no              next trigger
dispatch append fails             yes       maybe partial   none
barrier flush fails               no        yes (in log)    next preflight
================================  ========  ==============  =====================

Triggers are: start, the timer, every successful management preflight and
barrier, the agent becoming idle, and the end of an idle wait. A faulted or
stopping owner ignores them. Wall-clock time is re-read on every wake, so a
clock stepped backwards cannot fire early and one stepped forwards makes records
overdue at the next drive.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final, final

from dsh_reference.schedule.core import (
    SCHEDULE_CHANGE_EVENT_TYPE,
    SCHEDULE_CHANGE_VERSION,
    ChangeEventWatch,
    Decision,
    EveryBatchDue,
    EveryDispatchChange,
    OneShotDue,
    ScheduleChange,
    ScheduleFold,
    ScheduleLogError,
    ScheduleProjection,
    Wait,
    due_decision_after,
    encode_schedule_change,
    render_every_batch_framing,
    render_reminder_framing,
)
from dsh_reference.schedule.transactions import AgentQueue, checkpoint
from pytest_dsh.contract import Agent, AgentStatus, HostServices, MessageSource, TimerHandle

__all__ = ["LiveOwner"]

_SOURCE: Final[MessageSource] = {"kind": "plugin", "plugin": "schedule"}


@final
class LiveOwner:
    """Delivery for one live root agent (see the module docstring)."""

    def __init__(
        self,
        agent: Agent,
        services: HostServices,
        queue: AgentQueue,
        projection: ScheduleProjection | None = None,
    ) -> None:
        self._agent = agent
        self.projection = projection or ScheduleProjection()
        self._changes = ChangeEventWatch()
        self._services = services
        self._queue = queue
        self._timer: TimerHandle | None = None
        self._run: asyncio.Task[None] | None = None
        self._idle_wait: asyncio.Task[None] | None = None
        self._requested = False
        self._stopping = False
        self._faulted = False
        self._stop = asyncio.Event()
        # The last decision and what it was made from: (fold state, events
        # folded, decision time, decision). A decision is a pure function of
        # the fold and the time, so the same fold at the same instant (the
        # claim's refold when nothing was appended since the drive's read)
        # gives this same decision without computing it again.
        self._last_decision: tuple[ScheduleFold, int, int, Decision] | None = None

    # -- triggers ---------------------------------------------------------------

    def start(self) -> None:
        self.request_drive()

    def on_status(self, status: AgentStatus) -> None:
        if status == "idle" and self._changes.any_in(self._agent.session.events):
            self.request_drive()

    def request_drive(self) -> None:
        """Ask for a drive; requests made while one runs are coalesced."""
        if self._stopping or self._faulted:
            return
        if self._timer is not None:
            self._cancel_timer()
        self._requested = True
        if self._run is not None:
            return
        try:
            run = asyncio.get_running_loop().create_task(self._run_requested())
        except Exception as exc:
            # The host refused to start the run: the request stays pending and
            # the next trigger starts it.
            self._warn(f"could not start runtime: {exc}")
            return
        self._run = run

    async def _run_requested(self) -> None:
        try:
            while self._requested and not self._stopping and not self._faulted:
                async with self._queue:
                    # Cleared once the queue is ours, not before: a request made
                    # while a create holds the queue is served by this drive, whose
                    # preflight and read come after it, instead of by one more.
                    self._requested = False
                    await self._drive_once()
        except Exception as exc:
            self._retire(exc)
            return
        except BaseException:
            self._retire(None)
            raise
        self._retire(None)

    def _retire(self, failure: Exception | None) -> None:
        # Run as the run's last step rather than as a done callback of its
        # task: the same work, without one more pass of the event loop.
        self._run = None
        if failure is not None:
            self._faulted = True
            self._cancel_timer()
            self._warn(f"runtime failed: {failure}")
            return
        if self._requested:
            self.request_drive()

    # -- one drive ----------------------------------------------------------------

    @property
    def _runnable(self) -> bool:
        return not self._stopping and not self._faulted and self._agent.is_live

    async def _drive_once(self) -> None:
        if self._timer is not None:
            self._cancel_timer()
        if not self._runnable:
            return
        if not await checkpoint(self._services, self._agent.session):
            self._warn("preflight failed: Schedule persistence did not complete.")
            return
        if not self._runnable:
            return
        folded = self._fold()
        if folded is None:
            return
        decision = self._decide(folded, self._services.clock.now_ms())
        if decision is None:
            return
        if isinstance(decision, Wait):
            self._arm(decision.target_ms)
            return
        try:
            claim = self._agent.run_maintenance(self._deliver)
        except Exception:
            # Busy (a turn or another task owns the agent): retry once idle.
            self._wait_for_idle()
            return
        if not await claim:
            return
        if not await checkpoint(self._services, self._agent.session):
            # The dispatch is in the log; a later ordinary preflight persists it.
            self._warn("dispatch barrier failed: Schedule persistence did not complete.")
            return
        if self._runnable:
            self.request_drive()

    async def _deliver(self) -> bool:
        """The maintenance task: refold, decide once, queue, then record."""
        if not self._runnable:
            return False
        folded = self._fold()
        if folded is None:
            return False
        decision = self._decide(folded, self._services.clock.now_ms())
        if decision is None:
            return False
        if isinstance(decision, Wait):
            self._arm(decision.target_ms)
            return False
        try:
            if isinstance(decision, OneShotDue):
                text = render_reminder_framing(decision.record)
            else:
                text = render_every_batch_framing(decision.reminders)
            self._agent.followup({"content": [{"type": "text", "text": text}], "source": _SOURCE})
        except Exception as exc:
            # Nothing was recorded, so the record stays active for a later trigger.
            self._warn(f"framing or followup failed: {exc}")
            return False
        try:
            for change in _dispatch_changes(decision):
                self._agent.session.append(
                    SCHEDULE_CHANGE_EVENT_TYPE, encode_schedule_change(change)
                )
        except Exception as exc:
            # The follow-up may already be queued: retrying could repeat it.
            self._faulted = True
            self._cancel_timer()
            self._warn(f"dispatch append failed: {exc}")
            return False
        return True

    def _fold(self) -> ScheduleFold | None:
        session = self._agent.session
        try:
            return self.projection.read(session.events, session.header.get("seedLength") or 0)
        except ScheduleLogError as exc:
            self._faulted = True
            self._warn(f"corrupt schedule log: {exc}")
            return None

    def _decide(self, folded: ScheduleFold, now: int) -> Decision | None:
        position = self.projection.folded_through
        last = self._last_decision
        if last is not None and last[0] is folded and last[1] == position and last[2] == now:
            return last[3]
        try:
            decision = due_decision_after(folded, now)
        except (ScheduleLogError, ValueError) as exc:
            self._warn(f"fixed-rate decision failed: {exc}")
            return None
        self._last_decision = (folded, position, now, decision)
        return decision

    # -- timers and idle waits ----------------------------------------------------------

    def _arm(self, target_ms: int | None) -> None:
        if target_ms is None or not self._runnable:
            return
        clock = self._services.clock
        delay = min(max(target_ms - clock.now_ms(), 1), clock.max_timer_delay_ms)
        self._cancel_timer()
        self._timer = clock.set_timer(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.request_drive()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wait_for_idle(self) -> None:
        if self._idle_wait is not None or not self._agent.is_live:
            return
        self._idle_wait = asyncio.get_running_loop().create_task(self._await_idle())

    async def _await_idle(self) -> None:
        idle = asyncio.ensure_future(self._agent.when_idle())
        stopped = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({idle, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            self._idle_wait = None
        if idle.done() and not idle.cancelled() and idle.exception() is None:
            self.request_drive()
        elif idle.done() and not idle.cancelled():
            self._warn(f"idle wait failed: {idle.exception()}")
        else:
            idle.cancel()

    # -- disposal -----------------------------------------------------------------------

    async def dispose(self) -> None:
        """Stop new work, cancel the timer, await in-flight work; deletes nothing."""
        self._stopping = True
        self._requested = False
        self._cancel_timer()
        self._stop.set()
        pending = [task for task in (self._run, self._idle_wait) if task is not None]
        with contextlib.suppress(Exception):
            await asyncio.gather(*pending, return_exceptions=True)

    def _warn(self, message: str) -> None:
        if self._agent.is_live:
            self._services.logger.warn(f'schedule: {message} (agent "{self._agent.id}")')


def _dispatch_changes(decision: OneShotDue | EveryBatchDue) -> list[ScheduleChange]:
    if isinstance(decision, OneShotDue):
        return [
            {
                "version": SCHEDULE_CHANGE_VERSION,
                "operation": "dispatch",
                "id": decision.record["id"],
            }
        ]
    changes: list[ScheduleChange] = []
    for reminder in decision.reminders:
        every: EveryDispatchChange = {
            "version": SCHEDULE_CHANGE_VERSION,
            "operation": "dispatch",
            "id": reminder.record["id"],
            "acceptedAt": decision.accepted_at,
        }
        changes.append(every)
    return changes
