"""Crash enumeration: every scenario crashed at every durable boundary.

Each scenario (one-shots by ``after_seconds`` and ``at``, fixed-rate ``every``
records, deletes, forks, waits beyond the platform timer range, wall-clock
jumps, fixed-rate batches) first runs cleanly to count its durable boundaries.
It is then run once per boundary ``k`` with the world stopped right after it,
crashed, resumed and run to quiescence:

- *flush-only durability* (any host): flushes after the ``k``-th hang, so the
  durable log is exactly what the ``k``-th flush made durable; the host crashes
  as soon as the next flush is attempted (or an operation is stuck on it);
- *per-event durability* (hosts with the ``per-event-durability`` seam): every accepted
  append is durable at once; appends after the ``k``-th are refused and the host
  crashes as soon as one is attempted.

Checked after each run: a one-shot reminder that was acknowledged (or whose
create reached the durable log) and not deleted reaches a turn at least once,
unless the crash fell in the per-event window (its dispatch is durable but its
follow-up never reached a turn); no reminder occurrence reaches a turn twice
unless the crash fell in the README's duplicate window (a dispatch whose
follow-up was admitted but whose checkpoint did not become durable); the
resumed log folds; ``schedule_list`` lists exactly the fixed-rate records the
model says are still active. Both windows are explained in docs/reliability.md.
Level: readme (SCH "Narrow crash duplicate window", the log owns the state).

Nothing here reads the payload layout: reminders are told apart by their
prompts (unique in a scenario's session; a create record contains its trimmed
prompt), deliveries are read from the README's framings, and what the durable
log holds is asked of the implementation itself, by listing a fresh session
seeded with it on another host before anything is due.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.layout_free import mentions
from dsh_conformance.schedule.tool_values import delete_succeeded
from pytest_dsh import AgentDriver, HostDriver, Implementation
from pytest_dsh.driving.seams import require_seam
from pytest_dsh.errors import HostStuckError

from ..session_logs import reminder_framings

pytestmark = [pytest.mark.dsh_requires("schedule")]

START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00.000Z
DAY_S = 86_400
#: Virtual time after the scenario's end in which everything due must happen
#: (each scenario's own advances pass all of its targets).
SETTLE_S = 3_600

Op = tuple[Any, ...]


@dataclass(frozen=True)
class Scenario:
    name: str
    ops: tuple[Op, ...]


def _after(prompt: str, seconds: int, on: str = "root") -> Op:
    return ("create", on, {"prompt": prompt, "after_seconds": seconds})


def _at(prompt: str, at: Any, on: str = "root") -> Op:
    return ("create", on, {"prompt": prompt, "at": at})


def _every(prompt: str, seconds: int, on: str = "root") -> Op:
    return ("create", on, {"prompt": prompt, "every_seconds": seconds})


def _advance(seconds: float) -> Op:
    return ("advance", seconds)


def _delete(index: int, on: str = "root") -> Op:
    """Delete the ``index``-th reminder acknowledged on ``on``."""
    return ("delete", on, index)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("after", (_after("tea", 60), _advance(120))),
    Scenario("two-afters", (_after("a", 60), _after("b", 120), _advance(180))),
    Scenario("at-instant", (_at("meet", "2026-01-01T00:05:00Z"), _advance(600))),
    Scenario(
        "at-local-zone",
        (
            _at("lunch", {"date": "2026-01-01", "time": "01:10:00", "time_zone": "Europe/Paris"}),
            _advance(900),
        ),
    ),
    Scenario("every", (_every("stretch", 300), _advance(1_200))),
    Scenario("delete-before-due", (_after("gone", 600), _advance(60), _delete(0), _advance(900))),
    Scenario(
        "delete-one-of-two",
        (_after("keep", 300), _after("drop", 300), _delete(1), _advance(600)),
    ),
    Scenario("delete-every", (_every("tick", 300), _advance(700), _delete(0), _advance(900))),
    Scenario("long-sleep-after", (_after("monthly", 30 * DAY_S), _advance(31 * DAY_S))),
    Scenario("long-sleep-at", (_at("later", "2026-02-10T00:00:00Z"), _advance(41 * DAY_S))),
    Scenario("wall-forward", (_after("jump", 7_200), ("wall", 3_600), _advance(7_300))),
    Scenario("wall-rollback", (_after("roll", 3_600), ("wall", -DAY_S), _advance(DAY_S + 3_700))),
    Scenario(
        "every-batch",
        (_every("a", 300), _every("b", 300), _every("c", 300), _advance(900)),
    ),
    Scenario("every-and-one-shot", (_every("e", 300), _after("o", 300), _advance(700))),
    Scenario(
        "fork-child-reminder",
        (_after("parent", 300), ("fork",), _after("child", 120, on="child"), _advance(600)),
    ),
    Scenario(
        "fork-then-delete-in-parent",
        (_after("p", 600), ("fork",), _after("c", 300, on="child"), _delete(0), _advance(900)),
    ),
    Scenario(
        "staggered-five",
        (*(_after(f"r{n}", 60 * (n + 1)) for n in range(5)), _advance(400)),
    ),
    Scenario(
        "create-while-running",
        (
            _after("first", 90),
            _advance(30),
            _after("second", 90),
            _advance(30),
            _after("third", 30),
            _advance(120),
        ),
    ),
    Scenario("every-catch-up-after-jump", (_every("catch", 300), ("wall", DAY_S), _advance(400))),
    Scenario(
        "every-with-one-shot-and-delete",
        (_every("e", 300), _after("o", 600), _advance(450), _delete(0), _advance(600)),
    ),
    Scenario("same-target", (_after("x", 60), _advance(59), _after("y", 1), _advance(60))),
    Scenario(
        "unicode-prompts",
        (_after("thé ☕", 60), _at("会议", "2026-01-01T00:02:00+00:00"), _advance(180)),
    ),
)


# -- observing deliveries --------------------------------------------------------------


def _delivered(texts: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(schedule id, occurrence, prompt)`` for every reminder framing in ``texts``
    (the README's framing lines: schedule_id_json, occurrence_at and
    reminder_prompt_json, or reminders_json with schedule_id, occurrence_at and
    reminder_prompt)."""
    keys: list[tuple[str, str, str]] = []
    for text in texts:
        fields = dict(line.split(": ", 1) for line in text.split("\n") if ": " in line)
        if "reminders_json" in fields:
            for item in json.loads(fields["reminders_json"]):
                keys.append((str(item["schedule_id"]), str(item["occurrence_at"]),
                             str(item["reminder_prompt"])))
        elif "schedule_id_json" in fields:
            keys.append((json.loads(fields["schedule_id_json"]), fields["occurrence_at"],
                         json.loads(fields["reminder_prompt_json"])))
    return keys


