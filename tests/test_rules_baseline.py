"""Rules and invariants on the baseline too: each candidate violation is marked new or already in
the baseline (with the baseline rate), ``baseline_violations: warn`` turns the known ones into
WARN, and ``strict`` makes every assertion count as an error. Also: every rule kind has its text
in ``abw explain``, SARIF rule help and the HTML report."""

from __future__ import annotations

import json
import typing
from html import escape

import pytest

from abw.explain import explain
from abw.gating import gate
from abw.models.rules import Rule
from abw.models.spec import Spec
from abw.render import render
from abw.render.rules import _SPEC_RULES, rule_text
from abw.rules.checks import WHY
from tests.rules_kit import span, trace, trace_file

ORDER = {"id": "approve-first", "kind": "precedence", "before": "approve", "after": "refund"}


def runs(prefix, n, *spans, scenario="refund"):
    return [
        trace_file(trace(*spans, trace_id=f"{prefix}{i}", scenario=scenario), f"{prefix}/{i}.json")
        for i in range(n)
    ]


def run_gate(baseline, candidate, **spec):
    document = {"id": "s", "rules": [ORDER], **spec}
    return gate(
        baseline, candidate, Spec.model_validate(document), spec_file="s.yaml", spec_sha256="0" * 64
    )


def check(report, check_id):
    return next(c for c in report.checks if c.id == check_id)


BAD = ("refund", "approve")  # refund attempted before its approval
GOOD = ("approve", "refund")


def test_a_violation_the_baseline_never_had_is_new():
    report = run_gate(runs("b", 3, *GOOD), runs("c", 1, *BAD))
    found = check(report, "behavior_contract.rules.approve-first")
    (violation,) = found.violations
    assert (violation.in_baseline, violation.baseline_violating_runs, violation.baseline_runs) == (
        False,
        0,
        3,
    )
    assert violation.message.endswith("new: no baseline run breaks it (0 of 3)")
    assert found.verdict == "FAIL"
    assert (found.measured["violated_new"], found.measured["violated_in_baseline"]) == (1, 0)


def test_a_violation_the_baseline_already_had_fails_by_default():
    baseline = runs("b", 2, *GOOD) + runs("x", 1, *BAD)
    report = run_gate(baseline, runs("c", 2, *BAD))
    found = check(report, "behavior_contract.rules.approve-first")
    assert found.verdict == "FAIL" and report.verdict == "FAIL"
    assert [v.in_baseline for v in found.violations] == [True, True]
    assert found.violations[0].message.endswith("already in the baseline (1 of 3 baseline runs)")
    assert "(0 new, 2 already in the baseline)" in found.message
    assert all(r.failed_checks for r in report.runs if r.role == "candidate")


def test_baseline_violations_warn_turns_known_failures_into_warnings():
    baseline = runs("b", 2, *GOOD) + runs("x", 1, *BAD)
    report = run_gate(baseline, runs("c", 3, *BAD), baseline_violations="warn")
    found = check(report, "behavior_contract.rules.approve-first")
    assert found.verdict == "WARN"
    assert not any(r.failed_checks for r in report.runs if r.role == "candidate")
    # a new violation in another scenario still fails
    mixed = runs("c", 3, *BAD) + runs("n", 1, *BAD, scenario="other")
    other = runs("o", 2, *GOOD, scenario="other")
    report = run_gate(baseline + other, mixed, baseline_violations="warn")
    found = check(report, "behavior_contract.rules.approve-first")
    assert found.verdict == "FAIL"
    assert "(1 new, 3 already in the baseline)" in found.message
    failed = {r.trace_id: r.failed_checks for r in report.runs if r.role == "candidate"}
    assert failed["n0"] == ["behavior_contract.rules.approve-first"] and failed["c0"] == []


def test_invariants_are_marked_against_the_baseline_too():
    spec = {"rules": [], "invariants": {"forbidden_tools": ["shell"]}}
    baseline = runs("b", 1, "a") + runs("x", 1, "a", "shell")
    report = run_gate(baseline, runs("c", 1, "shell"), **spec)
    found = check(report, "behavior_contract.forbidden_tools[0]")
    assert found.verdict == "FAIL"
    assert found.violations[0].in_baseline is True
    assert found.violations[0].baseline_violating_runs == 1
    assert found.measured["violating_in_baseline"] == 1
    report = run_gate(baseline, runs("c", 1, "shell"), baseline_violations="warn", **spec)
    assert check(report, "behavior_contract.forbidden_tools[0]").verdict == "WARN"
    assert report.runs[-1].failed_checks == []
    report = run_gate(runs("b", 2, "a"), runs("c", 1, "shell"), baseline_violations="warn", **spec)
    found = check(report, "behavior_contract.forbidden_tools[0]")
    assert found.verdict == "FAIL" and found.violations[0].in_baseline is False


