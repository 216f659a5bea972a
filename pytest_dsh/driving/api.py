"""The test-facing driver API that every implementation under test is run through.

The conformance suite never touches an implementation directly: it drives a
:class:`HostDriver` (a host with the implementation's plugins available) and its
:class:`AgentDriver` objects, and asserts only what a DSH host can observe: tool
values, appended events, follow-ups, flushes and timing on the virtual clock.

Two hosts implement it: :class:`~pytest_dsh.fake_host.driver.PythonHostDriver`
over the in-process fake host, and the Node bridge's driver
(:mod:`pytest_dsh.npm.bridge.driver`) for npm builds. All methods are synchronous and return once
nothing more can happen without virtual time passing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

from pytest_dsh.contract import AgentStatus, SessionEvent, SessionHeader
from pytest_dsh.driving.agent_actions import ACTION_POINTS, ActionPoint, HostAction
from pytest_dsh.driving.faults import Durability, FaultPlan, FlushRecord
from pytest_dsh.driving.pending import (
    AgentCounters,
    BusyHold,
    MaintenanceHold,
    Pending,
    PendingPreStep,
    PendingToolCall,
)
from pytest_dsh.driving.replies import ModelReply
from pytest_dsh.driving.tool_outcomes import (
    ExportShape,
    ToolCallDescription,
    ToolOutcome,
    ToolRegistration,
)
from pytest_dsh.driving.trace import TraceEntry

__all__ = [
    "JS_MAX_TIME_MS",
    "AgentDriver",
    "HostDriver",
    "PreStepWatcher",
    "WatcherCall",
    "WatcherMode",
    "WatcherOrder",
    "agent_repr",
    "check_action_point",
    "check_envelope",
    "check_event_start",
    "host_repr",
]

#: The range of a JavaScript ``Date``: 100,000,000 days either side of the epoch.
JS_MAX_TIME_MS: Final = 8_640_000_000_000_000

WatcherMode = Literal["record", "raise", "abort"]
#: Where a watcher sits among the pre-step listeners (docs/fake-host.md).
WatcherOrder = Literal["last", "ordinary"]


@dataclass(frozen=True, slots=True)
class WatcherCall:
    """One pre-step call seen by a watcher: the arguments and the log length."""

    agent_id: str
    turn: int
    step: int
    aborted: bool
    log_length: int


@dataclass(slots=True)
class PreStepWatcher:
    """A test listener on the pre-step hook.

    ``mode`` ``"raise"`` fails the step, ``"abort"`` aborts its signal; ``only``
    limits that to one ``(turn, step)``. ``calls`` records every call.
    ``order`` ``"last"`` runs after every plugin listener; ``"ordinary"`` runs
    after the plugins' first-in-order (prepended) listeners and before their
    ordinary ones, whenever the plugins load.
    """

    mode: WatcherMode = "record"
    only: tuple[int, int] | None = None
    calls: list[WatcherCall] = field(default_factory=list)
    order: WatcherOrder = "last"


class AgentDriver(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def is_root(self) -> bool: ...
    @property
    def status(self) -> AgentStatus: ...
    @property
    def is_live(self) -> bool: ...

    def events(self, start: int = 0) -> list[SessionEvent]:
        """A copy of the raw session log, from index ``start`` on (a test that
        reads a growing log reads only what it has not seen)."""

    def history(self) -> list[SessionEvent]:
        """The derived, model-visible message events (compaction applied)."""

    def header(self) -> SessionHeader: ...

    def tool_names(self) -> list[str]: ...

    def tool_specs(self) -> list[dict[str, Any]]:
        """``[{"name", "description", "parameters"}]`` in registration order."""

    def tool_output_schemas(self) -> dict[str, dict[str, Any] | None]:
        """Each registered tool's declared output schema (None: undeclared)."""

    def describe_tool_call(self, name: str, arguments: Any) -> ToolCallDescription:
        """What the host makes of a pending call of the registered tool
        ``name`` with ``arguments``, from what the plugin registered: its
        execution mode and its ``presentCall`` card. Nothing runs.
        ``KeyError`` when no such tool is registered."""

    def call_tool(self, name: str, arguments: Any, *, aborted: bool = False) -> ToolOutcome:
        """Call a tool directly (no ``tool/call``/``tool/result`` events) and
        drive the host until the call completes."""

    def prompt(self, text: str) -> None:
        """Queue a user prompt; it opens a turn once the agent is idle."""

    def script(self, *replies: ModelReply) -> None:
        """Append replies to this agent's scripted model."""

    def requests(self) -> list[list[SessionEvent]]:
        """The model-visible history each step sent, in order."""

    def compact(self, seqs: Sequence[int], summary: str, *, plugin: str = "compact") -> None:
        """Append a compaction that shadows the message events ``seqs``; its
        replacement message names ``plugin`` as its source."""

    def append_event(
        self, type: str, data: Any, *, envelope: Mapping[str, Any] | None = None
    ) -> SessionEvent:
        """Append a raw event (test set-up); invariants still apply. A message
        event is an ordinary model-visible append (``surfaceOp: "append"``)
        unless ``envelope`` gives its ``surfaceOp``/``sourceEventSeqs``.
        ``envelope["time"]`` stamps the event with that integer epoch ms instead
        of the wall clock (a non-integer is a ``ValueError``)."""

    def abort_next_pre_step(self) -> None:
        """Prepare the next step with an already aborted signal."""

    def dispose(self) -> None:
        """Dispose the agent. ``HostStuckError`` when a listener still waits;
        the disposal then keeps going (see :meth:`start_dispose`)."""

    # -- work a test starts and watches (see pytest_dsh.driving.pending) ---------------

    def start_tool(self, name: str, arguments: Any, *, aborted: bool = False) -> PendingToolCall:
        """Start a direct tool call without awaiting it; run until idle."""

    def start_pre_step(self, turn: int, step: int, *, aborted: bool = False) -> PendingPreStep:
        """Call the pre-step listeners for a chosen ``(turn, step)`` outside a
        turn (optionally with an already aborted signal); run until idle.
        Messages a listener contributes are appended as ``user/message``."""

    def start_dispose(self) -> Pending[None]:
        """Start disposing the agent; run until idle."""

    def hold_maintenance(self) -> MaintenanceHold:
        """Claim the idle phase with a maintenance task the test releases.
        ``MaintenanceRejectedError`` when a turn or another task owns it."""

    def hold_busy(self) -> BusyHold:
        """Hold the agent busy with nothing running: claims are refused as
        busy, ``when_idle()`` waits and no turn opens until released. A
        disposal meanwhile has no task to wait for."""

    def queued_followups(self) -> list[str]:
        """The text of each follow-up queued and not yet taken by a turn, in order."""

    def counters(self) -> AgentCounters:
        """Maintenance claims, releases and refused claims, ``when_idle``
        calls, follow-ups queued but not yet taken by a turn."""

    # -- moments a test acts in, and what a plugin's calls get back ------------

    def act_inside(self, point: ActionPoint, *actions: HostAction) -> None:
        """Arm ``actions`` (pytest_dsh.driving.agent_actions) for the agent's next call
        at ``point``; the host runs them, in order, inside that call, once:
        ``"claim"`` once a maintenance claim is granted and before its task
        runs, ``"refused-claim"`` when a claim is refused (busy, or planned by
        ``faults.fail_maintenance``) before the caller sees the refusal,
        ``"followup"`` when ``agent.followup`` accepted a message and before it
        is queued. Arming a point again replaces what was armed there. An
        action that raises fails the call it runs in. A ``PlanFault`` is
        planned dormant now (it counts nothing) and starts when it runs."""

    def reject_when_idle(self, message: str = "when_idle rejected by the test") -> int:
        """Reject every ``when_idle()`` of this agent still pending with an
        error carrying ``message``, then run until idle; the number rejected.
        Later ``when_idle()`` calls behave as usual."""

    def emit_idle_status(self) -> None:
        """Report the status ``"idle"`` to the agent's status listeners now,
        without changing what the agent does (a report that arrives while a
        turn or a maintenance task still runs), then run until idle."""

    def hold_turns(self) -> None:
        """From now on a queued follow-up opens no turn: it stays queued
        (``counters().pending_followups``) and the agent stays idle
        (``when_idle()`` resolves) until :meth:`release_turns`."""

    def release_turns(self) -> None:
        """End :meth:`hold_turns`: a follow-up still queued opens its turn; run until idle."""

    def call_tool_as(self, other: AgentDriver, name: str, arguments: Any) -> ToolOutcome:
        """Call this agent's tool ``name`` directly with the call's ``agent``
        set to ``other`` (an agent of the same host), as a host that mixed up
        its agents would, and drive the host until the call completes."""


