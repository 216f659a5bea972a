"""Building session files for the ``dsh-log check`` tests (the ``kit`` fixture)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

T = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
HEADER = {"type": "session", "id": "s"}

CREATE = {
    "version": 1, "operation": "create",
    "schedule": {"id": "schedule-1", "kind": "after", "prompt": "p", "afterSeconds": 60,
                 "scheduledAt": "2026-01-01T00:01:00.000Z"},
}


def event(seq: int, data: object, kind: str = "schedule/change", **extra: Any) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "time": T, "data": data, **extra}


def events(*items: tuple[str, object] | dict[str, Any]) -> list[dict[str, Any]]:
    """Events at consecutive seqs from ``(type, data)`` pairs or ready dicts."""
    out = []
    for seq, item in enumerate(items):
        out.append(event(seq, item[1], item[0]) if isinstance(item, tuple) else
                   {**item, "seq": seq})
    return out


def write_lines(path: Path, *lines: object) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def write_log(path: Path, *log_events: object, header: object = HEADER) -> Path:
    return write_lines(path, header, *log_events)


def reading_text(turn: int, step: int, *, stamp: str = "2026-01-01T00:00:00+00:00") -> str:
    label = "model-visible message" if step == 1 else "step context"
    return (
        f"Time sampled while preparing turn {turn}, step {step}: {stamp}[UTC]\n"
        f"Elapsed since the preceding {label}: unavailable."
    )


def reading(turn: int, step: int, **source: Any) -> tuple[str, dict[str, Any]]:
    return "user/message", {
        "content": [{"type": "text", "text": reading_text(turn, step)}],
        "source": {"kind": "plugin", "plugin": "time-context", **source},
    }


@pytest.fixture
def kit() -> SimpleNamespace:
    return SimpleNamespace(
        T=T, HEADER=HEADER, CREATE=CREATE, event=event, events=events, write_lines=write_lines,
        write_log=write_log, reading_text=reading_text, reading=reading,
    )