def _scenario_kinds(scenario: Scenario) -> dict[str, dict[str, str]]:
    """Per session, each created prompt's kind: ``every`` or ``one-shot``."""
    kinds: dict[str, dict[str, str]] = {"root": {}, "child": {}}
    for op in scenario.ops:
        if op[0] == "create":
            kinds[op[1]][op[2]["prompt"]] = "every" if "every_seconds" in op[2] else "one-shot"
    return kinds


def _changes_mentioning(events: Sequence[dict[str, Any]], needle: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "schedule/change" and mentions(e["data"], needle)]


# -- running one crash point -----------------------------------------------------------


@dataclass
class RunResult:
    boundaries: int = 0
    crashed: bool = False
    lost: list[str] = field(default_factory=list)
    lost_in_window: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    duplicated_in_window: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class _Run:
    def __init__(self, host: HostDriver, mode: str, crash_after: int | None) -> None:
        self.host = host
        self.mode = mode
        self.crash_after = crash_after
        self.agents: dict[str, AgentDriver] = {}
        self.acknowledged: dict[str, list[str]] = {"root": [], "child": []}
        #: The prompt of each acknowledged id.
        self.prompt_of: dict[str, str] = {}
        self.deleted: dict[str, set[str]] = {"root": set(), "child": set()}
        self.delete_attempted: dict[str, set[str]] = {"root": set(), "child": set()}
        #: ``seq`` of the changes appended by a delete call that mention its target.
        self.delete_seqs: dict[str, set[int]] = {"root": set(), "child": set()}
        self.seed_lengths: dict[str, int] = {"root": 0}
        #: Virtual (monotonic) seconds the completed ``advance`` ops let pass.
        self.advanced = 0.0

    def plan(self) -> None:
        """The fault window that counts boundaries, and (at a crash point)
        stops the world after the ``crash_after``-th."""
        first = 10**9 if self.crash_after is None else self.crash_after + 1
        if self.mode == "flush":
            self.host.faults.fail_flushes("hang", first=first, count=None)
        else:
            self.host.faults.fail_appends(first=first, count=None)

    def boundaries_seen(self) -> int:
        return int(self.host.faults.snapshot()[0]["seen"])  # type: ignore[call-overload]

    def live_logs(self) -> dict[str, list[dict[str, Any]]]:
        return {agent.session_id: agent.events() for agent in self.agents.values()}

    def attempted_beyond(self) -> bool:
        return self.crash_after is not None and self.boundaries_seen() > self.crash_after

    def apply(self, op: Op) -> None:
        kind = op[0]
        if kind == "create":
            _, on, arguments = op
            value = self.agents[on].call_tool("schedule_create", arguments).value
            if isinstance(value, dict) and value.get("state") in ("scheduled", "overdue"):
                self.acknowledged[on].append(str(value["id"]))
                self.prompt_of[f"{on}:{value['id']}"] = arguments["prompt"]
        elif kind == "delete":
            _, on, index = op
            if index < len(self.acknowledged[on]):
                target = self.acknowledged[on][index]
                self.delete_attempted[on].add(target)
                agent = self.agents[on]
                seen = len(agent.events())
                try:
                    value = agent.call_tool("schedule_delete", {"id": target}).value
                finally:
                    self.delete_seqs[on].update(
                        e["seq"] for e in _changes_mentioning(agent.events()[seen:], target))
                # The README spells the not-found value; an actual delete is any other
                # answer without a closed code (its fields are pinned, SCH-VIEW-FIELDS).
                if delete_succeeded(value):
                    self.deleted[on].add(target)
        elif kind == "advance":
            self.host.advance(op[1])
            self.advanced += op[1]
        elif kind == "wall":
            self.host.set_wall_clock(self.host.now_ms + op[1] * 1000)
        elif kind == "fork":
            self.agents["child"] = self.host.fork(self.agents["root"])
            self.seed_lengths["child"] = int(self.agents["child"].header().get("seedLength", 0))
        else:  # pragma: no cover - scenario typo
            raise ValueError(f"unknown op {op!r}")