INFO = {
    "id": "tools-same",
    "statement": "The tools used are the baseline's.",
    "severity": "info",
    "selector": "/tools",
    "matcher": {"op": "set_same"},
}


def test_strict_makes_info_and_warn_assertions_count():
    baseline, candidate = runs("b", 2, *GOOD), runs("c", 1, "approve", "refund", "extra")
    report = run_gate(baseline, candidate, assertions=[INFO])
    assert check(report, "output_eval.assertions.tools-same").verdict == "PASS"
    report = run_gate(baseline, candidate, assertions=[INFO], strict=True)
    assert check(report, "output_eval.assertions.tools-same").verdict == "FAIL"
    assert report.runs[-1].failed_checks == ["output_eval.assertions.tools-same"]
    unknown = runs("c", 1, *GOOD, scenario="new")  # no baseline for its scenario
    report = run_gate(baseline, unknown, assertions=[INFO], strict=True)
    assert check(report, "output_eval.assertions.tools-same").verdict == "INCONCLUSIVE"


KINDS = sorted(
    typing.get_args(model.model_fields["kind"].annotation)[0]
    for model in typing.get_args(typing.get_args(Rule)[0])
)


def test_every_rule_kind_has_catalogue_text():
    assert {"tool_allowlist", "result_required", "confidence", "new_tools"} <= set(KINDS)
    for kind in KINDS:
        assert kind in WHY and kind in _SPEC_RULES, kind
        text = rule_text(kind, "behavior_contract")
        assert text.full == WHY[kind] and text.short and text.help


NEW_KINDS = [
    {"id": "allow", "kind": "tool_allowlist", "tools": ["approve", "refund"]},
    {"id": "results", "kind": "result_required"},
    {
        "id": "confident",
        "kind": "confidence",
        "tool": "refund",
        "field": "confidence",
        "threshold": 0.5,
        "evidence": "approve",
    },
    {"id": "no-new", "kind": "new_tools"},
    {"id": "growth", "kind": "tool_call_growth", "max_increase_percent": 0},
    {"id": "attempts", "kind": "retry_limit", "max_attempts": 1, "group_by": "tool"},
]


@pytest.mark.parametrize("rule", NEW_KINDS, ids=[r["kind"] for r in NEW_KINDS])
def test_each_new_kind_in_explain_sarif_and_html(rule):
    candidate = [
        trace_file(
            trace(
                span("refund", "unknown", result=None, arguments={"confidence": 0.9}),
                "shell",
                "refund",
                trace_id="c0",
            ),
            "c/0.json",
        )
    ]
    report = run_gate(runs("b", 2, *GOOD), candidate, rules=[rule])
    found = next(c for c in report.checks if c.rule == rule["kind"])
    assert found.verdict == "FAIL" and found.violations[0].span_ordinals
    text = explain(report, found.id)
    assert WHY[rule["kind"]] in text
    assert f"ordinal {found.violations[0].span_ordinals[0]}" in text
    document = json.loads(render(report, "sarif"))
    (sarif_rule,) = [
        r for r in document["runs"][0]["tool"]["driver"]["rules"] if r["id"] == rule["kind"]
    ]
    assert WHY[rule["kind"]] in sarif_rule["help"]["text"]
    assert _SPEC_RULES[rule["kind"]][1] in sarif_rule["help"]["text"]
    html = render(report, "html")
    help_text = rule_text(rule["kind"], found.category).full.split("`")[0]
    assert escape(help_text, quote=False).replace("'", "&#39;") in html


def test_explain_says_new_or_already_in_the_baseline():
    baseline = runs("b", 2, *GOOD) + runs("x", 1, *BAD)
    report = run_gate(baseline, runs("c", 1, *BAD))
    text = explain(report, "behavior_contract.rules.approve-first")
    assert "already in the baseline (1 of 3 baseline runs)" in text
    assert "(0 new, 1 already in the baseline); one counterexample is proof" in text
    report = run_gate(baseline, runs("c", 1, *BAD), baseline_violations="warn")
    text = explain(report, "behavior_contract.rules.approve-first")
    assert "WARNs instead of FAILing" in text
