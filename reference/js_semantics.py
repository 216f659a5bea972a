"""ECMAScript semantics that decide protocol outcomes, reproduced exactly.

Both plugin protocols were defined by JavaScript implementations, so these
primitives must behave as JavaScript does, not as Python does (shared by
``dsh_reference.schedule`` and ``dsh_reference.time_context``):

* ``String.prototype.trim`` strips a different whitespace set from
  :meth:`str.strip` (it strips U+FEFF; it keeps U+0085 and U+001C-U+001F);
* ``Number.isSafeInteger`` accepts integral floats (JSON ``60.0`` is the number
  60) and rejects booleans, which Python treats as integers;
* ``JSON.stringify`` differs from :func:`json.dumps` on lone surrogates and on
  number formatting (``60.0`` renders as ``60``, ``1e-7`` as ``1e-7``);
* ``String(value)`` renders numbers with ``Number::toString`` (``Infinity``,
  ``NaN``, ``9007199254740992``) and containers in its own way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TypeGuard

__all__ = [
    "JS_WHITESPACE",
    "MAX_SAFE_INTEGER",
    "is_safe_integer",
    "js_string",
    "js_string_literal",
    "js_trim",
    "number_to_string",
    "to_js_json",
]

#: Characters removed by ECMAScript ``String.prototype.trim`` (WhiteSpace plus
#: LineTerminator). U+0085 and U+001C-U+001F are deliberately absent.
JS_WHITESPACE: str = (
    "\t\n\x0b\x0c\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

#: ``Number.MAX_SAFE_INTEGER``.
MAX_SAFE_INTEGER: int = 2**53 - 1

# JSON.stringify's short escapes; every other C0 control becomes \u00xx.
_SHORT_ESCAPES: dict[str, str] = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def js_trim(text: str) -> str:
    """Return ``text`` with the ECMAScript ``trim`` whitespace set removed at both ends."""
    return text.strip(JS_WHITESPACE)


def is_safe_integer(value: object) -> TypeGuard[int | float]:
    """``Number.isSafeInteger``: an int or integral float (never a bool) with |x| <= 2**53 - 1."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return value.is_integer() and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    return False


def to_js_json(value: object) -> str:
    """Render ``value`` exactly as ECMAScript ``JSON.stringify(value)`` does (compact form).

    Accepts ``None``, bools, ints, floats, strings, mappings with string keys (in
    insertion order) and lists or tuples. Anything else raises :class:`TypeError`.
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
        # A JavaScript number cannot hold this exactly; render the nearest double.
        try:
            return _json_number(float(value))
        except OverflowError:
            return "null"
    if isinstance(value, float):
        return _json_number(value)
    if isinstance(value, str):
        return _js_string_literal(value)
    if isinstance(value, dict | Mapping):  # dict first: a C check, not the ABC's
        members: list[str] = []
        for key, member in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, not {type(key).__name__}")
            members.append(f"{_js_string_literal(key)}:{to_js_json(member)}")
        return "{" + ",".join(members) + "}"
    if isinstance(value, list | tuple) or (
        isinstance(value, Sequence) and not isinstance(value, bytes | bytearray)
    ):
        return "[" + ",".join(to_js_json(item) for item in value) + "]"
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


# What JSON.stringify escapes: the quote, the backslash, C0 controls and lone
# surrogates. An adjacent high/low pair is one UTF-16 character to JavaScript and
# stays literal (as the astral character), so it is matched before a lone half.
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]|[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]')


def js_string_literal(text: str) -> str:
    """``JSON.stringify(text)`` of a string."""
    # One scan in C; Python runs only for the (rare) characters escaped.
    return f'"{_NEEDS_ESCAPE.sub(_escape_match, text)}"'


_js_string_literal = js_string_literal


def _escape_match(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:
        high, low = ord(found[0]), ord(found[1])
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    short = _SHORT_ESCAPES.get(found)
    return short if short is not None else f"\\u{ord(found):04x}"


def _json_number(number: float) -> str:
    """A number as ``JSON.stringify`` writes it: non-finite numbers become ``null``."""
    return number_to_string(number) if math.isfinite(number) else "null"


def number_to_string(number: float) -> str:
    """ECMAScript ``Number::toString`` (radix 10), ``NaN`` and ``Infinity`` included."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    if number == 0:
        return "0"  # also for -0
    sign = "-" if number < 0 else ""
    # repr() yields the shortest round-tripping digits, as ECMAScript requires.
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
        exponent_text = f"e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
        head = significant[0] + ("." + significant[1:] if k > 1 else "")
        text = head + exponent_text
    return sign + text


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
            return number_to_string(float(value))  # the nearest double JavaScript holds
        except OverflowError:
            return "-Infinity" if value < 0 else "Infinity"
    if isinstance(value, float):
        return number_to_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "[object Object]"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return ",".join("" if item is None else js_string(item) for item in value)
    return str(value)
