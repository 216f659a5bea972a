"""A parallel conformance run keeps the tests that share a replay on one
worker (pytest_dsh/pytest_plugin/replay_groups.py, docs/parallel-runs.md).
Kit behaviour: no README sentence."""

from __future__ import annotations

import collections
import types

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


class _Config:
    """What the scheduler reads of a conformance run on two workers."""

    option = types.SimpleNamespace(loadscopereorder=True)

    def getvalue(self, name: str) -> object:
        return {"dist": "load", "tx": ["2*popen"]}[name]

    def getoption(self, name: str, default: object = None) -> object:
        return {"dsh_impl": "reference"}.get(name, default)


class _Worker:
    """A worker whose channel closes once it has been sent ``alive_for`` units
    (its first test ended its process while the controller was still sending)."""

    def __init__(self, name: str, alive_for: int | None = None) -> None:
        self.gateway = type("Gateway", (), {"id": name})()
        self.shutting_down = False
        self.alive_for = alive_for
        self.sent: list[list[int]] = []

    def send_runtest_some(self, indices: list[int]) -> None:
        if self.alive_for is not None and len(self.sent) >= self.alive_for:
            raise OSError("cannot send (already closed?)")
        self.sent.append(list(indices))

    def shutdown(self) -> None:
        self.shutting_down = True


def test_a_worker_that_dies_while_it_is_sent_work_loses_no_test():
    from pytest_dsh.pytest_plugin.replay_groups import pytest_xdist_make_scheduler

    collection = ["t.py::test_dies", *(f"t.py::test_ok[{n}]" for n in range(11))]
    scheduler = pytest_xdist_make_scheduler(_Config(), None)  # type: ignore[arg-type]
    assert type(scheduler).__name__ == "ReplayGroupScheduling"
    dying, other = _Worker("gw0", alive_for=1), _Worker("gw1")
    for worker in (dying, other):
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()  # the send to the dead worker used to raise here
    assert dying.sent == [[0]]
    # Its crash report names the test that was running, and what it was
    # recorded as given but never received goes to the other worker.
    assert scheduler.remove_node(dying) == "t.py::test_dies"
    finished = 0
    while finished < len(other.sent):  # each completion may send the next units
        for index in other.sent[finished]:
            scheduler.mark_test_complete(other, index)
        finished += 1
    ran = sorted(i for batch in other.sent for i in batch)
    assert ran == list(range(1, len(collection))), "every other test once, on the live worker"
    assert not scheduler.workqueue and other.shutting_down
