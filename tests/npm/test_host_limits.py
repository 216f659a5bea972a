"""Host limits (pytest_dsh/npm/host_limits.json): the table, how a host-limited
test is reported, and the witness plugins that show each limit on the host.

Kit behaviour, no README sentence: which tests the host decides is pinned
here, each by a witness that tries the README's way and by the log the host
writes for it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kit_child_processes as children
import pytest

from pytest_dsh import reply_text
from pytest_dsh.npm import HOST_PROFILES, NodeImplementation
from pytest_dsh.npm.host_limits import host_limits, limit_for, limits_table
from pytest_dsh.official import OFFICIAL_SCHEDULE_VERSION
from pytest_dsh.pytest_plugin.reporting.document import _counts
from pytest_dsh.pytest_plugin.reporting.results import TestResult
from pytest_dsh.pytest_plugin.reporting.verdicts import CONFORMS, group_verdict

WITNESSES = Path(__file__).resolve().parent / "witnesses"
REPO = Path(__file__).resolve().parents[2]
START_MS = 1_767_225_600_000
READING = {"kind": "plugin", "plugin": "time-context"}
INJECT = "inject-queued-for-next-step"


def _suite_functions() -> set[str]:
    """``module::function`` of every test function the suite defines."""
    found: set[str] = set()
    for path in (REPO / "conformance").rglob("test_*.py"):
        module = path.relative_to(REPO / "conformance").as_posix()
        found.update(f"{module}::{name}" for name in
                     re.findall(r"^def (test_\w+)\(", path.read_text("utf-8"), re.M))
    return found


def test_every_limit_is_explained_and_names_tests_of_the_suite():
    table = limits_table()
    functions = _suite_functions()
    for limit_id, entry in table["limits"].items():
        assert entry["requirement"] and entry["host_behaviour"] and entry["sentences"], limit_id
        for pattern in entry["tests"]:
            assert pattern.split("[")[0] in functions, (limit_id, pattern)
        if entry["witness"]:
            assert (REPO / entry["witness"] / "package.json").is_file(), limit_id
    assert set(table["hosts"]) <= set(HOST_PROFILES)
    doc = (REPO / "docs" / "host-limits.md").read_text("utf-8")
    assert all(f"`{limit_id}`" in doc for limit_id in table["limits"])


def test_no_official_expectation_repeats_a_host_limit_of_every_profile():
    # The host limit decides such a test on every host, so an expectation for
    # it would never be used: the table is its one source of truth.
    from pytest_dsh.official import load_expectations

    hosts = limits_table()["hosts"]
    repeated = {test_id for test_id in load_expectations()
                if all(limit_for(host, test_id) is not None for host in hosts)}
    assert repeated == set()


def test_patterns_take_brackets_literally_and_star_as_any_text():
    seeded = "fixtures/test_corrupt_logs.py::test_invariant_refuses_the_corrupt_log[{}]"
    assert limit_for("0.1.0-rc.8", seeded.format("seed-length-beyond-log")) is not None
    assert limit_for("0.1.0-rc.8", seeded.format("unknown-version")) is None
    # "[s]" would be a character class to fnmatch: it must not match "s".
    assert limit_for("0.1.0-rc.8", seeded.format("seed-length-beyond-log")[:-1]) is None
    step = ("time_context/timing_semantics/test_timing_semantics.py::"
            "test_the_reading_lands_before_step_start_and_is_part_of_that_steps_request")
    assert limit_for("0.1.0-rc.8", step).id == INJECT  # type: ignore[union-attr]
    assert limit_for("no-such-host", step) is None
    assert host_limits("no-such-host") == ()


def _row(outcome_report: pytest.TestReport, *, limited: bool) -> TestResult:
    row = TestResult(id="t", nodeid="t", plugin="time-context", level="readme",
                     host_limit="host limit of DSH host 0.1.0-rc.8 (x): y" if limited else None)
    row.record(outcome_report)
    return row


def _report(*, passed: bool) -> pytest.TestReport:
    report = pytest.TestReport(
        "t", ("t.py", 1, "t"), {}, "passed" if passed else "skipped",
        None if passed else ("t.py", 1, "AssertionError: reading after step/start"), "call",
    )
    report.wasxfail = "host limit of DSH host 0.1.0-rc.8 (x): y"  # type: ignore[attr-defined]
    return report


def test_a_host_limited_test_is_its_own_outcome_and_never_counts_for_or_against():
    failed = _row(_report(passed=False), limited=True)
    lifted = _row(_report(passed=True), limited=True)
    assert (failed.outcome, lifted.outcome) == ("host limit", "host limit lifted")
    assert failed.message == "AssertionError: reading after step/start"
    assert failed.as_json()["host_limit"].startswith("host limit of DSH host 0.1.0-rc.8")
    # An implementation's own known failure stays a known failure.
    assert _row(_report(passed=False), limited=False).outcome == "xfailed"
    passed = TestResult(id="p", nodeid="p", plugin="time-context", level="readme")
    passed.outcome = "passed"
    counts = _counts([failed, lifted, passed])
    assert counts["host limit"] == 1 and counts["host limit lifted"] == 1
    assert group_verdict(counts) == CONFORMS
    # A parallel run's worker hands the row down with its limit.
    assert TestResult.described(failed.description()).host_limit == failed.host_limit


# -- the witnesses, on the host ----------------------------------------------

def _message_source(event: dict[str, Any]) -> Any:
    data = event.get("data") or {}
    return data.get("source") or (data.get("message") or {}).get("source")


def _types(events: list[dict[str, Any]]) -> list[str]:
    """The log as a plugin author reads it: the host's own bookkeeping
    (inbox splices, request and stream records) left out."""
    kept = []
    for event in events:
        if event["type"] in ("user/message", "step/start", "step/end", "turn/start", "turn/end"):
            source = _message_source(event)
            label = event["type"]
            if event["type"] == "user/message":
                label = "reading" if source == READING else "prompt"
            elif event["type"] in ("step/start", "step/end"):
                label += f" {event['data']['step']}"
            kept.append(label)
    return kept


@pytest.fixture(params=sorted(limits_table()["hosts"]))
def witness_host(request: pytest.FixtureRequest, kit: Any) -> Iterator[Any]:
    """Open a witness (a folder under witnesses/, or a registry spec) on each
    host profile the table lists."""
    opened: list[Any] = []

    def open_on(witness: str, role: str = "time-context") -> Any:
        kit.require_npm()
        spec = str(WITNESSES / witness) if (WITNESSES / witness).is_dir() else witness
        implementation = NodeImplementation(
            name=witness, version="1.0.0", packages={role: spec}, host=request.param,
        )
        host = implementation.open_host(start_ms=START_MS, withhold=frozenset())
        opened.append(host)
        return host

    yield open_on
    for host in opened:
        host.close()


@pytest.mark.dsh_wall_budget(600)
def test_inject_during_pre_step_lands_after_the_next_step_start(witness_host):
    # The README's way. With an interval the second attempt is suppressed once
    # the first reading is in the log, so the turn ends (without one, every
    # step injects again and opens another: the runaway an author meets).
    host = witness_host("tc-readme-inject")
    host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    agent = host.create_agent()
    agent.script(reply_text("one"), reply_text("two"), reply_text("three"))
    agent.prompt("hello")
    events = agent.events()
    assert _types(events) == [
        "turn/start", "step/start 1", "prompt", "step/end 1",
        "step/start 2", "reading", "step/end 2", "step/start 3", "reading", "step/end 3",
        "turn/end",
    ]
    requests = agent.requests()
    assert len(requests) == 3  # one request the model was asked only for the reading's sake
    first_request_sources = [_message_source(e) for e in requests[0]]
    assert READING not in first_request_sources


@pytest.mark.dsh_wall_budget(600)
def test_no_append_can_follow_the_prompt_and_precede_step_start(witness_host):
    # Appending to the log directly is the only durable write before
    # step/start; the prompt itself is claimed after step/start.
    host = witness_host("tc-readme-append")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = host.create_agent()
    agent.script(reply_text("done"))
    agent.prompt("hello")
    assert _types(agent.events()) == [
        "turn/start", "reading", "step/start 1", "prompt", "step/end 1", "turn/end",
    ]


@pytest.mark.dsh_wall_budget(600)
def test_the_host_closes_a_seed_with_its_own_event_so_no_seed_length_is_out_of_range(
    witness_host,
):
    # Any schedule plugin shows it; the official one is at hand. The header
    # says three events were inherited, the seed has two: the host's own
    # session/end-seed makes the third, so the plugin replays a log the
    # header fits.
    host = witness_host(f"@deepseek-ai/dsh-schedule@{OFFICIAL_SCHEDULE_VERSION}", "schedule")
    host.load_plugin("schedule")
    lines = (REPO / "fixtures" / "corrupt" / "seed-length-beyond-log.jsonl").read_text("utf-8")
    header, *seed = [json.loads(line) for line in lines.splitlines()]
    agent = host.create_agent(session_id=header["id"], seed=seed, seed_length=header["seedLength"])
    events = agent.events()
    assert [e["type"] for e in events[:3]] == [
        "schedule/change", "schedule/change", "session/end-seed"
    ]
    assert len(events) >= header["seedLength"] > len(seed)
    listed = agent.call_tool("schedule_list", {}).value
    assert listed == []  # replayed as a sound log: no corrupt_schedule_log


def test_the_witnesses_share_one_reading_module():
    texts = {(WITNESSES / w / "reading.js").read_text("utf-8")
             for w in ("tc-readme-inject", "tc-readme-append")}
    assert len(texts) == 1


@pytest.mark.dsh_wall_budget(600)
def test_a_failed_first_attempt_keeps_the_reading_but_the_host_never_logs_the_prompt(
    witness_host,
):
    host = witness_host("tc-readme-append")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    host.add_pre_step_watcher("raise", only=(1, 1))
    agent = host.create_agent()
    agent.script(reply_text("done"))
    agent.prompt("hello")
    events = agent.events()
    assert _types(events) == ["turn/start", "reading", "turn/end"]
    assert events[-1]["data"]["reason"]["kind"] == "error"


#: What the README-written witness fails besides the host limits, and why: the
#: rest of the time-context section passes on the default host, so no other
#: README requirement is out of a plugin's reach there.
WITNESS_FAILS: dict[str, str] = {
    # Pinned details (compat): the official build's exact load messages and
    # Intl's zone-name matching, which the witness does not copy.
    **{f"time_context/configuration/test_configuration.py::{name}": "compat: own load messages"
       for name in (
        "test_a_refused_refresh_interval_fails_with_the_official_message[fraction]",
        "test_a_refused_refresh_interval_fails_with_the_official_message[infinity]",
        "test_a_refused_refresh_interval_fails_with_the_official_message[nan]",
        "test_a_refused_refresh_interval_fails_with_the_official_message[negative]",
        "test_a_refused_refresh_interval_fails_with_the_official_message[unsafe]",
        "test_the_refresh_interval_is_checked_before_the_zone",
        "test_zone_names_are_matched_like_intl_and_printed_canonically[asia/shanghai-Asia/Shanghai]",
        "test_zone_names_are_matched_like_intl_and_printed_canonically[utc-UTC]",
    )},
    **{f"time_context/configuration/test_configuration.py::test_an_invalid_explicit_zone_fails_with_the_"
       f"official_message[{zone}-time-context: invalid IANA timeZone \"{zone}\"]":
       "compat: own load messages" for zone in ("", "Mars/Olympus_Mons", "Not/A_Real_Zone")},
    "time_context/configuration/test_load_faults.py::test_a_failed_zone_lookup_refuses_with_the_official_message[explicit]":
        "compat: own load messages",
    "time_context/configuration/test_load_faults.py::test_a_failed_zone_lookup_refuses_with_the_official_message[process]":
        "compat: own load messages",
    "time_context/configuration/test_mutation_survivors.py::test_a_list_given_as_time_zone_fails_the_load_naming_the_key":
        "compat: own load messages",
    # The witness exports apply, name and inject but no Config schema (TC-EXPORT-SHAPE).
    "time_context/configuration/test_package_shape.py::test_the_package_exports_match_the_official_build":
        "compat: own export shape",
    "time_context/timing_semantics/test_timing_semantics.py::test_the_reading_message_is_one_text_block_beside_its_source":
        "compat: the witness builds its message with the host's createUserMessage (role, id)",
    # The witness's placement: before step/start, so before the prompt the host
    # logs after step/start. A plugin that lets the host append its reading
    # after the prompt passes these two (the official build does, but for its
    # source) and fails the host limits instead.
    "time_context/timing_semantics/test_timing_semantics.py::test_the_reading_carries_exactly_the_plugin_source":
        "placement: the first user/message is the reading, not the prompt",
    "time_context/model_experience/test_model_experience.py::test_readings_only_ever_extend_the_previous_request":
        "placement: the prompt comes after the reading in the request",
}


@pytest.mark.dsh_wall_budget(1200)
def test_the_readme_witness_fails_only_its_host_limits_and_named_choices(tmp_path, kit):
    kit.require_npm()
    report = tmp_path / "witness.json"
    run = kit.run_suite(
        [str(kit.SUITE_DIR / "time_context"), f"--rootdir={kit.SUITE_DIR}",
         "--dsh-impl=npm", "--dsh-npm", f"time-context={WITNESSES / 'tc-readme-append'}",
         # Bounds a hang; no test of this witness runs away, so any budget
         # its slowest test fits under a loaded machine gives the same outcomes.
         "--dsh-wall-budget=60", f"--dsh-report={report}"],
        cwd=tmp_path, env=kit.user_env(),
    )
    assert report.is_file(), run.output[-3000:]
    outcomes = {t["id"]: t["outcome"] for t in json.loads(report.read_text("utf-8"))["tests"]}
    failing = {i for i, o in outcomes.items() if o in ("failed", "error", "xpassed")}
    assert failing == set(WITNESS_FAILS)
    limited = {i for i, o in outcomes.items() if o == "host limit"}
    assert limited == {
        test_id for test_id in outcomes
        if limit_for("0.1.0-rc.8", test_id) is not None
    } and len(limited) == 4
    assert sum(1 for o in outcomes.values() if o == "passed") > 140


def test_every_report_lists_host_limits_apart_with_their_reason():
    import jsonschema

    from pytest_dsh.pytest_plugin.reporting import RunInfo
    from pytest_dsh.pytest_plugin.reporting.document import build_document, report_schema
    from pytest_dsh.pytest_plugin.reporting.host_limit_rows import host_limit_line, host_limited
    from pytest_dsh.pytest_plugin.reporting.html import render_html
    from pytest_dsh.pytest_plugin.reporting.markdown import render_markdown


    reason = limit_for("0.1.0-rc.8", "time_context/timing_semantics/test_timing_semantics.py::"
                       "test_each_request_is_the_surface_prefix_at_its_step_start")
    assert reason is not None
    rows = []
    for test_id, outcome in (("tc/a", "host limit"), ("tc/b", "host limit lifted"),
                             ("tc/c", "passed")):
        row = TestResult(id=test_id, nodeid=test_id, plugin="time-context", level="readme",
                         host_limit=None if outcome == "passed" else reason.reason("0.1.0-rc.8"))
        row.outcome = outcome
        rows.append(row)
    info = RunInfo(
        implementation="w", version="1", spec="npm", capabilities=("time-context",),
        kit_version="0", tzdata="x", hypothesis="h", seed=None, levels=("readme",),
        expectations=None, known_failures=0, command="pytest",
    )
    report = build_document(info, rows, 0)
    document = report.json
    jsonschema.validate(document, report_schema())
    plugin = document["verdict"]["levels"]["readme"]["plugins"]["time-context"]
    assert plugin["verdict"] == "conforms"
    assert plugin["counts"]["host limit"] == plugin["counts"]["host limit lifted"] == 1
    assert document["verdict"]["exit_status"] == 0
    line = host_limit_line(host_limited(document))
    assert line is not None and "1 tests failed as the DSH host decides" in line
    assert "1 passed anyway (host limit lifted" in line
    markdown = render_markdown(report)
    assert "## Host limits (2)" in markdown
    assert "agent.inject() puts the message in the agent" in markdown
    html = render_html(report)
    assert '<section id="host-limits"><h2>Host limits (2)</h2>' in html
    assert 'class="o o-host-limit-lifted"' in html


# -- limits met by symptom, and runaways that follow from a limit --------------

_SYMPTOM_CONFTEST = """
import pytest
from pytest_dsh.pytest_plugin.host_limit_symptoms import HOST_VERSION

