"""The suite's folders: one per README section.

``conformance/schedule/<folder>/`` and ``conformance/time_context/<folder>/``
hold the tests of one top-level section of the plugin's README (its ``##``
heading, or the opening paragraphs before the first one: ``overview``). The
sentence registry (:mod:`dsh_conformance.traceability`) names each sentence's
nearest heading and the sub-section grouping it; this table maps those
headings to the folder that holds their tests. A test sits in the folder of
the section holding most of the sentences it cites (on a tie, the section of
the first-cited of them); ``tests/meta/test_suite_sections.py`` keeps it there.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_spec.sentences import Sentence

__all__ = ["SECTIONS", "SuiteSection", "folder_of", "primary_section"]


@dataclass(frozen=True, slots=True)
class SuiteSection:
    #: ``schedule`` or ``time-context`` (:attr:`Sentence.plugin`).
    plugin: str
    #: The folder under ``conformance/<plugin package>/``.
    folder: str
    #: The README heading, in English.
    heading: str
    #: The registry's sub-section groups under this heading (a sentence whose
    #: nearest heading is not a section heading belongs to its group's section).
    groups: tuple[str, ...] = ()

    @property
    def package(self) -> str:
        """The plugin's folder of the suite: ``schedule`` or ``time_context``."""
        return self.plugin.replace("-", "_")


SECTIONS: tuple[SuiteSection, ...] = (
    SuiteSection("schedule", "overview", "(preamble)"),
    SuiteSection("schedule", "composition", "Composition"),
    SuiteSection("schedule", "durable_state", "Durable state"),
    SuiteSection("schedule", "absolute_time_input", "Absolute-time input"),
    SuiteSection("schedule", "management_tools", "Management tools"),
    SuiteSection("schedule", "delivery_lifecycle", "Delivery lifecycle"),
    SuiteSection("schedule", "model_experience", "Model Experience",
                 ("Scoped management tools", "Due reminder follow-up", "Due fixed-rate batch")),
    SuiteSection("schedule", "known_limitations", "Known Limitations and Deferred Work"),
    SuiteSection("time-context", "overview", "(preamble)"),
    SuiteSection("time-context", "configuration", "Configuration"),
    SuiteSection("time-context", "timing_semantics", "Timing semantics"),
    SuiteSection("time-context", "model_experience", "Model experience",
                 ("Preparation-time context",)),
    SuiteSection("time-context", "known_limitations", "Known limitations and deferred work"),
)


def folder_of(sentence: Sentence) -> SuiteSection:
    """The section (and folder) a sentence belongs to."""
    ours = [section for section in SECTIONS if section.plugin == sentence.plugin]
    for section in ours:
        if section.heading == sentence.section_english:
            return section
    for section in ours:
        if sentence.group in section.groups:
            return section
    raise LookupError(
        f"{sentence.id} is under the heading {sentence.section_english!r} (group "
        f"{sentence.group!r}), which no suite folder holds: add it to SECTIONS")


def primary_section(sentence_ids: list[str], sentences: dict[str, Sentence]) -> SuiteSection:
    """The section holding most of ``sentence_ids``; on a tie, the first-cited one's."""
    cited = [folder_of(sentences[sentence_id]) for sentence_id in sentence_ids]
    if not cited:
        raise ValueError("no sentence cited")
    return max(cited, key=lambda section: (cited.count(section), -cited.index(section)))
