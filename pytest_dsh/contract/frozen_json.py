"""Read-only JSON values: how a host keeps its event log immutable without
copying it (the fake host builds its events with it; the reference reads their
stored text through :func:`event_text`).

An appended event is a lossless JSON snapshot of what the plugin passed. The
host used to take it with a JSON round trip per append, serialise it again for
the durable store at every flush, and leave the stored dictionaries open to any
reader that cared to edit them. Now an event is built once:

- its data is serialised once, strictly (``allow_nan=False``): that both
  refuses what is not JSON and gives the text the durable store keeps;
- it is copied into :class:`FrozenDict` / :class:`FrozenList` containers,
  ``dict`` and ``list`` subclasses whose mutating methods raise ``TypeError``,
  so the session, the durable store and every reader share one object that
  nobody can change (``isinstance(event, dict)`` still holds, equality with
  plain values is unchanged);
- the event (a :class:`FrozenEvent`) carries its serialised text, which the
  stores write as is (:func:`event_text`).

``copy.deepcopy`` of a frozen value (and :func:`thaw`) gives plain, mutable
dictionaries and lists; ``copy.copy`` a plain shallow copy.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any, Final, NoReturn, final

__all__ = [
    "FrozenDict",
    "FrozenEvent",
    "FrozenList",
    "built_event",
    "event_text",
    "freeze",
    "freeze_event",
    "frozen_array",
    "frozen_event",
    "frozen_object",
    "strict_json",
    "thaw",
    "thaw_events",
]

_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _not_serialisable(value: Any) -> NoReturn:
    _ENCODER.default(value)  # raises json's own TypeError
    raise AssertionError("unreachable")


def strict_json(value: Any) -> str:
    """Compact JSON text of ``value``; ``TypeError``/``ValueError``/
    ``RecursionError`` when it is not JSON (NaN and infinities included)."""
    if c_make_encoder is None:  # pragma: no cover - CPython always has it
        return _ENCODER.encode(value)
    try:
        return "".join(_FAST_ENCODE(value, 0))
    except RecursionError:
        pass  # too deep, or a value that contains itself: the checked encoder says which
    # What JSONEncoder.encode does, without its two Python layers: one C
    # encoder per call (its ``markers`` catch a value that contains itself).
    encode = c_make_encoder({}, _not_serialisable, encode_basestring, None, ":", ",",
                            False, False, False)
    return "".join(encode(value, 0))


# One C encoder without circular-reference markers, shared by every call: the
# markers cost about as much as the encoding of a small event, and a value that
# contains itself still ends in RecursionError here, then in the checked
# encoder's own ValueError above. The encoder keeps no state between calls.
_FAST_ENCODE: Final[Any] = (
    None if c_make_encoder is None
    else c_make_encoder(None, _not_serialisable, encode_basestring, None, ":", ",",
                        False, False, False)
)


def _number_text(number: Any) -> str:
    return int.__repr__(number) if type(number) is int else strict_json(number)


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is read-only: the session log never changes")


class FrozenDict(dict[str, Any]):
    """A JSON object of the log: a ``dict`` that refuses every change."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _read_only(self)  # built only by this module (dict.__init__ would refill it)

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        thawed: dict[str, Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (_frozen_dict, (dict(self),))

    def __setattr__(self, name: str, value: object) -> None:
        _read_only(self)

    def __delattr__(self, name: str) -> None:
        _read_only(self)


@final
class FrozenEvent(FrozenDict):
    """A frozen session event that may carry its serialised JSON text."""

    __slots__ = ("_text",)


_TEXT_SLOT: Final = FrozenEvent.__dict__["_text"]


class FrozenList(list[Any]):
    """A JSON array of the log: a ``list`` that refuses every change."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _read_only(self)

    __setitem__ = _read_only
    __delitem__ = _read_only
    __iadd__ = _read_only
    __imul__ = _read_only
    append = _read_only
    extend = _read_only
    insert = _read_only
    pop = _read_only
    remove = _read_only
    clear = _read_only
    sort = _read_only
    reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        thawed: list[Any] = thaw(self)
        return thawed

    def __reduce__(self) -> tuple[Any, ...]:
        return (_frozen_list, (list(self),))

    def __setattr__(self, name: str, value: object) -> None:
        _read_only(self)

    def __delattr__(self, name: str) -> None:
        _read_only(self)


_new_dict = dict.__new__
_fill_dict = dict.update
_new_list = list.__new__
_fill_list = list.extend


def _frozen_dict(items: Any) -> FrozenDict:
    frozen = _new_dict(FrozenDict)
    _fill_dict(frozen, items)
    return frozen


def _frozen_list(items: Iterable[Any]) -> FrozenList:
    frozen = _new_list(FrozenList)
    _fill_list(frozen, items)
    return frozen


class _NotPlain(Exception):
    """Something a JSON round trip would change (a tuple is fine: it becomes a list)."""


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_type_of: Final = type


def _freeze_plain(value: Any) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is FrozenDict or kind is FrozenList or kind is FrozenEvent:
        return value  # already immutable: shared, not copied
    if kind is dict:
        # Copied in C first; only non-scalar members are then replaced by
        # their frozen copies (most members of an event are scalars).
        frozen = _new_dict(FrozenDict)
        _fill_dict(frozen, value)
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain  # JSON turns the key into text
            if type(item) not in _SCALARS:
                _set_item(frozen, key, _freeze_plain(item))
        return frozen
    if kind is list or kind is tuple:
        return _frozen_list([item if type(item) in _SCALARS else _freeze_plain(item)
                             for item in value])
    raise _NotPlain


_set_item: Final = dict.__setitem__


def _freeze_loaded(value: Any) -> Any:
    if type(value) is dict:
        return _frozen_dict({key: _freeze_loaded(item) for key, item in value.items()})
    if type(value) is list:
        return _frozen_list([_freeze_loaded(item) for item in value])
    return value


def freeze(value: Any, text: str | None = None) -> Any:
    """``value`` as a JSON round trip would give it back, in read-only
    containers. ``text`` is ``value``'s JSON text when the caller has it: it is
    parsed only when ``value`` holds what a round trip changes (subclasses,
    non-string keys); without it such a value raises ``TypeError``."""
    try:
        return _freeze_plain(value)
    except _NotPlain:
        if text is None:
            raise TypeError(f"{type(value).__name__} value is not plain JSON") from None
    except RecursionError:
        if text is None:
            raise
    return _freeze_loaded(json.loads(text))


def frozen_event(
    type: str, seq: int, time: int, data: Any, envelope: dict[str, Any]
) -> FrozenEvent:
    """The event ``{type, seq, time, data, **envelope}``, frozen, with its
    JSON text. ``data`` must be JSON (``TypeError``/``ValueError``/
    ``RecursionError`` otherwise). An envelope value that is not JSON is kept
    as a (deep) copy, without text: the store's own encoding then decides."""
    event = _new_dict(FrozenEvent)
    _fill_dict(event, {"type": type, "seq": seq, "time": time, "data": data})
    if envelope:
        _fill_dict(event, envelope)
    try:
        # The common case: one C encoding of the whole event, then the event
        # itself (a copy made in C) gets frozen copies of its non-scalar values.
        text = strict_json(event)
        for key, value in event.items():
            if _type_of(value) not in _SCALARS:  # `type` is the event's type here
                _set_item(event, key, _freeze_plain(value))
    except (TypeError, ValueError, RecursionError, _NotPlain):
        return _frozen_event_by_parts(type, seq, time, data, envelope)
    _TEXT_SLOT.__set__(event, text)
    return event


def frozen_object(members: dict[str, Any]) -> FrozenDict:
    """A read-only copy of ``members``, whose values are already frozen JSON
    values or scalars (an object the host builds itself): nothing is walked."""
    return _frozen_dict(members)


def frozen_array(items: Iterable[Any]) -> FrozenList:
    """A read-only array of ``items``, already frozen JSON values or scalars."""
    return _frozen_list(items)


def built_event(fields: dict[str, Any], text: str) -> FrozenEvent:
    """The event ``fields`` (frozen values or scalars) with ``text``, its
    compact JSON text, which the caller wrote from the same parts (an event
    the host builds itself: neither walked nor encoded again)."""
    event = _new_dict(FrozenEvent)
    _fill_dict(event, fields)
    _TEXT_SLOT.__set__(event, text)
    return event


def _frozen_event_by_parts(
    type: str, seq: int, time: int, data: Any, envelope: dict[str, Any]
) -> FrozenEvent:
    # Data or an envelope value is not plain JSON: serialise each on its own,
    # to refuse bad data, normalise what JSON normalises, keep a bad envelope.
    data_text = strict_json(data)
    parts = [
        '{"type":',
        encode_basestring(type),
        ',"seq":',
        _number_text(seq),
        ',"time":',
        _number_text(time),
        ',"data":',
        data_text,
    ]
    fields: dict[str, Any] = {
        "type": type,
        "seq": seq,
        "time": time,
        "data": freeze(data, data_text),
    }
    textual = True
    for key, value in envelope.items():
        if key in fields:
            textual = False  # an envelope that overrides a field: no text of parts
        try:
            value_text = strict_json(value)
        except (TypeError, ValueError, RecursionError):
            fields[key] = copy.deepcopy(value)
            textual = False
            continue
        fields[key] = freeze(value, value_text)
        parts += (",", encode_basestring(key), ":", value_text)
    event = _new_dict(FrozenEvent)
    _fill_dict(event, fields)
    _TEXT_SLOT.__set__(event, "".join(parts) + "}" if textual else None)
    return event


def freeze_event(event: Any) -> Any:
    """A seeded event (any value, since a seed may be corrupt on purpose) made
    read-only: a plain JSON object becomes a :class:`FrozenEvent` (its text is
    computed when a store first needs it); anything else plain is frozen, the
    rest deep-copied."""
    try:
        if type(event) is not dict:
            return _freeze_plain(event)
        fields = {}
        for key, value in event.items():
            if type(key) is not str:
                raise _NotPlain
            fields[key] = _freeze_plain(value)
    except (_NotPlain, RecursionError):
        return copy.deepcopy(event)
    frozen = _new_dict(FrozenEvent)
    _fill_dict(frozen, fields)
    _TEXT_SLOT.__set__(frozen, None)
    return frozen


def event_text(event: Any) -> str | None:
    """The compact, strict JSON text of an event of the log, serialised at
    most once; None when the event is not JSON (a seeded NaN, say)."""
    if type(event) is FrozenEvent:
        text: str | None = _TEXT_SLOT.__get__(event)
        if text is None:
            try:
                text = strict_json(event)
            except (TypeError, ValueError, RecursionError):
                return None
            _TEXT_SLOT.__set__(event, text)
        return text
    return None


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a JSON value (frozen or not)."""
    try:
        # C code: copes with nesting a Python walk could not.
        return json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return _thaw_walk(value)


def _thaw_walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _thaw_walk(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_thaw_walk(item) for item in value]
    return copy.deepcopy(value)


def thaw_events(events: Sequence[Any]) -> list[Any]:
    """Plain deep copies of events of the log, from their texts where they
    have one (one parse for the whole list)."""
    texts = []
    for event in events:
        text = event_text(event)
        if text is None:
            break
        texts.append(text)
    else:
        copied: list[Any] = json.loads("[" + ",".join(texts) + "]")
        return copied
    return [thaw(event) for event in events]
