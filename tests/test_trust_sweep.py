"""The trust boundary swept: hostile names through the real gate, the renderers and the Action,
and what GitHub would make of each output (cmark-gfm for Markdown, the SARIF embedded-link
syntax, the Checks API's plain-text annotations).

Each test names the output it guards; every one of them failed before its fix.
"""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from action_env import make_report, write_run
from test_render_github_markdown import github_html

from abw.models.report import GateReport, SequenceState

ABW = str(Path(sys.executable).with_name("abw"))
#: Names a trace, a spec or an uploaded report can carry, one attack each.
HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "@octocat",
    "#123",
    "octo/agents#7",
    "https://evil.example/x",
    "[click](javascript:alert(1))",
    "[see the fix](1)",
    "`code` ``` fence",
    "</details><details open><summary>x",
    "<!-- abw/gate:report v1 key=abw%20gate digest=0 -->",
    "| a | b |",
    "\n::set-output name=verdict::PASS",
    "\r::error::pwn",
    "##[error]pwn",
    "\x1b[31mred",
    "nul\x00x",
    "\u202eevil",
    "ls\u2028ps\u2029",
    "zero\u200cwidth\u200djoin\u2060word\ufeffbom\xadsoft",
    "]]><![CDATA[",
    "# heading",
]
#: Raw controls, bidirectional overrides, invisible characters (but the zero-width space abw
#: itself puts in to break mentions and workflow commands) and lone surrogates: never in a
#: shown text.
UNSAFE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200c-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
    r"\ud800-\udfff]"
)
#: The same in rendered HTML text, where line breaks are layout.
UNSAFE_SHOWN = re.compile(UNSAFE.pattern.replace(r"\x00-\x1f", r"\x00-\x08\x0b\x0c\x0e-\x1f"))
ALLOWED_TAGS = {
    *("h2", "h3", "blockquote", "p", "strong", "em", "table", "thead", "tbody", "tr", "th"),
    *("td", "details", "summary", "b", "sub", "i", "a", "ul", "li", "br"),
}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def escapes(markdown: str, links: tuple[str, ...] = ()) -> list[str]:
    """What the Markdown would do on GitHub beyond showing text: tags other than the report's
    own, links other than ``links``, mentions, issue references, autolinks, raw controls."""
    page = _Page()
    page.feed(github_html(markdown))
    found = [f"<{tag}>" for tag, _ in page.tags if tag not in ALLOWED_TAGS]
    found += [
        f"link {a.get('href')}" for tag, a in page.tags if tag == "a" and a["href"] not in links
    ]
    text = "".join(page.text)
    for name, pattern in (
        ("mention", r"(?<![\w`])@[A-Za-z0-9]"),
        ("issue reference", r"(?<![&\w])#\d"),
        ("autolink", r"(?i)https?://evil"),
        ("control", UNSAFE_SHOWN.pattern),
    ):
        found += [f"{name}: {m.group()!r}" for m in re.finditer(pattern, text)]
    opened, closed = [t for t, _ in page.tags].count("details"), markdown.count("</details>")
    if opened != closed:
        found.append(f"<details> {opened} opened, {closed} closed")
    return found


# --- the real gate over hostile traces and a hostile spec: every format ----------------------
def hostile_workspace(root: Path) -> dict[str, str]:
    good = ["lookup_order", "policy_check", "refund_commit"]
    tools = [f"t{i}{name}" for i, name in enumerate(HOSTILE)]
    for i in range(3):
        write_run(root / "base" / f"b{i}.json", f"base-{i}", good)
    for i, name in enumerate(HOSTILE):
        path = [tools[(i + 1) % len(tools)], "lookup_order", tools[i], "refund_commit"]
        write_run(root / "cand" / f"c{i:02d}.json", f"cand-{i}{name}", path)
    spec = {
        "schema_version": "behavior-spec/v0",
        "id": "hostile" + HOSTILE[0] + HOSTILE[1],
        "invariants": {
            "forbidden_tools": tools[:10],
            "required_order": [{"before": "policy_check", "after": "refund_commit"}],
        },
        "rules": [
            {
                "kind": "precedence",
                "id": f"r{i}",
                "statement": name,
                "before": "policy_check",
                "after": tools[i],
            }
            for i, name in enumerate(HOSTILE)
        ],
        "thresholds": {"min_runs": 2},
    }
    (root / "spec.yaml").write_text(json.dumps(spec), encoding="utf-8")
    return {"baseline": "base", "candidate": "cand", "spec": "spec.yaml"}


