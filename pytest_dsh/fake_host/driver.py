"""The fake host's side of the driver API: :class:`PythonHostDriver` and
:class:`PythonAgentDriver` run an implementation's Python plugins in the
in-process :class:`~pytest_dsh.fake_host.host.FakeHost`.

The protocols they implement, and the Node bridge implements too, are in
:mod:`pytest_dsh.driving.api`. All methods are synchronous
and return once nothing more can happen without virtual time passing.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Final, Generic, TypeVar, final

from pytest_dsh.contract import (
    AgentStatus,
    PluginFactory,
    SessionEvent,
    SessionHeader,
    Signal,
    ToolDefinition,
    hookimpl,
)
from pytest_dsh.driving.agent_actions import (
    ActionPoint,
    ArmedAction,
    HostAction,
    PlanFault,
    WakeFault,
)
from pytest_dsh.driving.api import (
    AgentDriver,
    PreStepWatcher,
    WatcherCall,
    WatcherMode,
    WatcherOrder,
    agent_repr,
    check_action_point,
    check_envelope,
    check_event_start,
    host_repr,
)
from pytest_dsh.driving.faults import Durability, FaultPlan, FlushRecord, check_durability
from pytest_dsh.driving.json_limits import json_copy
from pytest_dsh.driving.pending import (
    AgentCounters,
    BusyHoldHandle,
    PreStepOutcome,
)
from pytest_dsh.driving.replies import ModelReply
from pytest_dsh.driving.requirements import host_gap
from pytest_dsh.driving.seams import NO_MODULE_SHAPE
from pytest_dsh.driving.tool_outcomes import (
    ExecutionMode,
    ExportShape,
    ToolCallDescription,
    ToolOutcome,
    ToolRegistration,
    argument_error,
)
from pytest_dsh.driving.trace import TraceEntry
from pytest_dsh.errors import HostStuckError
from pytest_dsh.fake_host.agent import FakeAgent
from pytest_dsh.fake_host.host import FakeHost
from pytest_dsh.fake_host.plain_arguments import plain_copy
from pytest_dsh.fake_host.session import MESSAGE_EVENT_TYPES
from pytest_dsh.fake_host.tools import AbortSignal, ToolCallContext

__all__ = [
    "PythonAgentDriver",
    "PythonHostDriver",
]

_direct_calls = itertools.count(1)


def _copy_arguments(arguments: Any) -> Any:
    """``copy.deepcopy(arguments)``, with its result, for arguments
    ``argument_error`` accepted (so at most 64 levels deep): plain dicts and
    lists are copied here, which is most of a call's copying cost, and
    anything else goes to ``copy.deepcopy`` with the same memo, so values
    shared inside the arguments stay shared in the copy."""
    return _copy_plain(arguments, {})


def _copy_arguments_plain(arguments: Any) -> tuple[Any, bool]:
    """``_copy_arguments(arguments)``, and whether the value was built of plain
    dicts, lists and scalars only (no ``copy.deepcopy`` was needed): then the
    copy has exactly the original's types, keys and depth, so a check of
    those (``argument_error``) judges both alike."""
    memo: dict[int, Any] = {}
    copied = _copy_plain(arguments, memo)
    return copied, id(_DEEPCOPIED) not in memo


#: Marks a memo through which ``copy.deepcopy`` copied some part of a value
#: (its id is no copied object's: nothing but this module holds it).
_DEEPCOPIED: Final = object()

_IMMUTABLE_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copy_plain(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind in _IMMUTABLE_SCALARS:
        return value  # deepcopy returns these atoms themselves
    if kind is dict or kind is list:
        copied = memo.get(id(value), memo)
        if copied is not memo:
            return copied
        scalars = _IMMUTABLE_SCALARS
        if kind is dict:
            fresh: dict[Any, Any] = {}
            memo[id(value)] = fresh
            for key, item in value.items():
                if type(key) is not str:
                    memo[id(_DEEPCOPIED)] = _DEEPCOPIED
                    key = copy.deepcopy(key, memo)
                # A scalar child is itself in the copy: no call for it.
                fresh[key] = item if type(item) in scalars else _copy_plain(item, memo)
            _keep_alive(value, memo)
            return fresh
        items: list[Any] = []
        memo[id(value)] = items
        items.extend(
            item if type(item) in scalars else _copy_plain(item, memo) for item in value
        )
        _keep_alive(value, memo)
        return items
    memo[id(_DEEPCOPIED)] = _DEEPCOPIED
    return copy.deepcopy(value, memo)


def _keep_alive(value: Any, memo: dict[int, Any]) -> None:
    # As copy.deepcopy does: the memo holds the originals so that no id is reused.
    memo.setdefault(id(memo), []).append(value)


def _envelope(type: str, envelope: Mapping[str, Any] | None) -> dict[str, Any]:
    default = {"surfaceOp": "append"} if type in MESSAGE_EVENT_TYPES else {}
    if envelope is None:
        return default
    check_envelope(envelope)
    # A chosen time alone keeps the ordinary surface marker of a message event.
    chosen = copy.deepcopy(dict(envelope))
    return {**default, **chosen} if set(chosen) <= {"time"} else chosen


T = TypeVar("T")


class _TaskPending(Generic[T]):
    """:class:`~pytest_dsh.driving.pending.Pending` over a task of the fake host's loop."""

    def __init__(self, host: FakeHost, task: asyncio.Task[T]) -> None:
        self._host = host
        self._task = task

    @property
    def done(self) -> bool:
        return self._task.done()

    def result(self) -> T:
        if not self._task.done():
            raise HostStuckError(
                "the operation is still waiting with nothing left to run "
                "(a hung flush? release it or advance the clock)"
            )
        return self._task.result()


