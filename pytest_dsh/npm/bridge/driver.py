""":class:`~pytest_dsh.driving.api.HostDriver` and :class:`~pytest_dsh.driving.api.AgentDriver`
over the Node bridge.

Every driver call is one bridge request; the Node host settles (runs all work
due at the current virtual instant) before it answers. Host-side records the
suite reads synchronously (flushes, warnings, errors, watcher calls, the wall
clock) come back with each reply and are mirrored here.

The fault plan stays a Python :class:`~pytest_dsh.driving.faults.FaultPlan`: its
windows are sent with the next request whenever they changed and the counters
Node advanced are written back, so "the 2nd flush from now" means the same
thing for every implementation. A flush that hangs in Node is represented by a
parked token in the plan; :meth:`FaultPlan.release_hung_flush` resolves the
oldest, which releases the oldest hung flush in Node with the same outcome.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast, final

from pytest_dsh.contract import (
    AgentStatus,
    AppendRejectedError,
    CompositionError,
    InvariantViolationError,
    MaintenanceRejectedError,
    SessionEvent,
    SessionHeader,
)
from pytest_dsh.driving import host_symptoms, runaway
from pytest_dsh.driving.agent_actions import ActionPoint, HostAction, PlanFault, action_payload
from pytest_dsh.driving.api import (
    JS_MAX_TIME_MS,
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
from pytest_dsh.driving.json_limits import json_value_problem
from pytest_dsh.driving.jsonl_root import lock_root, unlock_root
from pytest_dsh.driving.pending import AgentCounters, BusyHoldHandle, PreStepOutcome
from pytest_dsh.driving.replies import ModelReply
from pytest_dsh.driving.requirements import host_gap
from pytest_dsh.driving.tool_outcomes import (
    ExportShape,
    ToolCallDescription,
    ToolOutcome,
    ToolRegistration,
    argument_error,
)
from pytest_dsh.driving.trace import TraceEntry
from pytest_dsh.errors import (
    AgentVetoedError,
    DshKitError,
    HostStuckError,
    PluginLoadError,
    UnknownPluginError,
)
from pytest_dsh.npm._install import BridgeRuntime
from pytest_dsh.npm.bridge.channel import (
    BridgeChannel,
    BridgeCrashedError,
    NodeFailure,
    RequestFailedError,
)
from pytest_dsh.npm.bridge.json_text import parse, stringify
from pytest_dsh.npm.bridge.process import BridgeProcess, acquire_process, release_process

__all__ = ["BridgeAgentDriver", "BridgeHostDriver", "BridgeOperationError"]

PLUGIN_NAMES = ("schedule", "schedule-invariant", "time-context", "time-context-invariant")


class BridgeOperationError(DshKitError, RuntimeError):
    """The DSH host (in Node) raised something the driver API has no exception for."""

    def __init__(self, failure: NodeFailure) -> None:
        name = failure.details.get("name", failure.kind)
        super().__init__(f"{name}: {failure.message}")
        self.failure = failure


def _raise_mapped(failure: NodeFailure, op: str) -> None:
    kind, message, details = failure.kind, failure.message, failure.details
    if kind == "RunawayError":
        symptom = details.get("symptom")
        raise runaway.RunawayError(
            f"runaway implementation: {message}",
            symptom=str(symptom) if symptom else None,
        )
    if kind == "PluginLoadError":
        raise PluginLoadError(str(details.get("plugin", "?")), message)
    if kind == "UnknownPluginError":
        raise UnknownPluginError(message, list(details.get("available", [])))
    if kind == "CompositionError":
        raise CompositionError(message)
    if kind == "HostStuckError":
        raise HostStuckError(message)
    if kind == "AgentVetoedError":
        raise AgentVetoedError(str(details.get("agent_id", "?")), RuntimeError(message))
    if kind == "MaintenanceRejectedError":
        raise MaintenanceRejectedError(message)
    if kind == "KeyError":
        raise KeyError(message)
    if kind == "ValueError":
        raise ValueError(message)
    if kind == "TypeError":
        raise TypeError(message)
    if details.get("code") == "INVARIANT":
        # An invariant companion refused an append or a new (seeded) session.
        raise InvariantViolationError(message)
    if op == "append_event":
        raise AppendRejectedError(message)
    raise BridgeOperationError(failure)


def _growth_args() -> dict[str, int]:
    """The test phase's growth budget left, for the Node host to count against."""
    left = runaway.budget.growth_left
    if left is None:
        return {}
    return {"growth": max(left, 0), "growth_budget": runaway.budget.growth or left}


