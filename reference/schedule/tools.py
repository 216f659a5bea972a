"""Handlers of ``schedule_create``, ``schedule_list`` and ``schedule_delete``.

Each handler does its shape-only checks first (they need neither the log nor
the clock, so they never wait for the queue or touch persistence), then enters
the agent's queue, checkpoints, reads the fold (the agent's projection, shared
with the live owner, advances over the events appended since its last read)
and decides. Every outcome is a value:
no exception reaches the host. After every successful preflight and barrier the
live owner is asked to recompute.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dsh_reference.schedule.core import (
    SCHEDULE_CHANGE_EVENT_TYPE,
    SCHEDULE_CHANGE_VERSION,
    CreateChange,
    DeleteChange,
    ScheduleFold,
    ScheduleInputError,
    ScheduleLogError,
    ScheduleProjection,
    allocate_schedule_id_after,
    build_requested_record,
    corrupt_log_result,
    delete_result,
    encode_schedule_change,
    error_result,
    internal_error_result,
    persistence_uncertain_result,
    render_tool_value,
    schedule_view,
    tool_definitions,
    validate_create_arguments,
    validate_delete_id,
)
from dsh_reference.schedule.transactions import AgentQueue, checkpoint
from pytest_dsh.contract import Agent, HostServices, ToolCall, ToolDefinition

__all__ = ["register_schedule_tools"]


class _CorruptLog(Exception):
    pass


def answer_if_aborted(call: ToolCall) -> Any:
    """The value a call whose signal is aborted answers with (``None``: go on).

    Checked when the call's turn comes and again just before it appends."""
    return internal_error_result() if call.signal.aborted else None


def register_schedule_tools(
    agent: Agent,
    services: HostServices,
    queue: AgentQueue,
    on_durable_change: Callable[[], None],
    projection: ScheduleProjection | None = None,
) -> Callable[[], None]:
    """Register the three tools on ``agent``; returns an idempotent disposer that
    unregisters them in reverse order. ``projection`` is the agent's fold,
    shared with its live owner (a private one by default)."""
    handlers = _Handlers(
        agent, services, queue, on_durable_change, projection or ScheduleProjection()
    )
    by_name = {
        "schedule_create": handlers.create,
        "schedule_list": handlers.list,
        "schedule_delete": handlers.delete,
    }
    disposers: list[Callable[[], None]] = []
    try:
        for definition in tool_definitions():
            disposers.append(
                agent.tools.register(
                    ToolDefinition(
                        name=definition.name,
                        description=definition.description,
                        parameters=definition.parameters,
                        handler=by_name[definition.name],
                        output_schema=definition.output_schema,
                        render=render_tool_value,
                        present_call=_CARDS[definition.name],
                    )
                )
            )
    except Exception:
        for dispose in reversed(disposers):
            dispose()
        raise

    def dispose_all() -> None:
        while disposers:
            disposers.pop()()

    return dispose_all


def _card(title: str, kind: str, raw_input: Any = None) -> dict[str, Any]:
    """A pending call's generic card; ``rawInput`` only when the call names one."""
    card: dict[str, Any] = {"card": "generic", "title": title, "kind": kind}
    if raw_input is not None:
        card["rawInput"] = raw_input
    return card


def _argument(arguments: Any, key: str) -> Any:
    return arguments.get(key) if isinstance(arguments, Mapping) else None


#: How a UI shows each pending call (display only; pinned SCH-TOOL-PRESENTATION).
_CARDS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "schedule_create": lambda args: _card("Create reminder", "other", _argument(args, "prompt")),
    "schedule_list": lambda args: _card("List reminders", "read"),
    "schedule_delete": lambda args: _card("Delete reminder", "other", _argument(args, "id")),
}