@pytest.fixture(scope="module")
def gated(tmp_path_factory) -> tuple[GateReport, dict[str, Path]]:
    from abw.gating import run_gate
    from abw.render import write_reports

    root = tmp_path_factory.mktemp("sweep")
    paths = hostile_workspace(root)
    report = run_gate(*(root / paths[k] for k in ("baseline", "candidate", "spec")))
    return report, write_reports(report, root / "out", details_url="https://ci.example/run/1")


def test_the_markdown_report_renders_on_github_as_text_only(gated):
    report, written = gated
    assert report.verdict == "FAIL"
    markdown = written["markdown"].read_text(encoding="utf-8")
    assert escapes(markdown, links=("https://ci.example/run/1",)) == []


def test_sarif_messages_carry_no_embedded_link_from_trace_data(gated):
    """``[text](1)`` in a SARIF message is a link to related location 1 (code scanning renders
    it), ``[text](https://…)`` one to a URI: brackets from a trace are escaped (SARIF 3.11.6)."""
    _, written = gated
    sarif = json.loads(written["sarif"].read_text(encoding="utf-8"))
    texts = [r["message"]["text"] for run in sarif["runs"] for r in run["results"]]
    assert any("see the fix" in t for t in texts)  # the premise: the names are there
    link = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*(?<!\\)\]\(")
    assert [t for t in texts if link.search(t)] == []
    assert any(r"\[see the fix\](1)" in t for t in texts)  # shown as the same text


# --- SARIF URIs ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["run:1.json", "javascript:alert(1)", "c:x/y.json", "a/b:c.json"])
def test_a_relative_trace_path_with_a_colon_stays_a_relative_uri(path):
    from abw.render.sarif import artifact_uri

    uri = artifact_uri(path)
    assert urlsplit(uri).scheme == "", uri  # "run:1.json" would be the URI scheme "run"
    assert uri.replace("%3A", ":") == path


def test_an_uploaded_reports_information_uri_is_kept_only_when_http():
    from abw.render.sarif import sarif_document

    report = make_report("FAIL")
    for uri, kept in (("javascript:alert(1)", False), ("https://abw.example/gate", True)):
        forged = report.model_copy(
            update={"tool": report.tool.model_copy(update={"information_uri": uri})}
        )
        driver = sarif_document(forged)["runs"][0]["tool"]["driver"]
        assert driver.get("informationUri") == (uri if kept else None)


# --- Markdown links ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://ci.example/run\n#\towned", "data:text/html,x"]
)
def test_a_details_url_cannot_inject_markdown(url):
    from abw.render.markdown import render_markdown

    markdown = render_markdown(make_report("FAIL"), details_url=url)
    page = github_html(markdown)
    assert "<h1" not in page and 'href="javascript' not in page and 'href="data' not in page
    assert all(href.startswith("https://") for href in re.findall(r'href="([^"]*)"', page))


# --- the Action: check-run annotations and title --------------------------------------------
def hostile_report() -> GateReport:
    report = make_report("FAIL", violations=len(HOSTILE))
    check = report.checks[0]
    violations = [
        v.model_copy(
            update={
                "trace_id": f"run{name}",
                "trace_file": f"traces/candidate/{name}.json",
                "message": f"forbidden tool {name} called",
            }
        )
        for v, name in zip(check.violations, HOSTILE, strict=True)
    ]
    check = check.model_copy(update={"id": check.id + HOSTILE[16], "violations": violations})
    summary = f"FAIL: 1 check decided the verdict: {check.id} {HOSTILE[14]}."
    return report.model_copy(update={"checks": [check], "summary": summary})


