"""README section "Model Experience": probes, each isolating one basic behaviour
(``dsh_probe``).
"""

from __future__ import annotations

import json

import pytest

from dsh_conformance.expect import readme
from dsh_conformance.schedule.session_logs import BATCH_HEADER, reminder_framings
from dsh_conformance.schedule.written_logs import create, overdue_after_resume

pytestmark = [pytest.mark.dsh_requires("schedule")]


# Every record has exactly one due occurrence at resume, so the batch order is
# the same whether read by first target or by occurrence; intervals are above
# five minutes so that the interval floor is not what the probe checks.
BATCHED = (  # (prompt, every_seconds, seconds after the previous create)
    ("A", 1200, 0), ("B", 600, 60), ("C", 900, 60), ("E", 900, 0), ("D", 600, 60),
)


@pytest.mark.spec("SCH-045", "SCH-076", "SCH-080")
@pytest.mark.dsh_probe(
    "batch-in-target-then-creation-order",
    "A batch lists its reminders in target, then creation order",
)
def test_a_batch_lists_its_reminders_in_target_then_creation_order(host, agent):
    records = {}
    for prompt, every_seconds, wait in BATCHED:
        host.advance(wait)
        records[prompt] = create(agent, {"prompt": prompt, "every_seconds": every_seconds})
    # Targets B 00:11, D 00:13, C and E 00:17 (C created first), A 00:20.
    resumed = overdue_after_resume(host, agent, 1050)  # 00:20:30
    framings = reminder_framings(resumed.events())
    batches = [text for text in framings if text.startswith(BATCH_HEADER)]
    listed = [json.loads(text.partition("reminders_json: ")[2]) for text in batches]
    ids = [[item.get("schedule_id") for item in batch] for batch in listed]
    expected = [[records[p].id for p in ("B", "D", "C", "E", "A")]]
    assert ids == expected, readme(
        "SCH-045, SCH-076, SCH-080", f"one batch listing the reminders {expected[0]} in target, "
        "then creation order", framings)
