"""A run that pytest ended early claims no verdict: Ctrl-C or ``pytest.exit``
(exit status 2) is "interrupted", an internal error (3) "internal error", a
usage error found once the run started (4) "usage error", in the terminal
line and in every report, overall and per level and plugin. What ran is still
counted. Kit behaviour: no README sentence."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from typing import Any

import jsonschema
import kit_child_processes as children
import pytest

from pytest_dsh.pytest_plugin.reporting import report_schema
from pytest_dsh.pytest_plugin.reporting.verdicts import NO_VERDICT, VERDICTS, WORDS, exit_status

#: What a run claims when it judged conformance; none of it may appear.
CLAIMS = ("conforms", "does not conform", "not assessed")

KEYBOARD_INTERRUPT = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("TC-015")
    @pytest.mark.dsh_requires("time-context")
    def test_a_passes(dsh_host):
        dsh_host.load_plugin("time-context")

    @pytest.mark.spec("TC-012")
    def test_b_is_interrupted():
        raise KeyboardInterrupt

    @pytest.mark.spec("TC-012")
    def test_c_never_runs():
        pass
    """
)

PYTEST_EXIT = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("TC-012")
    def test_a_fails():
        assert False, "a failure before the stop"

    @pytest.mark.spec("TC-012")
    def test_b_exits():
        pytest.exit("stopped by the test", returncode=2)
    """
)

INTERNAL_ERROR = textwrap.dedent(
    """
    def pytest_collection_finish(session):
        raise RuntimeError("a hook broke")
    """
)


def _verdicts(document: dict[str, Any]) -> Iterator[str]:
    """Every verdict the document gives: overall, per level, plugin and both."""
    verdict = document["verdict"]
    yield verdict["overall"]
    for entry in verdict["levels"].values():
        yield entry["verdict"]
        yield from (one["verdict"] for one in entry["plugins"].values())
    yield from (v for v in verdict["plugins"].values() if v is not None)


def _reports(pytester: pytest.Pytester) -> tuple[dict[str, Any], str, str]:
    folder = pytester.path / "out"
    document = json.loads((folder / "report.json").read_text("utf-8"))
    jsonschema.validate(document, report_schema())
    html = (folder / "report.html").read_text("utf-8")
    markdown = (folder / "report.md").read_text("utf-8")
    return document, html, markdown


def _check_no_claim(pytester: pytest.Pytester, word: str, status: int) -> dict[str, Any]:
    document, html, markdown = _reports(pytester)
    assert set(_verdicts(document)) == {word}
    assert document["verdict"]["exit_status"] == document["verdict"]["pytest_exit_status"]
    assert document["verdict"]["exit_status"] == status
    overall = html.split('<p id="overall">', 1)[1].split("</p>", 1)[0]
    assert f">{word}</span> (exit status {status}); no conformance claimed" in overall
    assert f"**Verdict: {word}** (exit status {status}); no conformance claimed" in markdown
    verdict_table = html.split('<section id="verdicts">', 1)[1].split("</section>", 1)[0]
    for claim in CLAIMS:
        assert claim not in overall and f">{claim}<" not in verdict_table
        assert f"**Verdict: {claim}" not in markdown
    return document


def _dsh_section(result: pytest.RunResult) -> str:
    return result.stdout.str().split("dsh conformance", 1)[1]


def test_ctrl_c_in_a_test_is_interrupted_not_a_verdict(impls: pytest.Pytester) -> None:
    impls.makepyfile(test_interrupt=KEYBOARD_INTERRUPT)
    # In a subprocess: in-process, pytester raises the KeyboardInterrupt again.
    result = children.runpytest_subprocess(
        impls, "--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document = _check_no_claim(impls, "interrupted", 2)
    # What ran before the interruption is still counted.
    assert document["counts"]["passed"] == 1
    section = _dsh_section(result)
    assert "verdict: interrupted (exit status 2); no conformance claimed" in section
    assert all(claim not in section for claim in CLAIMS)


def test_a_collection_error_that_stops_the_run_still_does_not_conform(
    impls: pytest.Pytester, spec_tests: str
) -> None:
    # pytest exits 2 on it, as on Ctrl-C; but the kit knows why: part of the
    # suite never ran.
    impls.makepyfile(test_spec=spec_tests, test_broken="import no_such_module_here\n")
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document, _, _ = _reports(impls)
    assert document["verdict"]["overall"] == "does not conform"
    assert list(document["collection_errors"]) == ["test_broken.py"]
    assert "verdict: does not conform (exit status 2)" in _dsh_section(result)


def test_pytest_exit_with_status_2_is_interrupted(impls: pytest.Pytester) -> None:
    impls.makepyfile(test_exit=PYTEST_EXIT)
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document = _check_no_claim(impls, "interrupted", 2)
    # The failure is still in the report, but the run does not claim "does not conform".
    assert document["counts"]["failed"] == 1 and document["causes"]
    assert "verdict: interrupted (exit status 2)" in _dsh_section(result)


def test_an_expectation_naming_no_test_is_a_usage_error_not_a_verdict(
    impls: pytest.Pytester, spec_tests: str
) -> None:
    impls.makepyfile(test_spec=spec_tests)
    known = {
        "format": "dsh-expectations/1",
        "about": "a typo in a test id",
        "classes": {"typo": "a listed test id with a typo"},
        "expected_failures": {
            "test_spec.py::test_schedule_lods": {"class": "typo", "sentences": ["SCH-001"]}
        },
    }
    (impls.path / "known.json").write_text(json.dumps(known), encoding="utf-8")
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", "--dsh-report=out", "--dsh-expectations=known.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    _check_no_claim(impls, "usage error", 4)
    section = _dsh_section(result)
    assert "verdict: usage error (exit status 4); no conformance claimed" in section
    assert all(claim not in section for claim in CLAIMS)


def test_an_internal_error_is_not_a_verdict(impls: pytest.Pytester, spec_tests: str) -> None:
    impls.makepyfile(test_spec=spec_tests)
    impls.makeconftest(INTERNAL_ERROR)
    result = impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    _check_no_claim(impls, "internal error", 3)
    # pytest prints no terminal summary after an internal error: nor do we.
    assert "verdict:" not in result.stdout.str()


def test_a_usage_error_before_the_run_writes_no_report(impls: pytest.Pytester) -> None:
    result = impls.runpytest(
        "--dsh-impl=impls:FULL", "--dsh-report=out", "--dsh-expectations=known-failurs.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert not (impls.path / "out").exists()
    assert "verdict:" not in result.stdout.str()


def test_the_words_table_matches_the_schema_and_the_exit_statuses() -> None:
    enum = report_schema()["$defs"]["verdict"]["enum"]
    assert tuple(enum) == VERDICTS == tuple(one.text for one in WORDS)
    assert dict(NO_VERDICT) == {2: "interrupted", 3: "internal error", 4: "usage error"}
    for status, word in NO_VERDICT.items():
        # Whatever the tests did, pytest's own status is the run's.
        assert exit_status(word, status, failures_anywhere=True) == status
    assert not any(one.claims for one in WORDS if one.pytest_status is not None)
