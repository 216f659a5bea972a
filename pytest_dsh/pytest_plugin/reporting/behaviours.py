"""The first screen of a failing run: the basic behaviours that broke.

One bug usually breaks many README requirements: a reminder that fires a
minute early fails the delivery tests, the batch tests, the DST rows... so
grouping failures by requirement (:mod:`.causes`) still reads as dozens of
items. The suite therefore marks a few minimal tests as *probes*
(``@pytest.mark.dsh_probe("behaviour-id", "sentence")``), each isolating one
basic behaviour of a README section. A failing probe names a bug.

The rule, deterministic and a pure function of the report rows:

1. Every failing probe is a *broken behaviour*; its runs (parametrizations)
   are one item. Broken behaviours come first, in README order (the position
   of the first sentence the probe checks), ties by probe id. A probe run
   whose message says the observed value fails by its shape (``..., but the
   list value is not an array of records; ...``) observed no behaviour: it
   belongs to the cause of that shape, not to a broken behaviour.
2. A readme cause (a per-requirement group of :mod:`.causes`) is folded under
   a broken behaviour only when its failures show that probe's symptom: every
   README sentence its messages say they break (``README SCH-035 requires
   ...``) is one the probe's failures say they break, and it is not a shape
   cause. A crash observed nothing, so it shows no symptom. Markers and README sections
   shared with a probe fold nothing: a failure that breaks another sentence,
   or breaks one only through a value's shape, is another bug until shown
   otherwise. Ties go to the first behaviour in order. Compat causes are
   never folded.
3. What folds nowhere stays its own cause, listed after the behaviours
   (readme causes, then compat causes).

The per-requirement causes stay in the report, each naming the behaviour it
was folded under (``follows``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from pytest_dsh.pytest_plugin.reporting.causes import (
    FAILING,
    SENTENCE_ID,
    cited_ids,
    diagnosis,
    first_line,
)

__all__ = ["broken_behaviours", "sentence_places"]

_REQUIRES: Final = " requires "
_COULD_NOT: Final = "the test could not observe what it checks"


def sentence_places(sections: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, str]]:
    """README order and section of every sentence id: ``{id: (position, section)}``."""
    places: dict[str, tuple[int, str]] = {}
    for section in sections:
        key = f"{section['plugin']}: {section['title']}"
        for sentence in section["sentences"]:
            places[str(sentence["id"])] = (len(places), key)
    return places


def _broken_sentences(test: Mapping[str, Any]) -> set[str]:
    """The README sentences a failure's message says it breaks: ``README
    SCH-035 requires ...``. A crash (the test could not observe what it
    checks, or something raised) names its requirement but breaks nothing
    it observed."""
    line = first_line(test["message"], "")
    if _REQUIRES not in line or _COULD_NOT in line:
        return set()
    return {i for i in cited_ids(line) if SENTENCE_ID.match(i)}


def broken_behaviours(
    tests: Sequence[Mapping[str, Any]],
    causes: Sequence[dict[str, Any]],
    places: Mapping[str, tuple[int, str]],
) -> list[dict[str, Any]]:
    """The failing probes of ``tests`` as broken behaviours (JSON-ready, the
    report's ``behaviours``); sets each cause's ``follows`` to the probe id it
    is folded under, or ``None``."""
    failing: dict[str, list[Mapping[str, Any]]] = {}
    for test in tests:
        probe = test.get("probe")
        if probe and test["outcome"] in FAILING and diagnosis(test["message"]) is None:
            failing.setdefault(str(probe["id"]), []).append(test)
    unplaced = (len(places), "")

    def order(probe_id: str) -> tuple[int, str]:
        sentences = failing[probe_id][0]["sentences"]
        return (min((places.get(s, unplaced)[0] for s in sentences), default=unplaced[0]),
                probe_id)

    ordered = sorted(failing, key=order)
    sentences_of = {p: {s for t in failing[p] for s in t["sentences"]} for p in ordered}
    broken_of = {p: set().union(*(_broken_sentences(t) for t in failing[p])) for p in ordered}
    probe_tests = {t["id"] for runs in failing.values() for t in runs}
    folded: dict[str, list[str]] = {p: [] for p in ordered}
    by_id = {t["id"]: t for t in tests}
    for cause in causes:
        members = [by_id[i] for i in cause["tests"] if i in by_id]
        home = None
        if cause["requirement"]["level"] == "readme" and not cause.get("shape") and members:
            ids = set().union(*(_broken_sentences(t) for t in members))
            home = _home(ordered, ids, broken_of)
        if home is None and members and {t["id"] for t in members} <= probe_tests:
            # The probe's own runs: shown under its behaviour whatever they cite.
            home = next(p for p in ordered if members[0]["id"] in {t["id"] for t in failing[p]})
        cause["follows"] = home
        if home is not None:
            folded[home] += [i for i in cause["tests"] if i not in probe_tests]
    behaviours = []
    for probe_id in ordered:
        runs = failing[probe_id]
        first = runs[0]
        behaviours.append(
            {
                "probe": probe_id,
                "behaviour": str(first["probe"]["behaviour"]),
                "plugin": first["plugin"],
                "sentences": sorted(sentences_of[probe_id], key=lambda s: places.get(s, unplaced)),
                "tests": [t["id"] for t in runs],
                "representative": {
                    "id": first["id"],
                    "outcome": first["outcome"],
                    "message": first["message"],
                    "rerun": first["rerun"],
                },
                "folded": sorted(set(folded[probe_id])),
            }
        )
    return behaviours


def _home(
    ordered: Sequence[str], ids: set[str], broken_of: Mapping[str, set[str]]
) -> str | None:
    """The broken behaviour whose symptom a cause breaking sentences ``ids``
    shows: every one of them is a sentence the probe's failures break."""
    return next((p for p in ordered if ids and ids <= broken_of[p]), None)