class _Handlers:
    def __init__(
        self,
        agent: Agent,
        services: HostServices,
        queue: AgentQueue,
        on_durable_change: Callable[[], None],
        projection: ScheduleProjection,
    ) -> None:
        self._agent = agent
        self._projection = projection
        self._services = services
        self._queue = queue
        self._on_durable_change = on_durable_change

    def _durable_change(self) -> None:
        try:
            self._on_durable_change()
        except Exception as exc:
            self._services.logger.warn(f"schedule: durable-change observer failed: {exc}")

    def _fold(self) -> ScheduleFold:
        session = self._agent.session
        try:
            return self._projection.read(session.events, session.header.get("seedLength") or 0)
        except ScheduleLogError as exc:
            raise _CorruptLog from exc

    async def create(self, arguments: Mapping[str, Any], call: ToolCall) -> Any:
        if call.agent is not self._agent:
            return internal_error_result()
        try:
            request = validate_create_arguments(arguments)
        except ScheduleInputError as exc:
            return error_result(exc.code, exc.message)
        async with self._queue:
            if (aborted := answer_if_aborted(call)) is not None:
                return aborted
            session = self._agent.session
            if not await checkpoint(self._services, session):
                return persistence_uncertain_result("create")
            self._durable_change()
            try:
                folded = self._fold()
                schedule_id = allocate_schedule_id_after(folded)
                record = build_requested_record(request, schedule_id, self._services.clock.now_ms())
            except _CorruptLog:
                return corrupt_log_result()
            except ScheduleInputError as exc:
                return error_result(exc.code, exc.message)
            except Exception:
                return internal_error_result()
            if (aborted := answer_if_aborted(call)) is not None:
                return aborted
            change: CreateChange = {
                "version": SCHEDULE_CHANGE_VERSION, "operation": "create", "schedule": record
            }
            try:
                session.append(SCHEDULE_CHANGE_EVENT_TYPE, encode_schedule_change(change))
            except Exception:
                return internal_error_result()
            if not await checkpoint(self._services, session):
                return persistence_uncertain_result("create", schedule_id)
            self._durable_change()
            return schedule_view(record, self._services.clock.now_ms())

    async def list(self, arguments: Mapping[str, Any], call: ToolCall) -> Any:
        if call.agent is not self._agent:
            return internal_error_result()
        async with self._queue:
            if (aborted := answer_if_aborted(call)) is not None:
                return aborted
            if not await checkpoint(self._services, self._agent.session):
                return persistence_uncertain_result("list")
            self._durable_change()
            try:
                folded = self._fold()
                now = self._services.clock.now_ms()
                return [schedule_view(record, now) for record in folded.active()]
            except _CorruptLog:
                return corrupt_log_result()
            except Exception:  # a failed read must not leak as a host error
                return internal_error_result()

    async def delete(self, arguments: Mapping[str, Any], call: ToolCall) -> Any:
        try:
            schedule_id = validate_delete_id(arguments.get("id"))
        except ScheduleInputError as exc:
            return error_result(exc.code, exc.message)
        if call.agent is not self._agent:
            return internal_error_result()
        async with self._queue:
            if (aborted := answer_if_aborted(call)) is not None:
                return aborted
            session = self._agent.session
            if not await checkpoint(self._services, session):
                return persistence_uncertain_result("delete", schedule_id)
            self._durable_change()
            try:
                folded = self._fold()
            except _CorruptLog:
                return corrupt_log_result()
            except Exception:  # a failed read must not leak as a host error
                return internal_error_result()
            if schedule_id not in folded:
                return delete_result(schedule_id, deleted=False)
            if (aborted := answer_if_aborted(call)) is not None:
                return aborted
            delete: DeleteChange = {
                "version": SCHEDULE_CHANGE_VERSION, "operation": "delete", "id": schedule_id
            }
            try:
                session.append(SCHEDULE_CHANGE_EVENT_TYPE, encode_schedule_change(delete))
            except Exception:
                return internal_error_result()
            if not await checkpoint(self._services, session):
                return persistence_uncertain_result("delete", schedule_id)
            self._durable_change()
            return delete_result(schedule_id, deleted=True)
