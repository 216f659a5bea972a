"""The DSH host contract: what a plugin implementation may rely on.

Implementations under test never import the fake host. They are *plugins*: a
factory loaded with a config and a set of host services, returning an object
whose ``@hookimpl`` methods the host calls. This module is the whole contract:

* **hook specifications** (pluggy project ``"dsh"``): :func:`dsh_agent_created`,
  :func:`dsh_pre_step`, :func:`dsh_agent_disposed`;
* **services** as typed Protocols: :class:`Clock`, :class:`Session`,
  :class:`SessionsService`, :class:`AgentsService`, :class:`Agent`,
  :class:`ToolRegistry`, :class:`InvariantsService`, :class:`Logger`;
* **values**: session events, user messages, tool definitions and calls;
* **loading**: :class:`PluginFactory`, :class:`HostServices` and the errors a host
  raises while composing plugins.

pluggy has no native async. A hook implementation may be a plain function or a
coroutine function; the host awaits whatever it returns before calling the next
implementation, in pluggy's call order (``tryfirst`` implementations first). That
is how time-context runs before every other pre-step listener.

``docs/host-contract.md`` mirrors this module with exact signatures; a test fails
when a hook or service is missing there.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

import pluggy

__all__ = [
    "PROJECT_NAME",
    "Agent",
    "AgentStatus",
    "AgentsService",
    "AppendRejectedError",
    "Clock",
    "CompositionError",
    "ContentBlock",
    "HostServices",
    "InvariantChecker",
    "InvariantViolationError",
    "InvariantsService",
    "Logger",
    "MaintenanceRejectedError",
    "MessageSource",
    "PluginConfigError",
    "PluginFactory",
    "Session",
    "SessionEvent",
    "SessionHeader",
    "SessionsService",
    "Signal",
    "TimerHandle",
    "ToolCall",
    "ToolDefinition",
    "ToolRegistry",
    "UserMessage",
    "hookimpl",
    "hookspec",
]

#: The pluggy project name shared by hook specifications and implementations.
PROJECT_NAME = "dsh"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --------------------------------------------------------------------------- values


class SessionEvent(TypedDict):
    """One entry of the append-only session log, exactly as DSH stores it.

    ``seq`` is the 0-based index in the log and ``time`` the wall clock in epoch
    milliseconds when the event was appended. Message events may also carry
    ``surfaceOp`` (``"append"`` or ``{"op": "replace", "start", "end"}``) and
    ``sourceEventSeqs``.
    """

    type: str
    seq: int
    time: int
    data: Any
    surfaceOp: NotRequired[Any]
    sourceEventSeqs: NotRequired[list[int]]


class SessionHeader(TypedDict):
    """Session header. A fork's header has ``seedLength``: the number of leading
    events copied from its parent, which the child does not own."""

    id: str
    seedLength: NotRequired[int]


class ContentBlock(TypedDict):
    type: Literal["text"]
    text: str


class MessageSource(TypedDict, total=False):
    """``{"kind": "user"}`` or ``{"kind": "plugin", "plugin": name}``."""

    kind: str
    plugin: str


class UserMessage(TypedDict):
    """A user-role message: prompts, follow-ups and injected context."""

    content: list[ContentBlock]
    source: MessageSource


AgentStatus = Literal["idle", "running"]


# ------------------------------------------------------------------------- errors


class AppendRejectedError(RuntimeError):
    """``Session.append`` refused the event (e.g. an invariant rejected it).

    The log is unchanged when this is raised.
    """


class InvariantViolationError(AppendRejectedError):
    """A registered invariant checker rejected a candidate event or a log.

    The message is ``invariant violated by "<owner>": <diagnostic>``.
    """


class MaintenanceRejectedError(RuntimeError):
    """``Agent.run_maintenance`` could not claim the idle phase (a turn or another
    maintenance task owns the agent). Raised synchronously by the call itself."""


class PluginConfigError(ValueError):
    """A plugin refused its config while loading. The message is the plugin's."""


class CompositionError(RuntimeError):
    """A plugin needs a service the host does not provide, or a plugin name is
    loaded twice."""


# ------------------------------------------------------------------------ services


