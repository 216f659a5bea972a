"""The HTML report in a real headless Chromium: it renders, the verdict, the
README sections and the failures are laid out and visible, and a screenshot
is taken. The browser comes from Debian's chromium package
(scripts/ensure-chromium, run by `make test`); a missing browser skips here
and fails under CI=true."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct

import pytest

# Appended to a copy of the report: measures what the browser laid out and
# writes it into the DOM, which --dump-dom prints.
_PROBE = """
<script>
const seen = (el) => !!el && el.getBoundingClientRect().height > 0
  && getComputedStyle(el).display !== "none" && getComputedStyle(el).visibility !== "hidden";
const failure = document.querySelector("#failures article.failure");
const result = {
  overall: document.querySelector("#overall .verdict")?.textContent,
  overallVisible: seen(document.querySelector("#overall .verdict")),
  sections: [...document.querySelectorAll("#readme details.section summary")]
    .map((s) => s.textContent),
  failureVisible: seen(failure),
  failureTop: failure ? failure.getBoundingClientRect().top : null,
  failureBorder: failure ? getComputedStyle(failure).borderLeftColor : null,
  message: failure?.querySelector("pre.message")?.textContent,
  messageVisible: seen(failure?.querySelector("pre.message")),
  rerunVisible: seen(failure?.querySelector("pre.rerun")),
  openSection: [...document.querySelectorAll("#readme details[open] summary")]
    .map((s) => s.textContent),
  failingRowVisible: seen(document.querySelector("#readme details[open] .o-failed")),
};
const out = document.createElement("pre");
out.id = "probe-result";
out.textContent = JSON.stringify(result);
document.body.appendChild(out);
</script>
"""


@pytest.fixture
def html_report(impls, spec_tests, failing_test):
    impls.makepyfile(test_spec=spec_tests, test_failing=failing_test)
    impls.runpytest("--dsh-impl=impls:FULL", "--dsh-report=report.html")
    return impls.path / "report.html"


def test_the_report_is_self_contained(html_report):
    html = html_report.read_text("utf-8")
    assert not re.search(r"""(src|href)=["'](https?:|//)""", html)
    assert "<script" not in html


def test_the_browser_lays_out_the_verdict_sections_and_failures(html_report, tmp_path, chromium):
    probed = tmp_path / "probed.html"
    probed.write_text(html_report.read_text("utf-8").replace("</body>", _PROBE + "</body>"))
    dom = chromium(
        "--virtual-time-budget=5000", "--window-size=1280,1600",
        "--dump-dom", probed.as_uri(),
    ).stdout
    match = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.S)
    assert match, dom[-2000:]
    result = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["overall"] == "does not conform" and result["overallVisible"]
    assert any(s.startswith("schedule: Composition") for s in result["sections"])
    assert any(s.startswith("time-context: Configuration · 配置") for s in result["sections"])
    assert result["failureVisible"] and result["messageVisible"] and result["rerunVisible"]
    assert result["failureTop"] < 1600  # on the first screen
    assert result["failureBorder"] == "rgb(207, 34, 46)"
    assert "refreshIntervalMs -1 was accepted" in result["message"]
    assert [s for s in result["openSection"] if "Configuration" in s]  # opened: it fails
    assert result["failingRowVisible"]


def test_a_screenshot_of_the_report_is_a_full_page_image(html_report, tmp_path, chromium):
    shot = tmp_path / "report.png"
    chromium("--window-size=1280,1600", f"--screenshot={shot}", html_report.as_uri())
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 1600)
    assert len(data) > 50_000  # text and tables, not a blank page
    keep = os.environ.get("DSH_KEEP_SCREENSHOT")
    if keep:
        shutil.copyfile(shot, keep)
