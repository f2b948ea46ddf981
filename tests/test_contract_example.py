"""The refund-policy example's contract compiles to a spec that gives the same verdicts as
the example's behavior.yaml, on every candidate set."""

from __future__ import annotations

import pytest

from abw.contract import load_contract_as_spec, run_contract_gate
from abw.gating import run_gate
from abw.specio import load_spec
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "refund-policy"
CONTRACT = EXAMPLE / "contract.json"
TRACES = EXAMPLE / "traces"


def test_compiled_builtins_equal_the_example_spec():
    compiled, _ = load_contract_as_spec(CONTRACT)
    spec, _ = load_spec(EXAMPLE / "behavior.yaml")
    assert compiled.id == spec.id
    assert compiled.invariants == spec.invariants
    assert compiled.output == spec.output
    assert compiled.thresholds == spec.thresholds
    kinds = {r.kind for r in compiled.rules}
    assert kinds >= {"count", "immediately_before", "absence_after", "retry_limit", "recovery"}
    assert {a.matcher.op for a in compiled.assertions} == {"same", "number_delta"}


@pytest.mark.parametrize(
    ("candidate", "verdict"),
    [("good", "PASS"), ("regressed", "FAIL"), ("small", "INCONCLUSIVE")],
)
def test_same_verdicts_as_the_spec(candidate, verdict):
    by_spec = run_gate(TRACES / "baseline", TRACES / candidate, EXAMPLE / "behavior.yaml")
    by_contract = run_contract_gate(TRACES / "baseline", TRACES / candidate, CONTRACT)
    assert by_spec.verdict == by_contract.verdict == verdict
    contract_checks = {c.id: c for c in by_contract.checks}
    for check in by_spec.checks:  # every check of the spec, same verdict, same evidence
        twin = contract_checks[check.id]
        assert twin.verdict == check.verdict, check.id
        if check.category == "sample_sufficiency":  # lists the failed check ids, a superset
            assert [v.trace_id for v in twin.violations] == [v.trace_id for v in check.violations]
        else:
            assert twin.violations == check.violations, check.id
    assert [(s.k, s.n, s.wilson_decision) for s in by_spec.statistics] == [
        (s.k, s.n, s.wilson_decision) for s in by_contract.statistics
    ]
    extra = [c for c in by_contract.checks if c.id not in {x.id for x in by_spec.checks}]
    assert extra and all(c.id.split(".")[1] in ("rules", "assertions") for c in extra)
    if verdict != "FAIL":
        assert all(c.verdict == "PASS" for c in extra)


def test_contract_rules_pinpoint_the_regression():
    report = run_contract_gate(TRACES / "baseline", TRACES / "regressed", CONTRACT)
    checks = {c.id: c for c in report.checks}
    order = checks["behavior_contract.required_order[0]"]
    adjacent = checks["behavior_contract.rules.check-right-before-commit"]
    final = checks["behavior_contract.rules.commit-is-final"]
    assert order.verdict == adjacent.verdict == final.verdict == "FAIL"
    bad_runs = {v.trace_id for v in order.violations}
    assert {v.trace_id for v in adjacent.violations} == bad_runs
    assert {v.trace_id for v in final.violations} == bad_runs
    # the early refund_commit is among the order check's spans
    for v_order, v_adj in zip(order.violations, adjacent.violations, strict=True):
        assert len(v_adj.span_ordinals) == 1
        assert set(v_adj.span_ordinals) <= set(v_order.span_ordinals)
    for v in final.violations:
        assert "policy_check ran after refund_commit" in v.message
        assert len(v.span_ordinals) == 1 and v.span_lines[0] > 1
    assert checks["output_eval.assertions.currency-kept"].verdict == "PASS"
