"""Reports of real size and with very long names: the HTML fits the screen, ``abw report``
renders a loaded report without copying it again, and every format stays byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from render_browser import Browser
from test_gate_factory import REFUND, runs

from abw.cli import run
from abw.cli.report_cmd import report as report_command
from abw.gating import gate, report_json
from abw.models.report import GateReport
from abw.models.spec import Spec
from abw.render import FORMATS, canonical, load_report, render

#: A tool name of one 300-character word (an MCP server and tool name can be this long).
LONG_TOOL = "mcp__" + "long_server_name_" * 17 + "tool"
OTHER_TOOL = "mcp__" + "another_server_" * 14 + "tool"
SPEC = {
    "schema_version": "behavior-spec/v0",
    "id": "long-names",
    "invariants": {"required_tools": ["policy_check"], "forbidden_tools": [LONG_TOOL]},
    "thresholds": {"min_runs": 5},
}


def _candidate_path(i: int) -> list[str]:
    if i % 3 == 0:
        return [*REFUND, LONG_TOOL]
    return [*REFUND, OTHER_TOOL] if i % 3 == 1 else REFUND


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real gate over 40 baseline and 300 candidate runs, a third of them calling a forbidden
    tool with a 300-character name, written as ``abw gate`` writes it."""
    baseline = runs("base", [REFUND] * 40, folder="traces/baseline")
    candidate = runs("cand", [_candidate_path(i) for i in range(300)], folder="traces/cand")
    spec = Spec.model_validate(SPEC)
    result = gate(baseline, candidate, spec, spec_file="behavior.yaml", spec_sha256="0" * 64)
    path = tmp_path_factory.mktemp("scale") / "gate-report.json"
    path.write_text(report_json(result), encoding="utf-8")
    return path


PAGE_OVERFLOW = """(() => {
  const width = window.innerWidth;
  return [document.documentElement.scrollWidth, width];
})()"""


@pytest.mark.parametrize(("width", "mobile"), [(1280, False), (390, True)])
def test_long_tool_names_wrap_instead_of_widening_the_page(report_file, tmp_path, width, mobile):
    """New tools listed side by side and violation messages naming a 300-character tool wrap
    within the screen, on a laptop and on a phone (they used to widen the page to 3,700 px)."""
    html = tmp_path / "report.html"
    assert run(report_command, ["-i", str(report_file), "-o", str(html)]) == 0
    with Browser(tmp_path / "profile") as browser:
        browser.open(html.as_uri(), width=width, mobile=mobile)
        assert browser.problems() == []
        page_width, screen = browser.evaluate(PAGE_OVERFLOW)
        assert browser.evaluate(f"document.body.innerText.includes('{LONG_TOOL}')")
    assert page_width <= screen == width


def test_a_loaded_report_is_not_copied_again(report_file):
    """``abw report`` renders the report it read as is: the file is already in the canonical
    order, so the validate-again copy (over half of ``abw report``'s time at 10,000 runs) is
    skipped, and every format comes out the same as from the copy."""
    loaded = load_report(report_file)
    assert canonical(loaded) is loaded
    copy = GateReport.model_validate(json.loads(report_json(loaded)))
    for fmt in FORMATS:
        assert render(loaded, fmt) == render(copy, fmt), fmt


def test_a_file_in_another_key_order_renders_the_same_bytes(report_file, tmp_path):
    """A report file whose mappings were written in another key order (hand-edited, another
    JSON writer) is still put in canonical order first: all five files are the same bytes."""
    document = json.loads(report_file.read_text(encoding="utf-8"))
    for check in document["checks"]:
        check["measured"] = dict(reversed(list(check["measured"].items())))
        check["limits"] = dict(reversed(list(check["limits"].items())))
    for diff in document["diff"]:
        diff["candidate_tool_means"] = dict(reversed(list(diff["candidate_tool_means"].items())))
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(json.dumps(document, indent=1), encoding="utf-8")
    edited = load_report(shuffled)
    copied = canonical(edited)
    assert copied is not edited
    assert canonical(copied) is copied  # the copy is canonical: rendering again copies no more
    for name, source in (("sorted", report_file), ("shuffled", shuffled)):
        args = ["-i", str(source), "--out-dir", str(tmp_path / name)]
        assert run(report_command, args) == 0
    for name in ("gate-report.json", "report.html", "report.md", "report.sarif"):
        sorted_bytes = (tmp_path / "sorted" / name).read_bytes()
        assert (tmp_path / "shuffled" / name).read_bytes() == sorted_bytes, name
    assert (tmp_path / "sorted" / "gate-report.json").read_bytes() == report_file.read_bytes()


def test_sarif_is_written_without_the_pure_python_json_encoder(report_file, monkeypatch):
    """The SARIF text is the standard library's ``indent=2`` form, byte for byte, but written by
    orjson: the standard library's indented encoder runs in Python and took 10 s of a 14 s
    ``abw report`` at 25,000 results."""
    import json.encoder

    loaded = load_report(report_file)
    expected = render(loaded, "sarif")
    calls: list[object] = []
    python_encoder = json.encoder._make_iterencode

    def counted(*args, **kwargs):
        calls.append(args)
        return python_encoder(*args, **kwargs)

    monkeypatch.setattr(json.encoder, "_make_iterencode", counted)
    text = render(loaded, "sarif")
    assert calls == []
    monkeypatch.undo()
    assert text == expected
    assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
    assert len(json.loads(text)["runs"][0]["results"]) >= 100