@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    config.stash[HOST_VERSION] = {host!r}
"""

_SYMPTOM_TESTS = """
import pytest
from pytest_dsh.driving import host_symptoms
from pytest_dsh.driving.runaway import RunawayError

pytestmark = [pytest.mark.spec("TC-016"), pytest.mark.dsh_requires("time-context")]
QUEUED = "pre-step-inject-queued"

@pytest.mark.parametrize("n", range(4))
def test_runs_away_from_the_limit(n):
    raise RunawayError("a turn that never ends", symptom=QUEUED)

def test_runs_away_on_its_own():
    raise RunawayError("a timer re-armed forever")

@pytest.mark.dsh_needs_host("inject-into-the-step")
def test_needs_it_and_met_it():
    host_symptoms.note(QUEUED)
    assert False, "the reading is not in its step"

@pytest.mark.dsh_requires("inject-into-the-step")  # the one marker says the same
def test_needs_it_by_dsh_requires_and_met_it():
    host_symptoms.note(QUEUED)
    assert False, "the reading is not in its step"

@pytest.mark.dsh_needs_host("inject-into-the-step")
def test_needs_it_but_never_met_it():
    assert False, "a bug of the plugin"

def test_met_it_but_needs_nothing():
    host_symptoms.note(QUEUED)
    assert False, "a bug of the plugin"