def test_check_run_annotations_and_title_show_controls_as_text():
    """The Checks API shows annotation text as it is: a raw bidirectional override or escape
    would be shown (or refused); they are made visible as the workflow commands make them."""
    from abw.github.checks import run_title
    from abw.github.findings import findings

    report = hostile_report()
    items = findings(report)
    assert len(items) == len(HOSTILE)
    for item in items:
        for text in item.as_check_annotation().values():
            assert not UNSAFE.search(str(text)), text
    assert "\\u202e" in items[0].title and any("\\x1b" in i.message for i in items)
    title = run_title(report)
    assert not UNSAFE.search(title) and "\\x1b[31mred" in title and len(title) <= 255


def test_the_action_sends_clean_annotations_to_github(fake, runner):
    (runner.workspace / "r.json").write_text(hostile_report().model_dump_json())
    result = runner.run({"report": "r.json"})
    assert result.code == 1
    (run,) = fake.check_runs.values()
    assert not UNSAFE.search(run["output"]["title"])
    assert len(run["annotations"]) == len(HOSTILE)
    for annotation in run["annotations"]:
        for key in ("path", "title", "message"):
            assert not UNSAFE.search(annotation[key]), annotation


# --- the Action: the comment is cut by the renderer, never inside a block ---------------------
def long_report(scenarios: int, id_chars: int) -> GateReport:
    """A FAIL report longer than a comment, whose statistics carry run chains for many
    scenarios (the sticky comment's marker carries them), and a tool name with backticks."""
    report = make_report("FAIL", violations=50, message_chars=300, extra_checks=200)
    check = report.checks[0]
    violations = [
        v.model_copy(update={"message": "took t13`code` ``` fence"}) for v in check.violations
    ]
    (template,) = report.statistics
    sequence = SequenceState(order="recording", n=3, chain="0" * 64)
    stats = [
        template.model_copy(
            update={"scenario_id": f"s{i:04d}" + "x" * id_chars, "sequence": sequence}
        )
        for i in range(scenarios)
    ]
    return report.model_copy(
        update={
            "checks": [check.model_copy(update={"violations": violations}), *report.checks[1:]],
            "statistics": stats,
        }
    )


@pytest.mark.parametrize("scenarios, id_chars", [(12, 40), (400, 200)])
def test_the_comment_is_cut_between_blocks_whatever_the_marker_carries(
    fake, runner, scenarios, id_chars
):
    """The marker grows with the scenarios (their run chains): the Markdown under it is
    rendered for the room left, so the renderer cuts it between blocks; the marker lists the
    chains that fit in its 8,192 characters, and the count the others may have spent."""
    from abw.github.comment import COMMENT_LIMIT, MARKER_LIMIT, parse_marker

    (runner.workspace / "r.json").write_text(long_report(scenarios, id_chars).model_dump_json())
    result = runner.run({"report": "r.json"})
    assert result.code == 1, result.stdout + result.stderr
    (comment,) = fake.comments.values()
    body = comment["body"]
    marker, markdown = body.split("\n", 1)
    assert len(body) <= COMMENT_LIMIT and len(marker) <= MARKER_LIMIT
    assert "**Truncated**" not in markdown  # not clipped by the body's last resort
    assert "> [!NOTE]" in markdown and markdown.endswith("</sub>\n")  # the renderer's own cut
    assert escapes(markdown, links=("https://github.example/octo/agents/actions/runs/4242",)) == []
    from abw.gating.sequence import decode_marker

    marker = decode_marker(parse_marker(body)["chain"])  # the chains that fit, and a floor
    assert (len(marker.sequences) == scenarios) == (marker.unlisted is None) == (scenarios == 12)


