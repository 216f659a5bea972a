"""``dsh-log check`` over logs a session's lifecycle leaves: a fork's seeded
prefix and a turn that crashed before its ``turn/end``.

A fork's session holds its parent's events as a prefix of ``seedLength``
events: the schedule fold starts after it (README SCH-005) and the time-context
companion checks readings from there on (TC-028; the prefix was checked in the
parent). A process that crashed mid-turn leaves a ``turn/start`` with no
``turn/end``; the resumed process opens its next turn with a new
``turn/start``, which is the open turn from then on.
"""

from __future__ import annotations

import pytest

from dsh_reference.log_check import main

DISPATCH_UNKNOWN = {"version": 1, "operation": "dispatch", "id": "schedule-9"}


def _diagnostics(capsys, path) -> list[str]:
    """Each diagnostic as ``LINE: RULE: MESSAGE`` (the path left out)."""
    main(["check", str(path)])
    return [line.removeprefix(f"{path}:") for line in capsys.readouterr().out.splitlines()
            if line.startswith(f"{path}:") and not line.endswith(": ok")]


def _header(kit, seed):
    return {**kit.HEADER, "seedLength": seed}


# -- the seeded prefix ------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "reported"), [(1, False), (0, True)])
def test_a_misplaced_reading_in_the_seeded_prefix_is_not_checked(tmp_path, capsys, kit,
                                                                 seed, reported):
    log = kit.events(kit.reading(1, 1), ("custom/x", None))  # the reading is in no turn
    path = kit.write_log(tmp_path / "f.jsonl", *log, header=_header(kit, seed))
    found = _diagnostics(capsys, path)
    assert bool(found) is reported, found
    if reported:
        assert found == ["2: dsh-time-context: time-context reading must be appended inside an "
                         "open turn"], found


@pytest.mark.parametrize(("seed", "reported"), [(1, False), (0, True)])
def test_a_change_in_the_seeded_prefix_is_not_folded(tmp_path, capsys, kit, seed, reported):
    log = kit.events(("schedule/change", DISPATCH_UNKNOWN), ("custom/x", None))
    path = kit.write_log(tmp_path / "f.jsonl", *log, header=_header(kit, seed))
    found = _diagnostics(capsys, path)
    assert bool(found) is reported, found
    assert all(line.startswith("2: dsh-schedule: ") for line in found), found


def test_a_reading_after_the_seeded_prefix_sees_the_turn_opened_inside_it(tmp_path, capsys,
                                                                           kit):
    # The fork inherits an open turn: its first owned event is a reading of that turn.
    log = kit.events(("turn/start", {"turn": 1}), ("user/message", {"content": []}),
                     kit.reading(1, 1))
    path = kit.write_log(tmp_path / "f.jsonl", *log, header=_header(kit, 2))
    assert _diagnostics(capsys, path) == []


def test_the_fold_of_a_fork_starts_after_its_seed(tmp_path, capsys, kit):
    # The parent's create is in the seed: a dispatch of it in the fork's own
    # events names a record the fork's fold does not hold.
    log = kit.events(("schedule/change", kit.CREATE),
                     ("schedule/change", {"version": 1, "operation": "dispatch",
                                          "id": "schedule-1"}))
    seeded = kit.write_log(tmp_path / "seeded.jsonl", *log, header=_header(kit, 1))
    assert [line.split(": ", 2)[:2] for line in _diagnostics(capsys, seeded)] == [
        ["3", "dsh-schedule"]]
    whole = kit.write_log(tmp_path / "whole.jsonl", *log, header=_header(kit, 0))
    assert _diagnostics(capsys, whole) == []


# -- a turn that crashed before its turn/end ------------------------------------------------


def _crashed_then_resumed(kit, *after):
    return kit.events(
        ("turn/start", {"turn": 1}), ("step/start", {"turn": 1, "step": 1}),
        ("step/end", {"turn": 1, "step": 1}),  # the process crashed here: no turn/end
        ("turn/start", {"turn": 2}), *after,
    )


def test_a_turn_start_after_a_crashed_turn_opens_the_new_turn(tmp_path, capsys, kit):
    path = kit.write_log(tmp_path / "c.jsonl", *_crashed_then_resumed(kit, kit.reading(2, 1)))
    assert _diagnostics(capsys, path) == []


@pytest.mark.parametrize(("turn", "step"), [(1, 1), (1, 2), (2, 2)])
def test_after_a_crashed_turn_a_reading_must_name_the_new_turn_and_its_first_step(
    tmp_path, capsys, kit, turn, step
):
    path = kit.write_log(tmp_path / "c.jsonl",
                         *_crashed_then_resumed(kit, kit.reading(turn, step)))
    found = _diagnostics(capsys, path)
    assert len(found) == 1 and found[0].startswith("6: dsh-time-context: "), found