class _AbortablePending(_TaskPending[T]):
    def __init__(self, host: FakeHost, task: asyncio.Task[T], signal: AbortSignal) -> None:
        super().__init__(host, task)
        self._signal = signal

    def abort(self) -> None:
        self._signal.abort()
        self._host.run_until_idle()


class _HeldMaintenance:
    def __init__(
        self, host: FakeHost, gate: asyncio.Future[None], task: asyncio.Future[bool]
    ) -> None:
        self._host = host
        self._gate = gate
        self._task = task

    @property
    def done(self) -> bool:
        return self._task.done()

    def release(self) -> None:
        if not self._gate.done():
            self._gate.set_result(None)
        self._host.run_until_idle()


def _execution_mode(tool: ToolDefinition, arguments: Any) -> ExecutionMode:
    """As DSH's registry classifies a call: only an exact True is parallel;
    no classifier, another answer or an exception is exclusive."""
    if tool.concurrency_safe is None:
        return "exclusive"
    try:
        safe = tool.concurrency_safe(json_copy(arguments))
    except Exception:
        return "exclusive"
    return "parallel" if safe is True else "exclusive"


def _call_card(tool: ToolDefinition, arguments: Any) -> dict[str, Any] | None:
    if tool.present_call is None:
        return None
    card = tool.present_call(json_copy(arguments))
    return None if card is None else json_copy(dict(card))


async def _answered(outcome: ToolOutcome) -> ToolOutcome:
    return outcome


