"""The HTML report: standalone, escaped, no script, and it loads cleanly in headless Chromium."""

from __future__ import annotations

import base64
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import render_fixtures as fx
from conftest import REPO
from render_browser import CHROMIUM, FLAGS, Browser

from abw.gating import run_gate
from abw.render import render
from abw.render.html import render_html

PNG = b"\x89PNG\r\n\x1a\n"


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, attrs))


@pytest.mark.parametrize("kind", ["pass", "warn", "fail", "inconclusive", "malicious"])
def test_standalone_and_safe(kind):
    html = render_html(fx.ALL[kind](), details_url="https://ci.example/run/1")
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower()
    assert re.search(
        r"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        r"style-src 'unsafe-inline'; img-src data:",
        html,
    )
    # no external requests and no active content: only our own tags and attributes
    parsed = Elements()
    parsed.feed(html)
    assert not {"script", "img", "iframe", "object", "embed", "link", "base", "form"} & {
        tag for tag, _ in parsed.elements
    }
    for tag, attrs in parsed.elements:
        for name, value in attrs:
            assert not name.startswith("on") and name not in ("src", "srcset"), (tag, name)
            if name in ("href", "xlink:href"):
                assert value.startswith("#") or value == "https://ci.example/run/1", value
    assert "url(" not in html and "@import" not in html


def test_sections_and_evidence_present():
    report = fx.gated("fail")
    html = render_html(report)
    assert '<h1 class="verdict">' in html and ">FAIL</h1>" in html
    assert report.summary.startswith("FAIL: do not ship;")
    assert '<p class="summary">Do not ship; behavior_contract.required_order[0]' in html
    for section in ("checks", "diff", "stats", "ledger", "runs", "inputs"):
        assert f'id="{section}"' in html
    order = next(c for c in report.checks if c.id == "behavior_contract.required_order[0]")
    v = order.violations[0]
    assert f"{v.trace_file}<b>:{v.span_lines[0]}</b>" in html
    assert "First divergent step" in html and '&larr;<span class="mw"> diverges' in html
    assert "warn &gt; 0.12" in html and "fail &gt; 0.25" in html  # diff thresholds
    assert "15/30" in html  # k/n
    assert "Sequential test (SPRT)" in html
    assert html.count("<svg") >= 6


def test_latent_projection_plot():
    html = render_html(fx.inconclusive_report())
    assert "Representation trajectories" in html and "<polyline" in html
    assert "advisory: never changes the verdict" in html
    assert "<polyline" not in render_html(fx.pass_report())


def test_malicious_names_are_escaped_text():
    html = render_html(fx.malicious_report())
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\\x1b[31mred\\x1b[0m" in html and "\x1b" not in html and "\x00" not in html
    assert "right\\u202eleft" in html and "\u202e" not in html


def test_unsafe_details_url_is_dropped():
    html = render_html(fx.pass_report(), details_url="javascript:alert(1)")
    assert "javascript:" not in html


def test_html_is_deterministic():
    assert render(fx.fail_report(), "html") == render(fx.fail_report(), "html")
    assert render(fx.gated("fail"), "html") == render(fx.gated("fail"), "html")


def html_head_only() -> str:
    """The report's own head (with its CSP), to show the probe catches what the CSP blocks."""
    html = render_html(fx.pass_report())
    return html[: html.index("<body")] + "<body>"


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile-cli'}", *args],
        capture_output=True,
        timeout=120,
        check=False,
    )


def test_chromium_dump_dom_and_screenshot(tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render_html(fx.malicious_report()), encoding="utf-8")
    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = dom.stdout.decode("utf-8")
    assert "<body" in text and "<script" not in text.lower() and "<img" not in text.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    shot = tmp_path / "report.png"
    result = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert shot.read_bytes().startswith(PNG)


def test_chromium_loads_without_console_errors(tmp_path):
    pages = {}
    for kind, report in (
        ("fail", fx.gated("fail")),
        ("inconclusive", fx.gated("inconclusive")),  # the longest verdict word
        ("malicious", fx.malicious_report()),
    ):
        pages[kind] = tmp_path / f"{kind}.html"
        pages[kind].write_text(render_html(report, details_url="https://ci.example/1"), "utf-8")
    with Browser(tmp_path / "profile") as browser:
        for kind, page in pages.items():
            browser.open(page.as_uri(), width=1280, height=900)
            assert browser.problems() == [], kind
            assert browser.evaluate("document.scripts.length") == 0
            assert (
                browser.evaluate(
                    "document.querySelectorAll('script,iframe,object,embed,img,link').length"
                )
                == 0
            )
            assert browser.evaluate("document.querySelectorAll('svg').length") >= 3
            laptop = browser.screenshot(tmp_path / f"{kind}-1280.png")
            assert laptop.read_bytes().startswith(PNG)
            pdf = browser.call("Page.printToPDF", {"printBackground": True}, session=True)
            assert base64.b64decode(pdf["data"]).startswith(b"%PDF")  # printable
            # phone: nothing wider than the screen except inside scroll boxes
            browser.open(page.as_uri(), width=390, height=844, mobile=True)
            assert browser.problems() == [], kind
            assert browser.evaluate("document.documentElement.scrollWidth") <= 390
            phone = browser.screenshot(tmp_path / f"{kind}-390.png", clip_height=6000)
            assert phone.read_bytes().startswith(PNG)
        text = browser.evaluate("document.body.innerText")
        # The same probe sees a script, a console error and a blocked request when there is one.
        bad = tmp_path / "bad.html"
        bad.write_text(
            html_head_only() + '<script>console.error("x")</script><img src="http://x.invalid/i">',
            "utf-8",
        )
        browser.open(bad.as_uri())
        assert len(browser.problems()) >= 2
    for name in fx.MALICIOUS_NAMES:
        shown = name.replace("\x1b", "\\x1b").replace("\t", "\\x09").replace("\n", "\\x0a")
        shown = shown.replace("\x00", "\\x00").replace("\x07", "\\x07").replace("\u202e", "\\u202e")
        assert shown in text, name


def test_real_gate_diff_thresholds_shown_for_every_metric():
    """The gate's own diff_shape checks (not fixtures) give each metric its warn/fail limits."""
    example = REPO / "examples/refund-policy"
    report = run_gate(
        example / "traces/baseline", example / "traces/regressed", example / "behavior.yaml"
    )
    html = render_html(report)
    for warn, fail in (("0.12", "0.25"), ("1", "2"), ("0.15", "0.4")):
        assert (
            f'<span class="w">warn &gt; {warn}</span><span class="f">fail &gt; {fail}</span>'
            in html
        )
    assert "no thresholds in the report" not in html