class HostDriver(Protocol):
    implementation_name: str
    implementation_version: str

    @property
    def now_ms(self) -> int: ...
    @property
    def faults(self) -> FaultPlan: ...
    @property
    def flushes(self) -> list[FlushRecord]: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def errors(self) -> list[str]: ...

    def load_plugin(self, name: str, config: Mapping[str, Any] | None = None) -> None: ...
    def unload_plugin(self, name: str) -> None: ...
    def available_plugins(self) -> list[str]: ...
    def set_wall_clock(self, epoch_ms: int) -> None: ...
    def advance(self, seconds: float) -> None: ...
    def run_until_idle(self) -> None: ...
    def create_agent(
        self,
        *,
        session_id: str | None = None,
        seed: Sequence[SessionEvent] | None = None,
        parent: AgentDriver | None = None,
        seed_length: int | None = None,
        gone_when_announced: bool = False,
    ) -> AgentDriver:
        """A new agent; ``seed_length`` sets the header's ``seedLength``.

        ``gone_when_announced``: the agent stops being live before any
        plugin's agent-created listener runs, so plugins are told of an agent
        that is no longer live (not among the roots, not found by id); it is
        then disposed (agent-disposed listeners run) and returned, not live."""

    def fork(self, agent: AgentDriver) -> AgentDriver: ...
    def resume(self, session_id: str) -> AgentDriver: ...
    def crash(self) -> None: ...

    def set_durability(self, mode: Durability) -> None:
        """When appended events become durable: at a flush (``"flush"``, every
        host's default) or each as it is appended (``"per-event"``, seam
        ``"per-event-durability"``: ``NotImplementedError`` on a host without
        it). Any other mode is a ``ValueError``."""

    def durable_events(self, session_id: str) -> list[SessionEvent]: ...
    def flush_session(self, agent: AgentDriver) -> bool:
        """The host flushes ``agent``'s session itself (as its persistence does
        between turns); the fault plan applies. True when durable."""

    def add_pre_step_watcher(
        self,
        mode: WatcherMode = "record",
        *,
        only: tuple[int, int] | None = None,
        order: WatcherOrder = "last",
    ) -> PreStepWatcher:
        """A test listener on the pre-step hook (see :class:`PreStepWatcher`)."""

    def start_trace(self) -> None:
        """Record, in order, what the host does from now on (pytest_dsh.driving.trace)."""

    def trace(self) -> list[TraceEntry]:
        """What the host did since :meth:`start_trace`."""

    def preregister_tool(self, name: str) -> None:
        """Register a host tool ``name`` on every agent created from now on,
        before any plugin's agent-created listener runs."""

    def tool_registrations(self, session_id: str) -> list[ToolRegistration]:
        """Every tool registration on the agents of ``session_id`` (refused,
        disposed and dropped ones included), in call order."""

    def export_shape(self, plugin: str) -> ExportShape:
        """The exports of ``plugin``'s module as a Cordis loader reads them
        (seam ``"export-shape"``: ``NotImplementedError`` on a host without it)."""

    def supports(self, seam: str) -> bool:
        """Whether this host provides ``seam`` (a seam requirement of
        :mod:`pytest_dsh.driving.requirements`; any other name is a ``ValueError``).
        See :func:`pytest_dsh.driving.seams.require_seam`."""

    def unsupported_reason(self, seam: str) -> str:
        """Why this host lacks ``seam``; empty when it provides it."""

    def close(self) -> None: ...


