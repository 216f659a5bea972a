"""``--official``: logs written by the official build, with its documented deviations.

The official two-line time-context build appends each reading after the step's
``step/start`` (deviation D9) with a snapshot source and a message ``role`` and
``id`` (D10), and its invariant wants it there (D12); its JSONL header always
carries ``version`` and ``createdAt``. The log below has the official shape
(notes: session event shapes). These pin the official build's behaviour.
"""

from __future__ import annotations

import pytest

from dsh_reference.log_check import main

HEADER = {"type": "session", "version": 0, "id": "j1", "createdAt": 1_767_225_600_000,
          "delegationDepth": 0}


def _reading(kit, turn, step):
    kind, data = kit.reading(turn, step, form="snapshot",
                             sections=[{"name": "time-context",
                                        "text": kit.reading_text(turn, step)}])
    return kind, {**data, "role": "user", "id": f"m{turn}.{step}"}


def _official_turn(kit, *, misplace: str | None = None):
    prompt = {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"},
              "role": "user", "id": "m0"}
    items = [
        ("session/end-seed", {}),
        ("turn/start", {"turn": 1}),
        ("agent/inbox/spliced", {"target": "next-turn", "start": 0, "removedCount": 1,
                                 "inserted": []}),
        ("step/start", {"turn": 1, "step": 1}),
        {**kit.event(0, prompt, "user/message"), "surfaceOp": "append"},
        {**kit.event(0, _reading(kit, 1, 1)[1], "user/message"), "surfaceOp": "append"},
        ("request/header", {"header": {}, "reason": "initial"}),
        ("assistant/message", {"turn": 1, "step": 1, "message": {}}),
        ("step/end", {"turn": 1, "step": 1}),
        ("step/start", {"turn": 1, "step": 2}),
        _reading(kit, 1, 2),
        ("step/end", {"turn": 1, "step": 2}),
        ("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    if misplace == "before-step":
        items.insert(3, items.pop(5))
    elif misplace == "after-request-header":
        items.insert(6, items.pop(5))
    elif misplace == "wrong-step":
        items[5] = _reading(kit, 1, 2)
    return kit.events(*items)


def _check(capsys, path, *options):
    code = main(["check", *options, str(path)])
    return code, capsys.readouterr().out.splitlines()


def test_an_official_log_passes_with_the_flag(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "o.jsonl", *_official_turn(kit), header=HEADER)
    assert _check(capsys, path, "--official") == (0, [f"{path}: ok"])


def test_without_the_flag_its_readings_break_the_readme_placement(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "o.jsonl", *_official_turn(kit), header=HEADER)
    assert _check(capsys, path) == (1, [
        f"{path}:7: dsh-time-context: time-context reading must precede step/start, "
        "but step 1 is already open",
        f"{path}:12: dsh-time-context: time-context reading must precede step/start, "
        "but step 2 is already open",
    ])


@pytest.mark.parametrize(
    ("misplace", "line", "message"),
    [
        ("before-step", 5, "time-context reading must be appended during prompt assembly"),
        ("after-request-header", 8,
         "time-context reading must be appended during prompt assembly"),
        ("wrong-step", 7, "time-context reading names turn 1/step 2, expected turn 1/step 1"),
    ],
)
def test_the_flag_checks_the_official_placement(tmp_path, capsys, kit, misplace, line, message):
    path = kit.write_log(tmp_path / "o.jsonl", *_official_turn(kit, misplace=misplace),
                         header=HEADER)
    assert _check(capsys, path, "--official") == (
        1, [f"{path}:{line}: dsh-time-context: {message}"])


def test_a_readme_placed_reading_is_refused_by_the_flag(tmp_path, capsys, kit):
    log = kit.events(("turn/start", {"turn": 1}), kit.reading(1, 1),
                     ("step/start", {"turn": 1, "step": 1}))
    path = kit.write_log(tmp_path / "r.jsonl", *log, header=HEADER)
    assert _check(capsys, path) == (0, [f"{path}: ok"])
    assert _check(capsys, path, "--official") == (1, [
        f"{path}:3: dsh-time-context: time-context reading must be appended during prompt "
        "assembly"])