def _run(
    open_host: Callable[[], HostDriver], scenario: Scenario, mode: str, crash_after: int | None,
    probes: _Probes,
) -> RunResult:
    host = open_host()
    try:
        return _run_on(host, scenario, mode, crash_after, probes)
    finally:
        host.close()


class _Probes:
    """The probe host of one enumeration, where each durable log is listed.

    Each listing is a fresh session of its own (its own id), seeded with the
    durable log and disposed once listed, on a host with the plugin loaded and
    its clock left at the scenario's start: nothing on it is ever due, as
    nothing advances it, and no earlier probe's agent is live. So a listing
    sees what it saw on a host of its own, without a host opened, reset, loaded
    and closed per listing (about a third of the enumeration's hosts). Should a
    disposal fail, that host is closed as a probe host always was, and the next
    listing gets a fresh one."""

    def __init__(self, open_host: Callable[[], HostDriver]) -> None:
        self._open_host = open_host
        self._host: HostDriver | None = None
        self._listings = 0

    def active_in(
        self, durable: list[dict[str, Any]], seed_length: int, prompts: Sequence[str]
    ) -> dict[str, str] | str:
        """The prompts the durable log holds active, with their ids, as the
        implementation folds it: a fresh session seeded with it on the probe
        host, at the scenario's start, when nothing in it is due yet. A string
        when it does not fold."""
        try:
            if self._host is None:
                self._host = self._open_host()
                self._host.load_plugin("schedule")
            self._listings += 1
            agent = self._host.create_agent(
                session_id=f"crash-probe-{self._listings}", seed=[dict(e) for e in durable],
                seed_length=seed_length or None)
            listed = agent.call_tool("schedule_list", {}).value
        except BaseException:
            self.close()
            raise
        try:
            agent.dispose()
        except Exception:
            self.close()
        if not isinstance(listed, list):
            return repr(listed)
        return {p: str(view.get("id")) for view in listed for p in prompts if mentions(view, p)}

    def close(self) -> None:
        host, self._host = self._host, None
        if host is not None:
            host.close()


