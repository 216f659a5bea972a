"""README sentences, their stable ids, and the traceability report.

Every sentence of the two plugin READMEs (the spec, vendored in ``spec/``) gets
an id in document order: ``SCH-001`` ... for dsh-schedule and ``TC-001`` ... for
dsh-time-context (whose authoritative text is the Chinese README). Tests name
the sentences they check with ``@pytest.mark.spec("SCH-012", ...)``.

Each sentence also carries its English text: the schedule README is English;
the time-context renderings are in ``spec/dsh-time-context.sentences.en.json``
(taken from ``spec/dsh-time-context.README.en.md``), so reports can show the
English beside the authoritative Chinese.

``python -m dsh_conformance.traceability --list`` prints the ids and sentences;
``--write PATH`` renders ``docs/traceability.md`` from the sentences and the test
ids collected for each; ``--check PATH`` fails when the committed report differs
or a sentence has no test.

Splitting rules: headings (short lines without closing punctuation) are section
titles, not sentences; lines of literal text (framing templates, the YAML
example, reading templates) are one item each; prose is split after ``.``,
``。``, ``!`` or ``?`` followed by a space or end of line. Repository chrome
copied with the Chinese text (a size/"Raw Blame" line, the language switcher)
is ignored.
"""

from __future__ import annotations

import argparse
import functools
import importlib.resources
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["PLUGINS", "SPEC_FILES", "Sentence", "all_sentences", "render_report", "spec_sentences"]

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
    return importlib.resources.files("dsh_conformance.spec").joinpath(name).read_text("utf-8")


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


def render_report(coverage: Mapping[str, Sequence[str]]) -> str:
    """Markdown: one table row per sentence with the tests that check it."""
    lines = [
        "# Traceability: README sentences → conformance tests",
        "",
        "Generated by `python -m dsh_conformance.traceability --write docs/traceability.md`;",
        "a meta-test fails when a sentence has no test or this file is stale.",
        "Test ids are relative to the `dsh_conformance` package; sentences checked",
        "through a proxy are explained in [traceability-notes.md](traceability-notes.md).",
    ]
    for prefix, filename in SPEC_FILES.items():
        lines += ["", f"## {filename}", ""]
        section = None
        for sentence in spec_sentences(prefix):
            if sentence.section != section:
                section = sentence.section
                lines += ["", f"### {section}", "", "| id | sentence | tests |", "|---|---|---|"]
            tests = "<br>".join(f"`{test}`" for test in sorted(coverage.get(sentence.id, ())))
            text = sentence.text.replace("|", "\\|")
            lines.append(f"| {sentence.id} | {text} | {tests or '**none**'} |")
    return "\n".join(lines) + "\n"


def collect_coverage(args: Iterable[str] = ()) -> dict[str, list[str]]:
    """Collect the conformance suite (without running it) and map sentence ids
    to the ids of the tests marked with them."""
    import pytest

    from pytest_dsh.implementations import stable_test_id

    coverage: dict[str, list[str]] = {}

    class Collector:
        def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
            for item in items:
                test_id = stable_test_id(item.path, item.nodeid)
                for mark in item.iter_markers("spec"):
                    for sentence_id in mark.args:
                        coverage.setdefault(sentence_id, []).append(test_id)

    code = pytest.main(
        [
            "--collect-only",
            "-p",
            "no:terminal",
            "--pyargs",
            "dsh_conformance",
            "-p",
            "no:cacheprovider",
            "--dsh-impl=reference",
            *args,
        ],
        plugins=[Collector()],
    )
    if code not in (0, 5):
        raise SystemExit(f"collection failed with exit code {code}")
    return {key: sorted(set(value)) for key, value in coverage.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsh_conformance.traceability")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true", help="print sentence ids and texts")
    mode.add_argument("--write", metavar="PATH", help="write the traceability report")
    mode.add_argument("--check", metavar="PATH", help="fail when PATH is stale or incomplete")
    options = parser.parse_args(argv)
    if options.list:
        for sentence in all_sentences():
            print(f"{sentence.id}  [{sentence.section}]  {sentence.text}")
        return 0
    coverage = collect_coverage()
    report = render_report(coverage)
    if options.write:
        with open(options.write, "w", encoding="utf-8") as handle:
            handle.write(report)
        return 0
    problems = [s.id for s in all_sentences() if not coverage.get(s.id)]
    with open(options.check, encoding="utf-8") as handle:
        stale = handle.read() != report
    if problems:
        print("sentences without a test: " + ", ".join(problems), file=sys.stderr)
    if stale:
        print(f"{options.check} is stale; regenerate it with --write", file=sys.stderr)
    return 1 if problems or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