@runtime_checkable
class TimerHandle(Protocol):
    def cancel(self) -> None:
        """Stop the timer; a no-op when it already fired or was cancelled."""


class Clock(Protocol):
    """Wall clock plus timers.

    The wall clock may jump forwards or backwards (NTP) without moving timers;
    timers run on monotonic time. Like Node, a delay above
    :attr:`max_timer_delay_ms` is not honoured (it fires after 1 ms), so a plugin
    must split long waits itself.
    """

    max_timer_delay_ms: int

    def now_ms(self) -> int:
        """Wall-clock time in integer epoch milliseconds."""

    def set_timer(self, delay_ms: int, callback: Callable[[], None]) -> TimerHandle:
        """Call ``callback`` once after ``delay_ms`` of monotonic time."""


class Signal(Protocol):
    """An abort signal: read ``aborted`` to learn whether the caller gave up."""

    @property
    def aborted(self) -> bool: ...


class Session(Protocol):
    """A session log. ``events`` is the raw log (compaction never removes
    anything from it); ``history()`` is the derived, model-visible surface in
    which compaction replacements shadow the events they summarise."""

    @property
    def id(self) -> str: ...

    @property
    def header(self) -> SessionHeader: ...

    @property
    def events(self) -> Sequence[SessionEvent]: ...

    def append(self, type: str, data: Any) -> SessionEvent:
        """Append synchronously and return the stored event (``data`` is stored
        as a JSON snapshot). Raises :class:`AppendRejectedError` to refuse."""

    def history(self) -> list[SessionEvent]:
        """Message events of the derived surface, in log order."""


class SessionsService(Protocol):
    async def flush(self, session: Session) -> object:
        """Make everything appended so far durable.

        Resolves truthy only when the log is durable. The failure shapes are:
        *missing* (resolves falsy: no persistence listener), *rejected* (raises:
        a listener or the backend failed) and *detached* (raises: the session is
        not live in the store). A flush may also never resolve (a hung backend).
        """


class ToolCall(Protocol):
    """What a tool handler learns about its invocation."""

    @property
    def agent(self) -> Agent: ...

    @property
    def signal(self) -> Signal: ...

    @property
    def call_id(self) -> str: ...


ToolHandler = Callable[[Mapping[str, Any], ToolCall], Awaitable[Any]]