def _run_on(
    host: HostDriver, scenario: Scenario, mode: str, crash_after: int | None, probes: _Probes
) -> RunResult:
    result = RunResult()
    host.load_plugin("schedule")
    if mode == "per-event":
        host.set_durability("per-event")
    run = _Run(host, mode, crash_after)
    run.agents["root"] = host.create_agent(session_id="crash-root")
    run.plan()
    for op in scenario.ops:
        try:
            run.apply(op)
        except HostStuckError:
            result.crashed = True
            break
        if run.attempted_beyond():
            result.crashed = True
            break
    if crash_after is None:
        result.boundaries = run.boundaries_seen()
        return result

    live = run.live_logs()
    sessions = {name: agent.session_id for name, agent in run.agents.items()}
    durable: dict[str, list[dict[str, Any]]] = {}
    for sid in sessions.values():
        try:
            durable[sid] = host.durable_events(sid)
        except KeyError:
            durable[sid] = []
    host.crash()
    host.faults.clear()
    resumed = {name: host.resume(sid) for name, sid in sessions.items() if durable[sid]}
    # The rest of the scenario's time passes (a wall step the crash skipped
    # does not happen), then the settling time.
    host.advance(max(_scenario_advance_s(scenario) - run.advanced, 0.0) + SETTLE_S)

    kinds = _scenario_kinds(scenario)
    for name, sid in sessions.items():
        agent = resumed.get(name)
        after = agent.events() if agent is not None else []
        seed_length = run.seed_lengths[name]
        active = (probes.active_in(durable[sid], seed_length, list(kinds[name]))
                  if durable[sid] else {})
        _check_session(result, name, live[sid], durable[sid], after, run, agent, kinds[name],
                       active)
    return result


