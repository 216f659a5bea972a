"""``dsh-log check``: validate a DSH session log file with both invariant policies.

Usage::

    dsh-log check SESSION.jsonl [SESSION.jsonl ...]

A session file is JSON Lines: an optional header line (``{"type": "session",
...}``, whose ``seedLength`` marks a fork's inherited prefix) followed by one
event ``{type, seq, time, data}`` per line. Every file is checked with the
dsh-schedule fold policy (the same decoder and fold the plugin replays) and the
dsh-time-context reading checks. Exit status: 0 when every file is valid, 1 when
any is not, 2 for usage errors. Diagnostics are the plugins' own stable
messages, prefixed with ``path:line`` where a line is to blame.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_reference.schedule.core import ScheduleLogError, check_schedule_log
from dsh_reference.time_context.core import TimeContextInvariantError
from dsh_reference.time_context.core import check_log as check_time_context_log

__all__ = ["SessionFile", "check_session_file", "main", "read_session_file"]


@dataclass(frozen=True, slots=True)
class SessionFile:
    header: dict[str, Any] | None
    events: list[dict[str, Any]]

    @property
    def seed_length(self) -> int:
        value = (self.header or {}).get("seedLength")
        return value if isinstance(value, int) and not isinstance(value, bool) else 0


class UnreadableLogError(ValueError):
    """A line is not a JSON object."""


def read_session_file(path: Path) -> SessionFile:
    header: dict[str, Any] | None = None
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UnreadableLogError(f"{path}:{number}: not JSON ({exc.msg})") from exc
            if not isinstance(value, dict):
                raise UnreadableLogError(f"{path}:{number}: not a JSON object")
            if number == 1 and value.get("type") == "session":
                header = value
            else:
                events.append(value)
    return SessionFile(header, events)


def check_session_file(path: Path) -> list[str]:
    """Problems found in the file at ``path`` (empty when it is valid)."""
    try:
        session = read_session_file(path)
    except (OSError, UnreadableLogError) as exc:
        return [str(exc)]
    problems = []
    try:
        check_schedule_log(session.events, session.seed_length)
    except ScheduleLogError as exc:
        problems.append(f"{path}: dsh-schedule: {exc}")
    try:
        check_time_context_log(session.events, seed_length=session.seed_length)
    except TimeContextInvariantError as exc:
        problems.append(f"{path}: dsh-time-context: {exc}")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dsh-log", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="validate session log files")
    check.add_argument("files", nargs="+", type=Path, metavar="SESSION.jsonl")
    options = parser.parse_args(argv)
    failed = False
    for path in options.files:
        problems = check_session_file(path)
        failed = failed or bool(problems)
        for problem in problems:
            print(problem, file=sys.stderr)
        if not problems:
            print(f"{path}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
