"""The Markdown as GitHub shows it: rendered by cmark-gfm (GitHub's CommonMark fork, from
Debian) with the GFM extensions, and asserted on the rendered text, not the source.

Markdown escapes are not processed inside raw HTML (a ``<summary>`` line), so a backslash there
is shown; the comment, the check-run summary and the job summary must all read clean.
"""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser

from action_env import Runner, make_report
from conftest import REPO

CMARK = shutil.which("cmark-gfm")
EXTENSIONS = ("table", "autolink", "strikethrough", "tagfilter", "tasklist")


def github_html(markdown: str) -> str:
    assert CMARK, "cmark-gfm is not installed (scripts/setup.sh installs it from Debian)"
    args = [CMARK, "--unsafe", "--github-pre-lang"]
    for extension in EXTENSIONS:
        args += ["-e", extension]
    return subprocess.run(
        args, input=markdown, capture_output=True, text=True, check=True, timeout=60
    ).stdout


class _Text(HTMLParser):
    """Text of every ``<summary>`` and table cell, and all text."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.summaries: list[str] = []
        self.cells: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag == "summary":
            self.summaries.append("")
        if tag in ("td", "th"):
            self.cells.append("")

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if "summary" in self.stack:
            self.summaries[-1] += data
        if "td" in self.stack or "th" in self.stack:
            self.cells[-1] += data


def shown(markdown: str) -> _Text:
    parser = _Text()
    parser.feed(github_html(markdown))
    parser.summaries = [s.replace("\u200b", "") for s in parser.summaries]
    parser.cells = [c.replace("\u200b", "") for c in parser.cells]
    return parser


def assert_reads_clean(markdown: str) -> _Text:
    page = shown(markdown)
    assert page.summaries, "the premise: there are <summary> lines"
    for text in page.summaries + page.cells:
        assert "\\" not in text, f"a Markdown escape is shown: {text!r}"
    return page


def test_summary_lines_and_cells_show_names_without_backslashes():
    from abw.render.markdown import render_markdown

    report = make_report("FAIL", violations=2)
    page = assert_reads_clean(render_markdown(report))
    assert any("behavior_contract.required_order[0]" in s for s in page.summaries)
    assert "refund_commit ran before policy_check." in page.cells


def test_a_real_gate_report_reads_clean_including_the_divergence():
    from abw.gating import run_gate
    from abw.render.markdown import render_markdown

    example = REPO / "examples" / "refund-policy"
    report = run_gate(
        example / "traces" / "baseline",
        example / "traces" / "regressed",
        example / "behavior.yaml",
    )
    page = assert_reads_clean(render_markdown(report))
    assert any(s.startswith("First divergent step") for s in page.summaries)
    assert any("checks passed" in s for s in page.summaries)


def test_comment_check_summary_and_job_summary_read_clean(fake, tmp_path):
    runner = Runner(tmp_path, fake.url)
    (runner.workspace / "r.json").write_text(make_report("FAIL", violations=2).model_dump_json())
    result = runner.run({"report": "r.json"})
    assert result.code == 1
    (comment,) = fake.comments.values()
    (run,) = fake.check_runs.values()
    for markdown in (comment["body"], run["output"]["summary"], result.summary):
        page = assert_reads_clean(markdown)
        assert any("behavior_contract.required_order[0]" in s for s in page.summaries)
    # the hidden marker stays hidden
    assert "abw/gate:report" not in "".join(shown(comment["body"]).text)


def test_text_that_starts_a_line_opens_no_block():
    """A check message or violation starting "- ", "1. ", "---" or four spaces became a list,
    a rule or a code block where it starts a line of the report; a space inside ``**…**``
    undid the emphasis. GitHub shows each as the text it is."""
    from abw.render.common import md
    from abw.render.markdown import render_markdown

    texts = ["- not a list", "1. not a list", "---", "    not code", "=== x", "+ y", "0.5 z "]
    for text in texts:
        html = github_html(f"intro\n\n{md(text)}\n\n**{md(text)}**\n")
        assert "<li>" not in html and "<hr" not in html and "<pre>" not in html, (text, html)
        assert html.count("<strong>") == 1, (text, html)
        assert shown(f"{md(text)}\n").text[0].rstrip("\n") == text.replace("\u200b", "")
    report = make_report("FAIL", violations=1)
    for check in report.checks:
        check.message = "- 2 runs broke it"
        for violation in check.violations:
            violation.message = "1. refund before policy"
    html = github_html(render_markdown(report))
    assert "<li>2 runs" not in html and "<li>refund" not in html