def _absorb_growth(sync: Mapping[str, Any]) -> None:
    """What one request grew, charged to the phase's budget; symptoms the host saw."""
    grown = sync.get("grown")
    budget = runaway.budget
    if isinstance(grown, int) and grown > 0 and budget.growth_left is not None:
        budget.growth_left = max(budget.growth_left - grown, 0)
    for symptom in sync.get("symptoms", ()):
        host_symptoms.note(str(symptom))


class _ParkedFlush:
    """Stands in the Python fault plan for one flush hung inside Node (both
    sides keep hung flushes in the order they hung and release the oldest)."""

    def __init__(self, host: BridgeHostDriver) -> None:
        self._host = host
        self._done = False

    def done(self) -> bool:
        return self._done

    def set_result(self, outcome: object) -> None:
        if not self._done:
            self._done = True
            self._host._release_hung(str(outcome))


_STUCK = (
    "the operation is still waiting with nothing left to run "
    "(a hung flush? release it or advance the clock)"
)


class _BridgePending:
    """:class:`~pytest_dsh.driving.pending.Pending` work tracked inside the Node host."""

    def __init__(self, host: BridgeHostDriver, pending_id: str, op: str) -> None:
        self._host = host
        self._id = pending_id
        self._op = op

    def _info(self) -> dict[str, Any]:
        return cast(dict[str, Any], self._host._call("pending", pending=self._id))

    @property
    def done(self) -> bool:
        return bool(self._info()["done"])

    def _settled(self) -> Any:
        info = self._info()
        if not info["done"]:
            raise HostStuckError(_STUCK)
        if not info["ok"]:
            error = info["error"]
            _raise_mapped(NodeFailure(error["kind"], error["message"]), self._op)
        return info["value"]

    def abort(self) -> None:
        self._host._call("abort_pending", pending=self._id)

    def release(self) -> None:
        self._host._call("release_pending", pending=self._id)


class _BridgeToolCall(_BridgePending):
    def result(self) -> ToolOutcome:
        value = self._settled()
        return ToolOutcome(value["is_error"], value["value"], value["text"], value["error"])


class _BridgePreStep(_BridgePending):
    def result(self) -> PreStepOutcome:
        value = self._settled()
        return PreStepOutcome(value["kind"], value["message"])


class _BridgeDisposal(_BridgePending):
    def result(self) -> None:
        self._settled()


def _window_state(plan: FaultPlan) -> list[dict[str, Any]]:
    return plan.snapshot()


def _reply_payload(reply: ModelReply) -> dict[str, Any]:
    payload: dict[str, Any] = {"thinkingMs": round(reply.thinking_s * 1000)}
    if reply.text is not None:
        payload["text"] = reply.text
    else:
        # Arguments go as the text a model sends, written here at any depth
        # (the channel's own encoder stops at Python's recursion limit).
        payload["toolCalls"] = [
            {"name": call.name, "argumentsJson": stringify(dict(call.arguments))}
            for call in reply.tool_calls
        ]
    return payload


#: The root lock of a host without a JSONL root.
_NO_LOCK = -1


def _unlock(descriptor: int) -> None:
    if descriptor != _NO_LOCK:
        unlock_root(descriptor)


