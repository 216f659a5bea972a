"""Strings that come from the run (implementation name and version, test ids,
messages) render literally in report.md and report.html: Markdown and HTML in
them are escaped, not interpreted."""

from __future__ import annotations

import html
import re
import textwrap

import pytest

from pytest_dsh.pytest_plugin.reporting.markdown import code, text

NAME = "<b>x</b>|y"
HOSTILE = [NAME, "*em* _u_ `tick` [link](http://e.invalid) ![i](x)", "a\\|b & &amp; #h ~~s~~"]


def _unescape(markdown: str) -> str:
    """What a CommonMark reader shows for text() output: backslash escapes
    and entities resolved."""
    return html.unescape(re.sub(r"\\([\\`*_\[\]{}|#~!])", r"\1", markdown))


@pytest.mark.parametrize("value", HOSTILE)
def test_text_round_trips_and_leaves_no_live_markup(value):
    escaped = text(value)
    assert _unescape(escaped) == value
    assert "<" not in escaped and "|" not in escaped.replace("\\|", "")
    assert not re.search(r"(?<!\\)[*_`\[]", escaped)


def test_a_code_span_outlasts_the_backticks_inside_it():
    assert code("a`b") == "``a`b``"
    assert code("`a`") == "`` `a` ``"
    assert code("x|y") == "`x\\|y`" and code("x|y", cell=False) == "`x|y`"


@pytest.fixture
def hostile_run(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(
        hostile_impls=textwrap.dedent(
            f"""
            from pytest_dsh import PythonImplementation
            from dsh_reference.implementation import IMPLEMENTATION as REFERENCE
            HOSTILE = PythonImplementation(
                {NAME!r}, "1.0 *beta* <i>", dict(REFERENCE.plugins),
                frozenset({{"schedule", "time-context"}}),
            )
            """
        ),
        test_hostile=textwrap.dedent(
            """
            import pytest

            @pytest.mark.spec("SCH-001")
            @pytest.mark.parametrize("value", ["<b>x</b>|y"])
            def test_markup(value, dsh_host):
                assert False, f"observed <script>alert(1)</script> and | {value} **bold**"
            """
        ),
    )
    pytester.syspathinsert()
    pytester.runpytest("--dsh-impl=hostile_impls:HOSTILE", "--dsh-report=out")
    return pytester


def test_report_md_shows_a_hostile_name_version_id_and_message_literally(hostile_run):
    markdown = (hostile_run.path / "out" / "report.md").read_text("utf-8")
    assert "- implementation: &lt;b&gt;x&lt;/b&gt;\\|y 1.0 \\*beta\\* &lt;i&gt; (" in markdown
    # No live tag outside fenced blocks and code spans (where CommonMark shows
    # text as is), except the report's own markup.
    outside = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside)
    tags = set(re.findall(r"<(/?[a-z]+)", outside))
    assert tags <= {"a", "/a", "br", "details", "/details", "summary", "/summary"}, tags
    # The test id is one code span: in a heading as is, in a table cell with \|.
    assert "#### `test_hostile.py::test_markup[<b>x</b>|y]`" in markdown
    assert "| `test_hostile.py::test_markup` [readme]: 1 failed |" in markdown
    assert "observed <script>alert(1)</script> and | <b>x</b>|y **bold**" in markdown  # fenced


def test_report_html_shows_a_hostile_name_and_message_literally(hostile_run):
    page = (hostile_run.path / "out" / "report.html").read_text("utf-8")
    assert "<title>Conformance report: &lt;b&gt;x&lt;/b&gt;|y 1.0 *beta* &lt;i&gt;</title>" in page
    assert "<script" not in page and "<b>x</b>" not in page