_ENVELOPE_KEYS = frozenset({"surfaceOp", "sourceEventSeqs", "time"})


def check_envelope(envelope: Mapping[str, Any]) -> None:
    """Refuse an envelope no DSH host can append (``ValueError``), on both hosts.

    ``time`` must be an integer epoch ms in the JavaScript time range: DSH
    stamps every event with ``Date.now()``, an integer, and its replay refuses
    an event whose time is not a safe integer, so a non-integer time (``1.5``,
    even ``2.0``) is refused rather than stored or rounded."""
    unknown = set(envelope) - _ENVELOPE_KEYS
    if unknown:
        raise ValueError(
            f"unknown envelope fields {sorted(unknown)}; allowed: surfaceOp, sourceEventSeqs, time"
        )
    if "time" in envelope:
        time = envelope["time"]
        if isinstance(time, bool) or not isinstance(time, int):
            raise ValueError(f"envelope time must be an integer epoch ms, got {time!r}")
        if not -JS_MAX_TIME_MS <= time <= JS_MAX_TIME_MS:
            raise ValueError(
                f"envelope time {time} ms is outside the JavaScript time range "
                f"(±{JS_MAX_TIME_MS} ms)"
            )


def check_action_point(point: str) -> ActionPoint:
    """``point`` when it names an action point (``ValueError`` otherwise), on both hosts."""
    if point not in ACTION_POINTS:
        raise ValueError(f"unknown action point {point!r}; expected one of {list(ACTION_POINTS)}")
    return point


def check_event_start(start: object) -> int:
    """``AgentDriver.events(start)``'s index, the same on both hosts: a
    ``ValueError`` unless it is an ``int >= 0`` (past the end reads nothing)."""
    if type(start) is not int or start < 0:
        raise ValueError(f"events(start=...) takes an index >= 0, not {start!r}")
    return start


def agent_repr(agent: AgentDriver) -> str:
    """An agent driver's repr, the same on both hosts and with no memory
    address: a failing Hypothesis example prints its fixtures, and the same
    failure must read the same in every run."""
    return f"{type(agent).__name__}(id={agent.id!r}, session_id={agent.session_id!r})"


def host_repr(host: HostDriver) -> str:
    """A host driver's repr, as :func:`agent_repr`."""
    return (f"{type(host).__name__}(implementation={host.implementation_name!r}, "
            f"version={host.implementation_version!r})")
