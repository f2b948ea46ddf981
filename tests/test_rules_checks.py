"""Rule results as gate-report checks: categories, hard/soft/precondition verdicts, ordinals."""

from __future__ import annotations

from pydantic import TypeAdapter

from abw.models.report import Check
from abw.models.rules import Rule
from abw.rules.checks import rule_checks
from tests.rules_kit import span, trace, trace_file

RULE = TypeAdapter(Rule)
ORDER = {
    "id": "policy-first",
    "kind": "precedence",
    "before": "policy_check",
    "after": "refund_commit",
}


def _one(rule: dict, *runs) -> tuple[Check, dict]:
    result = rule_checks([RULE.validate_python(rule)], list(runs))
    (check,) = result.checks
    return check, result.run_failed


GOOD = trace_file(trace("policy_check", "refund_commit", trace_id="good"))
BAD = trace_file(trace("lookup", "refund_commit", "policy_check", trace_id="bad"))
UNSURE = trace_file(trace(span("policy_check", "unknown"), "refund_commit", trace_id="unsure"))


def test_hard_rule_fails_with_violating_ordinals_and_lines():
    check, failed = _one(ORDER, GOOD, BAD)
    assert (check.id, check.category, check.verdict, check.hard) == (
        "behavior_contract.rules.policy-first",
        "behavior_contract",
        "FAIL",
        True,
    )
    (violation,) = check.violations
    assert (violation.trace_id, violation.span_ordinals, violation.span_lines) == ("bad", [1], [1])
    assert failed == {"bad.json": ["behavior_contract.rules.policy-first"]}
    assert check.measured == {"satisfied": 1, "violated": 1, "unknown": 0, "runs": 2}
    assert check.message.startswith("1 of 2 candidate runs break")


def test_unknown_is_inconclusive_for_hard_and_warn_for_soft():
    check, failed = _one(ORDER, GOOD, UNSURE)
    assert check.verdict == "INCONCLUSIVE" and failed == {}
    assert check.violations[0].message.startswith("unknown: ")
    soft, _ = _one({**ORDER, "enforcement": "soft"}, GOOD, BAD, UNSURE)
    assert (soft.verdict, soft.hard) == ("WARN", False)


def test_precondition_violation_is_inconclusive():
    check, failed = _one({**ORDER, "enforcement": "precondition"}, BAD)
    assert check.verdict == "INCONCLUSIVE" and failed == {}


def test_count_and_retry_are_operational_quality():
    check, _ = _one({"kind": "count", "tool": "refund_commit", "max": 0}, GOOD)
    assert (check.id, check.category, check.verdict) == (
        "operational_quality.rules.count-0",
        "operational_quality",
        "FAIL",
    )
    assert check.violations[0].span_ordinals == [1]
    check, _ = _one({"kind": "retry_limit", "max_retries": 0}, GOOD)
    assert (check.category, check.verdict) == ("operational_quality", "PASS")
    assert check.message.startswith("All 1 candidate runs satisfy")


def test_assertion_checks_on_the_refund_example_match_assert_run_run_by_run():
    """The shared per-run observations and per-scenario baseline values give exactly what
    assert_run gives for each candidate run on its own."""
    from abw.contract import load_contract_as_spec
    from abw.rules import applies
    from abw.rules.assertions import assert_run
    from abw.rules.checks import assertion_checks
    from abw.traceio import load_traces
    from tests.conftest import REPO

    example = REPO / "examples" / "refund-policy"
    spec, _ = load_contract_as_spec(example / "contract.json")
    baseline = load_traces(example / "traces" / "baseline")
    candidate = load_traces(example / "traces" / "regressed")
    from abw.models.rules import Assertion

    extra = [  # drifted and unknown (baseline runs disagree on the path) cases too
        {"id": "same-path", "selector": "/path", "matcher": {"op": "sequence_same"}},
        {"id": "same-length", "selector": "/path_length", "matcher": {"op": "same"}},
        {"id": "short", "selector": "/path_length", "matcher": {"op": "equals", "value": 4}},
        {"id": "tools", "selector": "/tools", "matcher": {"op": "set_same"}, "severity": "warn"},
        {"id": "calls", "selector": "/path_length", "matcher": {"op": "exists"}},
    ]
    assertions = [
        *spec.assertions,
        *(Assertion.model_validate({"statement": "holds", **a}) for a in extra),
    ]
    result = assertion_checks(assertions, baseline, candidate)
    for assertion, check in zip(assertions, result.checks, strict=True):
        expected = {"compatible": 0, "drifted": 0, "unknown": 0}
        for tf in candidate:
            sid = tf.trace.run.scenario_id
            if applies(assertion, sid):
                same = [b.trace for b in baseline if b.trace.run.scenario_id == sid]
                expected[assert_run(assertion, tf.trace, same).status] += 1
        assert {k: check.measured[k] for k in expected} == expected
    assert any(check.measured["drifted"] for check in result.checks)
    assert any(check.measured["unknown"] for check in result.checks)
    assert any(check.measured["compatible"] for check in result.checks)
