"""The scripted model: each step of a turn answers from a script.

A reply is either text (the turn completes) or tool calls (the host runs them
and prepares another step). ``thinking_s`` makes the model take virtual time,
which keeps the agent busy, e.g. to test that maintenance is refused mid-turn.
With an empty script the model answers ``"ok"``. The replies themselves are
shared by both hosts: :mod:`pytest_dsh.driving.replies` (re-exported here).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Final, Protocol, final

from pytest_dsh.contract import SessionEvent
from pytest_dsh.driving.replies import ModelReply, reply_text
from pytest_dsh.fake_host.session import derive_history

__all__ = ["ScriptedModel"]


class _RawLog(Protocol):
    @property
    def log(self) -> Sequence[SessionEvent]: ...


#: The reply of an empty script (read-only, so one serves every step).
_OK: Final = reply_text("ok")


@final
class ScriptedModel:
    """Replies in order; ``requests`` gives, per step, the seqs of the history
    events that step sent.

    A step records only the session and the raw log's length at that moment
    (O(1) per step): the raw log is append-only, so the history a step sent is
    the history of that prefix, derived when a test asks for it.
    """

    def __init__(self) -> None:
        self._script: deque[ModelReply] = deque()
        self._sent: list[tuple[_RawLog, int]] = []

    def record_request(self, session: _RawLog) -> None:
        """Note that a step sends ``session``'s current history to the model."""
        # The host's own read (never faulted): a failing plugin read is not the model's.
        self._sent.append((session, len(session.log)))

    @property
    def requests(self) -> list[list[int]]:
        """Per recorded step, the seqs of the history events it sent."""
        return [
            [event["seq"] for event in derive_history(session.log[:length])]
            for session, length in self._sent
        ]

    def extend(self, replies: Sequence[ModelReply]) -> None:
        self._script.extend(replies)

    def next_reply(self) -> ModelReply:
        return self._script.popleft() if self._script else _OK

    @property
    def pending(self) -> int:
        return len(self._script)