def _check_session(
    result: RunResult,
    name: str,
    live: list[dict[str, Any]],
    durable: list[dict[str, Any]],
    after: list[dict[str, Any]],
    run: _Run,
    agent: AgentDriver | None,
    kinds: dict[str, str],
    active: dict[str, str] | str,
) -> None:
    if not durable and agent is None:
        # Never durable (crashed before its first flush): nothing it holds was
        # acknowledged, so nothing can be lost or repeated.
        if run.acknowledged[name] or run.deleted[name]:
            result.problems.append(f"{name}: acknowledged work but nothing durable")
        return
    prefix = len(durable)
    if after[:prefix] != durable:
        result.problems.append(f"{name}: the resumed log does not start with the durable log")
    # Only the implementation's own listing of the durable log can say a
    # durable reminder is settled (its dispatch durable); without one, no
    # undelivered reminder may be excused as in the per-event window.
    settled_known = not isinstance(active, str)
    if isinstance(active, str):
        result.problems.append(f"{name}: the durable log does not fold: list answered {active}")
        active = {}
    delivered = _delivered(reminder_framings(live)) + _delivered(reminder_framings(after[prefix:]))
    delivered_prompts = {prompt for _, _, prompt in delivered}
    seed_length = run.seed_lengths[name]
    own_durable = durable[seed_length:] if seed_length <= len(durable) else []

    def prompts(ids: Iterable[str]) -> set[str]:
        return {run.prompt_of[f"{name}:{i}"] for i in ids}

    acknowledged = prompts(run.acknowledged[name])
    deleted = prompts(run.deleted[name])
    delete_attempted = prompts(run.delete_attempted[name])
    in_durable = {p for p in kinds if _changes_mentioning(own_durable, p)}
    for prompt in sorted((acknowledged | in_durable) - deleted):
        if kinds[prompt] != "one-shot" or prompt in delivered_prompts:
            continue
        label = f"{name}:{prompt}"
        if prompt not in in_durable or prompt in active or not settled_known:
            # acknowledged but never durable, durable and active, or unknown
            result.lost.append(label)
        elif prompt not in delete_attempted:
            result.lost_in_window.append(label)  # its dispatch is durable, never delivered
    # A repeat is in the README's window when a dispatch of that id was appended
    # live but did not become durable.
    prompt_of_id = {i: p for p, i in active.items()} | {
        key.split(":", 1)[1]: p for key, p in run.prompt_of.items() if key.startswith(f"{name}:")}

    def dispatch_count(events: Sequence[dict[str, Any]], schedule_id: str) -> int:
        prompt = prompt_of_id.get(schedule_id)
        return sum(1 for e in _changes_mentioning(events, schedule_id)
                   if (prompt is None or not mentions(e["data"], prompt))
                   and e["seq"] not in run.delete_seqs[name])

    counted = Counter((schedule_id, occurrence) for schedule_id, occurrence, _ in delivered)
    for key, count in counted.items():
        if count < 2:
            continue
        label = f"{name}:{key[0]}@{key[1]}"
        if dispatch_count(live, key[0]) > dispatch_count(durable, key[0]) and count == 2:
            result.duplicated_in_window.append(label)
        else:
            result.duplicated.append(label)
    if agent is not None:
        listed = agent.call_tool("schedule_list", {}).value
        expected = sorted(
            ({p for p in active if kinds[p] == "every"}
             | {p for p in acknowledged - delete_attempted if kinds[p] == "every"}) - deleted)
        if not isinstance(listed, list):
            result.problems.append(f"{name}: the resumed log does not fold: list answered "
                                   f"{listed!r}")
        else:
            shown = sorted(p for view in listed for p in kinds if mentions(view, p))
            if shown != expected:
                result.problems.append(f"{name}: schedule_list {listed!r} shows the reminders "
                                       f"{shown}, model expects {expected}")


def _scenario_advance_s(scenario: Scenario) -> float:
    """The virtual time the scenario lets pass."""
    return float(sum(op[1] for op in scenario.ops if op[0] == "advance"))


# -- the tests ---------------------------------------------------------------------------


@dataclass
class Totals:
    scenarios: int = 0
    crash_points: int = 0
    faults: int = 0
    lost: int = 0
    lost_in_window: int = 0
    duplicated: int = 0
    duplicated_in_window: int = 0

    def line(self, mode: str) -> str:
        return (
            f"crash enumeration ({mode} durability): {self.scenarios} scenarios, "
            f"{self.crash_points} crash points, {self.faults} faults injected, "
            f"lost {self.lost} (+{self.lost_in_window} in the per-event window), "
            f"duplicated {self.duplicated} (+{self.duplicated_in_window} in the "
            "README's duplicate window)"
        )


