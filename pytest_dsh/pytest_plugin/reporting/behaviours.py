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
   of the first sentence the probe checks), ties by probe id.
2. Every other cause (a per-requirement group of :mod:`.causes`) is folded
   under one broken behaviour when they share a README sentence (the test's
   ``spec`` markers or the ids its message cites): the behaviour sharing the
   most sentences, ties in behaviour order. Failing that, when they share a
   README section: the first such behaviour.
3. What folds nowhere stays its own cause, listed after the behaviours as
   "other failures (may follow from the broken behaviours above)".

The per-requirement causes stay in the report, each naming the behaviour it
was folded under (``follows``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_dsh.pytest_plugin.reporting.causes import FAILING, cited_ids

__all__ = ["broken_behaviours", "sentence_places"]


def sentence_places(sections: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, str]]:
    """README order and section of every sentence id: ``{id: (position, section)}``."""
    places: dict[str, tuple[int, str]] = {}
    for section in sections:
        key = f"{section['plugin']}: {section['title']}"
        for sentence in section["sentences"]:
            places[str(sentence["id"])] = (len(places), key)
    return places


def _requirement_ids(test: Mapping[str, Any]) -> set[str]:
    return {*test["sentences"], *cited_ids(test["message"])}


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
        if probe and test["outcome"] in FAILING:
            failing.setdefault(str(probe["id"]), []).append(test)
    unplaced = (len(places), "")

    def order(probe_id: str) -> tuple[int, str]:
        sentences = failing[probe_id][0]["sentences"]
        return (min((places.get(s, unplaced)[0] for s in sentences), default=unplaced[0]),
                probe_id)

    ordered = sorted(failing, key=order)
    sentences_of = {p: {s for t in failing[p] for s in t["sentences"]} for p in ordered}
    sections_of = {p: {places[s][1] for s in sentences_of[p] if s in places} for p in ordered}
    probe_tests = {t["id"] for runs in failing.values() for t in runs}
    folded: dict[str, list[str]] = {p: [] for p in ordered}
    by_id = {t["id"]: t for t in tests}
    for cause in causes:
        members = [by_id[i] for i in cause["tests"] if i in by_id]
        ids = set().union(*(_requirement_ids(t) for t in members)) if members else set()
        home = _home(ordered, ids, sentences_of, sections_of, places)
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
    ordered: Sequence[str],
    ids: set[str],
    sentences_of: Mapping[str, set[str]],
    sections_of: Mapping[str, set[str]],
    places: Mapping[str, tuple[int, str]],
) -> str | None:
    """The broken behaviour a cause with README ids ``ids`` is folded under."""
    shared = [(-len(ids & sentences_of[p]), n, p) for n, p in enumerate(ordered)
              if ids & sentences_of[p]]
    if shared:
        return min(shared)[2]
    sections = {places[i][1] for i in ids if i in places}
    for probe_id in ordered:
        if sections & sections_of[probe_id]:
            return probe_id
    return None
