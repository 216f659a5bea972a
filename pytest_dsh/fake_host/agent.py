"""Agents of the fake host: turns, steps, follow-ups and the idle phase.

Theory of operation. An agent is *fully idle* when no turn runs, no maintenance
task holds the idle phase and no follow-up waits. ``followup`` queues a message;
the agent opens a turn for it as soon as it is fully idle apart from that queue.
A turn appends ``turn/start`` and the prompt, then per step: the pre-step hook
(serial, awaited; a failure or an aborted signal ends the turn without
``step/start``), ``step/start``, the scripted model reply, tool calls and their
results, ``step/end``. Text ends the turn with ``turn/end``.

``run_maintenance`` claims the idle phase or raises
:class:`~pytest_dsh.contract.MaintenanceRejectedError` synchronously. While a
maintenance task runs, queued follow-ups stay parked; they open a turn once it
settles. Status changes (``"running"``/``"idle"``) are reported to listeners.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any, Protocol, TypeVar, final

from pytest_dsh.contract import (
    AgentStatus,
    Logger,
    MaintenanceRejectedError,
    SessionEvent,
    Signal,
    UserMessage,
)
from pytest_dsh.driving.agent_actions import ActionPoint, ArmedAction
from pytest_dsh.driving.faults import FaultPlan
from pytest_dsh.driving.json_limits import json_value_problem
from pytest_dsh.driving.pending import AgentCounters
from pytest_dsh.driving.runaway import count_growth
from pytest_dsh.driving.tool_outcomes import ToolOutcome
from pytest_dsh.driving.trace import HostTrace
from pytest_dsh.fake_host import host_events
from pytest_dsh.fake_host.model import ScriptedModel
from pytest_dsh.fake_host.session import FakeSession
from pytest_dsh.fake_host.tools import AbortSignal, AgentToolRegistry, ToolCallContext

__all__ = ["MAX_STEPS_PER_TURN", "AgentProcess", "FakeAgent"]

T = TypeVar("T")


class AgentProcess(Protocol):
    """What an agent needs from its host process (the host implements it; an
    agent never imports the host, so the two modules do not depend on each
    other)."""

    maintenance_claims: int

    @property
    def trace(self) -> HostTrace: ...
    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...
    @property
    def faults(self) -> FaultPlan: ...
    @property
    def logger(self) -> Logger: ...

    def record_error(self, message: str) -> None: ...

    def run_actions(self, agent: Any, actions: tuple[ArmedAction, ...]) -> None: ...

    async def run_pre_step(self, agent: Any, turn: int, step: int, signal: Signal) -> None: ...

#: A turn that keeps calling tools is cut off here (a scripted-model bug guard).
MAX_STEPS_PER_TURN = 64

_call_ids = itertools.count(1)


def _check_message(message: UserMessage) -> None:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not content:
        raise TypeError("a user message needs a non-empty `content` list")
    for block in content:
        if not (
            isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ):
            raise TypeError("content blocks must be {'type': 'text', 'text': str}")
    source = message.get("source")
    if not (isinstance(source, dict) and isinstance(source.get("kind"), str)):
        raise TypeError("a user message needs a `source` with a string `kind`")


@final
class FakeAgent:
    """A live agent of one host process."""

    def __init__(
        self,
        process: AgentProcess,
        agent_id: str,
        session: FakeSession,
        *,
        is_root: bool,
    ) -> None:
        self._process = process
        self._id = agent_id
        self._session = session
        self._is_root = is_root
        self._tools = AgentToolRegistry()
        self._followups: deque[UserMessage] = deque()
        self._turn_task: asyncio.Task[None] | None = None
        #: The running turn's signal: a disposal aborts it.
        self._turn_signal: AbortSignal | None = None
        self._maintenance = False
        self._maintenance_task: asyncio.Future[bool] | None = None
        self._status: AgentStatus = "idle"
        self._status_listeners: list[Callable[[AgentStatus], None]] = []
        self._idle_waiters: list[asyncio.Future[None]] = []
        self._live = True
        self._pending_pre_step_abort = False
        self._maintenance_claims = 0
        self._maintenance_releases = 0
        self._maintenance_refusals = 0
        self._when_idle_calls = 0
        #: Test actions armed for the next call at a point (see act_inside).
        self._armed: dict[ActionPoint, tuple[ArmedAction, ...]] = {}
        #: While true, queued follow-ups wait and open no turn (see hold_turns).
        self._turns_held = False
        #: A disposal waits for the maintenance task: parked follow-ups open no turn.
        self._disposing = False
        #: Busy with no task of its own (hold_busy): claims are refused as busy.
        self._busy_held = False
        self.model = ScriptedModel()
        #: How many log events the turn count has read, and the latest turn
        #: number among them (0: none).
        self._turns_read: tuple[int, int] = (0, 0)

    # -- contract: properties ---------------------------------------------------

    @property
    def id(self) -> str:
        return self._id

    @property
    def is_root(self) -> bool:
        return self._is_root

    @property
    def session(self) -> FakeSession:
        return self._session

    @property
    def tools(self) -> AgentToolRegistry:
        return self._tools

    @property
    def status(self) -> AgentStatus:
        return self._status

    @property
    def is_live(self) -> bool:
        return self._live

    # -- contract: operations ---------------------------------------------------

    def followup(self, message: UserMessage) -> None:
        # A plugin's follow-up: the host builds its message from the plugin's
        # input before queueing it, and a planned fault fails that build.
        faults = self._process.faults
        if faults.planned:  # nothing planned: no check fails, none is counted
            faults.check_followup_message()
        self.queue_followup(message)

    def queue_followup(self, message: UserMessage) -> None:
        """Queue ``message`` as the host's own follow-up (a driver prompt): no
        plugin builds it, so message-construction faults do not apply."""
        _check_message(message)
        if not self._live:
            raise RuntimeError(f"agent {self._id!r} is not live")
        faults = self._process.faults
        if faults.planned and faults.followup_fails():
            raise RuntimeError("followup rejected by the fault plan")
        count_growth("follow-up")
        trace = self._process.trace
        if trace.enabled:  # recorded only while tracing: no call otherwise
            trace.record("followup", self._session.id)
        self._act("followup")
        self._followups.append(message)
        if not self._maintenance:
            # Inside a maintenance task the follow-up stays parked, and the
            # task's end settles the agent itself: a settle scheduled now
            # would find nothing to do.
            self._process.loop.call_soon(self._settle)

    def inject(self, message: UserMessage) -> SessionEvent:
        _check_message(message)
        return self._session.append(
            "user/message",
            {"content": message["content"], "source": message["source"]},
            surfaceOp="append",
        )

    def when_idle(self) -> asyncio.Future[None]:
        self._when_idle_calls += 1
        self._process.trace.record("when-idle", self._session.id)
        future: asyncio.Future[None] = self._process.loop.create_future()
        self._idle_waiters.append(future)
        self._process.loop.call_soon(self._settle)
        return future

    def run_maintenance(self, task: Callable[[], Awaitable[bool]]) -> asyncio.Future[bool]:
        if not self._live:
            raise MaintenanceRejectedError(f"agent {self._id!r} is not live")
        faults = self._process.faults
        if faults.planned and faults.maintenance_fails():
            # An asynchronous rejection: the claim is refused later, the task never runs.
            self._refuse_claim("fault")

            async def rejected() -> bool:
                raise MaintenanceRejectedError("maintenance rejected by the fault plan")

            return self._process.loop.create_task(rejected())
        if self._turn_task is not None or self._maintenance or self._busy_held:
            self._refuse_claim("busy")
            raise MaintenanceRejectedError(f"agent {self._id!r} is busy")
        self._maintenance = True
        self._maintenance_claims += 1
        self._process.maintenance_claims += 1
        self._process.trace.record("claim", self._session.id)
        actions = self._armed.pop("claim", ())

        async def run() -> bool:
            try:
                # The claim is held; the test's actions run before its task.
                if actions:
                    self._process.run_actions(self, actions)
                return bool(await task())
            finally:
                self._maintenance = False
                self._maintenance_releases += 1
                self._process.trace.record("release", self._session.id)
                self._settle()

        self._maintenance_task = _started(self._process.loop, run())
        return self._maintenance_task

    def on_status(self, listener: Callable[[AgentStatus], None]) -> Callable[[], None]:
        self._status_listeners.append(listener)

        def dispose() -> None:
            if listener in self._status_listeners:
                self._status_listeners.remove(listener)

        return dispose

    # -- host side ----------------------------------------------------------------

    @property
    def fully_idle(self) -> bool:
        # Follow-ups held back from opening a turn leave the agent idle (as in
        # DSH, where an agent is idle with messages waiting in its inbox).
        waiting = bool(self._followups) and not self._turns_held and not self._disposing
        busy = self._maintenance or self._busy_held
        return self._turn_task is None and not busy and not waiting

    def counters(self) -> AgentCounters:
        return AgentCounters(
            maintenance_claims=self._maintenance_claims,
            maintenance_releases=self._maintenance_releases,
            when_idle_calls=self._when_idle_calls,
            pending_followups=len(self._followups),
            maintenance_refusals=self._maintenance_refusals,
        )

    def queued_followups(self) -> list[str]:
        """The text of each follow-up queued and not yet taken by a turn, in order."""
        return [
            "".join(block["text"] for block in message["content"]) for message in self._followups
        ]

    def _refuse_claim(self, why: str) -> None:
        self._maintenance_refusals += 1
        self._process.trace.record("claim-refused", self._session.id, why)
        self._act("refused-claim")

    def _act(self, point: ActionPoint) -> None:
        actions = self._armed.pop(point, ())
        if actions:
            self._process.run_actions(self, actions)

    def act_inside(self, point: ActionPoint, actions: tuple[ArmedAction, ...]) -> None:
        """Run ``actions`` inside the agent's next call at ``point`` (see
        :meth:`pytest_dsh.driving.api.AgentDriver.act_inside`)."""
        self._armed[point] = actions

    def reject_when_idle(self, message: str) -> int:
        """Reject every ``when_idle()`` still pending; how many there were."""
        waiters, self._idle_waiters = self._idle_waiters, []
        pending = [waiter for waiter in waiters if not waiter.done()]
        for waiter in pending:
            waiter.set_exception(RuntimeError(message))
        return len(pending)

    def report_status(self, status: AgentStatus) -> None:
        """Report ``status`` to the status listeners without changing the
        agent's phase (an idle report while a turn or a task runs)."""
        for listener in list(self._status_listeners):
            try:
                listener(status)
            except Exception as exc:  # a listener must not break the host
                self._process.logger.warn(f"status listener failed: {exc!r}")

    def hold_turns(self) -> None:
        """Queued follow-ups stay queued and open no turn until :meth:`release_turns`."""
        self._turns_held = True

    def release_turns(self) -> None:
        self._turns_held = False
        self._process.loop.call_soon(self._settle)

    def hold_busy(self) -> None:
        """The agent is busy with nothing running: claims are refused as
        busy, ``when_idle()`` waits and no turn opens until :meth:`release_busy`."""
        self._busy_held = True

    def release_busy(self) -> None:
        self._busy_held = False
        self._process.loop.call_soon(self._settle)

    async def settle_maintenance(self) -> None:
        """Wait until a running maintenance task settles (its outcome is its
        caller's): disposal lets the agent's current activity converge first."""
        task = self._maintenance_task
        if task is not None and not task.done():
            await asyncio.wait([task])

    async def settle_activity(self) -> None:
        """Wait until the agent's current activity ends, as DSH's disposal
        does: a running maintenance task, then a turn (one a follow-up queued
        just before woke included)."""
        await self.settle_maintenance()
        await asyncio.sleep(0)  # a turn a follow-up just woke starts first
        while self._turn_task is not None and not self._turn_task.done():
            await asyncio.wait([self._turn_task])

    def abort_next_pre_step(self) -> None:
        """The next step is prepared with an already aborted signal."""
        self._pending_pre_step_abort = True

    def begin_disposal(self) -> None:
        """A disposal began. As in DSH, whose agent loop cancels its driver and
        then lets the current activity end: a running turn is aborted (it ends
        ``aborted`` once its step returns), follow-ups parked behind a running
        maintenance task never open a turn (the agent is disposed when the
        task settles); one queued while nothing runs still wakes the agent,
        and the disposal waits for that turn."""
        self._disposing = self._maintenance
        if self._turn_signal is not None:
            self._turn_signal.abort()

    def mark_dead(self) -> None:
        """The agent stops being live (disposal or a crashed process). Queued
        follow-ups stay counted, as in DSH's inbox, but never open a turn."""
        self._live = False
        self._session.live = False
        self._tools.clear()
        for waiter in self._idle_waiters:
            if not waiter.done():
                waiter.cancel()
        self._idle_waiters.clear()

    def _set_status(self, status: AgentStatus) -> None:
        if status == self._status:
            return
        self._status = status
        self.report_status(status)

    def _settle(self) -> None:
        """Start a queued turn if possible; report idleness when fully idle."""
        if not self._live:
            return
        if (
            self._turn_task is None
            and not self._maintenance
            and self._followups
            and not self._turns_held
            and not self._disposing
            and not self._busy_held
        ):
            prompt = self._followups.popleft()
            self._turn_task = self._process.loop.create_task(self._run_turn(prompt))
            return
        if self.fully_idle:
            self._set_status("idle")
            waiters, self._idle_waiters = self._idle_waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    async def _run_turn(self, prompt: UserMessage) -> None:
        try:
            await self._turn_body(prompt)
        except Exception as exc:
            # e.g. an append refused by an invariant: DSH fails the turn.
            self._process.record_error(f"turn of agent {self._id!r} failed: {exc!r}")
        finally:
            self._turn_task = None
            self._turn_signal = None
            self._settle()

    def _next_turn_number(self) -> int:
        # The log only grows, so only what was appended since the last look is
        # read, newest first; the latest turn found before stands otherwise.
        log = self._session.log
        read, latest = self._turns_read
        for event in itertools.islice(reversed(log), len(log) - read):
            data = event["data"]
            # Seeded logs may carry anything; only a well-formed turn/start counts.
            if event["type"] == "turn/start" and isinstance(data, dict):
                turn = data.get("turn")
                if isinstance(turn, int) and not isinstance(turn, bool):
                    latest = turn
                    break
        self._turns_read = (len(log), latest)
        return latest + 1

    async def _turn_body(self, prompt: UserMessage) -> None:
        session = self._session
        turn = self._next_turn_number()
        self._set_status("running")
        try:
            # The prompt's content and source, encoded and frozen once for both events.
            parts = host_events.prompt_parts(prompt)
        except (TypeError, ValueError, RecursionError):
            parts = None  # not JSON: the general append refuses it, as it says
        if parts is None:
            session.append(
                "turn/start",
                {"turn": turn, "trigger": {"kind": "message", "source": prompt["source"]}},
            )
            session.append(
                "user/message",
                {"content": prompt["content"], "source": prompt["source"]},
                surfaceOp="append",
            )
        else:
            session.append_built("turn/start", *host_events.turn_start_data(turn, parts))
            session.append_built(
                "user/message", *host_events.user_message_data(parts), surface=True
            )
        signal = AbortSignal()
        self._turn_signal = signal
        for step in range(1, MAX_STEPS_PER_TURN + 1):
            if self._pending_pre_step_abort:
                self._pending_pre_step_abort = False
                signal.abort()
            try:
                await self._process.run_pre_step(self, turn, step, signal)
            except Exception as exc:
                self._end_turn(turn, host_events.reason_data("error", str(exc)))
                return
            if signal.aborted:
                self._end_turn(turn, host_events.ABORTED)
                return
            # step/start and step/end share one read-only data object.
            step_built = host_events.step_data(turn, step)
            session.append_built("step/start", *step_built)
            # The log is append-only, so its length identifies what this step sent.
            self.model.record_request(session)
            reply = self.model.next_reply()
            if reply.thinking_s:
                await asyncio.sleep(reply.thinking_s)
            if not self._live:
                return
            if signal.aborted:
                # Aborted while the model answered (a disposal): nothing of the reply is kept.
                session.append_built("step/end", *step_built)
                self._end_turn(turn, host_events.ABORTED)
                return
            if reply.text is not None:
                self._append_reply_text(turn, step, reply.text)
                session.append_built("step/end", *step_built)
                self._end_turn(turn, host_events.COMPLETED)
                return
            await self._run_tool_calls(turn, step, reply.tool_calls, signal)
            session.append_built("step/end", *step_built)
        self._end_turn(turn, host_events.reason_data("error", "too many steps"))

    def _append_reply_text(self, turn: int, step: int, text: str) -> None:
        if type(text) is str:
            self._session.append_built(
                "assistant/message", *host_events.assistant_text_data(turn, step, text),
                surface=True,
            )
            return
        # Not a string (a test's own reply object): the general append decides.
        self._session.append(
            "assistant/message",
            {"turn": turn, "step": step, "content": [{"type": "text", "text": text}]},
            surfaceOp="append",
        )

    async def _run_tool_calls(
        self, turn: int, step: int, calls: tuple[Any, ...], signal: AbortSignal
    ) -> None:
        session = self._session
        requested = [
            {
                "type": "tool-call",
                "callId": f"call-{next(_call_ids)}",
                "name": call.name,
                "arguments": _logged_arguments(call.arguments),
            }
            for call in calls
        ]
        session.append(
            "assistant/message",
            {"turn": turn, "step": step, "content": requested},
            surfaceOp="append",
        )
        for request, call in zip(requested, calls, strict=True):
            call_id = request["callId"]
            session.append(
                "tool/call",
                {
                    "turn": turn,
                    "step": step,
                    "callId": call_id,
                    "name": call.name,
                    "arguments": request["arguments"],
                },
            )
            outcome = await self.execute_tool(call.name, dict(call.arguments), call_id, signal)
            if not self._live:
                return
            session.append(
                "tool/result",
                {
                    "turn": turn,
                    "step": step,
                    "callId": call_id,
                    "content": [{"type": "text", "text": outcome.text}],
                    "isError": outcome.is_error,
                },
                surfaceOp="append",
            )

    async def execute_tool(
        self, name: str, arguments: Any, call_id: str, signal: AbortSignal, *, registry: bool = True
    ) -> ToolOutcome:
        """Run a tool as the host's tool registry does. Like DSH's registry, a
        call whose signal was aborted while it ran ends as the host error
        ``tool call aborted`` (the handler still runs to its end). With
        ``registry=False`` the handler's own value is returned (a test that
        wants to see how a plugin treats an aborted signal)."""
        outcome = await self._tools.execute(
            name, arguments, ToolCallContext(self, signal, call_id)
        )
        if registry and signal.aborted:
            return ToolOutcome(
                is_error=True, value=None, text="tool call aborted", error="tool call aborted"
            )
        return outcome

    def _end_turn(self, turn: int, reason: host_events.Built) -> None:
        self._session.append_built("turn/end", *host_events.turn_end_data(turn, reason))


