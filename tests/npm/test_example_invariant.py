"""The example of an own ``./invariant`` companion (examples/dsh-schedule-own-invariant),
given as a folder to the npm path: the companion is found and loaded (its
tests run, none is skipped), it refuses an existing log and a candidate
``schedule/change`` that create an id the log already created (loading
fails; the append fails and leaves the log unchanged), it
accepts the plugin's own changes and ignores other event types; the tests of
the rules it leaves out fail, so a minimal companion is never passed as a
whole one."""

from __future__ import annotations

from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dsh-schedule-own-invariant"
PASSING = {
    "schedule/durable_state/test_probes.py::test_the_companion_rejects_a_second_create_of_an_existing_id",
    "schedule/durable_state/test_invariant.py::test_registration_fails_over_an_existing_corrupt_session",
    "schedule/durable_state/test_invariant.py::test_the_implementations_own_changes_are_accepted_in_a_fresh_session",
    "schedule/durable_state/test_invariant.py::test_other_event_types_are_not_checked",
    "schedule/durable_state/test_invariant.py::test_the_tools_and_the_owner_work_under_the_companion",
}
#: Rules the example leaves out: an unknown version, a delete of an inactive id.
LEFT_OUT = {
    "schedule/durable_state/test_invariant.py::test_a_written_change_broken_without_its_layout_is_rejected",
    "schedule/durable_state/test_invariant.py::test_a_new_corrupt_session_is_refused",
}


def test_the_own_companion_is_loaded_and_refuses_a_reused_id(tmp_path, kit):
    kit.require_npm()
    run = kit.run_suite(
        [str(kit.SUITE_DIR / "schedule" / "durable_state" / "test_invariant.py"),
         str(kit.SUITE_DIR / "schedule" / "durable_state" / "test_probes.py"),
         f"--rootdir={kit.SUITE_DIR}",
         "--dsh-level=readme", "--dsh-impl=npm", "--dsh-npm", f"schedule={EXAMPLE}"],
        cwd=tmp_path, env=kit.user_env(),
    )
    assert run.outcomes, run.output[-3000:]
    assert run.ids("error") == set() and run.ids("skipped") == set(), run.output[-3000:]
    assert run.ids("passed") >= PASSING, run.output[-3000:]
    assert run.ids("failed") >= LEFT_OUT
