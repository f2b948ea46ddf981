"""spec.rules and spec.assertions inside the real gate: checks, verdicts and per-run passes."""

from __future__ import annotations

from abw.gating import gate
from abw.models.spec import Spec
from tests.rules_kit import span, trace, trace_file

SPEC = {
    "id": "refund",
    "rules": [
        {
            "id": "notify-after-commit",
            "kind": "response",
            "trigger": "refund_commit",
            "response": "notify",
        },
        {"kind": "count", "tool": "lookup", "max": 2, "enforcement": "soft"},
    ],
    "assertions": [
        {
            "id": "decision-stable",
            "statement": "The refund decision is the baseline's.",
            "selector": "/output/decision",
            "matcher": {"op": "same"},
        },
    ],
}


def _runs(prefix: str, n: int, *spans, decision="approve"):
    return [
        trace_file(trace(*spans, output={"decision": decision}, trace_id=f"{prefix}{i}"))
        for i in range(n)
    ]


def _gate(candidate, spec=SPEC):
    baseline = _runs("b", 3, "lookup", "refund_commit", "notify")
    return gate(
        baseline, candidate, Spec.model_validate(spec), spec_file="s.yaml", spec_sha256="0" * 64
    )


def _check(report, check_id):
    return next(c for c in report.checks if c.id == check_id)


def test_rules_and_assertions_pass_on_a_good_candidate():
    report = _gate(_runs("c", 3, "lookup", "refund_commit", "notify"))
    assert _check(report, "behavior_contract.rules.notify-after-commit").verdict == "PASS"
    assert _check(report, "operational_quality.rules.count-1").verdict == "PASS"
    assert _check(report, "output_eval.assertions.decision-stable").verdict == "PASS"
    assert report.evidence_ledger.used  # canonical output fields are used evidence
    assert any("output" in item.kind for item in report.evidence_ledger.used)


def test_a_violated_rule_fails_the_gate_and_the_run():
    bad = _runs("c", 2, "lookup", "refund_commit", "lookup")
    report = _gate(bad + _runs("d", 1, "lookup", "refund_commit", "notify"))
    check = _check(report, "behavior_contract.rules.notify-after-commit")
    assert check.verdict == "FAIL"
    assert [v.span_ordinals for v in check.violations] == [[1], [1]]
    assert report.verdict == "FAIL"
    failed = {r.trace_id: r.failed_checks for r in report.runs if r.role == "candidate"}
    assert failed["c0"] == ["behavior_contract.rules.notify-after-commit"]
    assert failed["d0"] == []
    assert report.statistics[0].k == 1


def test_soft_rule_warns_and_drifted_assertion_fails():
    chatty = _runs("c", 1, "lookup", "lookup", "lookup", "refund_commit", "notify", decision="deny")
    report = _gate(chatty)
    assert _check(report, "operational_quality.rules.count-1").verdict == "WARN"
    assertion = _check(report, "output_eval.assertions.decision-stable")
    assert assertion.verdict == "FAIL"
    assert '"deny"' in assertion.violations[0].message
    unsure = _runs("c", 1, "lookup", span("refund_commit", "unknown"))
    assert _check(_gate(unsure), "behavior_contract.rules.notify-after-commit").verdict == (
        "INCONCLUSIVE"
    )


def test_explain_describes_rule_checks_and_unknowns():
    from abw.explain import explain

    unsure = _runs("c", 1, "lookup", span("refund_commit", "unknown"))
    report = _gate(unsure)
    text = explain(report, "behavior_contract.rules.notify-after-commit")
    assert "rule       response: Every successful `trigger` span" in text
    assert "cannot be decided: INCONCLUSIVE, never PASS" in text
    assert "ordinal 1" in text
    text = explain(report, "output_eval.assertions.decision-stable")
    assert "assertion.same: The selected value must equal the baseline's." in text