@final
class BridgeAgentDriver:
    """An agent of an npm build on the DSH host packages
    (:class:`~pytest_dsh.driving.api.AgentDriver`)."""

    def __init__(self, host: BridgeHostDriver, info: Mapping[str, Any]) -> None:
        self._host = host
        self.handle: str = info["handle"]
        self._id: str = info["id"]
        self._session_id: str = info["session_id"]
        self._is_root: bool = info["is_root"]

    def _call(self, op: str, **args: Any) -> Any:
        return self._host._call(op, agent=self.handle, **args)

    def __repr__(self) -> str:
        return agent_repr(self)

    @property
    def id(self) -> str:
        return self._id

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def is_root(self) -> bool:
        return self._is_root

    @property
    def status(self) -> AgentStatus:
        return cast(AgentStatus, self._call("agent_info")["status"])

    @property
    def is_live(self) -> bool:
        return bool(self._call("agent_info")["is_live"])

    def events(self, start: int = 0) -> list[SessionEvent]:
        return self._host._events(self.handle, check_event_start(start))

    def history(self) -> list[SessionEvent]:
        return cast(list[SessionEvent], self._call("history"))

    def header(self) -> SessionHeader:
        return cast(SessionHeader, self._call("header"))

    def tool_names(self) -> list[str]:
        return [spec["name"] for spec in self.tool_specs()]

    def tool_specs(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], self._call("tool_specs"))

    def tool_output_schemas(self) -> dict[str, dict[str, Any] | None]:
        return cast(dict[str, dict[str, Any] | None], self._call("tool_output_schemas"))

    def describe_tool_call(self, name: str, arguments: Any) -> ToolCallDescription:
        refused = argument_error(arguments)
        if refused is not None:
            raise ValueError(refused.text)
        result = self._call("describe_tool_call", name=name, arguments=arguments)
        return ToolCallDescription(result["execution_mode"], result["card"])

    def call_tool(self, name: str, arguments: Any, *, aborted: bool = False) -> ToolOutcome:
        refused = argument_error(arguments)  # what JSON cannot carry to the bridge
        if refused is not None:
            return refused
        result = self._call("call_tool", name=name, arguments=arguments, aborted=aborted)
        return ToolOutcome(
            is_error=result["is_error"],
            value=result["value"],
            text=result["text"],
            error=result["error"],
        )

    def prompt(self, text: str) -> None:
        self._call("prompt", text=text)

    def script(self, *replies: ModelReply) -> None:
        self._call("script", replies=[_reply_payload(reply) for reply in replies])

    def requests(self) -> list[list[SessionEvent]]:
        return cast(list[list[SessionEvent]], self._call("requests"))

    def compact(self, seqs: Sequence[int], summary: str, *, plugin: str = "compact") -> None:
        self._call("compact", seqs=list(seqs), summary=summary, plugin=plugin)

    def append_event(
        self, type: str, data: Any, *, envelope: Mapping[str, Any] | None = None
    ) -> SessionEvent:
        if envelope is not None:
            check_envelope(envelope)
        return cast(
            SessionEvent,
            self._call(
                "append_event",
                type=type,
                data=data,
                envelope=None if envelope is None else dict(envelope),
            ),
        )

    def abort_next_pre_step(self) -> None:
        self._call("abort_next_pre_step")

    def dispose(self) -> None:
        self._call("dispose")

    def start_tool(self, name: str, arguments: Any, *, aborted: bool = False) -> _BridgeToolCall:
        pending = self._call("start_tool", name=name, arguments=arguments, aborted=aborted)
        return _BridgeToolCall(self._host, pending, "start_tool")

    def start_pre_step(self, turn: int, step: int, *, aborted: bool = False) -> _BridgePreStep:
        pending = self._call("start_pre_step", turn=turn, step=step, aborted=aborted)
        return _BridgePreStep(self._host, pending, "start_pre_step")

    def start_dispose(self) -> _BridgeDisposal:
        return _BridgeDisposal(self._host, self._call("start_dispose"), "start_dispose")

    def hold_maintenance(self) -> _BridgePending:
        return _BridgePending(self._host, self._call("hold_maintenance"), "hold_maintenance")

    def queued_followups(self) -> list[str]:
        return [str(text) for text in self._call("queued_followups")]

    def hold_busy(self) -> BusyHoldHandle:
        self._call("hold_busy")
        # The bridge's release_busy runs until idle before it answers.
        return BusyHoldHandle(lambda: self._call("release_busy"))

    def counters(self) -> AgentCounters:
        return AgentCounters(**self._call("counters"))

    def act_inside(self, point: ActionPoint, *actions: HostAction) -> None:
        point = check_action_point(point)
        faults = self._host.faults
        payload = [
            action_payload(action, faults.plan_dormant(action).id)
            if isinstance(action, PlanFault)
            else action_payload(action)
            for action in actions
        ]
        self._call("act_inside", point=point, actions=payload)

    def reject_when_idle(self, message: str = "when_idle rejected by the test") -> int:
        return int(self._call("reject_when_idle", message=message))

    def emit_idle_status(self) -> None:
        self._call("emit_idle_status")

    def hold_turns(self) -> None:
        self._call("hold_turns", held=True)

    def release_turns(self) -> None:
        self._call("hold_turns", held=False)

    def call_tool_as(self, other: AgentDriver, name: str, arguments: Any) -> ToolOutcome:
        if not (isinstance(other, BridgeAgentDriver) and other._host is self._host):
            raise TypeError("other must be an agent of this host")
        refused = argument_error(arguments)
        if refused is not None:
            return refused
        result = self._call("call_tool_as", as_agent=other.handle, name=name, arguments=arguments)
        return ToolOutcome(result["is_error"], result["value"], result["text"], result["error"])