def test_clipping_counts_fence_lines_not_backticks_in_a_line():
    from abw.github.checks import clip_markdown

    summary = "<details><summary>candidate took t13`code` ``` fence</summary>\n\n"
    text = summary + "| a |\n|---|\n" + "| row |\n" * 20_000 + "\n</details>\n"
    clipped = clip_markdown(text, 10_000, "https://ci.example/run/1")
    assert "\n```" not in clipped
    assert "<pre>" not in github_html(clipped)
    fenced = clip_markdown("```\n" + "line\n" * 5_000, 1_000)
    assert fenced.count("\n```") == 1 and "<pre>" in github_html(fenced)


# --- the Action: a report whose footer does not fit, and the plain fallback -------------------
def test_an_oversized_tool_version_neither_fails_the_renderer_nor_publishes_raw_markdown(
    fake, runner
):
    report = json.loads(make_report("FAIL").model_dump_json())
    report["tool"]["version"] = "1" * 70_000
    report["summary"] = (
        "FAIL: <img src=https://evil.example/p.png> @octocat #1 [x](https://evil.example)"
    )
    (runner.workspace / "r.json").write_text(json.dumps(report))
    result = runner.run({"report": "r.json"})
    assert result.code == 1
    assert "could not" not in result.stdout, result.stdout  # every format written and rendered
    (comment,) = fake.comments.values()
    (run,) = fake.check_runs.values()
    run_link = ("https://github.example/octo/agents/actions/runs/4242",)
    for markdown in (comment["body"].split("\n", 1)[1], run["output"]["summary"], result.summary):
        assert escapes(markdown, links=run_link) == []


def test_the_plain_fallback_escapes_like_the_renderer(monkeypatch):
    import abw.render.markdown
    from abw.github.commands import Console
    from abw.github.main import _markdown

    def broken(*args, **kwargs):
        raise ValueError("renderer failed")

    monkeypatch.setattr(abw.render.markdown, "render_markdown", broken)
    report = make_report("FAIL").model_copy(
        update={
            "summary": "FAIL: <img src=x onerror=alert(1)> @octocat #1 [x](https://evil.example)"
        }
    )

    class Sink:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def write(self, text: str) -> None:
            self.lines.append(text)

        def flush(self) -> None:
            pass

    sink = Sink()
    markdown = _markdown(report, 65_536, "javascript:alert(1)", Console(sink), "@team gate")
    assert escapes(markdown) == []
    assert "FAIL" in markdown and "could not render" in "".join(sink.lines)


# --- the Action: an odd API answer before the verdict never becomes the exit code ------------
@pytest.mark.parametrize("sha", [None, 12345])
def test_an_odd_pull_request_answer_keeps_the_verdicts_exit_code(fake, tmp_path, sha):
    """Gate mode with an event-file claim looks the PR up before the gate settles the verdict
    (its earlier comment's run chains); a PR whose head the API leaves out is ignored with a
    warning, not an internal error with exit code 2 and no outputs."""
    from action_env import HEAD_SHA, Runner, write_gate_workspace

    fake.pull_heads = {7: (sha, "someone/agents")}
    event = {
        "action": "completed",
        "workflow_run": {
            "id": 5,
            "event": "pull_request",
            "head_sha": HEAD_SHA,
            "head_repository": {"full_name": "someone/agents"},
            "pull_requests": [],
        },
    }
    runner = Runner(tmp_path, fake.url, event_name="workflow_run", payload=event)
    inputs = write_gate_workspace(runner.workspace, "FAIL")
    claim = {"number": 7, "pull_request": {"number": 7, "head": {"sha": HEAD_SHA}}}
    (runner.workspace / "event.json").write_text(json.dumps(claim))
    result = runner.run({**inputs, "event-file": "event.json"})
    assert result.code == 1 and result.outputs["exit-code"] == "1", result.stdout + result.stderr
    assert "internal error" not in result.stdout + result.stderr
    ignored = "the event-file input is ignored: pull request #7's head is unknown"
    assert ignored in result.stdout or "pull request lookup failed" in result.stdout
    assert not fake.comments


# --- one cut for every GitHub text: the step summary closes what it opened ------------------
LATER = "LATER-STEP-SUMMARY"


