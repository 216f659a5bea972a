"""Closed error codes and the two exceptions of the schedule core.

Exception tree::

    Exception
    ├── ScheduleLogError      code "corrupt_schedule_log": the durable log breaks a protocol rule
    └── ScheduleInputError    code in InputErrorCode: a tool input the model can correct

``schedule_not_found`` is not an error: it is the ``code`` of a successful
``schedule_delete`` value with ``deleted: false``.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

__all__ = [
    "CORRUPT_SCHEDULE_LOG",
    "ERROR_CODES",
    "FREQUENCY_TOO_HIGH",
    "INTERNAL_ERROR",
    "INVALID_PROMPT",
    "INVALID_RULE",
    "INVALID_SELECTOR",
    "INVALID_TIME_ZONE",
    "NOT_FUTURE",
    "PERSISTENCE_UNCERTAIN",
    "SCHEDULE_NOT_FOUND",
    "TIME_OUT_OF_RANGE",
    "ErrorCode",
    "InputErrorCode",
    "ScheduleInputError",
    "ScheduleLogError",
]

InputErrorCode = Literal[
    "invalid_prompt",
    "invalid_selector",
    "invalid_rule",
    "invalid_time_zone",
    "not_future",
    "time_out_of_range",
    "frequency_too_high",
]
"""Codes of errors caused by the tool input (raised as :class:`ScheduleInputError`)."""

ErrorCode = Literal[
    "invalid_prompt",
    "invalid_selector",
    "invalid_rule",
    "invalid_time_zone",
    "not_future",
    "time_out_of_range",
    "frequency_too_high",
    "corrupt_schedule_log",
    "persistence_uncertain",
    "internal_error",
]
"""The closed set of version-1 domain error codes, in README order."""

ERROR_CODES: Final[tuple[ErrorCode, ...]] = get_args(ErrorCode)

INVALID_PROMPT: Final = "invalid_prompt"
INVALID_SELECTOR: Final = "invalid_selector"
INVALID_RULE: Final = "invalid_rule"
INVALID_TIME_ZONE: Final = "invalid_time_zone"
NOT_FUTURE: Final = "not_future"
TIME_OUT_OF_RANGE: Final = "time_out_of_range"
FREQUENCY_TOO_HIGH: Final = "frequency_too_high"
CORRUPT_SCHEDULE_LOG: Final = "corrupt_schedule_log"
PERSISTENCE_UNCERTAIN: Final = "persistence_uncertain"
INTERNAL_ERROR: Final = "internal_error"
SCHEDULE_NOT_FOUND: Final = "schedule_not_found"


class ScheduleLogError(Exception):
    """The schedule log (or a candidate event) violates a durable-protocol rule.

    ``message`` names the violated rule; it is stable and safe to show.
    """

    code: Final = CORRUPT_SCHEDULE_LOG

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ScheduleInputError(Exception):
    """A create input was rejected; ``code`` and ``message`` form the tool's error value."""

    def __init__(self, code: InputErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: InputErrorCode = code
        self.message = message

    def __repr__(self) -> str:
        return f"ScheduleInputError({self.code!r}, {self.message!r})"