@final
class BridgeHostDriver:
    """A host of an npm build on the DSH host packages
    (:class:`~pytest_dsh.driving.api.HostDriver`)."""

    def __init__(
        self,
        name: str,
        version: str,
        *,
        start_ms: int,
        withhold: frozenset[str] = frozenset(),
        jsonl_root: str | os.PathLike[str] | None = None,
        runtime: BridgeRuntime | None = None,
        channel: BridgeChannel | None = None,
    ) -> None:
        """``jsonl_root``: persist sessions with DSH's JSONL backend
        under that folder instead of in memory (needs Node >= 22.15); as on the
        fake host, :meth:`durable_events` then reads the session files.
        ``runtime``: the bridge install and packages to run (an npm implementation's
        :meth:`~pytest_dsh.npm.NodeImplementation.prepare`), served by a pooled
        Node process. ``channel`` instead: a channel of the caller's (a
        :class:`~pytest_dsh.npm.bridge.channel.MemoryTransport`, for one), used
        for this host alone and left open at close."""
        if (runtime is None) == (channel is None):
            raise TypeError("give exactly one of runtime= and channel=")
        self.implementation_name = name
        self.implementation_version = version
        self._faults = FaultPlan()
        self._flushes: list[FlushRecord] = []
        self._warnings: list[str] = []
        self._errors: list[str] = []
        self._watchers: list[PreStepWatcher] = []
        self._sent_windows: list[dict[str, Any]] = []
        self._parked: list[_ParkedFlush] = []
        self._now_ms = start_ms
        self._closed = False
        #: Why this host takes no more requests: its test ran away (None while sound).
        self._ran_away: str | None = None
        #: Per agent handle, the JSON text of each event of its live log this
        #: driver holds (see :meth:`_events`).
        self._mirrors: dict[str, list[str]] = {}
        root = None if jsonl_root is None else os.fspath(jsonl_root)
        # The Node process writes the root; this process holds its lock for it,
        # the same lock the fake host's store takes (one writer per root).
        lock = _NO_LOCK if root is None else lock_root(Path(root))
        self._release_root = weakref.finalize(self, _unlock, lock)
        # A log grows only while a request runs, so a copy kept current from
        # every reply is the log; a host writing real files (JSONL) finishes
        # its I/O in real time and asks every time instead.
        self._mirroring = channel is None and root is None
        try:
            self._process: BridgeChannel = (
                channel if channel is not None else acquire_process(cast(BridgeRuntime, runtime))
            )
        except BaseException:
            self._release_root()  # no Node process: the root is not ours to hold
            raise
        try:
            self._call("reset", start_ms=start_ms, withhold=sorted(withhold), jsonl_root=root)
        except BaseException:
            self._release_channel()
            self._release_root()
            raise

    def __repr__(self) -> str:
        return host_repr(self)

    @property
    def process(self) -> BridgeChannel:
        return self._process

    def _release_channel(self) -> None:
        try:
            if self._ran_away is not None:
                self._recycle()
        finally:
            if isinstance(self._process, BridgeProcess):
                release_process(self._process)

    def _recycle(self) -> None:
        """After a runaway: keep the process only if the bridge proves that
        nothing of the stopped work can reach the next host (``recycle``);
        otherwise retire it, so the next host gets a fresh process."""
        if not self._process.alive:
            return
        why: object = "no answer"
        try:
            result, _ = self._process.request("recycle")
            if isinstance(result, dict):
                if result.get("clean") is True:
                    return
                why = result.get("reason")
        except Exception as failed:  # any failure to prove it clean retires it
            why = failed
        self._process.retire(f"{self._ran_away}; the process could not be proved clean: {why}")

    # -- the channel ---------------------------------------------------------------

    def _call(self, op: str, **args: Any) -> Any:
        if self._closed:
            raise RuntimeError("this host is closed")
        if self._ran_away is not None:
            raise BridgeCrashedError(f"this host is unusable: {self._ran_away}")
        tz = os.environ.get("TZ")
        if tz != self._process.sent_tz:
            # The process zone of the test process is the bridge's process zone.
            args["tz"] = tz
            self._process.sent_tz = tz
        windows = _window_state(self._faults)
        if windows != self._sent_windows:
            args["faults"] = windows
            self._sent_windows = windows
        args.update(_growth_args())
        try:
            result, sync = self._process.request(op, **args)
        except RequestFailedError as failed:
            self._absorb(failed.sync)
            if failed.failure.kind == "RunawayError":
                # The host's work was stopped where it grew: nothing of it is
                # worth reusing; the process is kept only if proved clean at close.
                self._ran_away = "the test ran away (--dsh-growth-budget)"
            _raise_mapped(failed.failure, op)
            raise  # pragma: no cover - _raise_mapped always raises
        self._absorb(sync)
        return result

    def _events(self, handle: str, start: int) -> list[SessionEvent]:
        """An agent's live log from ``start``. The first read asks for the
        whole log and for the bridge to keep this driver's copy current (each
        reply's ``sync.appended``); later reads are answered from that copy,
        parsed afresh from its text on every read like a reply, with no round trip."""
        mirror = self._mirrors.get(handle)
        usable = not self._closed and self._ran_away is None and self._process.alive
        if mirror is not None and usable:
            return cast(list[SessionEvent], parse(f"[{','.join(mirror[start:])}]"))
        if not self._mirroring:
            if start == 0:
                return cast(list[SessionEvent], self._call("events", agent=handle))
            return cast(list[SessionEvent], self._call("events", agent=handle, start=start))
        events = cast(list[SessionEvent], self._call("events", agent=handle, mirror=True))
        self._mirrors[handle] = [stringify(event) for event in events]
        return events[start:]

    def _absorb(self, sync: Mapping[str, Any]) -> None:
        if "now" in sync:
            self._now_ms = int(sync["now"])
        appended = sync.get("appended")
        if appended:
            for handle, events in appended.items():
                mirror = self._mirrors.get(handle)
                if mirror is not None:
                    mirror.extend(stringify(event) for event in events)
        _absorb_growth(sync)
        for record in sync.get("flushes", ()):
            self._flushes.append(
                FlushRecord(
                    record["session_id"],
                    record["outcome"],
                    record["wall_ms"],
                    record["durable_length"],
                    record.get("reason", ""),
                )
            )
        self._warnings.extend(sync.get("warnings", ()))
        self._errors.extend(sync.get("errors", ()))
        for call in sync.get("watcher_calls", ()):
            self._watchers[call["watcher"]].calls.append(
                WatcherCall(
                    call["agent_id"],
                    call["turn"],
                    call["step"],
                    call["aborted"],
                    call["log_length"],
                )
            )
        seen = sync.get("fault_seen")
        if seen is not None:
            self._faults.record_seen(seen)
            self._faults.record_woken(sync.get("fault_woken", ()))
            self._sent_windows = _window_state(self._faults)
        hung = int(sync.get("hung", 0))
        pending = [parked for parked in self._parked if not parked.done()]
        for _ in range(hung - len(pending)):
            parked = _ParkedFlush(self)
            self._parked.append(parked)
            self._faults.park(cast(Any, parked))

    def _release_hung(self, outcome: str) -> None:
        self._parked = [parked for parked in self._parked if not parked.done()]
        if not self._closed:
            self._call("release_hung", outcome=outcome, count=1)

    # -- HostDriver -------------------------------------------------------------------

    @property
    def now_ms(self) -> int:
        return self._now_ms

    @property
    def faults(self) -> FaultPlan:
        return self._faults

    @property
    def flushes(self) -> list[FlushRecord]:
        return self._flushes

    @property
    def warnings(self) -> list[str]:
        return self._warnings

    @property
    def errors(self) -> list[str]:
        return self._errors

    def load_plugin(self, name: str, config: Mapping[str, Any] | None = None) -> None:
        problem = json_value_problem(dict(config or {}))  # as the fake host refuses it
        if problem is not None:
            raise PluginLoadError(name, f"config is not an acceptable JSON value: {problem}")
        self._call("load_plugin", name=name, config=dict(config or {}))

    def unload_plugin(self, name: str) -> None:
        self._call("unload_plugin", name=name)

    def available_plugins(self) -> list[str]:
        return sorted(PLUGIN_NAMES)

    def set_wall_clock(self, epoch_ms: int) -> None:
        if isinstance(epoch_ms, bool) or not isinstance(epoch_ms, int):
            raise TypeError("wall clock values are integer epoch milliseconds")
        if not -JS_MAX_TIME_MS <= epoch_ms <= JS_MAX_TIME_MS:
            raise ValueError(
                f"wall clock {epoch_ms} ms is outside the JavaScript time range "
                f"(±{JS_MAX_TIME_MS} ms)"
            )
        self._call("set_wall", ms=epoch_ms)

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("monotonic time never goes backwards")
        self._call("advance", ms=round(seconds * 1000))

    def run_until_idle(self) -> None:
        self._call("settle")

    def _agent(self, info: Mapping[str, Any]) -> BridgeAgentDriver:
        return BridgeAgentDriver(self, info)

    def create_agent(
        self,
        *,
        session_id: str | None = None,
        seed: Sequence[SessionEvent] | None = None,
        parent: AgentDriver | None = None,
        seed_length: int | None = None,
        gone_when_announced: bool = False,
    ) -> BridgeAgentDriver:
        if parent is not None and not (
            isinstance(parent, BridgeAgentDriver) and parent._host is self
        ):
            raise TypeError("parent must be an agent of this host")
        info = self._call(
            "create_agent",
            session_id=session_id,
            seed=None if seed is None else list(seed),
            parent=None if parent is None else parent.handle,
            seed_length=seed_length,
            gone_when_announced=gone_when_announced,
        )
        return self._agent(info)

    def fork(self, agent: AgentDriver) -> BridgeAgentDriver:
        if not (isinstance(agent, BridgeAgentDriver) and agent._host is self):
            raise TypeError("agent must be an agent of this host")
        return self._agent(self._call("fork", agent=agent.handle))

    def resume(self, session_id: str) -> BridgeAgentDriver:
        return self._agent(self._call("resume", session_id=session_id))

    def crash(self) -> None:
        for parked in self._parked:
            parked._done = True
        self._parked = []
        self._call("crash")

    def set_durability(self, mode: Durability) -> None:
        """``"flush"`` is what DSH's persistence does already; the bridge has no
        ``"per-event"`` (``NotImplementedError``, seam ``"per-event-durability"``)."""
        if check_durability(mode) == "per-event":
            reason = host_gap("bridge", "per-event-durability")
            raise NotImplementedError(f"the bridge has no per-event durability: {reason}")

    def durable_events(self, session_id: str) -> list[SessionEvent]:
        return cast(list[SessionEvent], self._call("durable_events", session_id=session_id))

    def flush_session(self, agent: AgentDriver) -> bool:
        if not (isinstance(agent, BridgeAgentDriver) and agent._host is self):
            raise TypeError("agent must be an agent of this host")
        return bool(self._call("flush_session", agent=agent.handle))

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
        index = self._call(
            "add_watcher", mode=mode, only=None if only is None else list(only), order=order
        )
        if index != len(self._watchers) - 1:  # pragma: no cover - protocol guard
            raise RuntimeError("watcher numbering out of step with the bridge")
        return watcher

    def start_trace(self) -> None:
        self._call("start_trace")

    def trace(self) -> list[TraceEntry]:
        return [
            TraceEntry(entry["kind"], entry["subject"], entry["detail"])
            for entry in self._call("trace")
        ]

    def preregister_tool(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("a tool name is a non-empty string")
        self._call("preregister_tool", name=name)

    def tool_registrations(self, session_id: str) -> list[ToolRegistration]:
        return [
            ToolRegistration(
                entry["name"], entry["state"], entry["output_schema"], entry["host_tool"]
            )
            for entry in self._call("tool_registrations", session_id=session_id)
        ]

    def export_shape(self, plugin: str) -> ExportShape:
        shape = self._call("export_shape", plugin=plugin)
        return ExportShape(
            shape["form"],
            shape["name"],
            tuple(shape["inject"]),
            bool(shape["has_config"]),
            tuple(shape["exports"]),
        )

    def supports(self, seam: str) -> bool:
        return not self.unsupported_reason(seam)

    def unsupported_reason(self, seam: str) -> str:
        return host_gap("bridge", seam)

    def close(self) -> None:
        if self._closed:
            return
        try:
            # A stopped process has no host to close; one that ran away is recycled.
            if self._process.alive and self._ran_away is None:
                self._call("close")
        finally:
            self._closed = True
            self._release_channel()
            self._release_root()
