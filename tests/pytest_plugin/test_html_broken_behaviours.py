"""report.html opens with the broken basic behaviours, like report.md: each
failing probe as one item, its failure shown once, the failures folded under
it in a closed <details>, the causes that fold nowhere listed after them;
every text escaped. Checked as a string and in a real headless Chromium (the
browser test's style: a script appended to a copy measures the layout)."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

# One probe fails (create), two tests breaking its sentence fail too (folded),
# one failure of the other plugin shares nothing (other cause), one probe passes.
PROBED = textwrap.dedent(
    '''
    import pytest

    @pytest.mark.spec("SCH-034")
    @pytest.mark.dsh_probe("create-<appends>", "Create <b>appends</b> one change & more")
    def test_create_probe(dsh_host):
        assert False, "README SCH-034 requires one change; none appended: <script>alert(1)</script>"

    @pytest.mark.spec("SCH-034")
    @pytest.mark.parametrize("n", range(2))
    def test_create_rows(n, dsh_host):
        assert False, f"README SCH-034 requires row {n} created; observed nothing"

    @pytest.mark.spec("TC-016")
    def test_reading(dsh_host):
        assert False, "the reading lacks its second line"

    @pytest.mark.spec("SCH-035")
    @pytest.mark.dsh_probe("list-passes", "List shows the active records")
    def test_list_probe(dsh_host):
        pass
    '''
)


@pytest.fixture
def report(impls: pytest.Pytester) -> str:
    impls.makepyfile(test_probed=PROBED)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly")
    return (impls.path / "out" / "report.html").read_text("utf-8")


def test_the_broken_behaviours_come_before_the_causes_escaped(report: str) -> None:
    start = report.index('<section id="behaviours"><h2>Broken basic behaviours (1)</h2>')
    assert start < report.index('<section id="failures">')
    section = report[start:report.index("</section>", start)]
    assert "Create &lt;b&gt;appends&lt;/b&gt; one change &amp; more" in section
    assert "<b>appends</b>" not in report and "<script>" not in report
    assert "alert(1)" in section  # the probe's own failure, escaped
    assert 'id="behaviour-create-&lt;appends&gt;"' in section
    assert "<details><summary>2 failures folded under it</summary>" in section
    assert section.count('<a href="#test_probed.py::test_create_rows[') == 2
    assert "list-passes" not in report.split('<section id="readme">')[0]  # it passed


def test_a_cause_folding_nowhere_is_listed_after_the_behaviours(report: str) -> None:
    section = report[report.index('<section id="behaviours">'):]
    others = section[section.index('<div id="other-causes">'):section.index("</div>")]
    assert others.startswith('<div id="other-causes"><p>Other README failures (none shows')
    assert "TC-016" in others and "SCH-034" not in others
    number = re.search(r'<a href="#cause-(\d+)">', others)[1]  # type: ignore[index]
    cause = report[report.index(f'<article class="failure cause" id="cause-{number}">'):]
    assert "TC-016" in cause[:cause.index("</h3>")]


def test_a_folded_cause_links_back_to_its_behaviour(report: str) -> None:
    assert report.count('folded under <a href="#behaviour-create-&lt;appends&gt;">') == 2
    # The probe's test keeps one anchor, under its cause.
    assert report.count('id="test_probed.py::test_create_probe"') == 1


def test_no_behaviours_section_when_no_probe_failed(impls: pytest.Pytester) -> None:
    passing = PROBED.replace('assert False, "README SCH-034 requires one', 'assert True, "one')
    impls.makepyfile(test_probed=passing)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=out", "-p", "no:randomly")
    html = (impls.path / "out" / "report.html").read_text("utf-8")
    assert 'id="behaviours"' not in html and '<section id="failures">' in html


_MEASURE = """
<script>
const seen = (el) => !!el && el.getBoundingClientRect().height > 0
  && getComputedStyle(el).display !== "none" && getComputedStyle(el).visibility !== "hidden";
const item = document.querySelector("#behaviours article.behaviour");
const folded = item?.querySelector("details ol.others li");
const result = {
  heading: document.querySelector("#behaviours h2")?.textContent,
  headingTop: document.querySelector("#behaviours h2")?.getBoundingClientRect().top,
  title: item?.querySelector("h3")?.textContent,
  itemVisible: seen(item),
  messageVisible: seen(item?.querySelector("pre.message")),
  // A closed <details> hides its content with content-visibility, which the
  // bounding box does not show; checkVisibility() does.
  foldedHidden: !!folded && !folded.checkVisibility(),
};
item?.querySelector("details")?.setAttribute("open", "");
result.foldedShown = seen(folded) && folded.checkVisibility();
const out = document.createElement("pre");
out.id = "measured";
out.textContent = JSON.stringify(result);
document.body.appendChild(out);
</script>
"""


def test_the_browser_shows_the_behaviour_first_with_its_folded_failures_closed(
    report: str, tmp_path: Path, chromium: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    page = tmp_path / "measured.html"
    page.write_text(report.replace("</body>", _MEASURE + "</body>"), "utf-8")
    dom = chromium(
        "--virtual-time-budget=5000", "--window-size=1280,1600", "--dump-dom", page.as_uri()
    ).stdout
    match = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert match, dom[-2000:]
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&")
                        .replace("&lt;", "<").replace("&gt;", ">"))
    assert result["heading"] == "Broken basic behaviours (1)"
    assert result["headingTop"] < 1600  # on the first screen
    assert result["title"].endswith("Create <b>appends</b> one change & more [create-<appends>; "
                                    "SCH-034]")
    assert result["itemVisible"] and result["messageVisible"]
    assert result["foldedHidden"] and result["foldedShown"], result