@pytest.mark.dsh_needs_host("inject-into-the-step")
def test_needs_it_met_it_and_passes():
    host_symptoms.note(QUEUED)

@pytest.mark.dsh_probe("step-one-probe", "Step one measures from the prompt")
@pytest.mark.dsh_needs_host("inject-into-the-step")
def test_a_probe_that_cannot_observe():
    host_symptoms.note(QUEUED)
    assert False, "observed []"
"""

_IMPL = """
from pytest_dsh import PythonImplementation
from dsh_reference.implementation import IMPLEMENTATION as REFERENCE

TC_ONLY = PythonImplementation(
    "tc-only", "1.0", {"time-context": REFERENCE.plugins["time-context"]},
    frozenset({"time-context"}),
)
"""


def _symptom_run(
    pytester: pytest.Pytester, host: str, *args: str
) -> tuple[Any, dict[str, dict[str, Any]]]:
    pytester.makeconftest(_SYMPTOM_CONFTEST.format(host=host))
    pytester.makepyfile(impls=_IMPL, test_symptoms=_SYMPTOM_TESTS)
    pytester.syspathinsert()
    result = children.runpytest_subprocess(
        pytester, "--dsh-impl=impls:TC_ONLY", "--dsh-report=out.json", "-p", "no:randomly",
        "-p", "no:cacheprovider", *args,
    )
    document = json.loads((pytester.path / "out.json").read_text("utf-8"))
    rows = {t["id"].split("::")[-1]: t for t in document["tests"]}
    return (result, document), rows


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one-process", "xdist"])
def test_a_failure_after_a_limits_symptom_is_the_limit_only_when_the_test_needs_it(
    pytester, workers
):
    (result, document), rows = _symptom_run(pytester, "0.1.0-rc.8", *workers)
    outcomes = {name: row["outcome"] for name, row in rows.items()}
    assert outcomes == {
        **{f"test_runs_away_from_the_limit[{n}]": "host limit" for n in range(4)},
        "test_runs_away_on_its_own": "failed",
        "test_needs_it_and_met_it": "host limit",
        "test_needs_it_by_dsh_requires_and_met_it": "host limit",
        "test_needs_it_but_never_met_it": "failed",  # the symptom of one test never carries over
        "test_met_it_but_needs_nothing": "failed",
        "test_needs_it_met_it_and_passes": "passed",  # not "lifted": nothing was decided
        "test_a_probe_that_cannot_observe": "host limit",
    }
    # Four runaways from the limit and one of the plugin's: the run was not stopped.
    assert document["stopped"] is None, result.stdout.str()[-2000:]
    runaway = rows["test_runs_away_from_the_limit[0]"]["host_limit"]
    assert runaway.startswith(f"runaway caused by the host limit of DSH host 0.1.0-rc.8 ({INJECT})")
    assert rows["test_needs_it_and_met_it"]["host_limit"].startswith(
        f"host limit of DSH host 0.1.0-rc.8 ({INJECT})")
    probe = rows["test_a_probe_that_cannot_observe"]
    assert probe["host_limit"].startswith(
        "this probe cannot observe 'Step one measures from the prompt' on DSH host 0.1.0-rc.8")
    assert probe["probe"] is not None
    assert all(b["probe"] != "step-one-probe" for b in document.get("behaviours", []))


def test_on_a_host_without_the_limit_its_symptom_excuses_nothing(pytester):
    (_, document), rows = _symptom_run(pytester, "no-such-host")
    # The runaways count: the run stops after the third.
    assert [rows[f"test_runs_away_from_the_limit[{n}]"]["outcome"] for n in range(4)] == [
        "failed", "failed", "failed", "not run"]
    assert document["stopped"]["tests"] == [
        f"test_symptoms.py::test_runs_away_from_the_limit[{n}]" for n in range(3)]
    assert all(row["host_limit"] is None for row in rows.values())


# -- the README-way witness: nothing that follows from a limit is charged --------

#: What ``tc-readme-inject`` fails besides its host limits: pinned details
#: (compat) of the official build's load messages and exports, which it does not copy.
#: None is a readme test, none follows from a limit. (Its zone-name compat
#: tests run with no interval, so they run away: host limits.)
INJECT_WITNESS_FAILS: dict[str, str] = {
    test_id: reason for test_id, reason in WITNESS_FAILS.items()
    if reason in ("compat: own load messages", "compat: own export shape")
    and "zone_names_are_matched" not in test_id
}

#: The limits the README-way witness meets on every profile.
INJECT_WITNESS_LIMITS = (INJECT, "prompt-logged-at-step-start")


def run_inject_witness(kit: Any, tmp_path: Path, host: str) -> dict[str, Any]:
    """The time-context section and the golden time-context replays against
    ``tc-readme-inject`` on DSH host profile ``host``: the report document."""
    report = tmp_path / f"inject-{host}.json"
    run = kit.run_suite(
        [str(kit.SUITE_DIR / "time_context"),
         str(kit.SUITE_DIR / "fixtures" / "test_golden_time_context.py"),
         f"--rootdir={kit.SUITE_DIR}", "--dsh-impl=npm",
         "--dsh-npm", f"time-context={WITNESSES / 'tc-readme-inject'}",
         "--dsh-npm-no-invariant", f"--dsh-host={host}", f"--dsh-report={report}"],
        cwd=tmp_path, env=kit.user_env(),
    )
    assert report.is_file(), run.output[-3000:]
    return dict(json.loads(report.read_text("utf-8")))


def check_inject_witness(document: dict[str, Any]) -> None:
    """Nothing counted against the README-way witness follows from a limit."""
    tests = document["tests"]
    outcomes = {t["id"]: t["outcome"] for t in tests}
    failing = {i for i, o in outcomes.items() if o in ("failed", "error", "xpassed")}
    assert failing == set(INJECT_WITNESS_FAILS), sorted(failing ^ set(INJECT_WITNESS_FAILS))
    limited = [t for t in tests if t["outcome"] == "host limit"]
    assert all(any(f"({limit})" in t["host_limit"] for limit in INJECT_WITNESS_LIMITS)
               for t in limited)
    # Without an interval every turn runs away: each is the limit's, none
    # counts toward --dsh-max-runaways, so the run was never stopped.
    runaways = [t for t in limited if t["host_limit"].startswith("runaway caused by")]
    assert len(runaways) > 50
    assert document["stopped"] is None
    readme = document["verdict"]["levels"]["readme"]["plugins"]["time-context"]
    assert readme["verdict"] == CONFORMS, readme


@pytest.mark.dsh_wall_budget(1800)
def test_the_readme_inject_witness_is_charged_nothing_that_follows_from_a_limit(tmp_path, kit):
    kit.require_npm()
    check_inject_witness(run_inject_witness(kit, tmp_path, "0.1.0-rc.8"))


@pytest.mark.dsh_wall_budget(3600)
@pytest.mark.skipif(not os.environ.get("DSH_ALL_HOST_PROFILES"),
                    reason="the witness on every host profile takes about 20 minutes: "
                    "set DSH_ALL_HOST_PROFILES=1")
@pytest.mark.parametrize("host", [h for h in HOST_PROFILES if h != "0.1.0-rc.8"])
def test_the_readme_inject_witness_is_charged_nothing_on_every_profile(tmp_path, kit, host):
    kit.require_npm()
    check_inject_witness(run_inject_witness(kit, tmp_path, host))


@pytest.mark.dsh_wall_budget(600)
def test_the_readme_way_without_an_interval_runs_away_as_the_limit(witness_host, request):
    from pytest_dsh.driving import host_symptoms
    from pytest_dsh.driving.runaway import RunawayError
    from pytest_dsh.npm.host_limits import limit_shown

    host = witness_host("tc-readme-inject")
    host.load_plugin("time-context", {"timeZone": "UTC"})
    agent = host.create_agent()
    agent.script(reply_text("one"))
    with pytest.raises(RunawayError) as raised:
        agent.prompt("hello")
    # Stopped at the spin limit of injection-opened steps (bridge/lib/growth.mjs),
    # not the 500 steps of any other turn at one instant.
    assert "64 steps of one turn opened without virtual time moving" in str(raised.value)
    assert "by a message injected while the step before was prepared" in str(raised.value)
    assert raised.value.symptom == host_symptoms.PRE_STEP_INJECT
    profile = request.node.callspec.params["witness_host"]
    limit = limit_shown(profile, frozenset({raised.value.symptom}))
    assert limit is not None and limit.id == INJECT


@pytest.mark.dsh_wall_budget(600)
@pytest.mark.parametrize(("witness", "noted"), [("tc-readme-inject", True),
                                                ("tc-readme-append", False)])
def test_only_an_injection_at_a_pre_step_is_the_symptom(witness_host, witness, noted):
    from pytest_dsh.driving import host_symptoms

    host = witness_host(witness)
    host.load_plugin("time-context", {"timeZone": "UTC", "refreshIntervalMs": 60_000})
    agent = host.create_agent()
    agent.script(reply_text("one"), reply_text("two"), reply_text("three"))
    agent.prompt("hello")
    assert (host_symptoms.PRE_STEP_INJECT in host_symptoms.observed()) is noted
