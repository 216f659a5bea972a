"""ECMAScript primitives of the schedule protocol (see :mod:`dsh_reference.js_semantics`)."""

from __future__ import annotations

from dsh_reference.js_semantics import (
    JS_WHITESPACE,
    MAX_SAFE_INTEGER,
    is_safe_integer,
    js_trim,
    to_js_json,
)

__all__ = ["JS_WHITESPACE", "MAX_SAFE_INTEGER", "is_safe_integer", "js_trim", "to_js_json"]
