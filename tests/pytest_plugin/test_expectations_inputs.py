"""``--dsh-expectations`` is operator input: the file is read with bounded size
and depth, only when it is a regular file, and every problem is one
:class:`ExpectationsError` naming the file and what is wrong (a usage error,
exit 4, before any test runs); a key is checked only against files inside the
conformance suite, and any number of unknown keys is answered in bounded work.
Level: kit behaviour."""

from __future__ import annotations

import difflib
import json
import os
import pathlib

import pytest

from pytest_dsh import expectations
from pytest_dsh.expectations import ExpectationsError, load_expectations_file, unknown_test_ids
from pytest_dsh.implementations import conformance_root

HEAD = '{"format": "dsh-expectations/1", "classes": {}, "expected_failures": {}, "about": '


def _file(tmp_path: pathlib.Path, data: bytes) -> pathlib.Path:
    path = tmp_path / "known.json"
    path.write_bytes(data)
    return path


def test_a_non_utf8_byte_is_named(tmp_path: pathlib.Path) -> None:
    path = _file(tmp_path, HEAD.encode() + b'"caf\xe9"}')
    expected = r"known\.json': not UTF-8 text \(byte 0xe9 on line 1\)"
    with pytest.raises(ExpectationsError, match=expected):
        load_expectations_file(path)


def test_deep_nesting_is_refused(tmp_path: pathlib.Path) -> None:
    path = _file(tmp_path, HEAD.encode() + b"[" * 100_000 + b"]" * 100_000 + b"}")
    with pytest.raises(ExpectationsError, match=r"known\.json: .*nested more than"):
        load_expectations_file(path)


def test_nesting_json_reads_but_the_format_never_needs_is_refused(tmp_path: pathlib.Path) -> None:
    path = _file(tmp_path, HEAD.encode() + b"[" * 500 + b"]" * 500 + b"}")
    with pytest.raises(ExpectationsError, match=r"known\.json: .*nested more than"):
        load_expectations_file(path)


def test_a_huge_number_is_a_closed_error(tmp_path: pathlib.Path) -> None:
    path = _file(tmp_path, HEAD.encode() + b"1" * 10_000 + b"}")
    with pytest.raises(ExpectationsError, match=r"known\.json: not JSON"):
        load_expectations_file(path)


def test_a_fifo_is_refused_without_blocking(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "known.json"
    os.mkfifo(path)
    with pytest.raises(ExpectationsError, match="not a regular file"):
        load_expectations_file(path)


@pytest.mark.parametrize("path", ["/dev/zero", "."])
def test_a_device_or_a_folder_is_refused(path: str) -> None:
    with pytest.raises(ExpectationsError, match="not a regular file"):
        load_expectations_file(path)


def test_a_file_larger_than_the_bound_is_refused_after_reading_the_bound(
    tmp_path: pathlib.Path,
) -> None:
    path = _file(tmp_path, b" " * (expectations.MAX_FILE_BYTES + 1))
    with pytest.raises(ExpectationsError, match="larger than"):
        load_expectations_file(path)


@pytest.fixture
def outside(tmp_path: pathlib.Path) -> pathlib.Path:
    """A test file outside the suite that a key might name."""
    path = tmp_path / "outside.py"
    path.write_text("def test_x():\n    pass\n")
    return path


def test_a_key_naming_a_file_outside_the_suite_is_refused(outside: pathlib.Path) -> None:
    root = conformance_root()
    assert root is not None
    relative = os.path.relpath(outside, root)
    keys = [f"{relative}::test_x", f"{outside}::test_x"]
    problems = unknown_test_ids(keys, set(), root)
    assert problems == sorted(
        f"{key!r}: names a file outside the conformance suite" for key in keys
    )


def test_a_non_utf8_suite_file_is_a_problem_not_a_crash(tmp_path: pathlib.Path) -> None:
    (tmp_path / "test_bad.py").write_bytes(b"def test_x():\n    '\xff'\n")
    assert unknown_test_ids(["test_bad.py::test_x"], set(), tmp_path) == [
        "'test_bad.py::test_x': test_bad.py cannot be read: not UTF-8 text (byte 0xff on line 2)"
    ]


def test_many_unknown_keys_cost_bounded_suggestions_and_a_bounded_listing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = difflib.get_close_matches

    def counting(word: str, possibilities: list[str], *args: object, **kwargs: object) -> list[str]:
        calls.append(len(possibilities))
        return real(word, possibilities, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    collected = {f"a/test_{n}.py::test_{m}" for n in range(50) for m in range(40)}
    keys = [f"a/test_{n % 50}.py::test_unknown_{n}" for n in range(5_000)]
    problems = unknown_test_ids(keys, collected, None)
    # Suggestions for the first few keys, each among the tests of its own file.
    assert len(calls) == expectations.SUGGESTED_KEYS
    assert set(calls) == {40}
    assert len(problems) == expectations.LISTED_PROBLEMS + 1
    assert problems[-1] == (
        f"... and {5_000 - expectations.LISTED_PROBLEMS} more keys that name no test"
    )


def test_every_failure_is_a_usage_error_at_start(impls: pytest.Pytester) -> None:
    impls.makepyfile(test_x="def test_x(dsh_host):\n    pass\n")
    (impls.path / "deep.json").write_bytes(HEAD.encode() + b"[" * 100_000 + b"]" * 100_000 + b"}")
    (impls.path / "latin.json").write_bytes(HEAD.encode() + b'"caf\xe9"}')
    outside = impls.path / "outside.py"
    outside.write_text("def test_x():\n    pass\n")
    root = conformance_root()
    assert root is not None
    document = json.loads(HEAD + '""}')
    document["classes"] = {"k": "Why."}
    document["expected_failures"] = {
        f"{os.path.relpath(outside, root)}::test_x": {"class": "k", "sentences": ["TC-012"]}
    }
    (impls.path / "outside.json").write_text(json.dumps(document))
    for name, message in [
        ("deep.json", "nested more than"),
        ("latin.json", "not UTF-8 text"),
        ("outside.json", "names a file outside the conformance suite"),
    ]:
        result = impls.runpytest("--dsh-impl=impls:FULL", f"--dsh-expectations={name}")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, name
        assert message in result.stderr.str(), name
        assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str(), name
