"""Physical lines of a session file, read in bounded memory, and their JSON values.

A line is read with a byte limit, so a file without newlines (``/dev/zero``) or
with one enormous line ends with :class:`LineTooLong` after reading at most the
limit, instead of filling memory. Lines end at ``\\n`` only; the last line of a
file without a final ``\\n`` is marked unterminated (a torn write).

Values are parsed as ``JSON.parse`` would, because DSH writes and reads these
files in JavaScript: ``NaN``/``Infinity`` literals are not JSON, and integers too
long for Python's int conversion become floats (``Infinity`` beyond the double
range) instead of raising. Nesting deeper than the parser's recursion limit is
reported rather than raised.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Final

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "LineTooLong",
    "NotJson",
    "RawLine",
    "parse_json_line",
    "physical_lines",
]

#: Default longest line accepted, in bytes without the newline (16 MiB).
DEFAULT_MAX_LINE_BYTES: Final = 16 * 1024 * 1024

# Integer literals longer than this many digits are read as floats, as
# JavaScript reads every number; shorter ones stay exact Python ints.
_EXACT_INT_DIGITS: Final = 300


@dataclass(frozen=True, slots=True)
class RawLine:
    number: int
    content: bytes  # without the terminating newline
    terminated: bool


class LineTooLong(Exception):
    def __init__(self, number: int, limit: int) -> None:
        super().__init__(
            f"line is longer than {limit} bytes (--max-line-bytes); "
            "the rest of the file was not read"
        )
        self.number = number


class NotJson(ValueError):
    """The line is not one JSON value: ``rule`` (``file.encoding``, ``file.json`` or
    ``file.nesting``) and ``str(error)`` say why."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def physical_lines(stream: BinaryIO, max_line_bytes: int) -> Iterator[RawLine]:
    """Yield every line of ``stream``; raise :class:`LineTooLong` on the first overlong one."""
    number = 0
    while True:
        chunk = stream.readline(max_line_bytes + 1)
        if not chunk:
            return
        number += 1
        if chunk.endswith(b"\n"):
            yield RawLine(number, chunk[:-1], terminated=True)
        elif len(chunk) > max_line_bytes:
            raise LineTooLong(number, max_line_bytes)
        else:
            yield RawLine(number, chunk, terminated=False)


def _js_int(text: str) -> int | float:
    return int(text) if len(text) <= _EXACT_INT_DIGITS else float(text)


def _no_constants(name: str) -> float:
    raise NotJson("file.json", f"not JSON ({name} is not a JSON literal)")


_DECODER: Final = json.JSONDecoder(parse_int=_js_int, parse_constant=_no_constants)


def parse_json_line(content: bytes) -> object:
    """The JSON value of one line; raises :class:`NotJson` with a readable reason."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotJson(
            "file.encoding",
            f"not UTF-8 (byte 0x{content[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise NotJson("file.json", f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        message = "not checkable (JSON nested deeper than the parser allows)"
        raise NotJson("file.nesting", message) from None
