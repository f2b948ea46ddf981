"""GitHub Markdown: verdict line, checks table, evidence in <details>, safe truncation, escaping."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
import render_fixtures as fx
from conftest import REPO
from markdown_it import MarkdownIt

from abw.gating import run_gate
from abw.models.report import Check, Violation
from abw.render import render
from abw.render.common import md
from abw.render.markdown import render_markdown

URL = "https://github.com/o/r/actions/runs/42"


def to_html(text: str) -> str:
    """Render like GitHub would (CommonMark + tables, raw HTML allowed)."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(text)


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    return parser


def balanced(text: str) -> None:
    assert text.count("<details>") == text.count("</details>")
    assert text.count("```") % 2 == 0
    # every table row belongs to a table that has its header and delimiter rows
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|")):
            assert i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i + 1]), line


@pytest.mark.parametrize("kind", ["pass", "warn", "fail", "inconclusive"])
def test_verdict_line_and_tables(kind):
    report = fx.gated(kind)
    text = render_markdown(report, details_url=URL)
    emoji = {"PASS": "\u2705", "WARN": "\u26a0\ufe0f", "FAIL": "\u274c", "INCONCLUSIVE": "\u2754"}
    assert text.startswith(f"## {emoji[report.verdict]} abw gate: **{report.verdict}**")
    assert f"[Full report]({URL})" in text
    balanced(text)
    html = to_html(text)
    assert "<table>" in html
    tags = parse(html)
    assert "script" not in tags.tags


def test_failing_evidence_in_details():
    report = fx.gated("fail")
    text = render_markdown(report)
    order = next(c for c in report.checks if c.id == "behavior_contract.required_order[0]")
    block = text[text.index("<details><summary>\u274c <b>behavior_contract.required_order") :]
    block = block[: block.index("</details>")]
    for v in order.violations:
        assert md(v.trace_id) in block
        assert f":{v.span_lines[0]}" in block
    assert "First divergent step" in text
    assert "### Sample statistics" in text and "15/30" in text


def test_evidence_rows_are_capped_with_a_link():
    text = render_markdown(fx.fail_report(), details_url=URL)
    assert f"\u2026 and 250 more violating runs in the [full report]({URL})" in text


def _huge_report():
    """Thousands of failing checks with long, multi-byte messages: far past 65,536 chars."""
    report = fx.fail_report()
    for i in range(1500):
        report.checks.append(
            Check(
                id=f"behavior_contract.rules.r{i}",
                rule="precedence",
                category="behavior_contract",
                verdict="FAIL",
                message=f"rule {i} was broken \u2014 r\u00e9sum\u00e9 \U0001f600 " + "x" * 80,
                hard=True,
                runs_checked=3,
                violations=[
                    Violation(
                        trace_id=f"t{i}-{j}",
                        trace_file=f"runs/t{i}-{j}.json",
                        span_ordinals=[j],
                        span_lines=[j + 2],
                        message="\u00e9" * 40,
                    )
                    for j in range(3)
                ],
            )
        )
    return report


def test_truncation_at_the_65536_character_limit():
    report = _huge_report()
    full = render_markdown(report, max_chars=10_000_000, details_url=URL)
    assert len(full) > 300_000
    text = render_markdown(report, details_url=URL)
    assert len(text) <= 65_536
    assert len(text.encode("utf-8")) <= 65_536
    assert len(text.encode("utf-16-le")) // 2 <= 65_536
    assert len(text) > 50_000  # it uses the room it has
    balanced(text)
    assert "This summary was cut to fit GitHub's size limit" in text
    assert f"[full report]({URL})" in text.split("This summary was cut")[1]
    assert text.rstrip().endswith("</sub>")  # the footer survives
    assert full.startswith(text.split("> [!NOTE]")[0].rstrip())  # a prefix of the full text


def test_step_summary_limit_and_smaller_limits():
    report = _huge_report()
    summary = render_markdown(report, max_chars=1 << 20)
    assert len(summary.encode("utf-8")) <= 1 << 20
    balanced(summary)
    for limit in (3_000, 12_345, 40_000):
        text = render_markdown(fx.fail_report(), max_chars=limit)
        assert len(text.encode("utf-8")) <= limit
        balanced(text)
    with pytest.raises(ValueError):
        render_markdown(report, max_chars=100)


def test_report_that_fits_is_not_cut():
    text = render_markdown(fx.gated("fail"))
    assert "cut to fit" not in text


def test_malicious_names_cannot_ping_link_or_inject():
    text = render_markdown(fx.malicious_report(), details_url=URL)
    balanced(text)
    assert "<script" not in text and "<img" not in text
    assert "@octocat" not in text and "@&#8203;octocat" in text
    assert not re.search(r"(?<![&\w])#\d", text)
    assert "\x1b" not in text and "\x00" not in text and "\u202e" not in text
    html = to_html(text)
    tags = parse(html)
    assert not {"script", "img", "iframe"} & set(tags.tags)
    for name, value in tags.attrs:  # only links we made and table alignment
        assert (name, value) == ("href", URL) or (
            name == "style" and value.startswith("text-align:")
        ), (name, value)
    visible = "".join(tags.text)
    assert "<script>alert(1)</script>" in visible  # shown as text
    assert '"><img src=x onerror=alert(1)>' in visible
    assert "@\u200boctocat" in visible and "#\u200b123" in visible
    assert "pipe|name`tick`*star*_under_" in visible
    # table rows keep their column count despite pipes in names
    for table in re.findall(r"<table>.*?</table>", html, flags=re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        counts = {len(re.findall(r"<t[hd][ >]", row)) for row in rows}
        assert len(counts) == 1, counts


def test_md_escaping_helper():
    assert md("@team/x #7 GH-12 see https://evil.example") == (
        "@&#8203;team/x #&#8203;7 gh&#8203;-12 see https:/&#8203;/evil.example".replace("gh", "GH")
    )
    assert md("a|b") == "a\\|b"
    assert md("line\nbreak") == "line\\\\x0abreak"


def test_markdown_is_deterministic():
    assert render(fx.fail_report(), "markdown") == render(fx.fail_report(), "markdown")


def test_real_gate_diff_thresholds_in_every_metric_cell():
    """Each diff metric cell carries the limits of the gate's own diff_shape check."""
    example = REPO / "examples/refund-policy"
    report = run_gate(
        example / "traces/baseline", example / "traces/regressed", example / "behavior.yaml"
    )
    text = render_markdown(report)
    for limits in ("warn 0.12, fail 0.25", "warn 1, fail 2", "warn 0.15, fail 0.4"):
        assert f"<sub>({limits})</sub>" in text