@final
class PythonAgentDriver:
    """:class:`AgentDriver` over a :class:`~pytest_dsh.fake_host.agent.FakeAgent`."""

    def __init__(self, host: PythonHostDriver, agent: FakeAgent) -> None:
        self._host = host
        self.agent = agent

    def __repr__(self) -> str:
        return agent_repr(self)

    @property
    def id(self) -> str:
        return self.agent.id

    @property
    def session_id(self) -> str:
        return self.agent.session.id

    @property
    def is_root(self) -> bool:
        return self.agent.is_root

    @property
    def status(self) -> AgentStatus:
        return self.agent.status

    @property
    def is_live(self) -> bool:
        return self.agent.is_live

    def events(self, start: int = 0) -> list[SessionEvent]:
        return self.agent.session.snapshot(check_event_start(start))

    def history(self) -> list[SessionEvent]:
        return json_copy(self.agent.session.history())

    def header(self) -> SessionHeader:
        return copy.deepcopy(self.agent.session.header)

    def tool_names(self) -> list[str]:
        return self.agent.tools.names()

    def tool_specs(self) -> list[dict[str, Any]]:
        specs = []
        for name in self.agent.tools.names():
            tool = self.agent.tools.get(name)
            assert tool is not None
            specs.append(
                {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": copy.deepcopy(dict(tool.parameters)),
                }
            )
        return specs

    def tool_output_schemas(self) -> dict[str, dict[str, Any] | None]:
        schemas: dict[str, dict[str, Any] | None] = {}
        for name in self.agent.tools.names():
            tool = self.agent.tools.get(name)
            assert tool is not None
            output = tool.output_schema
            schemas[name] = None if output is None else copy.deepcopy(dict(output))
        return schemas

    def describe_tool_call(self, name: str, arguments: Any) -> ToolCallDescription:
        tool = self.agent.tools.get(name)
        if tool is None:
            raise KeyError(f"no tool {name!r} is registered on agent {self.id!r}")
        return ToolCallDescription(_execution_mode(tool, arguments), _call_card(tool, arguments))

    def call_tool(self, name: str, arguments: Any, *, aborted: bool = False) -> ToolOutcome:
        # Plain arguments: checked, copied and judged lossless in one walk.
        walked = plain_copy(arguments)
        lossless: bool | None = None
        if walked is not None:
            (copied, lossless), plain = walked, True
        else:
            refused = argument_error(arguments)  # before copying what may not copy
            if refused is not None:
                return refused
            # A plain copy of arguments argument_error accepted is accepted too.
            copied, plain = _copy_arguments_plain(arguments)
        signal = AbortSignal()
        if aborted:
            signal.abort()
        # The registry itself, as the agent's execute_tool(registry=False)
        # runs it (the handler's own value), without one more coroutine.
        call = self.agent.tools.execute(
            name,
            copied,
            ToolCallContext(self.agent, signal, f"direct-{next(_direct_calls)}"),
            vetted=plain,
            lossless=lossless,
        )
        return self._host.host.run_to_completion(call)

    def prompt(self, text: str) -> None:
        self.agent.queue_followup(
            {"content": [{"type": "text", "text": text}], "source": {"kind": "user"}}
        )
        self._host.run_until_idle()

    def script(self, *replies: ModelReply) -> None:
        self.agent.model.extend(replies)

    def requests(self) -> list[list[SessionEvent]]:
        events = self.agent.session.log
        return [[json_copy(events[seq]) for seq in sent] for sent in self.agent.model.requests]

    def compact(self, seqs: Sequence[int], summary: str, *, plugin: str = "compact") -> None:
        session = self.agent.session
        shadowed = sorted(seqs)
        session.append("compact/start", {"seqs": shadowed})
        session.append(
            "user/message",
            {
                "content": [{"type": "text", "text": summary}],
                "source": {"kind": "plugin", "plugin": plugin},
            },
            surfaceOp={"op": "replace", "start": shadowed[0], "end": shadowed[-1]},
            sourceEventSeqs=shadowed,
        )
        session.append("compact/end", {"seqs": shadowed})

    def append_event(
        self, type: str, data: Any, *, envelope: Mapping[str, Any] | None = None
    ) -> SessionEvent:
        fields = _envelope(type, envelope)
        return json_copy(self.agent.session.append(type, data, **fields))

    def abort_next_pre_step(self) -> None:
        self.agent.abort_next_pre_step()

    def dispose(self) -> None:
        self._host.host.dispose_agent(self.agent)

    def start_tool(
        self, name: str, arguments: Any, *, aborted: bool = False
    ) -> _AbortablePending[ToolOutcome]:
        signal = AbortSignal()
        if aborted:
            signal.abort()
        host = self._host.host
        refused = argument_error(arguments)  # before copying what may not copy
        if refused is not None:
            task = host.start(_answered(refused))
            host.run_until_idle()
            return _AbortablePending(host, task, signal)
        task = host.start(
            self.agent.execute_tool(
                name,
                _copy_arguments(arguments),
                f"direct-{next(_direct_calls)}",
                signal,
                registry=not aborted,  # as call_tool(aborted=True): the plugin's own answer
            )
        )
        host.run_until_idle()
        return _AbortablePending(host, task, signal)

    def start_pre_step(
        self, turn: int, step: int, *, aborted: bool = False
    ) -> _AbortablePending[PreStepOutcome]:
        signal = AbortSignal()
        if aborted:
            signal.abort()
        host = self._host.host
        return _AbortablePending(host, host.start_pre_step(self.agent, turn, step, signal), signal)

    def start_dispose(self) -> _TaskPending[None]:
        host = self._host.host
        return _TaskPending(host, host.start_dispose_agent(self.agent))

    def hold_maintenance(self) -> _HeldMaintenance:
        host = self._host.host
        gate: asyncio.Future[None] = host.process.loop.create_future()

        async def held() -> bool:
            await gate
            return True

        task = self.agent.run_maintenance(held)
        host.run_until_idle()
        return _HeldMaintenance(host, gate, task)

    def queued_followups(self) -> list[str]:
        return self.agent.queued_followups()

    def hold_busy(self) -> BusyHoldHandle:
        self.agent.hold_busy()
        self._host.run_until_idle()
        return BusyHoldHandle(self.agent.release_busy, self._host.host.run_until_idle)

    def counters(self) -> AgentCounters:
        return self.agent.counters()

    def act_inside(self, point: ActionPoint, *actions: HostAction) -> None:
        point = check_action_point(point)
        faults = self._host.host.faults
        armed: tuple[ArmedAction, ...] = tuple(
            WakeFault(faults.plan_dormant(action).id) if isinstance(action, PlanFault) else action
            for action in actions
        )
        self.agent.act_inside(point, armed)

    def reject_when_idle(self, message: str = "when_idle rejected by the test") -> int:
        rejected = self.agent.reject_when_idle(message)
        self._host.run_until_idle()
        return rejected

    def emit_idle_status(self) -> None:
        # Reported from the host loop, where the agent's own reports come from.
        self._host.host.process.loop.call_soon(self.agent.report_status, "idle")
        self._host.run_until_idle()

    def hold_turns(self) -> None:
        self.agent.hold_turns()

    def release_turns(self) -> None:
        self.agent.release_turns()
        self._host.run_until_idle()

    def call_tool_as(self, other: AgentDriver, name: str, arguments: Any) -> ToolOutcome:
        if not isinstance(other, PythonAgentDriver):
            raise TypeError("other must be an agent of this host")
        refused = argument_error(arguments)
        if refused is not None:
            return refused
        call = self.agent.tools.execute(
            name,
            _copy_arguments(arguments),
            ToolCallContext(other.agent, AbortSignal(), f"direct-{next(_direct_calls)}"),
        )
        return self._host.host.run_to_completion(call)


