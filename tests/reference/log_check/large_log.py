"""Write a large, valid DSH session log for measuring ``dsh-log check``.

Usage::

    python tests/reference/log_check/large_log.py OUT.jsonl [EVENTS]   # default 1,000,000 events

The log repeats one ten-event turn: ``turn/start``, the prompt, a time-context
reading, ``step/start``, a one-shot and an every create, ``step/end``, the
one-shot's dispatch, the every record's delete, ``turn/end``. Every event is
valid under both plugins' policies, so the whole file is folded and checked;
the fold keeps every created id (two per turn), as the reused-id rule needs.
The output is deterministic: event ``i`` is appended at ``START_MS + i`` seconds.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
TURN_EVENTS = 10


def _iso(epoch_ms: int) -> str:
    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def _turn(turn: int, seq: int) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    at = START_MS + seq * 1000
    one_shot, every = f"schedule-{2 * turn - 1}", f"schedule-{2 * turn}"
    stamp = datetime.fromtimestamp((at + 2000) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    reading = (
        f"Time sampled while preparing turn {turn}, step 1: {stamp}[UTC]\n"
        "Elapsed since the preceding model-visible message: 0s."
    )
    message = {"surfaceOp": "append"}
    yield "turn/start", {"turn": turn}, {}
    yield "user/message", {"content": [{"type": "text", "text": f"Remind me, turn {turn}"}],
                           "source": {"kind": "user"}}, message
    yield "user/message", {"content": [{"type": "text", "text": reading}],
                           "source": {"kind": "plugin", "plugin": "time-context"}}, message
    yield "step/start", {"turn": turn, "step": 1}, {}
    yield "schedule/change", {"version": 1, "operation": "create", "schedule": {
        "id": one_shot, "kind": "after", "prompt": "Stand up", "afterSeconds": 60,
        "scheduledAt": _iso(at + 64_000)}}, {}
    yield "schedule/change", {"version": 1, "operation": "create", "schedule": {
        "id": every, "kind": "every", "prompt": "Drink water", "everySeconds": 3600,
        "scheduledAt": _iso(at + 3_605_000)}}, {}
    yield "step/end", {"turn": turn, "step": 1}, {}
    yield "schedule/change", {"version": 1, "operation": "dispatch", "id": one_shot}, {}
    yield "schedule/change", {"version": 1, "operation": "delete", "id": every}, {}
    yield "turn/end", {"turn": turn, "reason": {"kind": "completed"}}, {}


def lines(events: int) -> Iterator[str]:
    """The header line and ``events`` event lines (a whole number of turns is not required)."""
    yield json.dumps({"type": "session", "id": "large", "version": 0,
                      "createdAt": START_MS, "delegationDepth": 0}, separators=(",", ":"))
    seq = 0
    turn = 0
    while seq < events:
        turn += 1
        for kind, data, extra in _turn(turn, seq):
            if seq == events:
                return
            event = {"type": kind, "seq": seq, "time": START_MS + seq * 1000, "data": data}
            yield json.dumps({**event, **extra}, separators=(",", ":"), ensure_ascii=False)
            seq += 1


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    count = int(argv[1]) if len(argv) == 2 else 1_000_000
    with Path(argv[0]).open("w", encoding="utf-8") as out:
        for line in lines(count):
            out.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
