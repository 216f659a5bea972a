"""Pure core of the reference dsh-time-context plugin.

Functions over plain data: session events ``{type, seq, time, data}`` with
epoch-millisecond times, validated settings and strings. Nothing here performs
I/O, reads a clock or awaits; the runtime samples the clock and appends, and the
invariant companion reuses the checks on raw logs.
"""

from __future__ import annotations

from .baselines import (
    MODEL_VISIBLE_TYPES,
    baseline_time_ms,
    elapsed_text,
    same_turn_reading_time_ms,
    step_one_baseline_ms,
)
from .config import (
    SYSTEM_ZONE_MESSAGE,
    TimeContextConfigError,
    TimeContextSettings,
    canonical_zone_key,
    invalid_interval_message,
    invalid_zone_message,
    parse_config,
    resolve_process_zone_key,
    validate_refresh_interval,
    validate_time_zone,
)
from .formatting import format_duration, format_offset, format_timestamp
from .invariant import (
    CONTENT_MESSAGE,
    FORMAT_MESSAGE,
    INVARIANT_OWNER,
    NUMBERS_MESSAGE,
    OPEN_TURN_MESSAGE,
    TIMESTAMP_MESSAGE,
    TimeContextInvariantError,
    check_log,
    check_reading,
)
from .js_values import MAX_SAFE_INTEGER, is_safe_integer, js_json_text, js_string
from .preparation import prepare_reading
from .reading import (
    PLUGIN_NAME,
    READING_SOURCE,
    STEP_CONTEXT_LABEL,
    STEP_ONE_LABEL,
    UNAVAILABLE,
    baseline_label,
    is_reading,
    reading_message,
    render_reading,
)
from .rendered_timestamps import parse_rendered_timestamp
from .scheduling import LatestReading, latest_reading_time_ms, reading_due

__all__ = [
    "CONTENT_MESSAGE",
    "FORMAT_MESSAGE",
    "INVARIANT_OWNER",
    "MAX_SAFE_INTEGER",
    "MODEL_VISIBLE_TYPES",
    "NUMBERS_MESSAGE",
    "OPEN_TURN_MESSAGE",
    "PLUGIN_NAME",
    "READING_SOURCE",
    "STEP_CONTEXT_LABEL",
    "STEP_ONE_LABEL",
    "SYSTEM_ZONE_MESSAGE",
    "TIMESTAMP_MESSAGE",
    "UNAVAILABLE",
    "LatestReading",
    "TimeContextConfigError",
    "TimeContextInvariantError",
    "TimeContextSettings",
    "baseline_label",
    "baseline_time_ms",
    "canonical_zone_key",
    "check_log",
    "check_reading",
    "elapsed_text",
    "format_duration",
    "format_offset",
    "format_timestamp",
    "invalid_interval_message",
    "invalid_zone_message",
    "is_reading",
    "is_safe_integer",
    "js_json_text",
    "js_string",
    "latest_reading_time_ms",
    "parse_config",
    "parse_rendered_timestamp",
    "prepare_reading",
    "reading_due",
    "reading_message",
    "render_reading",
    "resolve_process_zone_key",
    "same_turn_reading_time_ms",
    "step_one_baseline_ms",
    "validate_refresh_interval",
    "validate_time_zone",
]