@pytest.fixture(scope="session")
def crash_totals(request: pytest.FixtureRequest) -> Iterator[dict[str, Totals]]:
    """Counts over the whole run, printed at its end."""
    totals: dict[str, Totals] = {}
    yield totals
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():  # the last test's teardown is captured
        reporter.write_line("")
        for mode, counted in totals.items():
            reporter.write_line(counted.line(mode))


def _enumerate(
    implementation: Implementation, scenario: Scenario, mode: str,
    totals_of: Callable[[], Totals], check: Callable[[HostDriver], None] | None = None,
) -> list[str]:
    """Every crash point of ``scenario``. ``check`` (a seam the host must
    offer) is asked of the clean run's fresh host before it is used, and before
    anything is counted, as of a host opened only to ask it."""

    def open_host() -> HostDriver:
        return implementation.open_host(start_ms=START_MS)

    failures: list[str] = []
    probes = _Probes(open_host)
    try:
        host = open_host()
        try:
            if check is not None:
                check(host)
            totals = totals_of()
            totals.scenarios += 1
            clean = _run_on(host, scenario, mode, None, probes)
        finally:
            host.close()
        for k in range(clean.boundaries):
            outcome = _run(open_host, scenario, mode, k, probes)
            failures += _crash_point(outcome, k, mode, totals)
    finally:
        probes.close()
    boundary = "flushes" if mode == "flush" else "schedule/change appends"
    assert clean.boundaries >= 1, readme(
        "SCH-011, SCH-034", f"schedule_create to checkpoint persistence (flush) and append "
        f"create; observed no {boundary} in a clean run of the scenario {scenario.name!r}, so "
        "its crash points cannot be enumerated", clean.boundaries)
    return failures


def _crash_point(outcome: RunResult, k: int, mode: str, totals: Totals) -> list[str]:
    """Count one crash point's outcome; its failures."""
    totals.crash_points += 1
    totals.faults += 1 if outcome.crashed else 0
    totals.lost += len(outcome.lost)
    totals.lost_in_window += len(outcome.lost_in_window)
    totals.duplicated += len(outcome.duplicated)
    totals.duplicated_in_window += len(outcome.duplicated_in_window)
    where = f"crashed after boundary {k}"
    failures = [f"{where}: lost {item}" for item in outcome.lost]
    failures += [f"{where}: delivered twice {item}" for item in outcome.duplicated]
    failures += [f"{where}: {problem}" for problem in outcome.problems]
    if mode == "flush":
        failures += [
            f"{where}: lost {item} (dispatch durable, never delivered, under flush-only)"
            for item in outcome.lost_in_window
        ]
    return failures


def test_there_are_at_least_twenty_scenarios():
    assert len(SCENARIOS) >= 20, readme(
        "SCH-089", "crash safety to be enumerated over at least twenty scenarios", len(SCENARIOS))
    names = [scenario.name for scenario in SCENARIOS]
    assert len(set(names)) == len(names), readme(
        "SCH-089", "every crash scenario to have its own name", names)


@pytest.mark.spec("SCH-089")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_crash_at_every_flush_loses_and_repeats_nothing(
    dsh_implementation, scenario, crash_totals
):
    failures = _enumerate(dsh_implementation, scenario, "flush",
                          lambda: crash_totals.setdefault("flush-only", Totals()))
    assert failures == [], readme(
        "SCH-089", "a crash at every flush to lose no acknowledged reminder and to repeat one "
        "only in the duplicate window", failures)


@pytest.mark.spec("SCH-089")
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_crash_after_every_event_loses_only_in_the_per_event_window(
    dsh_implementation, scenario, crash_totals
):
    failures = _enumerate(dsh_implementation, scenario, "per-event",
                          lambda: crash_totals.setdefault("per-event", Totals()),
                          check=lambda host: require_seam(host, "per-event-durability"))
    assert failures == [], readme(
        "SCH-089", "a crash after every event to lose only reminders whose dispatch was "
        "durable but not yet delivered, and to repeat one only in the duplicate window",
        failures)
