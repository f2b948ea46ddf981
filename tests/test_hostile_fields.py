"""Hostile text in every field of a gate report, and in importers' warnings, on every channel.

A property test: hypothesis puts text built from workflow commands (``::`` and ``##[``),
terminal escapes, control characters, HTML, Markdown, mentions and XML breakers into every free
text field of a gate report (hashes, versions and ids included), then checks every channel the
report reaches: the Markdown (PR comment, check run, step summary), JUnit, SARIF, HTML, the
terminal text of ``abw gate`` and ``abw explain``, and the Action's log lines, outputs and job
summary (the Action run in-process, without a token, so nothing leaves the machine).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from action_env import make_report, parse_outputs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abw.models.report import GateReport

FRAGMENTS = [
    "::",
    "::error::pwned",
    "\n::set-output name=verdict::PASS",
    "##[stop-commands]tok",
    "##[error]x",
    "#",
    "##",
    "[",
    "\x1b[31m",
    "\x1b]0;t\x07",
    "\x00",
    "\r",
    "\n",
    "\t",
    "\x9b",
    "\u202e",
    "<img src=x onerror=alert(1)>",
    "<script>",
    "</details>",
    "-->",
    "@octocat",
    "#1",
    "https://evil.example",
    "]]>",
    "&amp;",
    '"',
    "|",
    "_",
    "*",
    "`",
    "%0A",
    "%",
]
HOSTILE = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=3)), min_size=1, max_size=6
).map("".join)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
COMMAND_LINE = re.compile(r"::(error|warning|notice|add-mask)( [^:]*)?::")


def _text_paths() -> list[tuple[Any, ...]]:
    """Every string field of a gate report that takes free text (not a verdict, role, ...)."""
    document = make_report("FAIL", violations=2).model_dump(mode="json")
    paths: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*path, index))
        elif isinstance(value, str) and path not in (("schema_version",), ("summary",)):
            trial = json.loads(json.dumps(document))
            _set(trial, path, "free <text>")
            try:
                GateReport.model_validate(trial)
            except ValueError:
                return  # a Literal (verdict, category, role, ...)
            paths.append(path)

    walk(document, ())
    return paths


def _set(document: Any, path: tuple[Any, ...], value: str) -> None:
    for key in path[:-1]:
        document = document[key]
    document[path[-1]] = value


PATHS = _text_paths()


def hostile_report(values: list[str]) -> GateReport:
    document = make_report("FAIL", violations=2).model_dump(mode="json")
    for path, value in zip(PATHS, values, strict=True):
        _set(document, path, value)
    document["summary"] = "FAIL: " + values[0]  # stays consistent, so the Action publishes it
    document["checks"][0]["measured"] = {values[1]: values[2]}
    return GateReport.model_validate(document)


def check_log(text: str, where: str) -> None:
    """No line can be (or contain) a workflow command, a terminal escape or a control."""
    for line in text.split("\n"):
        assert not CONTROL.search(line), f"{where}: control character in {line!r}"
        assert "##[" not in line, f"{where}: ##[ in {line!r}"
        stripped = line.lstrip()
        if stripped.startswith("::"):
            assert COMMAND_LINE.match(stripped), f"{where}: workflow command {line!r}"
            assert "::" not in stripped[COMMAND_LINE.match(stripped).end() :], line


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.handlers += [name for name, _ in attrs if name.startswith("on")]


MARKDOWN_TAGS = {"details", "summary", "b", "i", "sub", "br"}


def check_markdown(text: str, where: str) -> None:
    assert not CONTROL.search(text.replace("\n", "")), f"{where}: control character"
    parser = _Tags()
    parser.feed(text)
    assert parser.tags <= MARKDOWN_TAGS, f"{where}: raw tags {parser.tags - MARKDOWN_TAGS}"
    assert not parser.handlers, where
    assert not re.search(r"@[A-Za-z0-9]", text), f"{where}: a live @mention"
    assert "-->" not in text.split("\n", 1)[-1], f"{where}: an HTML comment closer"


def check_html(text: str) -> None:
    parser = _Tags()
    parser.feed(text)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert not parser.handlers


def check_strings(value: Any, where: str) -> None:
    if isinstance(value, str):
        assert not CONTROL.search(value.replace("\n", "")), f"{where}: {value!r}"
    elif isinstance(value, dict):
        for key, item in value.items():
            check_strings(key, where)
            check_strings(item, where)
    elif isinstance(value, list):
        for item in value:
            check_strings(item, where)


def run_action(root: Path, report: GateReport) -> tuple[str, dict[str, str], str]:
    """The Action in-process, publishing ``report`` with no token: (log, outputs, summary).

    The report is made to agree with itself as the gate writes it: each listed input's run and
    scenario are its ``runs[]`` row's (an input with none is dropped), each sequence counts its
    scenario's n, and the inputs digest is the one its (hostile) listed hashes give: the Action
    refuses a report that contradicts itself (tests/test_action_trust.py)."""
    from abw.gating.ledger import inputs_digest
    from abw.github.commands import Console
    from abw.github.main import run

    rows = {(r.role, r.trace_file): r for r in report.runs}
    traces = [
        t.model_copy(update={"trace_id": row.trace_id, "scenario_id": row.scenario_id})
        for t in report.inputs.traces
        if (row := rows.get((t.role, t.file))) is not None
    ]
    statistics = [
        s.model_copy(update={"sequence": s.sequence.model_copy(update={"n": s.n})})
        if s.sequence is not None
        else s
        for s in report.statistics
    ]
    digest = inputs_digest(report.inputs.spec_sha256, [t.sha256 for t in traces])
    listed = report.inputs.model_copy(update={"traces": traces, "digest": digest})
    report = report.model_copy(update={"inputs": listed, "statistics": statistics})

    if root.exists():
        shutil.rmtree(root)
    workspace = root / "ws"
    workspace.mkdir(parents=True)
    (workspace / "r.json").write_text(report.model_dump_json(), encoding="utf-8")
    output, summary = root / "out.txt", root / "summary.md"
    output.write_text("")
    summary.write_text("")
    env = {
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_REPOSITORY": "octo/agents",
        "GITHUB_RUN_ID": "1",
        "INPUT_REPORT": "r.json",
        "INPUT_FAIL-ON": "never",
    }
    stream = io.StringIO()
    assert run(env, Console(stream)) == 0
    return stream.getvalue(), parse_outputs(output.read_text()), summary.read_text()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(values=st.lists(HOSTILE, min_size=len(PATHS), max_size=len(PATHS)))
def test_hostile_text_in_every_report_field_is_inert_on_every_channel(tmp_path, values):
    from abw.cli.gate_cmd import format_summary
    from abw.explain import explain
    from abw.pytest_plugin import explain_report
    from abw.render.html import render_html
    from abw.render.junit import render_junit
    from abw.render.markdown import render_markdown
    from abw.render.sarif import render_sarif

    report = hostile_report(values)
    check_markdown(render_markdown(report, details_url="https://github.example/r/1"), "markdown")
    junit = render_junit(report)
    assert not CONTROL.search(junit.replace("\n", ""))
    ET.fromstring(junit.encode("utf-8"))  # well-formed
    check_strings(json.loads(render_sarif(report)), "sarif")
    check_html(render_html(report))
    check_log(format_summary(report), "abw gate")
    check_log(explain_report(report), "pytest plugin")
    for check in report.checks:
        check_log(explain(report, check.id), "abw explain")
    log, outputs, summary = run_action(tmp_path / "action", report)
    check_log(log, "Action log")
    assert outputs["verdict"] == "FAIL"
    check_markdown(summary, "step summary")


def test_every_free_text_field_is_covered():
    names = {".".join(str(p) for p in path) for path in PATHS}
    for expected in (
        "tool.version",
        "inputs.spec_sha256",
        "inputs.digest",
        "inputs.traces.0.sha256",
        "checks.0.id",
        "checks.0.violations.0.trace_id",
        "spec_id",
    ):
        assert expected in names


@settings(max_examples=40, deadline=None)
@given(warnings=st.lists(HOSTILE, min_size=1, max_size=4))
def test_importer_warnings_are_inert(warnings):
    """Every importer's warnings reach the terminal through one function of ``abw import``."""
    from click.testing import CliRunner

    from abw.cli.import_cmd import _report
    from abw.importers.base import ImportOptions

    options = ImportOptions(warnings=list(warnings))

    import click

    @click.command()
    def show() -> None:
        _report(options, [], Path("out"), False)

    result = CliRunner().invoke(show, [])
    assert result.exit_code == 0
    check_log(result.stderr, "abw import")
    assert result.stderr.count("abw: warning: ") == len(warnings)


