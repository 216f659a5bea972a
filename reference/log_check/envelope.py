"""The session-file envelope: the header line and the fields of every event.

DSH stores a session as JSON Lines: a header ``{"type": "session", ...}``, then
one event ``{type, seq, time, data}`` per line, with ``ignorable`` (always
``true`` when present) on any event and ``surfaceOp`` / ``sourceEventSeqs`` only
on the message events (``user/message``, ``assistant/message``,
``tool/result``). ``seq`` counts events from 0 without gaps (checked against one
more than the previous event's seq, so a gap is one problem), ``time`` the append
time in non-negative epoch milliseconds; ``data`` may be any JSON value.

Each check returns the first violated rule of one line as ``(rule, message)``,
or ``None``. ``seedLength`` is not checked here: its range is the fold's rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from dsh_reference.js_semantics import is_safe_integer, to_js_json

__all__ = ["HEADER_TYPE", "Problem", "check_event", "check_header", "is_header"]

Problem = tuple[str, str]

HEADER_TYPE: Final = "session"
_HEADER_KEYS: Final = (
    "type", "version", "id", "createdAt", "cwd", "parentSession", "seedLength", "origin",
    "delegationDepth", "agentPreset",
)
_EVENT_FIELDS: Final = ("type", "seq", "time", "data")
_EVENT_KEYS: Final = frozenset({*_EVENT_FIELDS, "ignorable", "surfaceOp", "sourceEventSeqs"})
_SURFACE_TYPES: Final = frozenset({"user/message", "assistant/message", "tool/result"})
_SESSION_FORMAT_VERSION: Final = 0


def _shown(value: object) -> str:
    """A short rendering of an offending value (never recursive, never long)."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    text = to_js_json(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _non_negative(value: object) -> bool:
    return is_safe_integer(value) and value >= 0


def _keys(keys: list[str]) -> str:
    return ", ".join(_shown(key) for key in keys)


def is_header(value: object) -> bool:
    return isinstance(value, Mapping) and value.get("type") == HEADER_TYPE


def check_header(header: Mapping[str, object], *, official: bool) -> Problem | None:
    """The header's first problem. ``official``: the official JSONL backend always
    writes ``version`` and ``createdAt``; other writers may omit them."""
    unknown = [key for key in header if key not in _HEADER_KEYS]
    if unknown:
        return "header.unknown-key", f"session header has unknown keys {_keys(unknown)}"
    session_id = header.get("id")
    if not (isinstance(session_id, str) and session_id):
        return "header.id", "session header id must be a non-empty string"
    if "version" in header or official:
        version = header.get("version")
        if not (is_safe_integer(version) and version == _SESSION_FORMAT_VERSION):
            return "header.version", (
                f"session header version must be {_SESSION_FORMAT_VERSION}, "
                f"got {_shown(version) if 'version' in header else 'none'}"
            )
    if ("createdAt" in header or official) and not _non_negative(header.get("createdAt")):
        return "header.created-at", (
            "session header createdAt must be non-negative epoch milliseconds"
        )
    if "delegationDepth" in header and not _non_negative(header["delegationDepth"]):
        return "header.delegation-depth", (
            "session header delegationDepth must be a non-negative safe integer"
        )
    for key in ("cwd", "parentSession", "agentPreset"):
        if key in header and not isinstance(header[key], str):
            return "header.field", f"session header {key} must be a string"
    if "origin" in header and header["origin"] != "subagent":
        return "header.field", 'session header origin must be "subagent"'
    return None


def check_event(event: Mapping[str, object], expected_seq: int) -> Problem | None:
    """The first envelope problem of an event whose seq should be ``expected_seq``."""
    missing = [name for name in _EVENT_FIELDS if name not in event]
    if missing:
        return "envelope.missing", (
            f"event must have type, seq, time and data; missing {', '.join(missing)}"
        )
    unknown = [key for key in event if key not in _EVENT_KEYS]
    if unknown:
        return "envelope.unknown-key", f"event has unknown keys {_keys(unknown)}"
    kind = event["type"]
    if not (isinstance(kind, str) and kind):
        return "envelope.type", "event type must be a non-empty string"
    seq = event["seq"]
    if not is_safe_integer(seq):
        return "envelope.seq", f"event seq must be a safe integer, got {_shown(seq)}"
    if seq != expected_seq:
        return "envelope.seq", (
            f"event seq is {int(seq)}, expected {expected_seq} (seqs count events from 0)"
        )
    if not _non_negative(event["time"]):
        return "envelope.time", "event time must be non-negative epoch milliseconds"
    if "ignorable" in event and event["ignorable"] is not True:
        return "envelope.ignorable", "event ignorable must be true when present"
    return _check_surface(kind, event)


def _check_surface(kind: str, event: Mapping[str, object]) -> Problem | None:
    if "surfaceOp" not in event and "sourceEventSeqs" not in event:
        return None
    if kind not in _SURFACE_TYPES:
        return "envelope.surface", (
            f"only message events carry surfaceOp or sourceEventSeqs, not {_shown(kind)}"
        )
    if "surfaceOp" in event:
        op = event["surfaceOp"]
        replace = (
            isinstance(op, Mapping)
            and set(op) == {"op", "start", "end"}
            and op["op"] == "replace"
            and _non_negative(op["start"])
            and _non_negative(op["end"])
        )
        if op != "append" and not replace:
            return "envelope.surface", (
                'surfaceOp must be "append" or {"op": "replace", "start", "end"}'
            )
    if "sourceEventSeqs" in event:
        seqs = event["sourceEventSeqs"]
        if not (isinstance(seqs, list) and all(_non_negative(seq) for seq in seqs)):
            return "envelope.surface", "sourceEventSeqs must be a list of event seqs"
    return None
