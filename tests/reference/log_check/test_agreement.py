"""``dsh-log check`` agrees with the fixtures' oracle and with the pure cores.

The streaming checker must reach the verdicts of the language-neutral corpus
(written from the READMEs, independent of the reference) and give the same
message as the plugins' whole-list policies (``fold_schedule_events``,
``check_log``), now with the line of the first offending event.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_fixtures import fixture_path
from dsh_reference.log_check import main
from dsh_reference.schedule.core import ScheduleLogError, fold_schedule_events
from dsh_reference.time_context.core import TimeContextInvariantError, check_log, check_reading
from pytest_dsh.strategies.schedule import corrupt_schedule_logs, schedule_logs

GOLDEN = fixture_path("golden")
CORRUPT = fixture_path("corrupt")
CASES = json.loads((CORRUPT / "cases.json").read_text("utf-8"))["cases"]
T = 1_767_225_600_000


def _lines(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["check", *args])
    # Split on newlines only: messages may hold U+2028, which splitlines() splits on.
    return code, capsys.readouterr().out.removesuffix("\n").split("\n")


def _run(path) -> tuple[int, list[str]]:
    """``main`` without capsys, which Hypothesis cannot reset between examples."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(["check", str(path)])
    return code, buffer.getvalue().removesuffix("\n").split("\n")


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*.jsonl")), ids=lambda p: p.stem)
def test_every_golden_log_is_valid(capsys, path):
    assert _lines(capsys, str(path)) == (0, [f"{path}: ok"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_every_corpus_case_gets_its_verdict_on_its_line(capsys, case):
    path = CORRUPT / case["file"]
    code, lines = _lines(capsys, str(path))
    if case["verdict"] == "valid":
        assert (code, lines) == (0, [f"{path}: ok"])
    elif case["verdict"] == "corrupt":
        seq = case["failingSeq"]
        line = 1 if seq is None else seq + 2  # the header is line 1, seq 0 is line 2
        assert (code, lines) == (1, [f"{path}:{line}: dsh-schedule: {case['diagnostic']}"])
    else:
        assert code == 1
        location, rule, _ = lines[0].split(": ", 2)
        assert location == f"{path}:{case['line']}"
        assert rule.split(".")[0] in {"file", "header"}


def _write(tmp_path, events, seed):
    header = {"type": "session", "id": "g", "seedLength": seed}
    path = tmp_path / "g.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (header, *events)), "utf-8")
    return path


def _first_fold_failure(events, seed):
    """(index, message) of the event that first makes the whole-list fold fail."""
    try:
        fold_schedule_events(events, seed)
    except ScheduleLogError as exc:
        message = str(exc)
    else:
        return None
    for end in range(seed, len(events) + 1):
        try:
            fold_schedule_events(events[:end], seed)
        except ScheduleLogError:
            return end - 1, message
    raise AssertionError("unreachable")


@st.composite
def _schedule_events(draw):
    log = draw(st.one_of(schedule_logs(max_changes=10), corrupt_schedule_logs()))
    events = []
    for change in log.changes:
        if draw(st.booleans()):
            events.append({"type": "turn/start", "data": {"turn": 1}})
        events.append({"type": "schedule/change", "data": change})
    events = [{**event, "seq": seq, "time": T} for seq, event in enumerate(events)]
    return events, draw(st.integers(0, len(events)))


@settings(max_examples=150, deadline=None)
@given(case=_schedule_events())
def test_the_streaming_fold_agrees_with_fold_schedule_events(tmp_path_factory, case):
    events, seed = case
    path = _write(tmp_path_factory.mktemp("fold"), events, seed)
    failure = _first_fold_failure(events, seed)
    expected = [] if failure is None else [
        f"{path}:{failure[0] + 2}: dsh-schedule: {failure[1]}"
    ]
    code, out = _run(path)
    assert (code, out) == ((1, expected) if expected else (0, [f"{path}: ok"]))


_KINDS = st.sampled_from(["turn/start", "turn/end", "step/start", "step/end", "reading",
                          "user/message"])


@st.composite
def _time_context_events(draw):
    events = []
    for kind in draw(st.lists(_KINDS, max_size=12)):
        turn, step = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        if kind == "reading":
            label = "model-visible message" if draw(st.booleans()) else "step context"
            text = (f"Time sampled while preparing turn {turn}, step {step}: "
                    f"2026-01-01T00:00:00+00:00[UTC]\nElapsed since the preceding {label}: 1s.")
            data = {"content": [{"type": "text", "text": text}],
                    "source": {"kind": "plugin", "plugin": "time-context"}}
            events.append({"type": "user/message", "data": data})
        elif kind == "user/message":
            events.append({"type": kind, "data": {"content": [], "source": {"kind": "user"}}})
        else:
            events.append({"type": kind, "data": {"turn": turn, "step": step}})
    return [{**event, "seq": seq, "time": T} for seq, event in enumerate(events)]


@settings(max_examples=200, deadline=None)
@given(events=_time_context_events())
def test_reading_checks_agree_with_check_log_on_every_reading(tmp_path_factory, events):
    path = _write(tmp_path_factory.mktemp("tc"), events, None)
    expected = []
    for index, event in enumerate(events):
        if event["data"].get("source", {}).get("plugin") == "time-context":
            try:
                check_reading(events[:index], event)
            except TimeContextInvariantError as exc:
                expected.append(f"{path}:{index + 2}: dsh-time-context: {exc}")
    try:
        check_log(events)
    except TimeContextInvariantError as exc:
        assert expected[0].endswith(str(exc))
    else:
        assert expected == []
    assert _run(path)[1] == (expected or [f"{path}: ok"])