def _run_watcher(
    watcher: PreStepWatcher, agent: FakeAgent, turn: int, step: int, signal: Signal
) -> None:
    watcher.calls.append(WatcherCall(agent.id, turn, step, signal.aborted, len(agent.session.log)))
    if watcher.only is not None and watcher.only != (turn, step):
        return
    if watcher.mode == "raise":
        raise RuntimeError(f"pre-step watcher failed turn {turn} step {step}")
    if watcher.mode == "abort" and isinstance(signal, AbortSignal):
        signal.abort()


class _LastWatchersPlugin:
    """One listener for every "last" watcher, run in the order they were added
    (the bridge's single last-watcher listener does the same)."""

    def __init__(self, watchers: list[PreStepWatcher]) -> None:
        self.watchers = watchers

    # trylast: a watcher stands for "a later listener", after every plugin's.
    @hookimpl(trylast=True)
    def dsh_pre_step(self, agent: FakeAgent, turn: int, step: int, signal: Signal) -> None:
        for watcher in [watcher for watcher in self.watchers if watcher.order == "last"]:
            _run_watcher(watcher, agent, turn, step, signal)


class _OrdinaryWatcherPlugin:
    def __init__(self, watcher: PreStepWatcher) -> None:
        self.watcher = watcher

    # Unmarked: after every tryfirst listener; kept the latest registration
    # (pluggy calls later ones first), so before every plugin's unmarked one.
    @hookimpl
    def dsh_pre_step(self, agent: FakeAgent, turn: int, step: int, signal: Signal) -> None:
        _run_watcher(self.watcher, agent, turn, step, signal)


