"""Instants and ECMAScript text rules the schedule strategies share: the
four-digit-year instant range, canonical UTC rendering, and JS trimming."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Final

__all__ = [
    "JS_WHITESPACE",
    "MAX_INSTANT_MS",
    "MAX_SAFE_INTEGER",
    "MIN_INSTANT_MS",
    "as_datetime",
    "as_epoch_ms",
    "iso_instant",
    "js_trim",
    "parse_instant",
]

#: ECMAScript ``String.prototype.trim`` whitespace: what "trimmed" means for
#: prompts and ids (U+FEFF is included, U+0085 and U+001C..U+001F are not).
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
MIN_INSTANT_MS: Final = -62_135_596_800_000  # 0001-01-01T00:00:00.000Z
MAX_INSTANT_MS: Final = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
MAX_SAFE_INTEGER: Final = 2**53 - 1


def js_trim(text: str) -> str:
    """``text.trim()`` as ECMAScript defines it."""
    return text.strip(JS_WHITESPACE)


def iso_instant(epoch_ms: int) -> str:
    """The canonical four-digit-year UTC form of ``epoch_ms`` (years 1..9999)."""
    moment = _EPOCH + timedelta(milliseconds=epoch_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def as_datetime(epoch_ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=epoch_ms)


def as_epoch_ms(moment: datetime) -> int:
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def parse_instant(text: str) -> int:
    """Epoch milliseconds of a canonical ``...Z`` instant."""
    return as_epoch_ms(datetime.fromisoformat(text.replace("Z", "+00:00")))
