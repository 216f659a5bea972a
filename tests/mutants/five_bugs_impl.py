"""The reference with five distinct bugs of the mutant catalog applied together:
the implementation whose first screen must name exactly five broken behaviours."""

from __future__ import annotations

import mutant_impls

#: Each breaks one behaviour a probe isolates; the catalog names and describes them.
FIVE_BUGS = {
    "reminders-fire-early": "one-shots-fire-at-their-targets",
    "overlap-resolves-to-the-later-instant": "overlap-takes-the-earlier-instant",
    "delete-trims-padded-ids": "padded-delete-id-rejected",
    "batch-framing-reversed": "batch-in-target-then-creation-order",
    "ids-reused-after-delete": "ids-never-reused",
}

for name in FIVE_BUGS:
    mutant_impls.MUTANTS[name].apply()

IMPLEMENTATION = mutant_impls.IMPLEMENTATION
