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

import json
import math
from collections.abc import Mapping, Sequence
from typing import Final, TypeGuard

__all__ = ["MAX_SAFE_INTEGER", "is_safe_integer", "js_json_text", "js_string"]

#: ``Number.MAX_SAFE_INTEGER``.
MAX_SAFE_INTEGER: Final = 2**53 - 1


def is_safe_integer(value: object) -> TypeGuard[int | float]:
    """``Number.isSafeInteger``: an int or integral float, never a bool, |x| <= 2**53 - 1."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return value.is_integer() and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return False


def js_string(value: object) -> str:
    """ECMAScript ``String(value)`` for JSON-shaped values.

    ``None`` renders as ``null``; a mapping as ``[object Object]``; a list as
    its elements joined by ``,`` (``null`` elements become empty).
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            return str(value)
        try:
            return _number_text(float(value))  # the nearest double, as JavaScript holds it
        except OverflowError:
            return "-Infinity" if value < 0 else "Infinity"
    if isinstance(value, float):
        return _number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "[object Object]"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return ",".join("" if item is None else js_string(item) for item in value)
    return str(value)


def js_json_text(value: object) -> str:
    """ECMAScript ``JSON.stringify(value)`` for scalars and strings.

    Strings are quoted as JavaScript quotes them: lone surrogates are escaped,
    everything else outside the short escapes and C0 controls stays literal.
    Non-finite numbers render as ``null``.
    """
    if isinstance(value, str):
        escaped = json.dumps(value, ensure_ascii=False)
        return "".join(
            f"\\u{ord(char):04x}" if 0xD800 <= ord(char) <= 0xDFFF else char for char in escaped
        )
    if value is None or value is True or value is False:
        return js_string(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return js_string(value)
    if isinstance(value, Mapping):
        members = (f"{js_json_text(str(k))}:{js_json_text(v)}" for k, v in value.items())
        return "{" + ",".join(members) + "}"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return "[" + ",".join(js_json_text(item) for item in value) + "]"
    return js_json_text(str(value))


def _number_text(number: float) -> str:
    """ECMAScript ``Number::toString`` (radix 10)."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"  # also for -0
    sign = "-" if number < 0 else ""
    # repr() gives the shortest round-tripping digits, as ECMAScript requires.
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + int(exponent or "0")
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    significant = significant.rstrip("0")
    k, n = len(significant), point  # value = 0.<significant> * 10**n
    if k <= n <= 21:
        text = significant + "0" * (n - k)
    elif 0 < n <= 21:
        text = significant[:n] + "." + significant[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + significant
    else:
        head = significant[0] + ("." + significant[1:] if k > 1 else "")
        text = f"{head}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + text
