"""Reports show every time-context sentence in English beside the Chinese
original: the renderings file covers exactly the README's sentence ids and
section titles."""

from __future__ import annotations

import json
import re
from importlib import resources

from dsh_spec.sentences import spec_sentences


def _renderings() -> dict:
    path = resources.files("dsh_spec").joinpath("dsh-time-context.sentences.en.json")
    return json.loads(path.read_text("utf-8"))


def test_every_time_context_sentence_has_exactly_one_english_rendering():
    sentences = spec_sentences("TC")
    assert set(_renderings()["sentences"]) == {s.id for s in sentences}
    for sentence in sentences:
        assert sentence.english == _renderings()["sentences"][sentence.id]
        if re.search(r"[\u4e00-\u9fff]", sentence.text):
            assert not re.search(r"[\u4e00-\u9fff]", sentence.english), sentence.id


def test_every_time_context_section_title_is_rendered_in_english():
    for sentence in spec_sentences("TC"):
        assert not re.search(r"[\u4e00-\u9fff]", sentence.section_english), sentence.section


def test_english_readmes_are_their_own_rendering():
    for sentence in spec_sentences("SCH"):
        assert sentence.english == sentence.text
        assert sentence.section_english == sentence.section
        assert sentence.plugin == "schedule"
