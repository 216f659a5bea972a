"""dsh-conformance's words match its exit status: a usage error says
"usage error" (4), Ctrl-C says "interrupted" (2), neither claims a verdict,
and a report left by an earlier run is never read as this run's. ``--help``
lists the npm path. Kit behaviour: no README sentence."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_dsh.pytest_plugin.conformance_cli import main, pytest_arguments

INTERRUPTS = textwrap.dedent(
    """
    def test_interrupts_the_run():
        raise KeyboardInterrupt
    """
)


def test_help_lists_the_npm_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "npm (the packages given with --npm)" in text
    for option in ("--npm PLUGIN=SPEC", "--no-invariant", "--max-runaways N"):
        assert option in text


def test_npm_roles_companions_and_runaways_pass_to_pytest() -> None:
    args, _ = pytest_arguments(
        ["--impl", "npm", "--npm", "time-context=./tc.tgz", "--no-invariant",
         "--max-runaways", "0", "--workers", "1"]
    )
    assert "--dsh-npm=time-context=./tc.tgz" in args
    assert "--dsh-npm-no-invariant" in args and "--dsh-max-runaways=0" in args


def test_a_usage_error_says_so_and_not_a_stale_verdict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(pytester.path)
    # A report an earlier run left behind must not be read as this run's.
    stale = pytester.path / "out" / "report.json"
    stale.parent.mkdir()
    stale.write_text(json.dumps({"verdict": {"overall": "conforms", "exit_status": 0}}))
    status = main(["--impl", "reference", "--report", "out", "--section", "fixtures",
                   "--workers", "1", "--expectations", "known-failurs.json",
                   "--", "-p", "no:cacheprovider"])
    err = capsys.readouterr().err
    assert status == 4
    assert "dsh-conformance: usage error (exit status 4)" in err and "no verdict" in err
    assert "conforms" not in err and "not assessed" not in err


def test_ctrl_c_says_interrupted_and_claims_no_verdict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(pytester.path)
    pytester.makepyfile(test_interrupts=INTERRUPTS)
    status = main(["--impl", "reference", "--report", "out", "--section", "fixtures",
                   "--workers", "1", "-k", "interrupts_the_run",
                   "--", "test_interrupts.py", "-p", "no:cacheprovider"])
    captured = capsys.readouterr()
    assert status == 2
    assert "dsh-conformance: interrupted (exit status 2)" in captured.err
    assert "no verdict" in captured.err
    assert "does not conform" not in captured.err
