"""A parallel conformance run keeps the tests that share a replay on one
worker (pytest_dsh/pytest_plugin/replay_groups.py, docs/parallel-runs.md).
Kit behaviour: no README sentence."""

from __future__ import annotations

import collections

import pytest

from pytest_dsh.pytest_plugin.replay_groups import replay_scope

#: Where each test ran: one line per call phase, in a file per worker.
WORKER_PROBE = """
import os, pathlib
worker = None
def pytest_configure(config):
    global worker
    # Only the inner run's workers record (the controller sees every report
    # too, and this test may itself run on a worker).
    worker = getattr(config, "workerinput", {}).get("workerid")
def pytest_runtest_logreport(report):
    if report.when == "call" and worker:
        folder = pathlib.Path(os.environ["RAN_PROBE_DIR"])
        with open(folder / f"ran-{worker}.txt", "a") as out:
            out.write(f"{report.nodeid}\\n")
"""


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("dst/test_dst_tables.py::test_dst_table_zone[Europe/Paris]",
     "dst/test_dst_tables.py[Europe/Paris]"),
    ("dst/test_dst_tables.py::test_dst_table_zone_official_values[Europe/Paris]",
     "dst/test_dst_tables.py[Europe/Paris]"),
    ("a/test_x.py::TestCase::test_y[1-b]", "a/test_x.py::TestCase[1-b]"),
    ("a/test_x.py::test_plain", "a/test_x.py::test_plain"),
    ("a/test_x.py::test_odd]", "a/test_x.py::test_odd]"),
    ("a/test_x.py", "a/test_x.py"),
])
def test_a_parametrized_test_s_unit_is_its_module_and_parameter_id(nodeid, scope):
    assert replay_scope(nodeid) == scope


def test_a_dst_zone_s_two_levels_run_once_each_on_one_worker(pytester, monkeypatch, tmp_path):
    probes = tmp_path / "ran"
    probes.mkdir()
    monkeypatch.setenv("RAN_PROBE_DIR", str(probes))
    pytester.makepyfile(workerprobe=WORKER_PROBE)
    pytester.makeini("[pytest]\npythonpath = .\n")  # workers import the probe from here
    result = pytester.runpytest(
        "-p", "workerprobe", "-p", "no:randomly", "-n", "2", "--dsh-impl=reference",
        "--pyargs", "dsh_conformance.dst", "-k", "zone and (Europe or Asia)",
    )
    assert result.ret == 0, result.stdout.str()[-2000:]
    ran = [(nodeid, path.name) for path in sorted(probes.iterdir())
           for nodeid in path.read_text().split("\n") if nodeid]
    nodeids = [nodeid for nodeid, _ in ran]
    assert len(nodeids) == len(set(nodeids)) > 40, "every test ran once"
    by_zone: dict[str, set[str]] = collections.defaultdict(set)
    for nodeid, worker in ran:
        by_zone[nodeid[nodeid.index("["):]].add(worker)
    assert len(by_zone) * 2 == len(ran), ran
    assert all(len(workers) == 1 for workers in by_zone.values()), by_zone
    assert set().union(*by_zone.values()) == {"ran-gw0.txt", "ran-gw1.txt"}
