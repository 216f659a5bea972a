"""``--dsh-report`` is operator input: a path the reports cannot take is a usage
error (exit 4) before any test runs; the reports are written by
write-then-rename, never through a planted symbolic link; a write failure at
the end (a full disk) still prints the summary and the verdict, with one line
saying which report was not written, and the exit status stays the verdict's.
Level: kit behaviour."""

from __future__ import annotations

import errno
import os
import pathlib

import pytest

from pytest_dsh.pytest_plugin.reporting import report_files


@pytest.fixture
def passing(impls: pytest.Pytester, spec_tests: str) -> pytest.Pytester:
    impls.makepyfile(test_spec=spec_tests)
    return impls


def _refused_at_start(run: pytest.Pytester, report: str, message: str) -> None:
    result = run.runpytest("--dsh-impl=impls:FULL", f"--dsh-report={report}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--dsh-report: *{message}*"])
    assert "passed" not in result.stdout.str()  # nothing ran
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_device_is_refused_at_start(passing: pytest.Pytester) -> None:
    _refused_at_start(passing, "/dev/full", "is not a folder")


def test_an_existing_file_named_as_the_report_folder_is_refused_at_start(
    passing: pytest.Pytester,
) -> None:
    (passing.path / "out").write_text("mine\n")
    _refused_at_start(passing, "out", "is not a folder")
    assert (passing.path / "out").read_text() == "mine\n"


def test_a_folder_named_like_a_report_file_is_refused_at_start(passing: pytest.Pytester) -> None:
    (passing.path / "out.html").mkdir()
    _refused_at_start(passing, "out.html", "is a folder")


def test_a_folder_under_a_regular_file_is_refused_at_start(passing: pytest.Pytester) -> None:
    # Unwritable even for root, unlike a read-only folder.
    (passing.path / "plain").write_text("x")
    _refused_at_start(passing, "plain/reports", "is not a folder")
    _refused_at_start(passing, "plain/out.json", "is not a folder")


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root writes in a read-only folder; the under-a-file case covers it"
)
def test_a_read_only_folder_is_refused_at_start(passing: pytest.Pytester) -> None:
    folder = passing.path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        _refused_at_start(passing, "locked", "cannot write in")
    finally:
        folder.chmod(0o755)


@pytest.fixture
def precious(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "precious.txt"
    path.write_text("keep me\n")
    return path


@pytest.mark.parametrize("report", ["out.html", "out/report.json"])
def test_a_report_path_that_is_a_symlink_is_refused_and_its_target_untouched(
    passing: pytest.Pytester, precious: pathlib.Path, report: str
) -> None:
    link = passing.path / report
    link.parent.mkdir(exist_ok=True)
    link.symlink_to(precious)
    _refused_at_start(passing, report.partition("/")[0], "is a symbolic link")
    assert precious.read_text() == "keep me\n"


def test_reports_replace_planted_links_atomically(
    passing: pytest.Pytester, precious: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = report_files._replace

    def plant_then_write(path: pathlib.Path, data: bytes) -> None:
        path.symlink_to(precious)  # after the check at start, before the write
        real(path, data)

    monkeypatch.setattr(report_files, "_replace", plant_then_write)
    result = passing.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out")
    assert result.ret == 0
    assert precious.read_text() == "keep me\n"
    for name in ("report.html", "report.json", "report.md"):
        path = passing.path / "out" / name
        assert path.is_file() and not path.is_symlink()
        mask = os.umask(0o022)
        os.umask(mask)
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask  # as a plain write would
    assert sorted(p.name for p in (passing.path / "out").iterdir()) == [
        "report.html", "report.json", "report.md"
    ]  # no temporary left


def test_a_full_disk_at_the_end_keeps_the_summary_verdict_and_old_report(
    passing: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = passing.path / "out"
    folder.mkdir()
    (folder / "report.html").write_text("the earlier report\n")
    real = os.write

    def half_then_full(descriptor: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{descriptor}").startswith(str(folder)):
            if len(data) > 1:
                return real(descriptor, bytes(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(descriptor, data)

    monkeypatch.setattr(os, "write", half_then_full)
    result = passing.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out")
    monkeypatch.undo()
    assert result.ret == 0  # the verdict's status: the implementation conforms
    output = result.stdout.str()
    assert "Traceback" not in output + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "*dsh conformance*",
            "*report not written: *report.html (No space left on device)*",
            "verdict: conforms*",
        ]
    )
    assert (folder / "report.html").read_text() == "the earlier report\n"
    assert sorted(p.name for p in folder.iterdir()) == ["report.html"]

