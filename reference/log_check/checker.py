"""Check one session file, streaming: every line is read, judged and forgotten.

Per line, in order: the physical line (length, newline, UTF-8, JSON, object),
then the header (line 1) or the event envelope, then the two plugin policies
with the event's line number: the dsh-schedule fold over the owned suffix
(``events[seedLength:]``; the first fold error ends the fold, as it ends the
plugin's replay) and the time-context reading checks (every reading from
``seedLength`` on). Only the state those policies need is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from dsh_reference.js_semantics import is_safe_integer
from dsh_reference.schedule.core import ScheduleLogError
from dsh_reference.time_context.core import TimeContextInvariantError

from .diagnostics import Diagnostic, FileReport, Verdict
from .envelope import check_event, check_header, is_header
from .lines import LineTooLong, NotJson, RawLine, parse_json_line, physical_lines
from .readings import ReadingPlacement
from .schedule_fold import SEED_LENGTH_MESSAGE, ScheduleFoldStream, valid_seed_length

__all__ = ["CheckOptions", "check_stream"]

Emit = Callable[[Diagnostic], None]


@dataclass(frozen=True, slots=True)
class CheckOptions:
    max_line_bytes: int
    official: bool = False


class _FileCheck:
    def __init__(self, path: str, options: CheckOptions, emit: Emit) -> None:
        self.path = path
        self.options = options
        self._emit = emit
        self.diagnostics = 0
        self.lines = 0
        self.events = 0  # event positions, unreadable event lines included
        self.next_seq = 0  # one more than the previous event's seq: a gap is reported once
        self.seed: int | None = 0
        self.fold: ScheduleFoldStream | None = ScheduleFoldStream()
        self.readings = ReadingPlacement(official=options.official)

    def report(self, line: int, rule: str, message: str) -> None:
        self.diagnostics += 1
        self._emit(Diagnostic(self.path, line, rule, message))

    def line(self, raw: RawLine) -> None:
        self.lines = raw.number
        if not raw.terminated:
            self.report(raw.number, "file.torn", "the last line has no newline (a torn write)")
            self._unreadable_line(raw.number)
            return
        if not raw.content.strip():
            self.report(raw.number, "file.blank", "blank line")
            return
        try:
            value = parse_json_line(raw.content)
        except NotJson as exc:
            self.report(raw.number, exc.rule, str(exc))
            self._unreadable_line(raw.number)
            return
        if not isinstance(value, Mapping):
            self.report(raw.number, "file.json", "not a JSON object")
            self._unreadable_line(raw.number)
            return
        if raw.number == 1 and is_header(value):
            self.header(value)
            return
        if raw.number == 1:
            message = 'line 1 must be the session header {"type": "session"}'
            self.report(1, "header.missing", message)
        self.event(raw.number, value)

    def _unreadable_line(self, number: int) -> None:
        # Line 1 stands for the header; any later line for an event position.
        if number > 1:
            self.events += 1
            self.next_seq += 1

    def header(self, header: Mapping[str, Any]) -> None:
        problem = check_header(header, official=self.options.official)
        if problem is not None:
            self.report(1, *problem)
        self.seed = valid_seed_length(header.get("seedLength"))
        if self.seed is None:
            self.report(1, "dsh-schedule", SEED_LENGTH_MESSAGE)
            self.fold = None

    def event(self, number: int, event: Mapping[str, Any]) -> None:
        position = self.events
        self.events += 1
        problem = check_event(event, self.next_seq)
        if problem is not None:
            self.report(number, *problem)
        seq = event.get("seq")
        self.next_seq = int(seq) + 1 if is_safe_integer(seq) else self.next_seq + 1
        owned = position >= (self.seed or 0)
        if self.fold is not None and owned:
            try:
                self.fold.apply(event.get("type"), event.get("data"))
            except ScheduleLogError as exc:
                self.report(number, "dsh-schedule", str(exc))
                self.fold = None
        if owned:
            try:
                self.readings.check(event)
            except TimeContextInvariantError as exc:
                self.report(number, "dsh-time-context", str(exc))
        self.readings.observe(event)

    def end(self) -> None:
        if self.lines == 0:
            self.report(1, "header.missing", "the file is empty (no session header)")
        if self.fold is not None and self.seed is not None and self.seed > self.events:
            self.report(1, "dsh-schedule", SEED_LENGTH_MESSAGE)


def check_stream(
    path: str, stream: BinaryIO, options: CheckOptions, emit: Emit
) -> FileReport:
    """Check the session file read from ``stream``, calling ``emit`` for each diagnostic
    as it is found. A read error ends the check with an ``io.read`` diagnostic on the
    line that could not be read."""
    check = _FileCheck(path, options, emit)
    lines: Iterable[RawLine] = physical_lines(stream, options.max_line_bytes)
    try:
        for raw in lines:
            check.line(raw)
    except LineTooLong as exc:
        check.report(exc.number, "file.line-too-long", str(exc))
        return FileReport(path, Verdict.UNREADABLE, exc.number, check.events, check.diagnostics)
    except OSError as exc:
        check.report(check.lines + 1, "io.read", exc.strerror or str(exc))
        return FileReport(path, Verdict.UNREADABLE, check.lines, check.events, check.diagnostics)
    check.end()
    verdict = Verdict.INVALID if check.diagnostics else Verdict.VALID
    return FileReport(path, verdict, check.lines, check.events, check.diagnostics)