def _started(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, None, T]) -> asyncio.Future[T]:
    """Run ``coro`` now, as DSH runs a maintenance task synchronously inside
    ``runMaintenance``: a task that completes without waiting is a settled
    future (no task, no pass of the event loop); one that waits is carried on
    by a task from where it stopped. Outside the running loop, a task."""
    future: asyncio.Future[T]
    if asyncio._get_running_loop() is not loop:
        # Claimed from outside the loop (a driver or a test): the task starts
        # when the loop next runs.
        return loop.create_task(coro)
    try:
        waiting = coro.send(None)
    except StopIteration as done:
        future = loop.create_future()
        future.set_result(done.value)
        return future
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        future = loop.create_future()
        if isinstance(exc, asyncio.CancelledError):
            future.cancel()
        else:
            future.set_exception(exc)
        return future
    return loop.create_task(_CarriedOn(coro, waiting))


class _CarriedOn(Coroutine[Any, Any, T]):
    """The rest of a started coroutine, for a task: hands the task what the
    coroutine waits on, and the task's answers (a value or an exception, a
    cancellation included) back to the coroutine.

    A class rather than a generator: a task cancelled before its first step
    throws the cancellation into its coroutine at once, and an unstarted
    generator would end there without passing it on, leaving the started
    coroutine suspended (a maintenance claim held) until it was collected.
    Here the coroutine gets it where it waits, at any step."""

    __slots__ = ("_coro", "_waiting")

    def __init__(self, coro: Coroutine[Any, None, T], waiting: Any) -> None:
        self._coro = coro
        self._waiting: Any = waiting

    def send(self, answer: Any) -> Any:
        waiting = self._waiting
        if waiting is not _STEPPED:
            # The task's first step: what the coroutine waited on when it
            # stopped, handed to the task as if it had just been yielded.
            self._waiting = _STEPPED
            return waiting
        return self._coro.send(answer)

    def throw(self, *exc: Any) -> Any:
        self._waiting = _STEPPED
        return self._coro.throw(*exc)

    def close(self) -> None:
        self._waiting = _STEPPED
        self._coro.close()

    def __await__(self) -> Generator[Any, None, T]:  # pragma: no cover - a task's, never awaited
        raise TypeError("a carried-on coroutine runs as a task, never awaited")


#: What a carried-on coroutine waits on once its task has taken over.
_STEPPED: Any = object()


#: How deep a model's tool-call arguments may nest and still be logged as sent.
LOGGED_ARGUMENTS_DEPTH = 512


def _logged_arguments(arguments: Any) -> dict[str, Any]:
    """The arguments as the log keeps them: as the model sent them, unless the
    log could not hold them (nested deeper than :data:`LOGGED_ARGUMENTS_DEPTH`,
    an integer wider than the host accepts), then ``{}``. The call still runs
    with what was sent, so its result is the host's argument error and the
    turn completes."""
    problem = json_value_problem(arguments, max_depth=LOGGED_ARGUMENTS_DEPTH)
    return dict(arguments) if problem is None else {}
