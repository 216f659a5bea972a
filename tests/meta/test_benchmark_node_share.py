"""The benchmark's suites rows say how much of their CPU the Node bridge used,
and where: benchmarks/node_share.py charges the CPU of a test process's
children to the test file that was running."""

from __future__ import annotations

import json
import pathlib
import sys
import textwrap

import kit_child_processes as children
import pytest

BENCHMARKS = pathlib.Path(__file__).parents[2] / "benchmarks"

#: A child that burns 0.3 s of its own CPU (no sleep: it counts CPU, not time).
_BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"

_TESTS = {
    # Runs a child to its end: pytest's process reaps it within the test.
    "test_a_reaped.py": f"""
        import subprocess, sys
        def test_burns():
            subprocess.run([sys.executable, "-c", {_BURN!r}], check=True)
    """,
    # Leaves a child alive, as the bridge's Node process is: it burns, says so,
    # then waits on its input until the session's end closes it.
    "test_b_live.py": f"""
        import subprocess, sys
        import pytest
        CHILD = {_BURN!r} + "print('done', flush=True)\\nsys.stdin.read()\\n"
        @pytest.fixture(scope="session")
        def child():
            process = subprocess.Popen([sys.executable, "-c", "import sys\\n" + CHILD],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            yield process
            process.stdin.close()
            process.wait()
        def test_burns_and_stays(child):
            assert child.stdout.readline() == "done\\n"
    """,
    "test_c_quiet.py": """
        def test_nothing():
            assert True
    """,
}


def _share_run(folder: pathlib.Path, *options: str) -> dict[str, object]:
    for name, source in _TESTS.items():
        (folder / name).write_text(textwrap.dedent(source))
    driver = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(BENCHMARKS)!r})
        import run
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                   "-p", "no:cacheprovider", *{list(options)!r}]
        result, _ = run.timed_run(command, {str(folder)!r})
        print(json.dumps({{"node_s": result.node_s, "cpu_s": result.cpu_s,
                          "files": result.files, "summary": result.summary,
                          "rows": run.node_by_file(result)}}))
    """)
    done = children.run([sys.executable, "-c", driver], capture_output=True, text=True,
                        check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def proc() -> None:
    if not pathlib.Path("/proc/self/task").is_dir():
        pytest.skip("no /proc here: live children are not seen (the module says so)")


def test_each_files_children_are_charged_to_it_reaped_or_live(tmp_path, proc):
    counted = _share_run(tmp_path)
    assert "3 passed" in counted["summary"]
    written = sorted(path.name for path in (tmp_path / ".node-share").glob("counts.json*"))
    assert written == ["counts.json"]
    files = counted["files"]
    assert files["test_a_reaped.py"]["child_cpu_s"] >= 0.25
    # Charged while it still runs, not when the session's end reaps it.
    assert files["test_b_live.py"]["child_cpu_s"] >= 0.25
    # The kernel counts in ticks (10 ms): a live child's last one may land late.
    assert files["test_c_quiet.py"]["tests"] == 1
    assert files["test_c_quiet.py"]["child_cpu_s"] < 0.05
    assert files["(after the last test)"]["child_cpu_s"] < 0.1
    assert counted["node_s"] == pytest.approx(
        sum(entry["child_cpu_s"] for entry in files.values()), abs=0.01)
    assert counted["node_s"] <= counted["cpu_s"]  # a part of the row's CPU, never more
    assert counted["rows"][-1][0] != "`(after the last test)`"  # no file of that name


def test_a_parallel_run_counts_each_worker_once_and_not_its_controller(tmp_path, proc):
    counted = _share_run(tmp_path, "-n", "2")
    assert "3 passed" in counted["summary"]
    written = sorted(path.name for path in (tmp_path / ".node-share").glob("counts.json*"))
    assert written == ["counts.json.gw0", "counts.json.gw1"]
    files = counted["files"]
    assert {name: files[name]["tests"] for name in _TESTS} == dict.fromkeys(_TESTS, 1)
    # The controller's children are the workers: counted, they would add the
    # workers' own CPU (a pytest start-up each, well over a second) to the total.
    assert 0.5 <= counted["node_s"] < 1.0


@pytest.mark.parametrize(
    ("text", "ticks"),
    [
        ("1234 (node) S 1 2 3 4 5 6 7 8 9 10 150 30 0 0 20", 180),
        # A command name with spaces and parentheses: counted after the last one.
        ("99 (a (b) c) R 1 2 3 4 5 6 7 8 9 10 7 5 0 0", 12),
        ("", None),
        ("42 (short) S 1 2", None),
        ("42 (bad) S 1 2 3 4 5 6 7 8 9 10 x 5 0 0", None),
    ],
)
def test_a_stat_line_gives_user_plus_system_ticks(node_share, text, ticks):
    assert node_share.stat_cpu_ticks(text) == ticks


def test_each_step_is_charged_once_and_never_below_zero(node_share):
    readings = iter([1.0, 3.0, 2.9, 4.0, 4.5])  # 2.9: a reaped child's last ticks came late
    share = node_share.NodeShare(lambda: next(readings))
    share.charge("a.py")
    share.charge("b.py")
    share.charge("a.py")
    assert share.settle() == pytest.approx(3.5)
    assert share.seconds == {"a.py": 2.0 + 1.0, "b.py": 0.0, "(after the last test)": 0.5}
    assert share.tests == {"a.py": 2, "b.py": 1}


def test_workers_documents_merge_into_one_ranked_by_cpu(node_share):
    merged = node_share.merge([
        {"files": {"a.py": {"child_cpu_s": 1.0, "tests": 2},
                   "b.py": {"child_cpu_s": 0.5, "tests": 1}}},
        {"files": {"b.py": {"child_cpu_s": 1.0, "tests": 3}}},
    ])
    assert merged == {"child_cpu_s": 2.5, "files": {
        "b.py": {"child_cpu_s": 1.5, "tests": 4}, "a.py": {"child_cpu_s": 1.0, "tests": 2}}}
    assert list(merged["files"]) == ["b.py", "a.py"]
