"""The few ECMAScript value renderings the time-context protocol depends on.

The plugin's configuration errors were defined by a JavaScript implementation,
so they quote values as JavaScript does:

* ``String(value)`` for an invalid ``refreshIntervalMs`` (``-1``, ``0.5``,
  ``9007199254740992``, ``Infinity``, ``NaN``, ``true``);
* ``JSON.stringify(value)`` for an invalid ``timeZone`` (``"Not/A_Zone"``).

Values arrive as decoded JSON/YAML: ``None``, bools, ints, floats, strings,
lists and mappings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dsh_reference.js_semantics import MAX_SAFE_INTEGER, is_safe_integer, js_string, to_js_json

__all__ = ["MAX_SAFE_INTEGER", "is_safe_integer", "js_json_text", "js_string"]


def js_json_text(value: object) -> str:
    """ECMAScript ``JSON.stringify(value)`` for a decoded config value.

    Config comes from JSON or YAML, whose mapping keys need not be strings and
    whose leaves may be of any scalar type: keys and unknown leaves are quoted
    through ``String()`` first, as JavaScript would have received them.
    """
    return to_js_json(_as_json_shaped(value))


def _as_json_shaped(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(key): _as_json_shaped(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return [_as_json_shaped(item) for item in value]
    return str(value)