@final
class PythonHostDriver:
    """:class:`HostDriver` over the in-process :class:`FakeHost`."""

    def __init__(
        self,
        name: str,
        version: str,
        plugins: Mapping[str, PluginFactory],
        *,
        start_ms: int,
        withhold: frozenset[str] = frozenset(),
        jsonl_root: str | os.PathLike[str] | None = None,
    ) -> None:
        """``jsonl_root``: keep durable sessions as DSH session files under that
        folder (:class:`~pytest_dsh.fake_host.jsonl_store.JsonlStore`, which locks the
        root: a second host on it is refused) instead of in memory."""
        self.implementation_name = name
        self.implementation_version = version
        self.host = FakeHost(plugins, start_ms=start_ms, withhold=withhold)
        if jsonl_root is not None:
            try:
                self._use_jsonl_root(jsonl_root)
            except BaseException:
                self.host.close()  # a refused root leaves no host behind
                raise
        self._watchers: list[PreStepWatcher] = []
        self._ordinary_watchers: list[_OrdinaryWatcherPlugin] = []
        self._last_watchers = _LastWatchersPlugin(self._watchers)
        self.host.process.pm.register(self._last_watchers)

    def __repr__(self) -> str:
        return host_repr(self)

    @property
    def now_ms(self) -> int:
        return self.host.now_ms

    @property
    def faults(self) -> FaultPlan:
        return self.host.faults

    @property
    def flushes(self) -> list[FlushRecord]:
        return self.host.flushes

    @property
    def warnings(self) -> list[str]:
        return self.host.warnings

    @property
    def errors(self) -> list[str]:
        return self.host.errors

    def load_plugin(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        self.host.load_plugin(name, config)
        self._keep_ordinary_watchers_latest()

    def _keep_ordinary_watchers_latest(self) -> None:
        """Register the ordinary watchers again after every plugin: pluggy calls
        later registrations first, and in reverse so the first added runs first."""
        pm = self.host.process.pm
        for plugin in self._ordinary_watchers:
            if pm.is_registered(plugin):
                pm.unregister(plugin)
        for plugin in reversed(self._ordinary_watchers):
            pm.register(plugin)

    def unload_plugin(self, name: str) -> None:
        self.host.unload_plugin(name)

    def available_plugins(self) -> list[str]:
        return sorted(self.host.factories)

    def set_wall_clock(self, epoch_ms: int) -> None:
        self.host.set_wall_clock(epoch_ms)

    def advance(self, seconds: float) -> None:
        self.host.advance(seconds)

    def run_until_idle(self) -> None:
        self.host.run_until_idle()

    def _wrap(self, agent: FakeAgent) -> PythonAgentDriver:
        self.host.run_until_idle()
        return PythonAgentDriver(self, agent)

    def create_agent(
        self,
        *,
        session_id: str | None = None,
        seed: Sequence[SessionEvent] | None = None,
        parent: AgentDriver | None = None,
        seed_length: int | None = None,
        gone_when_announced: bool = False,
    ) -> PythonAgentDriver:
        parent_agent = parent.agent if isinstance(parent, PythonAgentDriver) else None
        if parent is not None and parent_agent is None:
            raise TypeError("parent must be an agent of this host")
        return self._wrap(
            self.host.create_agent(
                session_id=session_id,
                seed=seed,
                parent=parent_agent,
                seed_length=seed_length,
                gone_when_announced=gone_when_announced,
            )
        )

    def fork(self, agent: AgentDriver) -> PythonAgentDriver:
        if not isinstance(agent, PythonAgentDriver):
            raise TypeError("agent must be an agent of this host")
        return self._wrap(self.host.fork(agent.agent))

    def resume(self, session_id: str) -> PythonAgentDriver:
        return self._wrap(self.host.resume(session_id))

    def set_durability(self, mode: Durability) -> None:
        """Events durable on flush (the default) or as each is appended
        (``"per-event"``, a seam only this host has).
        See :class:`~pytest_dsh.fake_host.persistence.DurableStore`."""
        self.host.store.durability = check_durability(mode)

    def use_jsonl_store(self, root: str | os.PathLike[str]) -> None:
        """Deprecated: pass ``jsonl_root=`` to ``open_host`` (the same on both
        hosts). Switches to session files under ``root``; it must come before
        any session is made durable (the in-memory store is not carried over)."""
        warnings.warn(
            "use_jsonl_store() is deprecated: open the host with jsonl_root=",
            DeprecationWarning,
            stacklevel=2,
        )
        if self.host.store.session_ids():
            raise RuntimeError("use_jsonl_store() must come before any session is flushed")
        self._use_jsonl_root(root)

    def _use_jsonl_root(self, root: str | os.PathLike[str]) -> None:
        from pytest_dsh.fake_host.jsonl_store import JsonlStore

        durability = self.host.store.durability
        store = JsonlStore(root, now_ms=self.host.clock.now_ms)
        store.durability = durability
        self.host.store = store  # type: ignore[assignment]

    def crash(self) -> None:
        self.host.crash()
        self.host.process.pm.register(self._last_watchers)
        self._keep_ordinary_watchers_latest()

    def durable_events(self, session_id: str) -> list[SessionEvent]:
        return self.host.durable_events(session_id)

    def flush_session(self, agent: AgentDriver) -> bool:
        if not isinstance(agent, PythonAgentDriver):
            raise TypeError("agent must be an agent of this host")
        return self.host.flush_session(agent.agent)

    def add_pre_step_watcher(
        self,
        mode: WatcherMode = "record",
        *,
        only: tuple[int, int] | None = None,
        order: WatcherOrder = "last",
    ) -> PreStepWatcher:
        if order not in ("last", "ordinary"):
            raise ValueError(f"order must be 'last' or 'ordinary', not {order!r}")
        watcher = PreStepWatcher(mode, only, order=order)
        self._watchers.append(watcher)
        if order == "ordinary":
            self._ordinary_watchers.append(_OrdinaryWatcherPlugin(watcher))
            self._keep_ordinary_watchers_latest()
        return watcher

    def start_trace(self) -> None:
        self.host.host_trace.start()

    def trace(self) -> list[TraceEntry]:
        return list(self.host.host_trace.entries)

    def preregister_tool(self, name: str) -> None:
        self.host.preregister_tool(name)

    def tool_registrations(self, session_id: str) -> list[ToolRegistration]:
        return self.host.tool_registrations(session_id)

    def supports(self, seam: str) -> bool:
        return not self.unsupported_reason(seam)

    def unsupported_reason(self, seam: str) -> str:
        return host_gap("fake-host", seam)

    def export_shape(self, plugin: str) -> ExportShape:
        raise NotImplementedError(f"the fake host has no export shape: {NO_MODULE_SHAPE}")

    def close(self) -> None:
        self.host.close()
