"""The HTML report of real Claude Code sessions on a phone, measured in headless Chromium: cell
widths against their longest word, page height against the desktop's, the divergence strip and
the tables; and long ordinal lists folded in every format."""

from __future__ import annotations

import pytest
from conftest import BASELINE_SESSIONS, CANDIDATE_SESSIONS, copy_sessions
from render_browser import Browser

from abw.gating import run_gate
from abw.render import render
from abw.render.common import fold_numbers

#: A word wider than this (a UUID, a path, a hash) may wrap, but only in a cell at least as wide.
WORD_CAP_PX = 240

# Every cell whose content box is narrower than its longest word (capped), with the word.
NARROW_CELLS = f"""
(() => {{
  const ctx = document.createElement('canvas').getContext('2d');
  const found = [];
  for (const cell of document.querySelectorAll(
      'td, th, dd, dt, .check > summary > span, .attention li, .inwarn li')) {{
    const box = cell.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(cell);
    ctx.font = style.font;
    const inner = box.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    let longest = 0, word = '';
    for (const w of cell.innerText.split(/\\s+/)) {{
      const width = ctx.measureText(w).width;
      if (width > longest) {{ longest = width; word = w; }}
    }}
    if (inner + 1 < Math.min(longest, {WORD_CAP_PX}))
      found.push(`${{cell.className || cell.tagName}} [${{cell.dataset.l || ''}}] ` +
                 `${{Math.round(inner)}}px < "${{word.slice(0, 40)}}" ${{Math.round(longest)}}px`);
  }}
  return found;
}})()
"""
CLIPPED_TABLES = """[...document.querySelectorAll('.scroll')]
  .filter(box => box.scrollWidth > box.clientWidth + 1)
  .map(box => (box.querySelector('table') || box).className)"""
STRIP = """(() => {
  const figure = document.querySelector('figure.wide');
  const svg = figure.querySelector('svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(t.getAttribute('font-size')));
  return {smallest_px: Math.min(...sizes) * scale,
          reachable: figure.scrollWidth >= svg.getBoundingClientRect().width - 1,
          scrolls: getComputedStyle(figure).overflowX};
})()"""


@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    """Six real sessions against six others: many violations, long ordinal lists."""
    from abw.cli import cli, run

    root = tmp_path_factory.mktemp("phone")
    for side, names in (("base", BASELINE_SESSIONS), ("cand", CANDIDATE_SESSIONS)):
        raw = copy_sessions(root / "raw" / side, names)
        args = ["import", "claude", "--input", str(raw), "--out", str(root / side), "-q"]
        assert run(cli, [*args, "--scenario-id", "my-agent"]) == 0
    spec = root / "spec.yaml"
    assert run(cli, ["spec", "init", "--baseline", str(root / "base"), "--out", str(spec)]) == 0
    report = run_gate(root / "base", root / "cand", spec)
    assert max(len(v.span_ordinals) for c in report.checks for v in c.violations) >= 80
    page = root / "report.html"
    page.write_text(render(report, "html"), "utf-8")
    return report, page


def test_a_phone_shows_the_real_report_readably(real_report, tmp_path):
    _, page = real_report
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri(), width=1280, height=900)
        desktop = browser.evaluate("document.documentElement.scrollHeight")
        assert browser.evaluate(NARROW_CELLS) == []
        assert browser.evaluate(CLIPPED_TABLES) == []
        browser.open(page.as_uri(), width=390, height=844, mobile=True)
        assert browser.problems() == []
        assert browser.evaluate("document.documentElement.scrollWidth") <= 390
        phone = browser.evaluate("document.documentElement.scrollHeight")
        assert browser.evaluate(NARROW_CELLS) == []
        assert browser.evaluate(CLIPPED_TABLES) == []  # the runs table too: no hidden columns
        assert phone <= 2 * desktop, (phone, desktop)
        strip = browser.evaluate(STRIP)
        assert strip["smallest_px"] >= 10, strip  # labels at their drawn size, not shrunk
        assert strip["scrolls"] == "auto" and strip["reachable"], strip
        ordinals = browser.evaluate(
            "[...document.querySelectorAll('td.ord')].map(td => td.innerText.length)"
        )
        assert ordinals and max(ordinals) <= 60


def test_long_ordinal_lists_are_folded_in_every_format(real_report):
    report, _ = real_report
    longest = max(
        (v for c in report.checks for v in c.violations), key=lambda v: len(v.span_ordinals)
    )
    folded = fold_numbers(longest.span_ordinals)
    assert folded.endswith(f"\u2026 ({len(longest.span_ordinals)} in all)")
    raw = ", ".join(str(o) for o in longest.span_ordinals)
    for fmt in ("html", "markdown", "junit"):
        text = render(report, fmt)
        assert raw not in text and ",".join(str(o) for o in longest.span_ordinals) not in text, fmt
        assert f"({len(longest.span_ordinals)} in all)" in text, fmt


def test_fold_numbers():
    assert fold_numbers([]) == ""
    assert fold_numbers([4]) == "4"
    assert fold_numbers([1, 2, 3, 5, 7, 8, 10]) == "1\u20133, 5, 7, 8, 10"
    assert fold_numbers(list(range(0, 200, 2))) == "0, 2, 4, 6, 8, 10, 12, 14, \u2026 (100 in all)"
