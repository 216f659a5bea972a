"""The example third-party plugin (examples/dsh-schedule-wrapper), given as a
folder to the zero-Python npm path: the folder is packed and installed with
the DSH host, and the suite fails exactly the tests of its one deliberate
deviation from SCH-036 ("schedule_not_found" renamed), with readable messages.
The whole-suite run of the example is the guide's run (test_fresh_venv.py)."""

from __future__ import annotations

import itertools
import json
import shlex
from pathlib import Path

from pytest_dsh.npm.known_failures import load_expectations

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dsh-schedule-wrapper"
MODULE = "schedule/management_tools/test_management_tools.py"


def test_the_example_declares_its_deviation_against_real_sentences(kit):
    deviations = load_expectations(EXAMPLE / "expected-deviations.json")
    assert kit.UNKNOWN_ID_TEST in deviations
    assert {s for entry in deviations.values() for s in entry["sentences"]} == {"SCH-036"}
    manifest = json.loads((EXAMPLE / "package.json").read_text("utf-8"))
    assert "@deepseek-ai/dsh-schedule" in manifest["dependencies"]
    for test_id in deviations:
        path, _, name = test_id.partition("::")
        source = (kit.SUITE_DIR / path).read_text("utf-8")
        assert f"def {name.split('[')[0]}(" in source, test_id


def test_the_example_folder_fails_exactly_its_deviation_in_the_delete_tests(tmp_path, kit):
    kit.require_npm()
    report = tmp_path / "report.json"
    run = kit.run_suite(
        [str(kit.SUITE_DIR / MODULE), f"--rootdir={kit.SUITE_DIR}",
         "--dsh-impl=npm", "--dsh-npm", f"schedule={EXAMPLE}", f"--dsh-report={report}"],
        cwd=tmp_path,
        env=kit.user_env(),
    )
    assert run.outcomes, run.output[-3000:]
    deviations = set(load_expectations(EXAMPLE / "expected-deviations.json"))
    official = set(kit.official_expectations())
    in_module = {test_id for test_id in deviations | official if test_id.startswith(MODULE)}
    assert run.ids("error") == set()
    assert run.ids("failed") == in_module - run.ids("skipped")
    assert any(test_id in deviations for test_id in run.ids("failed"))
    message = run.messages[kit.UNKNOWN_ID_TEST]
    assert "'not_found'" in message and "'schedule_not_found'" in message
    # The failure's rerun command installs the same package again. Every failing
    # test's command is in the reports; the terminal prints one per cause only.
    rows = json.loads(report.read_text("utf-8"))["tests"]
    (row,) = [row for row in rows if row["id"] == kit.UNKNOWN_ID_TEST]
    assert row["outcome"] == "failed", row
    words = shlex.split(row["rerun"])
    # The option as the run spelled it, in one word or two.
    given = {f"{a}={b}" for a, b in itertools.pairwise(words) if a == "--dsh-npm"} | set(words)
    assert f"--dsh-npm=schedule={EXAMPLE}" in given, row["rerun"]