def test_a_real_import_warning_with_hostile_record_types(tmp_path, run_cli):
    source = Path(__file__).parent / "corpus" / "codex" / "simonw-cct__sample_codex_session.jsonl"
    text = source.read_text(encoding="utf-8")
    hostile = {
        "timestamp": "2025-12-28T12:18:31Z",
        "type": "##[stop-commands]x\x1b[2J",
        "payload": {},
    }
    (tmp_path / "in.jsonl").write_text(text.rstrip("\n") + "\n" + json.dumps(hostile) + "\n")
    code, _, err = run_cli(
        "import", "codex", "--input", tmp_path / "in.jsonl", "--out", tmp_path / "out.json"
    )
    assert code == 0, err
    assert "skipped unknown record types" in err  # the premise: the type is in the warning
    check_log(err, "abw import codex")


@pytest.mark.parametrize("text", ["##[stop-commands]x", "a ::error::b", "\x1b[31mred"])
def test_log_line_breaks_commands_and_escapes(text):
    from abw.text import log_line

    shown = log_line(text)
    assert "##[" not in shown and "::" not in shown and "\x1b" not in shown
    assert shown.replace("\u200b", "").replace("\\x1b", "\x1b") == text


def test_json_printed_to_the_terminal_is_inert_with_the_same_data(tmp_path, run_cli):
    """``--format json`` output of diff, fingerprint and explain: ``::`` and ``##[`` only as
    JSON ``\\u`` escapes, so the log is safe and the data unchanged."""
    from action_env import write_run

    from abw.gating import report_json, run_gate

    tool = "##[stop-commands]x::y"
    for role in ("baseline", "candidate"):
        for i in range(3):
            path = ["lookup_order", tool] if role == "candidate" else ["lookup_order"]
            write_run(tmp_path / role / f"r{i}.json", f"{role}-{i}::##[", path)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "schema_version: behavior-spec/v0\nid: x\ninvariants:\n"
        f"  forbidden_tools: [{json.dumps(tool)}]\n",
        encoding="utf-8",
    )
    report = tmp_path / "gate-report.json"
    report.write_text(report_json(run_gate(tmp_path / "baseline", tmp_path / "candidate", spec)))
    check_id = next(
        c.id
        for c in run_gate(tmp_path / "baseline", tmp_path / "candidate", spec).checks
        if "forbidden" in c.id
    )
    runs = [
        (
            "diff",
            "--baseline",
            tmp_path / "baseline",
            "--candidate",
            tmp_path / "candidate",
            "--format",
            "json",
        ),
        ("fingerprint", tmp_path / "candidate", "--format", "json"),
        ("explain", check_id, "--report", report, "--format", "json"),
    ]
    for args in runs:
        code, out, err = run_cli(*args)
        assert code == 0, err
        check_log(out + err, args[0])
        shown = json.dumps(json.loads(out), ensure_ascii=False)  # the same data, unescaped
        assert (tool if args[0] != "fingerprint" else "candidate-0::##[") in shown, args[0]


def test_an_output_field_warning_with_a_hostile_field_name_is_inert(tmp_path, run_cli):
    """``--output-fields`` names given by a user (or a workflow's input) come back in the import's
    warning when no answer holds them: through the same one function, inert."""
    source = next(
        (Path(__file__).parents[1] / "examples/refund-policy/transcripts/baseline").glob("*.jsonl")
    )
    code, _, err = run_cli(
        "import", "claude", "--input", source, "--out", tmp_path / "r.json",
        "--output-fields", "::error::x,##[stop-commands]y",
    )  # fmt: skip
    assert code == 0 and "--output-fields" in err  # the premise: the names are in the warning
    check_log(err, "abw import claude")
