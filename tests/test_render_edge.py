"""Edge cases every format must survive: an empty report, a candidate path that ends early,
divergence past both paths, checks without scenarios."""

from __future__ import annotations

import json

import render_fixtures as fx
import xmlschema
from conftest import REFERENCE
from test_render_markdown import balanced
from test_render_sarif import validator

from abw.models.report import (
    DiffResult,
    Divergence,
    GateReport,
    Inputs,
    ToolInfo,
)
from abw.render import FORMATS, render


def empty_report() -> GateReport:
    return GateReport(
        tool=ToolInfo(version="0.1.0"),
        verdict="PASS",
        summary="PASS: nothing to check.",
        spec_id="empty",
        checks=[],
        diff=[],
        statistics=[],
        runs=[],
        evidence_ledger=fx._ledger(),
        inputs=Inputs(spec_file="spec.yaml", spec_sha256="0" * 64, traces=[], digest="1" * 64),
    )


def ended_report() -> GateReport:
    report = fx.pass_report()
    ended = Divergence(
        trace_id="short",
        trace_file="runs/short.json",
        step=2,
        span_ordinal=None,
        candidate_tool=None,
        baseline_alternatives=["refund_commit", "<end>"],
        common_prefix=["lookup_order", "policy_check"],
        candidate_path=["lookup_order", "policy_check"],
        baseline_path=["lookup_order", "policy_check", "refund_commit"],
    )
    past = ended.model_copy(update={"step": 5, "baseline_path": ["a"], "candidate_path": ["a"]})
    diff = DiffResult(
        scenario_id=None,
        baseline_runs=1,
        candidate_runs=2,
        path_edit_distance_mean=0.0,
        path_edit_distance_max=0.0,
        fingerprint_distance=0.0,
        tool_jaccard_distance=0.0,
        first_divergence=ended,
        divergences=[ended, past],
    )
    return report.model_copy(
        update={"diff": [diff, diff.model_copy(update={"first_divergence": past})]}
    )


def check_all(report: GateReport) -> dict[str, str]:
    out = {fmt: render(report, fmt) for fmt in FORMATS}
    validator().validate(json.loads(out["sarif"]))
    xmlschema.XMLSchema(str(REFERENCE / "junit-10.xsd")).validate(out["junit"])
    balanced(out["markdown"])
    assert GateReport.model_validate_json(out["json"]) == report
    return out


def test_empty_report_renders_everywhere():
    out = check_all(empty_report())
    assert json.loads(out["sarif"])["runs"][0]["results"] == []
    assert "PASS" in out["html"] and "**PASS**" in out["markdown"]


def test_candidate_path_that_ends_early():
    out = check_all(ended_report())
    assert "<i>(path ended)</i>" in out["markdown"]
    assert "<b>ends</b>" in out["html"]
    assert 'class="tool end">end of path</span>' in out["html"]


def test_sequence_chart_window_shows_a_late_divergence():
    from abw.render.svg import FAIL_COLOR, sequence_chart

    base = [f"t{i}" for i in range(40)]
    cand = [*base[:30], "other", *base[31:]]
    chart = sequence_chart(base, cand, 30)
    assert ">28</text>" in chart and ">30</text>" in chart and ">0</text>" not in chart
    assert chart.count(f'stroke="{FAIL_COLOR}" stroke-width="3"') == 2  # both rows marked
    assert "28 earlier" in chart and "+5 more steps" in chart
    short = sequence_chart(["a", "b"], ["a", "c"], 1)
    assert "earlier" not in short and "more steps" not in short
