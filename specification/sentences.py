"""README sentences and their stable ids: the sentence registry.

Every sentence of the two plugin READMEs (vendored beside this module) gets an
id in document order: ``SCH-001`` ... for dsh-schedule and ``TC-001`` ... for
dsh-time-context (whose authoritative text is the Chinese README). Tests name
the sentences they check with ``@pytest.mark.spec("SCH-012", ...)``.

Each sentence also carries its English text: the schedule README is English;
the time-context renderings are in ``dsh-time-context.sentences.en.json``
(taken from ``dsh-time-context.README.en.md``), so reports can show the
English beside the authoritative Chinese.

Splitting rules: headings (short lines without closing punctuation) are section
titles, not sentences; lines of literal text (framing templates, the YAML
example, reading templates) are one item each; prose is split after ``.``,
``。``, ``!`` or ``?`` followed by a space or end of line. Repository chrome
copied with the Chinese text (a size/"Raw Blame" line, the language switcher)
is ignored.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["PLUGINS", "SPEC_FILES", "Sentence", "all_sentences", "spec_sentences"]

SPEC_FILES: Mapping[str, str] = {
    "SCH": "dsh-schedule.README.txt",
    "TC": "dsh-time-context.README.zh.txt",
}
#: The plugin each README specifies.
PLUGINS: Mapping[str, str] = {"SCH": "schedule", "TC": "time-context"}
_ENGLISH: Mapping[str, str] = {"TC": "dsh-time-context.sentences.en.json"}

_CHROME = re.compile(r"^(English \| 中文|@deepseek-ai/\S+|[\d.]+ KiB Raw Blame.*)$")
_LITERAL = re.compile(
    r"^(\[SCHEDULE REMINDER( BATCH)?\]|[a-z_]+(_json)?: <.*>$|Present |Time sampled |"
    r"Elapsed since |- id: |\s+(name|config|timeZone|refreshIntervalMs):)"
)
# Full-width CJK stops (U+3002, U+FF01, U+FF1F) end a sentence without a space.
_SENTENCE_END = re.compile(r"(?<=[^?][.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])")
_CLOSING = (".", "\u3002", ":", "\uff1a", "!", "?", ")", "\uff1b")


@dataclass(frozen=True, slots=True)
class Sentence:
    id: str
    section: str
    text: str
    #: English text and section title (the same as ``text``/``section`` for an
    #: English README).
    english: str = ""
    section_english: str = ""
    #: The nearest heading that groups sections (in English), or "".
    group: str = ""

    @property
    def plugin(self) -> str:
        return PLUGINS[self.id.split("-", 1)[0]]


def _read(name: str) -> str:
    return importlib.resources.files("dsh_spec").joinpath(name).read_text("utf-8")


@functools.cache
def _english(prefix: str) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """(section titles, sentences) in English for a README that is not."""
    if prefix not in _ENGLISH:
        return {}, {}
    document = json.loads(_read(_ENGLISH[prefix]))
    return document["sections"], document["sentences"]


def _is_heading(line: str) -> bool:
    return not line.endswith(_CLOSING) and len(line) <= 60 and not line.startswith("•")


def _split(line: str) -> list[str]:
    parts = [part.strip() for part in _SENTENCE_END.split(line)]
    return [part for part in parts if part]


def spec_sentences(prefix: str) -> list[Sentence]:
    """The sentences of the README registered under ``prefix`` (``SCH``/``TC``)."""
    text = _read(SPEC_FILES[prefix])
    section = "(preamble)"
    # A heading directly followed by another one groups the sections below it
    # ("Due reminder follow-up", then "What the model sees").
    group = ""
    previous_heading = False
    items: list[tuple[str, str, str]] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or _CHROME.match(stripped):
            continue
        heading = not _LITERAL.match(line) and _is_heading(stripped)
        if heading:
            if previous_heading:
                group = section
            section = stripped
        elif _LITERAL.match(line):
            items.append((group, section, stripped))
        else:
            items.extend((group, section, sentence) for sentence in _split(stripped))
        previous_heading = heading
    sections, sentences = _english(prefix)
    result = []
    for index, (group, section, sentence) in enumerate(items, start=1):
        sentence_id = f"{prefix}-{index:03d}"
        english = sentences.get(sentence_id, sentence)
        result.append(
            Sentence(
                sentence_id, section, sentence, english, sections.get(section, section),
                sections.get(group, group),
            )
        )
    return result


def all_sentences() -> list[Sentence]:
    return [sentence for prefix in SPEC_FILES for sentence in spec_sentences(prefix)]