def _default_render(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool a plugin registers on an agent.

    The host validates call arguments against ``parameters`` (JSON Schema) before
    ``handler`` runs and, when ``output_schema`` is given, validates the value the
    handler returns. ``render`` turns the value into the text the model reads.
    ``present_call`` and ``concurrency_safe`` are display and scheduling
    metadata the host reads, never the model.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: ToolHandler
    output_schema: Mapping[str, Any] | None = None
    render: Callable[[Any], str] = field(default=_default_render)
    #: How a UI shows a pending call, from its arguments alone (DSH's
    #: ``presentCall``): a card such as ``{"card": "generic", "title": ...}``,
    #: or None for the host's generic presentation. Never model-visible.
    present_call: Callable[[Any], Mapping[str, Any] | None] | None = None
    #: Whether a call may run beside its sibling calls (DSH's
    #: ``isConcurrencySafe``): only ``True`` opts in; omitted, it runs exclusive.
    concurrency_safe: Callable[[Any], bool] | None = None


class ToolRegistry(Protocol):
    def register(self, tool: ToolDefinition) -> Callable[[], None]:
        """Register ``tool`` on this agent; returns an idempotent disposer.
        Raises ``ValueError`` when the name is already registered."""


class Agent(Protocol):
    """A live agent. Its work happens in *turns* made of *steps*; before each
    step the host runs the pre-step hook. Outside turns the agent is idle."""

    @property
    def id(self) -> str: ...

    @property
    def is_root(self) -> bool:
        """True for runtime roots; children (sub-agents) are not roots."""

    @property
    def session(self) -> Session: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def status(self) -> AgentStatus: ...

    @property
    def is_live(self) -> bool:
        """False once the agent is disposed (or its process crashed)."""

    def followup(self, message: UserMessage) -> None:
        """Queue ``message`` to open a later turn once the agent is fully idle.
        Synchronous; raises to refuse. Never steers the current turn."""

    def inject(self, message: UserMessage) -> SessionEvent:
        """Append ``message`` as a ``user/message`` event now (during a turn,
        before the next ``step/start``) and return the stored event."""

    def when_idle(self) -> Awaitable[None]:
        """Resolve when no turn, maintenance task or queued follow-up remains."""

    def run_maintenance(self, task: Callable[[], Awaitable[bool]]) -> Awaitable[bool]:
        """Claim the idle phase and run ``task`` in it.

        Raises :class:`MaintenanceRejectedError` synchronously when a turn or
        another maintenance task owns the agent. Follow-ups queued by ``task``
        stay parked until the task settles; then they open a turn.
        """

    def on_status(self, listener: Callable[[AgentStatus], None]) -> Callable[[], None]:
        """Call ``listener`` on every status change; returns a disposer."""


class AgentsService(Protocol):
    def roots(self) -> Sequence[Agent]:
        """Live root agents, in creation order."""

    def get(self, agent_id: str) -> Agent | None: ...


InvariantChecker = Callable[[Sequence[SessionEvent], SessionEvent | None, int], None]
"""``checker(events, candidate, seed_length)``: validate the log ``events`` (and,
when ``candidate`` is given, the log with ``candidate`` appended). Raise any
exception to reject; the host reports its message as an invariant violation."""


class InvariantsService(Protocol):
    def register(self, owner: str, checker: InvariantChecker) -> Callable[[], None]:
        """Check every live session now (raise :class:`InvariantViolationError`
        when one fails) and every later append before it is stored."""


class Logger(Protocol):
    def warn(self, message: str) -> None: ...


@dataclass(frozen=True, slots=True)
class HostServices:
    """The services a host offers to plugins at load time.

    A service is ``None`` when the host does not provide it; loading a plugin that
    requires it is a :class:`CompositionError`.
    """

    clock: Clock
    sessions: SessionsService | None
    agents: AgentsService | None
    invariants: InvariantsService | None
    logger: Logger
    #: Marker service: the session-persistence backend. Plugins that rely on
    #: durable flushes require it so that composing them without one fails.
    session_persistence: object | None

    def provided(self) -> frozenset[str]:
        names = ("clock", "sessions", "agents", "invariants", "logger", "session_persistence")
        return frozenset(name for name in names if getattr(self, name) is not None)


class PluginFactory(Protocol):
    """How an implementation exposes one plugin.

    ``requires`` names :class:`HostServices` fields. ``load`` validates ``config``
    (raising :class:`PluginConfigError` with the plugin's own message) and
    returns the object to register with pluggy; it may define
    ``async def dispose(self) -> None``, awaited when the plugin is unloaded.
    """

    @property
    def name(self) -> str: ...

    @property
    def requires(self) -> frozenset[str]: ...

    def load(self, services: HostServices, config: Mapping[str, Any]) -> object: ...


# --------------------------------------------------------------------------- hooks


class HookSpecs:
    """Hook specifications of project ``"dsh"`` (register this class with a
    ``pluggy.PluginManager("dsh")``)."""

    @hookspec
    def dsh_agent_created(self, agent: Agent) -> Awaitable[None] | None:
        """A new agent (root or child) was created, before any turn runs.

        Raising vetoes the agent: the host disposes it and reports the error.
        """

    @hookspec
    def dsh_pre_step(
        self, agent: Agent, turn: int, step: int, signal: Signal
    ) -> Awaitable[None] | None:
        """A step is being prepared; called serially, in order, awaited.

        ``turn`` and ``step`` count from 1. Anything appended here lands before
        the step's ``step/start``. Raising fails the turn; setting nothing on the
        signal and returning lets the next implementation run.
        """

    @hookspec
    def dsh_agent_disposed(self, agent: Agent) -> Awaitable[None] | None:
        """The agent is being disposed; awaited before it stops being live."""


dsh_agent_created = HookSpecs.dsh_agent_created
dsh_pre_step = HookSpecs.dsh_pre_step
dsh_agent_disposed = HookSpecs.dsh_agent_disposed
