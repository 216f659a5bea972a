"""Tool result values other than views, and their rendering.

Every Schedule outcome, including an error, is a successful tool value: a
JSON value whose rendered text is its compact ``JSON.stringify`` form.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Final, Literal, NotRequired, TypedDict

from .errors import ErrorCode
from .js_semantics import MAX_SAFE_INTEGER, to_js_json

__all__ = [
    "CORRUPT_LOG_MESSAGE",
    "INTERNAL_ERROR_MESSAGE",
    "PERSISTENCE_UNCERTAIN_MESSAGE",
    "DeletedResult",
    "ErrorResult",
    "NotFoundResult",
    "Operation",
    "PersistenceUncertainResult",
    "corrupt_log_result",
    "delete_result",
    "error_result",
    "internal_error_result",
    "persistence_uncertain_result",
    "render_tool_value",
]

INTERNAL_ERROR_MESSAGE: Final = "The schedule operation failed."
CORRUPT_LOG_MESSAGE: Final = "The session schedule log is corrupt."
PERSISTENCE_UNCERTAIN_MESSAGE: Final = (
    "Schedule persistence is uncertain; retry with schedule_list before relying on this result."
)

Operation = Literal["create", "list", "delete"]


class ErrorResult(TypedDict):
    """``{"code","message"}`` for every error except persistence_uncertain."""

    code: ErrorCode
    message: str


class PersistenceUncertainResult(TypedDict):
    """A checkpoint did not confirm durability; ``id`` names a possibly written mutation."""

    code: Literal["persistence_uncertain"]
    message: str
    operation: Operation
    id: NotRequired[str]


class DeletedResult(TypedDict):
    """``schedule_delete`` appended a delete."""

    id: str
    deleted: Literal[True]


class NotFoundResult(TypedDict):
    """``schedule_delete`` found no active record with this exact id."""

    id: str
    deleted: Literal[False]
    code: Literal["schedule_not_found"]


def error_result(code: ErrorCode, message: str) -> ErrorResult:
    """An error value, e.g. from a :class:`ScheduleInputError`'s code and message."""
    return {"code": code, "message": message}


def internal_error_result() -> ErrorResult:
    """The fixed value for any unexpected failure; never exposes the exception."""
    return error_result("internal_error", INTERNAL_ERROR_MESSAGE)


def corrupt_log_result() -> ErrorResult:
    """The fixed value when the fold raises :class:`ScheduleLogError`."""
    return error_result("corrupt_schedule_log", CORRUPT_LOG_MESSAGE)


def persistence_uncertain_result(
    operation: Operation, schedule_id: str | None = None
) -> PersistenceUncertainResult:
    """The fixed persistence value; ``id`` is present only when given."""
    result: PersistenceUncertainResult = {
        "code": "persistence_uncertain",
        "message": PERSISTENCE_UNCERTAIN_MESSAGE,
        "operation": operation,
    }
    if schedule_id is not None:
        result["id"] = schedule_id
    return result


def delete_result(schedule_id: str, *, deleted: bool) -> DeletedResult | NotFoundResult:
    """``{"id","deleted":true}`` or ``{"id","deleted":false,"code":"schedule_not_found"}``."""
    if deleted:
        return {"id": schedule_id, "deleted": True}
    return {"id": schedule_id, "deleted": False, "code": "schedule_not_found"}


def render_tool_value(value: object) -> str:
    """The text content of a tool result: compact JSON, keys in insertion order."""
    if type(value) is dict and _flat_and_plain(value):
        return _encode_compact(value)
    return to_js_json(value)


#: ``json``'s C encoder, compact. On ASCII strings it escapes exactly what
#: ``JSON.stringify`` escapes (the quote, the backslash, C0 controls, with the
#: same short forms and lowercase ``\u00xx``), and writes safe integers,
#: booleans and null the same way; floats and other strings (a lone surrogate)
#: are left to :func:`to_js_json`.
_encode_compact: Callable[[object], str] = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
).encode


def _never_called(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not a flat JSON member")


# The same C encoder, made once: ``JSONEncoder.encode`` builds it anew on every
# call, which costs more than encoding a view.
_make_c_encoder = getattr(json.encoder, "c_make_encoder", None)
_c_encode_string = getattr(json.encoder, "c_encode_basestring", None)
if _make_c_encoder is not None and _c_encode_string is not None:
    _c_encoder = _make_c_encoder(
        None, _never_called, _c_encode_string, None, ":", ",", False, False, False
    )

    def _encode_compact(value: object) -> str:
        return "".join(_c_encoder(value, 0))


def _flat_and_plain(value: dict[object, object]) -> bool:
    """Whether every key is an ASCII string and every member an ASCII string,
    a safe integer, a boolean or null (a Schedule view, an error value)."""
    for key, member in value.items():
        if type(key) is not str or not key.isascii():
            return False
        if type(member) is str:
            if not member.isascii():
                return False
        elif type(member) is int:
            if not -MAX_SAFE_INTEGER <= member <= MAX_SAFE_INTEGER:
                return False
        elif member is not None and type(member) is not bool:
            return False
    return True
