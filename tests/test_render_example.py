"""Reports of the refund-policy example (`abw demo`): all five formats, valid, for its three
verdicts."""

from __future__ import annotations

import json

import pytest
from test_render_junit import schema as junit_schema
from test_render_markdown import balanced
from test_render_sarif import validator as sarif_validator

from abw.demo import run_demo
from abw.render import FILE_NAMES, load_report


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    outcomes, _ = run_demo(out)
    return {o.candidate: o for o in outcomes}


def test_the_demo_writes_all_five_formats(demo):
    assert {o.verdict for o in demo.values()} == {"PASS", "FAIL", "INCONCLUSIVE"}
    for outcome in demo.values():
        for name in FILE_NAMES.values():
            assert (outcome.folder / name).is_file(), name


@pytest.mark.parametrize("candidate", ["good", "regressed", "small"])
def test_each_format_is_valid(demo, candidate):
    folder = demo[candidate].folder
    report = load_report(folder / "gate-report.json")
    sarif = json.loads((folder / "report.sarif").read_text(encoding="utf-8"))
    sarif_validator().validate(sarif)
    junit_schema().validate(str(folder / "report.junit.xml"))
    markdown = (folder / "report.md").read_text(encoding="utf-8")
    balanced(markdown)
    assert len(markdown) <= 65_536
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and f">{report.verdict}</h1>" in html
    results = sarif["runs"][0]["results"]
    if candidate == "regressed":
        order = [r for r in results if r["ruleId"] == "required_order"]
        assert len(order) == 3 and {r["level"] for r in order} == {"error"}
        for result in order:
            assert result["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
    if candidate == "good":
        assert results == []
    if candidate == "small":
        assert {r["level"] for r in results} == {"warning"}
