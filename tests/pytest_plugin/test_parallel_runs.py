"""A run spread over workers with pytest-xdist (``-n 2``) gives the verdict,
the exit status and the report document of the same run in one process
(docs/parallel-runs.md). Kit behaviour: no README sentence.

Each case runs the same selection twice, serially and with ``-n 2``, and
compares the JSON documents whole, less what cannot be equal: the command
line and the durations.
"""

from __future__ import annotations

import json
import pathlib
import re
import textwrap
from pathlib import Path

import pytest

from pytest_dsh.pytest_plugin.reporting.verdicts import EXIT_NOT_ASSESSED

#: Every outcome a row can have, and a module of the suite's selection for each.
MIXED = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("SCH-001")
    @pytest.mark.dsh_requires("schedule")
    def test_passes(dsh_host):
        dsh_host.load_plugin("schedule")

    @pytest.mark.spec("TC-012")
    def test_fails():
        assert 1 == 2, "refreshIntervalMs -1 was accepted"

    @pytest.mark.spec("TC-012")
    def test_known_failure():
        assert False, "still broken"

    @pytest.mark.spec("TC-015")
    def test_stale_expectation():
        pass

    @pytest.mark.compat("PIN-DEMO")
    @pytest.mark.dsh_requires("time-context")
    def test_skipped():
        pytest.skip("not on this host")

    @pytest.fixture
    def broken_setup():
        raise RuntimeError("setup broke")

    @pytest.fixture
    def broken_teardown():
        yield
        raise RuntimeError("teardown broke")

    @pytest.mark.spec("SCH-001")
    def test_setup_error(broken_setup):
        pass

    @pytest.mark.spec("TC-015")
    def test_teardown_error(broken_teardown):
        pass

    @pytest.mark.compat("PIN-DEMO")
    @pytest.mark.parametrize("n", range(6))
    def test_many(n):
        assert n >= 0
    """
)

KNOWN = textwrap.dedent(
    """
    import dataclasses
    from impls import FULL

    MIXED = dataclasses.replace(FULL, expected_failures={
        "test_mixed.py::test_known_failure": "ticket 7",
        "test_mixed.py::test_stale_expectation": "was broken once",
    })
    ONLY_KNOWN = dataclasses.replace(FULL, expected_failures={
        "test_known.py::test_known_failure": "ticket 7",
    })
    UNKNOWN_ID = dataclasses.replace(FULL, expected_failures={
        "test_known.py::test_no_such_test": "a typo",
    })
    """
)

KNOWN_ONLY = textwrap.dedent(
    """
    import pytest

    @pytest.mark.spec("TC-012")
    def test_known_failure():
        assert False, "still broken"

    @pytest.mark.spec("TC-015")
    @pytest.mark.parametrize("n", range(4))
    def test_passes(n):
        pass
    """
)

CRASHES = textwrap.dedent(
    """
    import os
    import pytest

    @pytest.mark.spec("TC-015")
    def test_its_worker_dies():
        os._exit(3)

    @pytest.mark.spec("TC-015")
    @pytest.mark.parametrize("n", range(4))
    def test_passes(n):
        pass
    """
)


def _document(path: Path) -> dict:
    document = json.loads(path.read_text("utf-8"))
    document.pop("command")
    for test in document["tests"]:
        test.pop("duration")
    return document


def _both(pytester: pytest.Pytester, *args: str) -> tuple[dict, dict, int, int]:
    """The documents and exit statuses of a serial and a two-worker run."""
    common = ["-p", "no:randomly", "--hypothesis-seed=11", *args]
    serial = pytester.runpytest(*common, "--dsh-report=serial.json")
    parallel = pytester.runpytest(*common, "-n", "2", "--dsh-report=parallel.json")
    return (
        _document(pytester.path / "serial.json"),
        _document(pytester.path / "parallel.json"),
        int(serial.ret),
        int(parallel.ret),
    )


def _importable_by_workers(pytester: pytest.Pytester) -> None:
    # Workers start with the sys.path this process had when it started (xdist
    # freezes it), then apply the ini's pythonpath: the test folder goes there.
    pytester.makeini("[pytest]\npythonpath = .\n")


@pytest.fixture
def suite(impls: pytest.Pytester) -> pytest.Pytester:
    impls.makepyfile(more_impls=KNOWN, test_mixed=MIXED, test_known=KNOWN_ONLY)
    _importable_by_workers(impls)
    return impls


def test_every_outcome_gives_the_same_rows_counts_and_verdict(suite):
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:MIXED", "test_mixed.py"
    )
    assert parallel == serial
    assert parallel_ret == serial_ret == 1
    outcomes = {t["id"].rpartition("::")[2]: t["outcome"] for t in parallel["tests"]}
    assert outcomes == {
        "test_passes": "passed",
        "test_fails": "failed",
        "test_known_failure": "xfailed",
        "test_stale_expectation": "xpassed",
        "test_skipped": "skipped",
        "test_setup_error": "error",
        "test_teardown_error": "error",
        **{f"test_many[{n}]": "passed" for n in range(6)},
    }
    assert parallel["verdict"]["overall"] == "does not conform"
    messages = {t["id"].rpartition("::")[2]: t["message"] for t in parallel["tests"]}
    assert messages["test_setup_error"] == "in setup: RuntimeError: setup broke"
    assert messages["test_teardown_error"] == "in teardown: RuntimeError: teardown broke"
    # Rows are in test-id order in both documents.
    ids = [t["id"] for t in parallel["tests"]]
    assert ids == sorted(ids)


def test_known_failures_alone_conform_with_known_failures_in_both(suite):
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:ONLY_KNOWN", "test_known.py"
    )
    assert parallel == serial
    assert parallel_ret == serial_ret == 0
    assert parallel["verdict"]["overall"] == "conforms with known failures"
    assert parallel["counts"]["xfailed"] == 1 and parallel["counts"]["passed"] == 4


@pytest.mark.parametrize(
    "selection",
    [["-k", "many or skipped"], ["--dsh-level=compat"], ["--dsh-level=readme", "-k", "not fails"]],
)
def test_deselected_tests_are_left_out_alike(suite, selection):
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:MIXED", "test_mixed.py", *selection
    )
    assert parallel == serial
    assert parallel_ret == serial_ret
    assert 0 < len(parallel["tests"]) < 14


def test_nothing_selected_is_not_assessed_in_both(suite):
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:MIXED", "test_mixed.py", "-k", "no_such_test"
    )
    assert parallel == serial
    assert parallel_ret == serial_ret == EXIT_NOT_ASSESSED
    assert parallel["tests"] == []
    assert parallel["verdict"]["overall"] == "not assessed"


def test_a_module_that_fails_to_import_stops_the_run_as_it_does_serially(suite):
    suite.makepyfile(test_broken="import no_such_module_of_the_suite\n")
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:MIXED", "test_mixed.py", "test_broken.py"
    )
    assert parallel == serial
    # pytest's "interrupted" wins over the verdict; nothing ran.
    assert parallel_ret == serial_ret == pytest.ExitCode.INTERRUPTED
    assert {t["outcome"] for t in parallel["tests"]} == {"not run"}
    assert parallel["verdict"]["overall"] == "does not conform"
    assert parallel["collection_errors"] == {
        "test_broken.py": "ModuleNotFoundError: No module named 'no_such_module_of_the_suite'"
    }


def test_a_module_that_fails_to_import_fails_the_run_that_goes_on_without_it(suite):
    # The other tests all pass: without the collection error the verdict would be
    # "conforms", though part of the suite never ran.
    suite.makepyfile(test_broken="import no_such_module_of_the_suite\n")
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=more_impls:ONLY_KNOWN", "test_known.py", "test_broken.py",
        "--continue-on-collection-errors",
    )
    assert parallel == serial
    assert parallel_ret == serial_ret == pytest.ExitCode.TESTS_FAILED
    assert parallel["verdict"]["overall"] == "does not conform"
    assert parallel["counts"]["passed"] == 4
    assert list(parallel["collection_errors"]) == ["test_broken.py"]
    run = suite.runpytest(
        "-p", "no:randomly", "--dsh-impl=more_impls:ONLY_KNOWN", "test_known.py",
        "test_broken.py", "--continue-on-collection-errors", "--dsh-report=folder",
    )
    run.stdout.fnmatch_lines(["not collected: test_broken.py", "verdict: does not conform*"])
    markdown = (suite.path / "folder" / "report.md").read_text("utf-8")
    assert "## Not collected (1)" in markdown
    assert "| `test_broken.py` | ModuleNotFoundError: No module named" in markdown
    html = (suite.path / "folder" / "report.html").read_text("utf-8")
    assert '<section id="not-collected"><h2>Not collected (1)</h2>' in html
    assert "<code>test_broken.py</code></td><td>ModuleNotFoundError: No module named" in html


def test_an_expected_failure_naming_no_test_is_the_same_usage_error(suite):
    common = ["-p", "no:randomly", "--dsh-impl=more_impls:UNKNOWN_ID", "test_known.py"]
    serial = suite.runpytest(*common)
    parallel = suite.runpytest(*common, "-n", "2")
    assert parallel.ret == serial.ret == pytest.ExitCode.USAGE_ERROR
    for result in (serial, parallel):
        result.stderr.fnmatch_lines(["*'test_known.py::test_no_such_test' names no collected*"])
    assert "INTERNALERROR" not in parallel.stdout.str() + parallel.stderr.str()


def test_a_test_whose_worker_crashes_fails_the_run(impls):
    impls.makepyfile(test_crashes=CRASHES)
    _importable_by_workers(impls)
    result = impls.runpytest(
        "-p", "no:randomly", "--dsh-impl=impls:FULL", "-n", "2", "--dsh-report=out.json"
    )
    assert result.ret == 1
    document = _document(impls.path / "out.json")
    crashed = next(t for t in document["tests"] if t["id"].endswith("test_its_worker_dies"))
    assert crashed["outcome"] == "failed"
    assert "crashed while running 'test_crashes.py::test_its_worker_dies'" in crashed["message"]
    # The row keeps what the test is about, though its worker never reported it.
    assert (crashed["plugin"], crashed["sentences"]) == ("time-context", ["TC-015"])
    assert crashed["rerun"].startswith("pytest test_crashes.py::test_its_worker_dies ")
    assert document["counts"]["passed"] == 4
    assert document["verdict"]["overall"] == "does not conform"
    result.stdout.fnmatch_lines(["verdict: does not conform (exit status 1)"])


SEED_PROBE = textwrap.dedent(
    """
    import os
    import pathlib
    import pytest
    from hypothesis import core

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(item):
        # The seed Hypothesis itself uses for the test (what --hypothesis-seed sets).
        seed = getattr(core, "global_force_seed", None)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        folder = pathlib.Path(os.environ["SEED_PROBE_DIR"])
        with open(folder / f"seeds-{worker}.txt", "a") as out:
            out.write(f"{seed}\\n")
        return (yield)
    """
)


def _two_workers_with_seed_probe(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path,
    *options: str,
) -> tuple[pytest.RunResult, dict[str, set[str]]]:
    """A two-worker run of the time-context configuration tests, and the seeds
    each worker's property tests ran with (by worker file)."""
    probes = tmp_path / "seeds"
    probes.mkdir()
    monkeypatch.setenv("SEED_PROBE_DIR", str(probes))
    pytester.makepyfile(seedprobe=SEED_PROBE)
    _importable_by_workers(pytester)
    result = pytester.runpytest(
        "-p", "seedprobe", "-p", "no:randomly", "-n", "2", "--dsh-impl=reference", *options,
        "--pyargs", "dsh_conformance.time_context", "-k", "test_configuration",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    seeds = {path.name: set(path.read_text().split()) for path in sorted(probes.iterdir())}
    return result, seeds


@pytest.mark.dsh_wall_budget(300)
def test_every_worker_uses_the_one_seed_the_header_names(pytester, monkeypatch, tmp_path):
    result, seeds = _two_workers_with_seed_probe(
        pytester, monkeypatch, tmp_path, "--dsh-report=out.json")
    header = re.search(
        r"seed (\d+) \(reproduce with --hypothesis-seed=(\d+)\)", result.stdout.str()
    )
    assert header is not None and header.group(1) == header.group(2)
    assert sorted(seeds) == ["seeds-gw0.txt", "seeds-gw1.txt"]
    assert all(used == {header.group(1)} for used in seeds.values()), seeds
    document = json.loads((pytester.path / "out.json").read_text("utf-8"))
    assert document["hypothesis"]["seed"] == int(header.group(1))
    assert all(f"--hypothesis-seed={header.group(1)}" in t["rerun"] for t in document["tests"])


@pytest.mark.dsh_wall_budget(300)
def test_an_exploring_run_hands_its_drawn_seed_to_every_worker(pytester, monkeypatch, tmp_path):
    result, seeds = _two_workers_with_seed_probe(pytester, monkeypatch, tmp_path, "--dsh-explore")
    drawn = re.search(r"explored with seed (\d+) \(explore\)", result.stdout.str())
    assert drawn is not None, result.stdout.str()[-2000:]
    assert sorted(seeds) == ["seeds-gw0.txt", "seeds-gw1.txt"]
    assert all(used == {drawn.group(1)} for used in seeds.values()), seeds


@pytest.mark.dsh_wall_budget(300)
def test_a_slice_of_the_real_suite_gives_the_same_document(pytester):
    common = [
        "-p", "no:randomly", "--dsh-impl=reference", "--hypothesis-seed=3",
        "--pyargs", "dsh_conformance.time_context",
        "dsh_conformance.schedule.composition.test_composition",
    ]
    serial = pytester.runpytest(*common, "--dsh-report=serial.json")
    parallel = pytester.runpytest(*common, "-n", "2", "--dsh-report=parallel.json")
    assert parallel.ret == serial.ret == 0
    serial_document = _document(pytester.path / "serial.json")
    parallel_document = _document(pytester.path / "parallel.json")
    assert parallel_document == serial_document
    assert serial_document["counts"]["passed"] > 100
    assert serial_document["verdict"]["overall"] == "conforms"


@pytest.mark.dsh_wall_budget(300)
def test_the_official_build_gives_the_same_rows_on_two_workers(pytester, bridge_node):
    # Each worker starts its own Node bridge. Failure messages are left out:
    # some print sets, which every process orders its own way (hash randomization).
    common = [
        "-p", "no:randomly", "--dsh-impl=official", "--hypothesis-seed=3",
        "--pyargs", "dsh_conformance.time_context", "-k", "test_configuration",
    ]
    serial = pytester.runpytest(*common, "--dsh-report=serial.json")
    parallel = pytester.runpytest(*common, "-n", "2", "--dsh-report=parallel.json")
    assert parallel.ret == serial.ret == 0
    documents = [_document(pytester.path / name) for name in ("serial.json", "parallel.json")]
    for document in documents:
        for test in document["tests"]:
            test.pop("message")
    assert documents[1] == documents[0]
    assert documents[0]["verdict"]["overall"] == "conforms with known failures"
    assert documents[0]["counts"]["xfailed"] >= 5


def test_dist_each_is_a_usage_error(suite):
    result = suite.runpytest(
        "-p", "no:randomly", "--dsh-impl=more_impls:MIXED", "test_known.py",
        "-n", "2", "--dist", "each",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dist each runs every test on every worker*"])


def test_when_no_worker_survives_the_rows_come_from_the_reports(impls):
    # One worker, not replaced when it dies: nobody hands descriptions back,
    # yet the tests that reported keep their level, plugin and rerun command.
    impls.makepyfile(
        test_crashes=textwrap.dedent(
            """
            import os
            import pytest

            @pytest.mark.spec("TC-015")
            @pytest.mark.parametrize("n", range(2))
            def test_passes(n):
                pass

            @pytest.mark.spec("TC-015")
            def test_z_its_worker_dies():
                os._exit(3)
            """
        )
    )
    _importable_by_workers(impls)
    result = impls.runpytest(
        "-p", "no:randomly", "--dsh-impl=impls:FULL", "-n", "1", "--max-worker-restart=0",
        "--dsh-report=out.json", "--hypothesis-seed=5",
    )
    assert result.ret == 1
    document = _document(impls.path / "out.json")
    rows = {t["id"].rpartition("::")[2]: t for t in document["tests"]}
    assert rows["test_z_its_worker_dies"]["outcome"] == "failed"
    assert rows["test_passes[0]"]["outcome"] == "passed"
    for name, row in rows.items():
        assert (row["plugin"], row["level"], row["sentences"]) == (
            "time-context", "readme", ["TC-015"]
        )
        assert row["rerun"].startswith(("pytest test_crashes.py::", "pytest 'test_crashes.py::"))
        assert name in row["rerun"] and "--dsh-impl=impls:FULL" in row["rerun"]
    assert document["verdict"]["overall"] == "does not conform"


def test_a_role_the_implementation_lacks_is_skipped_alike(suite):
    # The roles' whole-suite runs (test_roles.py) run in one process; here the
    # role's skip, its reason and the role's "not assessed" cross the workers.
    serial, parallel, serial_ret, parallel_ret = _both(
        suite, "--dsh-impl=impls:TC_ONLY", "test_mixed.py", "-k", "passes or many"
    )
    assert parallel == serial
    assert parallel_ret == serial_ret == 0
    rows = {t["id"].rpartition("::")[2]: t for t in parallel["tests"]}
    assert rows["test_passes"]["outcome"] == "skipped"
    assert str(rows["test_passes"]["message"]).endswith("does not declare schedule")
    assert parallel["verdict"]["plugins"]["schedule"] is None
