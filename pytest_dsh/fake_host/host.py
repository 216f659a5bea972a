"""The fake DSH host: plugin loading, agents, persistence, crash and resume.

:class:`FakeHost` is what tests drive. It owns what survives a crash (the
virtual clock, the durable store, the fault plan, the record of flushes) and one
:class:`HostProcess`: the loop, the plugin manager, live sessions and agents.
:meth:`FakeHost.crash` throws the process away, losing everything that was not
flushed, and starts a new one with the same plugins; :meth:`FakeHost.resume`
then opens a fresh root agent over a durable log.

Every driver method is synchronous: it runs the virtual loop until nothing more
can happen at the current instant (``run_until_idle``). Only :meth:`advance`
lets virtual time pass.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import itertools
import sys
import types
from collections.abc import Coroutine, Generator, Mapping, Sequence
from types import FrameType
from typing import Any, TypeVar, final

import pluggy

from pytest_dsh.contract import (
    PROJECT_NAME,
    AppendRejectedError,
    CompositionError,
    HookSpecs,
    HostServices,
    InvariantChecker,
    InvariantViolationError,
    PluginConfigError,
    PluginFactory,
    SessionEvent,
    SessionHeader,
    Signal,
    ToolDefinition,
)
from pytest_dsh.contract.tzdb import guarded_lookups
from pytest_dsh.driving import runaway
from pytest_dsh.driving.agent_actions import (
    AppendEvent,
    ArmedAction,
    DisposeAgent,
    Prompt,
    SetWallClock,
    WakeFault,
)
from pytest_dsh.driving.faults import FaultPlan, FlushOutcome, FlushRecord
from pytest_dsh.driving.json_limits import json_value_problem
from pytest_dsh.driving.pending import PreStepOutcome
from pytest_dsh.driving.runaway import RunawayError, count_growth
from pytest_dsh.driving.tool_outcomes import ToolRegistration
from pytest_dsh.driving.trace import HostTrace
from pytest_dsh.errors import (
    AgentVetoedError,
    HostStuckError,
    PluginLoadError,
    UnknownPluginError,
)
from pytest_dsh.fake_host import gc_shelter
from pytest_dsh.fake_host.agent import FakeAgent
from pytest_dsh.fake_host.clock import HostClock, VirtualClock
from pytest_dsh.fake_host.persistence import (
    DurableStore,
    PersistenceDetachedError,
    PersistenceRejectedError,
)
from pytest_dsh.fake_host.registration import PluginManager
from pytest_dsh.fake_host.session import MESSAGE_EVENT_TYPES, FakeSession
from pytest_dsh.fake_host.tools import AbortSignal
from pytest_dsh.fake_host.virtual_loop import VirtualEventLoop

__all__ = ["FakeHost", "HostProcess"]

T = TypeVar("T")


_WITHHOLDABLE = frozenset({"sessions", "agents", "invariants", "session_persistence"})


class _Logger:
    def __init__(self, sink: list[str]) -> None:
        self._sink = sink

    def warn(self, message: str) -> None:
        self._sink.append(str(message))


class _PersistenceMarker:
    """Stands for the session-persistence backend (a service plugins require)."""


@final
class HostProcess:
    """One host process: what a crash destroys."""

    def __init__(self, host: FakeHost) -> None:
        self.host = host
        self.loop = VirtualEventLoop(host.clock)
        self.clock = HostClock(
            host.clock, self.loop, host.faults, host.host_trace
        )
        self.trace = host.host_trace
        self.faults = host.faults
        self.logger = _Logger(host.warnings)
        self.pm: pluggy.PluginManager = PluginManager(PROJECT_NAME)
        self.pm.add_hookspecs(HookSpecs)
        self.plugins: dict[str, object] = {}
        self.agents: dict[str, FakeAgent] = {}
        self.sessions: dict[str, FakeSession] = {}
        self.invariants: list[tuple[str, InvariantChecker]] = []
        self.maintenance_claims = 0
        self.alive = True
        #: Top-level packages of the loaded plugins: whose code a task start is.
        self.plugin_packages: set[str] = set()
        self.loop.set_task_factory(self._start_task)
        withheld = host.withheld_services
        self.services = HostServices(
            clock=self.clock,
            sessions=None if "sessions" in withheld else self,
            agents=None if "agents" in withheld else self,
            invariants=None if "invariants" in withheld else self,
            logger=self.logger,
            session_persistence=(
                None if "session_persistence" in withheld else _PersistenceMarker()
            ),
        )

    def record_error(self, message: str) -> None:
        self.host.errors.append(message)

    def run_actions(self, agent: FakeAgent, actions: tuple[ArmedAction, ...]) -> None:
        """Run a test's actions inside an agent's call (pytest_dsh.driving.agent_actions)."""
        for action in actions:
            if isinstance(action, Prompt):
                agent.queue_followup(
                    {"content": [{"type": "text", "text": action.text}], "source": {"kind": "user"}}
                )
            elif isinstance(action, AppendEvent):
                visible = {"surfaceOp": "append"} if action.type in MESSAGE_EVENT_TYPES else {}
                agent.session.append(action.type, copy.deepcopy(action.data), **visible)
            elif isinstance(action, SetWallClock):
                self.host.clock.set_wall_ms(action.epoch_ms)
            elif isinstance(action, DisposeAgent):
                self.host.begin_dispose_agent(agent)
            elif isinstance(action, WakeFault):
                self.faults.wake(action.window)

    # -- background starts (the fault plan's start seam) -------------------------------

    def _start_task(
        self, loop: asyncio.AbstractEventLoop, coro: Any, context: Any = None
    ) -> asyncio.Task[Any]:
        if self.faults.planned and self.faults.plans("start") and self._started_by_plugin():
            try:
                self.faults.check_background_start()
            except RuntimeError:
                coro.close()  # never started, so never awaited
                raise
        return asyncio.Task(coro, loop=loop, context=context)

    def _started_by_plugin(self) -> bool:
        """The code that asked for the task (past asyncio's own frames) is a
        loaded plugin's: the host's own tasks never count."""
        frame: FrameType | None = sys._getframe(2)  # past _start_task and create_task
        while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("asyncio"):
            frame = frame.f_back
        if frame is None:
            return False
        module = str(frame.f_globals.get("__name__", ""))
        return module.partition(".")[0] in self.plugin_packages

    # -- SessionsService --------------------------------------------------------

    async def flush(self, session: Any) -> object:
        # A real flush is asynchronous I/O: let other work interleave. With
        # nothing else ready at this instant the pass would come straight back
        # here (timers due now run after it either way), so none is taken.
        if self.loop.has_ready():
            await _one_pass()
        host = self.host
        live = self.alive and self.sessions.get(str(getattr(session, "id", ""))) is session
        faults = self.faults
        if not (live and session.live):
            outcome: FlushOutcome = "detached"
        else:  # with nothing planned, every flush is durable
            outcome = faults.next_flush_outcome() if faults.planned else "durable"
        wall_ms, length = host.clock.now_ms(), len(session.log)
        # Recorded durable only once the store holds the log (a file store has
        # fsynced it); a refusal is recorded rejected, with its reason.
        refusal = self._persist(session) if outcome == "durable" else None
        if refusal is None:
            record = FlushRecord(session.id, outcome, wall_ms, length)
        else:
            record = FlushRecord(session.id, "rejected", wall_ms, length, refusal)
        host.flushes.append(record)
        if self.trace.enabled:  # recorded only while tracing: no call otherwise
            self.trace.record("flush", session.id, record.outcome)
        if outcome == "hang":
            parked: asyncio.Future[str] = self.loop.create_future()
            self.faults.park(parked)
            released = await parked
            outcome = released if self.alive and session.live else "detached"  # type: ignore[assignment]
            if outcome == "durable":  # type: ignore[comparison-overlap]
                refusal = self._persist(session)
                if refusal is not None:
                    flushes = self.host.flushes
                    index = next(i for i in reversed(range(len(flushes))) if flushes[i] is record)
                    flushes[index] = dataclasses.replace(record, outcome="rejected", reason=refusal)
        if refusal is not None:
            raise PersistenceRejectedError(f"the store refused the flush: {refusal}")
        if outcome == "durable":
            return True
        if outcome == "falsy":
            return False
        if outcome == "rejected":
            raise PersistenceRejectedError("a session/flush listener failed")
        raise PersistenceDetachedError(f'session "{session.id}" is not live in this store')

    def _persist(self, session: Any) -> str | None:
        """Hand the live log to the store: None once it is durable, else why not."""
        try:
            self.host.store.persist(session.header, session.log)
        except Exception as exc:  # whatever the store raised, the flush failed
            return f"{type(exc).__name__}: {exc}"
        return None

    # -- AgentsService ----------------------------------------------------------

    def roots(self) -> list[FakeAgent]:
        return [agent for agent in self.agents.values() if agent.is_root and agent.is_live]

    def get(self, agent_id: str) -> FakeAgent | None:
        agent = self.agents.get(agent_id)
        return agent if agent is not None and agent.is_live else None

    # -- InvariantsService ------------------------------------------------------

    def register(self, owner: str, checker: InvariantChecker) -> Any:
        for session in self.sessions.values():
            if session.live:
                _run_checker(owner, checker, session.log, None, session.seed_length)
        entry = (owner, checker)
        self.invariants.append(entry)

        def dispose() -> None:
            if entry in self.invariants:
                self.invariants.remove(entry)

        return dispose

    def guard_append(self, session: FakeSession, event: SessionEvent) -> None:
        faults = self.faults
        if faults.planned:  # with nothing planned no append fails
            faults.check_append(event["type"], event["data"])
        if self.invariants:  # a copy: a checker may dispose of itself
            for owner, checker in list(self.invariants):
                _run_checker(owner, checker, session.log, event, session.seed_length)
        if self.host.store.durability == "per-event":
            try:  # durable before it is appended, or not appended at all
                self.host.store.persist(session.header, session.log_with(event))
            except PersistenceRejectedError as exc:
                raise AppendRejectedError(str(exc)) from exc
        # Nothing after the guard refuses an append: it is stored now.
        if self.trace.enabled:  # recorded only while tracing: no call otherwise
            self.trace.record_append(session.id, event["type"], event["seq"])
        if runaway.budget.growth_left is not None:  # unlimited: nothing to count
            count_growth(event["type"], " event")

    # -- hooks ------------------------------------------------------------------

    async def call_serial(self, hook_name: str, **kwargs: Any) -> None:
        """Call each implementation in pluggy's order, awaiting each result
        before the next implementation starts."""
        caller = getattr(self.pm.hook, hook_name)
        for impl in reversed(caller.get_hookimpls()):
            result = impl.function(*[kwargs[name] for name in impl.argnames])
            if result is not None and inspect.isawaitable(result):
                await result

    def run_pre_step(
        self, agent: FakeAgent, turn: int, step: int, signal: Signal
    ) -> Coroutine[Any, Any, None]:
        # The serial call's own coroutine, not one more wrapped around it.
        return self.call_serial("dsh_pre_step", agent=agent, turn=turn, step=step, signal=signal)

    # -- lifecycle --------------------------------------------------------------

    def die(self) -> None:
        """Stop without any cleanup code of the plugins running (a crash)."""
        self.alive = False
        for agent in self.agents.values():
            agent.mark_dead()
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.drive(0)
        self.loop.close()


@types.coroutine
def _one_pass() -> Generator[None, None, None]:
    """One pass of the event loop, as ``await asyncio.sleep(0)`` gives (a bare
    yield, which the task answers by scheduling its next step), without the
    coroutine ``asyncio.sleep`` wraps around it."""
    yield


def _run_checker(
    owner: str,
    checker: InvariantChecker,
    events: Sequence[SessionEvent],
    candidate: SessionEvent | None,
    seed_length: int,
) -> None:
    try:
        checker(events, candidate, seed_length)
    except Exception as exc:
        raise InvariantViolationError(f'invariant violated by "{owner}": {exc}') from exc


async def _host_tool_handler(arguments: Any, call: Any) -> None:
    return None


def _host_tool(name: str) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description="A tool the host registered before any plugin.",
        parameters={"type": "object"},
        handler=_host_tool_handler,
    )


@final
class FakeHost:
    """A deterministic DSH host for tests (see the module docstring)."""

    def __init__(
        self,
        plugins: Mapping[str, PluginFactory] | None = None,
        *,
        start_ms: int = 1_767_225_600_000,
        withhold: frozenset[str] = frozenset(),
    ) -> None:
        unknown = set(withhold) - _WITHHOLDABLE
        if unknown:
            raise ValueError(
                f"cannot withhold {sorted(unknown)}; withholdable: {sorted(_WITHHOLDABLE)}"
            )
        #: Services this host does not offer (to test composition errors).
        self.withheld_services = frozenset(withhold)
        self.factories: dict[str, PluginFactory] = dict(plugins or {})
        self.clock = VirtualClock(start_ms)
        self.store = DurableStore()
        self.faults = FaultPlan()
        self.faults.after_release = self.run_until_idle
        #: Survives crashes, like the fault plan (see pytest_dsh.driving.trace).
        self.host_trace = HostTrace()
        self.flushes: list[FlushRecord] = []
        self.warnings: list[str] = []
        self.errors: list[str] = []
        self._loaded: list[tuple[str, dict[str, Any]]] = []
        #: Tool names the host registers on every new agent before plugins see it.
        self.preregistered_tools: list[str] = []
        self._ids = itertools.count(1)
        self._disposals: dict[str, asyncio.Task[None]] = {}
        self._process = HostProcess(self)
        self._closed = False
        self.clock.start_patching()
        gc_shelter.host_opened()

    # -- clock --------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self.clock.now_ms()

    def set_wall_clock(self, epoch_ms: int) -> None:
        """Step the wall clock (either direction) without moving timers."""
        self.clock.set_wall_ms(epoch_ms)
        self.run_until_idle()

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass, firing due timers in order."""
        self._process.loop.drive(seconds)

    def run_until_idle(self) -> None:
        """Run everything that can happen without time passing."""
        self._process.loop.drive(0)

    # -- plugins --------------------------------------------------------------------

    @property
    def process(self) -> HostProcess:
        return self._process

    def load_plugin(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        """Load plugin ``name`` of the implementation with ``config``.

        Raises :class:`PluginLoadError` with the plugin's message when it refuses
        its config, and :class:`CompositionError` when a required service is
        missing or the plugin is already loaded.
        """
        problem = json_value_problem(dict(config or {}))
        if problem is not None:
            raise PluginLoadError(name, f"config is not an acceptable JSON value: {problem}")
        config_copy = copy.deepcopy(dict(config or {}))
        self._load_into(self._process, name, config_copy)
        self._loaded.append((name, config_copy))
        self.run_until_idle()

    def _load_into(self, process: HostProcess, name: str, config: dict[str, Any]) -> None:
        factory = self.factories.get(name)
        if factory is None:
            raise UnknownPluginError(name, sorted(self.factories))
        if name in process.plugins:
            raise CompositionError(f"plugin {name!r} is already loaded")
        missing = sorted(set(factory.requires) - process.services.provided())
        if missing:
            raise CompositionError(
                f"plugin {name!r} requires {', '.join(missing)}, which this host does not provide"
            )
        try:
            # Zone lookups a plugin makes while it loads are what a zone fault fails.
            with guarded_lookups(process.faults.check_zone_lookup):
                plugin = factory.load(process.services, copy.deepcopy(config))
        except PluginConfigError as exc:
            raise PluginLoadError(name, str(exc)) from exc
        except (
            TypeError, ValueError, LookupError, RecursionError, InvariantViolationError
        ) as exc:
            # An invariant that rejects a live session refuses to load, too, as
            # does a zone lookup the host failed (pytest_dsh.contract.tzdb.ZoneLookupError).
            raise PluginLoadError(name, str(exc)) from exc
        process.pm.register(plugin, name=name)
        process.plugins[name] = plugin
        for module in (type(factory).__module__, type(plugin).__module__):
            package = module.partition(".")[0]
            if package != "pytest_dsh":
                process.plugin_packages.add(package)

    def unload_plugin(self, name: str) -> None:
        plugin = self._process.plugins.pop(name, None)
        if plugin is None:
            raise UnknownPluginError(name, sorted(self._process.plugins))
        self._loaded = [(n, c) for n, c in self._loaded if n != name]
        process = self._process
        dispose = getattr(plugin, "dispose", None)

        async def unload() -> None:
            if dispose is not None:
                await dispose()
            process.pm.unregister(plugin)

        task = self.start(unload())
        self.run_until_idle()
        if not task.done():
            # The unload keeps going and finishes once what it waits for is released.
            raise HostStuckError(
                "the plugin's disposal is still waiting with nothing left to run "
                "(a hung flush? release it and the unload finishes)"
            )
        task.result()

    # -- agents ---------------------------------------------------------------------

    def _new_session(self, header: SessionHeader, events: list[SessionEvent]) -> FakeSession:
        process = self._process
        if header["id"] in process.sessions and process.sessions[header["id"]].live:
            raise ValueError(f"session {header['id']!r} is already live")
        session = FakeSession(
            header,
            events,
            now_ms=self.clock.now_ms,
            guard=process.guard_append,
            faults=process.faults,
        )
        for owner, checker in list(process.invariants):
            _run_checker(owner, checker, session.log, None, session.seed_length)
        process.sessions[header["id"]] = session
        return session

    def create_agent(
        self,
        *,
        session_id: str | None = None,
        seed: Sequence[SessionEvent] | None = None,
        parent: FakeAgent | None = None,
        seed_length: int | None = None,
        gone_when_announced: bool = False,
    ) -> FakeAgent:
        """Create an agent on a new session (optionally seeded with ``seed``,
        events the session then owns). With ``parent`` the agent is a child
        (not a root). ``seed_length`` puts ``seedLength`` in the header as a fork
        would; like DSH, the host only accepts a non-negative safe integer, but
        it may exceed the log (replay, not the host, rejects that).
        ``gone_when_announced``: the agent stops being live before the
        agent-created listeners run, then its disposal is announced too."""
        if seed_length is not None and not (
            isinstance(seed_length, int)
            and not isinstance(seed_length, bool)
            and 0 <= seed_length <= 2**53 - 1
        ):
            raise ValueError("session header seedLength must be a non-negative safe integer")
        sid = session_id or self._fresh_session_id()
        self.store.claim_new(sid)  # an id the store cannot take is refused up front
        # The session freezes its events, copying them: no deep copy needed here.
        events: list[SessionEvent] = list(seed or [])
        header: SessionHeader = {"id": sid}
        if seed_length is not None:
            header["seedLength"] = seed_length
        session = self._new_session(header, events)
        return self._start_agent(session, is_root=parent is None, gone=gone_when_announced)

    def fork(self, agent: FakeAgent, *, session_id: str | None = None) -> FakeAgent:
        """A new root agent on a session seeded with ``agent``'s whole log; the
        header's ``seedLength`` marks the inherited prefix."""
        events = agent.session.snapshot()
        sid = session_id or self._fresh_session_id()
        self.store.claim_new(sid)
        session = self._new_session({"id": sid, "seedLength": len(events)}, events)
        return self._start_agent(session, is_root=True)

    def _fresh_session_id(self) -> str:
        """``session-N``, skipping ids the durable store already holds (a
        JSONL root another host wrote to)."""
        while True:
            sid = f"session-{next(self._ids)}"
            if not self.store.has(sid):
                return sid

    def resume(self, session_id: str) -> FakeAgent:
        """A fresh root agent over the durable log of ``session_id``."""
        header, events = self.store.load(session_id)
        session = self._new_session(header, events)
        return self._start_agent(session, is_root=True)

    def _start_agent(
        self, session: FakeSession, *, is_root: bool, gone: bool = False
    ) -> FakeAgent:
        process = self._process
        agent = FakeAgent(process, f"agent-{next(self._ids)}", session, is_root=is_root)
        process.agents[agent.id] = agent
        for name in self.preregistered_tools:
            agent.tools.register(_host_tool(name), host_tool=True)
        if gone:
            # Disposed before its announcement reaches any listener: they are
            # told of an agent no longer live (get() and roots() miss it).
            agent.mark_dead()
        try:
            self.run_to_completion(process.call_serial("dsh_agent_created", agent=agent))
        except Exception as exc:
            agent.mark_dead()
            raise AgentVetoedError(agent.id, exc) from exc
        if gone:
            # DSH pairs every announced agent with its disposal.
            self.run_to_completion(process.call_serial("dsh_agent_disposed", agent=agent))
        return agent

    def preregister_tool(self, name: str) -> None:
        """Register a host tool ``name`` on every agent created from now on,
        before any agent-created listener runs (a name a plugin then collides with)."""
        if not isinstance(name, str) or not name:
            raise ValueError("a tool name is a non-empty string")
        if name not in self.preregistered_tools:
            self.preregistered_tools.append(name)

    def tool_registrations(self, session_id: str) -> list[ToolRegistration]:
        """Every tool registration on the agents of ``session_id`` in this
        process (vetoed and disposed ones included), in call order."""
        return [
            registration
            for agent in self._process.agents.values()
            if agent.session.id == session_id
            for registration in agent.tools.registrations()
        ]

    def dispose_agent(self, agent: FakeAgent) -> None:
        """Dispose ``agent``: the disposal hook is awaited, then it stops being live.

        Raises :class:`HostStuckError` when a listener still waits (say on a
        hung flush); the disposal keeps going and finishes once released."""
        task = self.start_dispose_agent(agent)
        if not task.done():
            raise HostStuckError(
                "the disposal is still waiting with nothing left to run "
                "(a hung flush? release it and the disposal finishes)"
            )
        task.result()

    def start_dispose_agent(self, agent: FakeAgent) -> asyncio.Task[None]:
        """Start disposing ``agent`` and run until idle; the task settles when
        every disposal listener has and the agent stopped being live. A second
        call while a disposal runs returns the same task."""
        task = self.begin_dispose_agent(agent)
        self.run_until_idle()
        return task

    def begin_dispose_agent(self, agent: FakeAgent) -> asyncio.Task[None]:
        """Start disposing ``agent`` without driving the loop (a test action
        inside one of the agent's calls); :meth:`start_dispose_agent` later
        returns the same task."""
        running = self._disposals.get(agent.id)
        if running is not None and (not running.done() or not agent.is_live):
            return running
        process = self._process
        if agent.is_live:
            agent.begin_disposal()

        async def dispose() -> None:
            if agent.is_live:
                # As in DSH, the agent's current activity converges first.
                await agent.settle_activity()
                await process.call_serial("dsh_agent_disposed", agent=agent)
                agent.mark_dead()

        task = self.start(dispose())
        self._disposals[agent.id] = task
        return task

    def start_pre_step(
        self, agent: FakeAgent, turn: int, step: int, signal: AbortSignal
    ) -> asyncio.Task[PreStepOutcome]:
        """Call the pre-step listeners for ``(turn, step)`` directly, outside a
        turn, and run until idle."""
        process = self._process

        async def pre_step() -> PreStepOutcome:
            try:
                await process.run_pre_step(agent, turn, step, signal)
            except Exception as exc:
                return PreStepOutcome("error", str(exc))
            return PreStepOutcome("aborted" if signal.aborted else "entered")

        task = self.start(pre_step())
        self.run_until_idle()
        return task

    def crash(self) -> None:
        """The process dies: non-durable events, timers, queued follow-ups and
        in-flight work are lost. A new process loads the same plugins."""
        self._process.die()
        self.host_trace.claimed.clear()  # the dead process's maintenance claims end with it
        self._process = HostProcess(self)
        for name, config in self._loaded:
            self._load_into(self._process, name, copy.deepcopy(config))
        self.run_until_idle()

    def flush_session(self, agent: FakeAgent) -> bool:
        """Flush ``agent``'s session as the host's own persistence would (for
        example at a turn boundary); True when it became durable."""
        task = self.start(self._process.flush(agent.session))
        self.run_until_idle()
        if not task.done():
            # The flush stays hung (as a real one would); releasing it finishes it.
            raise HostStuckError(
                "the flush is still waiting with nothing left to run "
                "(call faults.release_hung_flush())"
            )
        try:
            return bool(task.result())
        except (PersistenceRejectedError, PersistenceDetachedError):
            return False

    def durable_events(self, session_id: str) -> list[SessionEvent]:
        return self.store.load(session_id)[1]

    # -- running coroutines ---------------------------------------------------------

    def run_to_completion(self, coroutine: Coroutine[Any, Any, T]) -> T:
        task = self._process.loop.create_task(coroutine)
        try:
            self.run_until_idle()
        except RunawayError:
            # The loop reports the runaway; the same error stored in this task
            # is the one being raised, not a second, unretrieved one.
            if task.done() and not task.cancelled():
                task.exception()
            raise
        if not task.done():
            task.cancel()
            self.run_until_idle()
            raise HostStuckError(
                "the operation is still waiting with nothing left to run "
                "(a hung flush? call faults.release_hung_flushes() or advance the clock)"
            )
        return task.result()

    def start(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Start ``coroutine`` on the host loop without driving it."""
        return self._process.loop.create_task(coroutine)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._process.die()
        finally:
            self.clock.stop_patching()
            gc_shelter.host_closed()
            self.store.close()  # a file store releases its root's lock