def enclosed(markdown: str) -> dict[str, int]:
    """How many ``<details>`` and code blocks are still open where a later step's summary
    starts, once GitHub has rendered ``markdown`` followed by it."""
    page = github_html(markdown + f"\n\n{LATER}\n")
    before = page[: page.index(LATER)]
    return {
        "details": len(re.findall(r"<details[\s>]", before)) - before.count("</details>"),
        "pre": before.count("<pre") - before.count("</pre>"),
    }


def test_a_step_summary_after_a_nearly_full_one_closes_what_it_opened(tmp_path, fake):
    """An earlier step left little of the 1 MiB: abw's summary is cut there, and the cut
    closes every ``<details>`` it opened, or the summary after it would be folded inside."""
    from action_env import Runner

    from abw.github.outputs import SUMMARY_LIMIT_BYTES

    line = "- line of an earlier step's summary é ✓\n"
    earlier = line * ((SUMMARY_LIMIT_BYTES - 10_000) // len(line.encode()))
    runner = Runner(tmp_path, fake.url, summary_prefix=earlier)
    assert SUMMARY_LIMIT_BYTES - len(earlier.encode()) < 10_100  # half the report's room
    report = make_report("FAIL", violations=50)
    (check,) = report.checks
    words = "the agent called refund_commit before policy_check é ✓ " * 20
    violations = [v.model_copy(update={"message": words}) for v in check.violations]
    report = report.model_copy(
        update={"checks": [check.model_copy(update={"violations": violations})]}
    )
    (runner.workspace / "r.json").write_text(report.model_dump_json())
    result = runner.run({"report": "r.json"})
    assert result.code == 1, result.stdout + result.stderr
    assert len(result.summary.encode()) <= SUMMARY_LIMIT_BYTES
    ours = result.summary[len(earlier) :]
    assert "abw gate" in ours and ("cut to fit" in ours or "Truncated" in ours)  # it was cut
    assert enclosed(ours) == {"details": 0, "pre": 0}, ours[-600:]


@pytest.mark.parametrize("unit", ["chars", "bytes"])
def test_the_last_resort_cut_closes_fences_and_details_in_either_unit(unit):
    from abw.github.checks import clip_markdown
    from abw.github.clip import size
    from abw.github.outputs import fit_summary

    text = "<details><summary>é ✓</summary>\n\n" + "| é ✓ |\n" * 5_000 + "\n</details>\n\n"
    text += "<details><summary>x</summary>\n\n```\n" + "<details> é\n" * 5_000 + "```\n</details>\n"
    for limit in (1_000, 40_000, 60_000, 80_000, 100_000):
        clipped = fit_summary(text, limit) if unit == "bytes" else clip_markdown(text, limit, None)
        assert 0 < size(clipped, unit) <= limit
        assert enclosed(clipped) == {"details": 0, "pre": 0}, (limit, clipped[-300:])
    assert fit_summary(text, 20) == ""  # not even the note fits: nothing, never a broken cut


# --- an uploaded report's fields within GitHub's limits: SARIF driver, rules, size; external_id --
def test_an_uploaded_reports_tool_and_digest_reach_github_only_as_abw_vouches(fake, runner):
    """Workflow B publishes the report workflow A uploaded: its ``tool.name`` became the
    code-scanning tool (``CodeQL``, with markup), its ``tool.version`` the semanticVersion (any
    text, 100 kB). (Its inputs digest, the check run's ``external_id``, must be the one its
    listed hashes give, or the report is refused: tests/test_action_trust.py.)"""
    report = json.loads(make_report("FAIL").model_dump_json())
    report["tool"] = {"name": "CodeQL <img src=x>", "version": "<b>1</b>" + "9" * 100_000}
    (runner.workspace / "r.json").write_text(json.dumps(report))
    result = runner.run({"report": "r.json"})
    assert result.code == 1, result.stdout + result.stderr
    (run,) = fake.check_runs.values()
    assert run["external_id"] == report["inputs"]["digest"]
    sarif = json.loads((runner.workspace / result.outputs["sarif"]).read_text())
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "abw" and "version" not in driver and "semanticVersion" not in driver
    for warning in (
        "the report names its tool 'CodeQL <img src=x>': the SARIF names abw",
        "the report's tool version is not a version",
    ):
        assert warning in result.stdout, result.stdout


@pytest.mark.parametrize(
    "version, kept", [("0.4.2", 2), ("1.0.0-rc.1+build.5", 2), ("2024.1", 1), ("1 <b>", 0)]
)
def test_the_sarif_driver_version_is_a_version_or_nothing(version, kept):
    from abw.render.sarif import sarif_document

    report = make_report("FAIL")
    forged = report.model_copy(update={"tool": report.tool.model_copy(update={"version": version})})
    driver = sarif_document(forged)["runs"][0]["tool"]["driver"]
    assert len({"version", "semanticVersion"} & set(driver)) == kept
    assert driver.get("version", version) == version


def test_sarif_rules_past_the_limit_share_one_rule(monkeypatch):
    """Code scanning rejects a run with more rules than its limit; an edited report can hold
    any number of check kinds (the limit is lowered here to keep the report small)."""
    import abw.render.sarif as sarif

    monkeypatch.setattr(sarif, "MAX_RULES", 5, raising=False)
    report = make_report("FAIL", extra_checks=8)
    checks = [c.model_copy(update={"rule": f"kind_{i}"}) for i, c in enumerate(report.checks)]
    report = report.model_copy(update={"checks": checks})
    doc = sarif.sarif_document(report)
    (run,) = doc["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert len(rules) == 5 and rules[-1]["id"] == "abw-other-check-kinds"
    assert {r["ruleId"] for r in run["results"]} == {r["id"] for r in rules}
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    text = sarif.render_sarif(report)
    assert any("share the rule" in n for n in sarif.limit_notes(report, text))


def test_the_sarif_is_never_over_its_gzip_limit_whatever_the_report_holds():
    """Halving the results could not shrink one huge text: past one result per check the file
    went out over the limit, and code scanning rejects it whole."""
    import gzip
    import os

    from abw.render import sarif

    report = make_report("FAIL", violations=3)
    (check,) = report.checks
    noise = [os.urandom(150_000).hex() for _ in check.violations]
    violations = [
        v.model_copy(update={"message": n, "trace_file": n[:9_000] + ".json"})
        for v, n in zip(check.violations, noise, strict=True)
    ]
    report = report.model_copy(
        update={
            "checks": [check.model_copy(update={"violations": violations})],
            "spec_id": os.urandom(150_000).hex(),  # in every result's category: never folded
        }
    )
    for limit in (60_000, 8_000):
        try:
            text = sarif.render_sarif(report, max_gzip_bytes=limit)
        except ValueError as exc:
            assert "gzipped" in str(exc) and limit == 8_000
            continue
        assert len(gzip.compress(text.encode(), mtime=0)) <= limit
        notes = sarif.limit_notes(report, text)
        assert any("shortened" in n or "folded" in n for n in notes)


def test_more_failing_checks_than_results_still_fit_the_result_limit():
    """Every check kept one summary result, so a report with more non-passing checks than
    code scanning's result limit went over it (the limit is lowered here)."""
    from abw.render.sarif import sarif_document

    report = make_report("FAIL", extra_checks=8)
    (run,) = sarif_document(report, max_results=5)["runs"]
    assert len(run["results"]) == 5
    assert "5 more non-passing checks" in run["results"][-1]["message"]["text"]


def test_an_invisible_character_in_a_name_is_shown():
    """``refund\\u200bcommit`` read as ``refundcommit`` in every view while it is another
    name (the rule for ``refundcommit`` never matches it): invisible characters are shown
    escaped, as controls are; the zero-width space abw puts in after a ``:`` stays one."""
    from abw.text import clean, log_line

    for char in "\u200b\u200c\u200d\u2060\u2063\ufeff\u180e":
        assert clean(f"refund{char}commit") == f"refund\\u{ord(char):04x}commit"
    assert clean("soft\xadhyphen") == "soft\\xadhyphen"
    assert log_line("a::b\u200b") == "a:\u200b:b\\u200b"
