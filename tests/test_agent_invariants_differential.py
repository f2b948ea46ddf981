"""Differential test against agent-invariants: its published example contract and traces
(tests/corpus/agent-invariants/, vendored unchanged) gated by abw, rule by rule, with the
outcome the peer documents for each.

The peer's events become abw spans by hand here (the mapping is also in docs/contracts.md,
"agent-invariants"):

* ``tool.call`` + its later ``tool.result`` (same ``call_id``) -> one ``tool`` span named by
  the tool: ``ok: false`` -> ``error``, otherwise ``success``; no result -> ``unknown`` with no
  output. ``call_signature`` -> ``input_hash``; ``approval_id`` -> an extracted argument.
* ``approval.granted`` -> a ``guardrail`` span ``approval:<approval_scope>``, ``success``
  (``approved: false`` -> ``error``), arguments ``approval_id``.
* ``outcome.observed`` -> a ``guardrail`` span ``outcome.<evidence_class>:<outcome_id>``:
  ``success`` when the verdict is ``satisfied``, else ``error``. The last verdict (or
  ``none``) is the run's ``canonical_output.final_outcome``.
* ``agent.message`` -> an ``llm`` span ``agent.claims_completion`` (or ``agent.message``),
  arguments ``confidence``; every other event -> a ``guardrail`` span named by its type.
* ``final_status``: ``success`` after ``run.completed``, ``error`` after ``run.failed``.

The peer compares one run with one run and has no statistics, so the spec sets the pass-rate
threshold to 0 and opens the shape thresholds: only the contract's checks decide.
"""

from __future__ import annotations

import json

import pytest

from abw.gating import gate
from abw.models.spec import Spec
from abw.traceio import TraceFile
from abw.verdicts import exit_code
from tests.agent_invariants_kit import CORPUS, events, to_trace

TOOL = {"type": ["tool"]}


#: The example contract, rule by rule, in abw's words (peer id -> abw rules).
MAPPED = {
    # require_approval payments.*, scope payments.*, within_events 20
    "payments-need-approval": [
        {
            "kind": "precedence",
            "before": {"name": "approval:payments.*", "type": ["guardrail"]},
            "after": {"name": "payments.*", **TOOL},
            "subject": "attempts",
            "within": 20,
            "bind": {"before": "approval_id", "after": "approval_id"},
        }
    ],
    # stop_is_final: after control.stop only run.completed and telemetry.* events
    "stop-means-stop": [
        {
            "kind": "absence_after",
            "stop": {"name": "control.stop", "type": ["guardrail"]},
            "forbidden": {"type": ["llm", "tool", "retriever", "memory", "handoff", "guardrail"]},
            "allowed": ["run.completed", "telemetry.*"],
        }
    ],
    "no-shell": [{"kind": "count", "tool": {"name": "shell.*", **TOOL}, "max": 0}],
    "results-for-calls": [{"kind": "result_required", "tool": TOOL}],
    "no-retry-loop": [{"kind": "retry_limit", "tool": TOOL, "max_attempts": 2}],
    # completion (run.completed, or a message claiming it) needs an earlier satisfied outcome
    # from an allowed evidence class
    "prove-before-done": [
        {
            "kind": "precedence",
            "before": {
                "name": ["outcome.externally_observed:*", "outcome.configured_verifier:*"],
                "type": ["guardrail"],
            },
            "after": {
                "name": ["run.completed", "agent.claims_completion"],
                "type": ["guardrail", "llm"],
            },
        }
    ],
    # event_budget: one peer rule, two abw count rules
    "tool-budget": [
        {"kind": "count", "tool": TOOL, "max": 8},
        {"kind": "count", "tool": {**TOOL, "status": ["error"]}, "max": 2},
    ],
}
#: The contract's compare policy.
COMPARE = {
    "new_tool": [{"kind": "new_tools", "tool": TOOL}],  # fail_on_new_tools
    "tool_call_increase": [  # max_tool_call_increase_percent: 50
        {"kind": "tool_call_growth", "tool": TOOL, "max_increase_percent": 50}
    ],
}
SAME_OUTCOME_OR_BETTER = {  # require_same_outcome_or_better
    "id": "outcome_regression",
    "statement": "The final observed outcome is the baseline's or better.",
    "selector": "/output/final_outcome",
    "matcher": {
        "op": "rank_not_lower",
        "order": ["none", "violated", "retracted", "unknown", "satisfied"],
    },
}


def spec() -> Spec:
    rules = [
        {"id": f"{peer_id}.{i}", **rule}
        for peer_id, mapped in (MAPPED | COMPARE).items()
        for i, rule in enumerate(mapped)
    ]
    return Spec.model_validate(
        {
            "id": "support-agent-operating-contract",
            "rules": rules,
            "assertions": [SAME_OUTCOME_OR_BETTER],
            "thresholds": {
                "min_wilson_pass_rate": 0,
                "path_edit_distance_warn": 1,
                "path_edit_distance_fail": 1,
                "fingerprint_distance_warn": 1000,
                "fingerprint_distance_fail": 1000,
                "tool_jaccard_warn": 1,
                "tool_jaccard_fail": 1,
            },
        }
    )


def run(baseline: str, candidate: str):
    base, _ = to_trace(events(baseline), "baseline")
    cand, seq_of = to_trace(events(candidate), "candidate")
    report = gate(
        [TraceFile(baseline, base, "0" * 64, {})],
        [TraceFile(candidate, cand, "1" * 64, {})],
        spec(),
        spec_file="agent-invariants.json",
        spec_sha256="0" * 64,
    )
    return report, seq_of


def peer_rule_outcomes(report, seq_of) -> dict[str, tuple[bool, list[int]]]:
    """Per peer rule id: (passed, violating event seqs) from abw's checks of its mapped rules."""
    found: dict[str, tuple[bool, list[int]]] = {}
    for peer_id in MAPPED | COMPARE:
        checks = [c for c in report.checks if c.id.split(".rules.")[-1].startswith(peer_id + ".")]
        assert checks, peer_id
        seqs = sorted({seq_of[o] for c in checks for v in c.violations for o in v.span_ordinals})
        found[peer_id] = (all(c.verdict == "PASS" for c in checks), seqs)
    return found


def test_the_contract_maps_every_rule_and_compare_option():
    contract = json.loads((CORPUS / "agent-invariants.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in contract["rules"]} == set(MAPPED)
    assert set(contract["compare"]) == {
        "fail_on_new_tools",
        "fail_on_new_violations",
        "max_tool_call_increase_percent",
        "require_same_outcome_or_better",
    }


# The peer's documented outcome (docs/contract-reference.md of agent-invariants, per rule kind):
# the baseline satisfies every rule; the regressed candidate calls payments.refund (event 2)
# with no prior approval, although that call then failed; calls the denied shell.* (event 4);
# and claims completion (events 6 and 7) with no satisfied outcome before. `compare` reports
# those three as new rule failures, shell.exec as a new tool, tool calls +100 % (> 50 %) and the
# final outcome regressing from satisfied to none: incompatible, exit 1.
CANDIDATE_OUTCOME = {
    "payments-need-approval": (False, [2]),
    # Neither trace has a control.stop event, so abw finds the rule vacuous: INCONCLUSIVE
    # ("control.stop matches no span"), never PASS, where the peer passes it (docs/semantics.md,
    # "No vacuous rules").
    "stop-means-stop": (False, []),
    "no-shell": (False, [4]),
    "results-for-calls": (True, []),
    "no-retry-loop": (True, []),
    "prove-before-done": (False, [6, 7]),
    "tool-budget": (True, []),
    "new_tool": (False, [4]),
    "tool_call_increase": (False, [4]),
}


def test_the_regressed_candidate_agrees_with_the_peer_rule_by_rule():
    report, seq_of = run("baseline.jsonl", "candidate-regression.jsonl")
    assert peer_rule_outcomes(report, seq_of) == CANDIDATE_OUTCOME
    outcome = next(c for c in report.checks if c.id == "output_eval.assertions.outcome_regression")
    assert outcome.verdict == "FAIL"
    assert "satisfied" in outcome.violations[0].message
    # fail_on_new_violations: every candidate failure is new, none was in the baseline
    marked = [v for c in report.checks if c.verdict == "FAIL" for v in c.violations]
    assert marked and all(v.in_baseline is False for v in marked if v.baseline_runs)
    assert report.verdict == "FAIL" and exit_code(report.verdict) == 1
    approval = next(c for c in report.checks if c.id.endswith("payments-need-approval.0"))
    assert "(subject: attempts)" in approval.violations[0].message


@pytest.mark.parametrize("candidate", ["baseline.jsonl", "candidate-regression.jsonl"])
def test_each_run_checked_alone_agrees_with_the_peer(candidate):
    """`agent-invariants check` on one trace: the baseline passes every rule; the candidate
    fails the three rules above (the compare options need two runs and are left out)."""
    report, seq_of = run(candidate, candidate)  # compared with itself: nothing relative moves
    got = peer_rule_outcomes(report, seq_of)
    expected = {k: v for k, v in CANDIDATE_OUTCOME.items() if k in MAPPED}
    if candidate == "baseline.jsonl":
        expected = {k: (k != "stop-means-stop", []) for k in expected}
    assert {k: got[k] for k in MAPPED} == expected
    assert all(got[k] == (True, []) for k in COMPARE)


def test_swapped_the_runs_are_compatible_as_the_peer_says():
    """The good run as candidate against the regressed one: no rule fails, no new tool
    (payments.refund is in both), tool calls fall, the outcome improves."""
    report, seq_of = run("candidate-regression.jsonl", "baseline.jsonl")
    outcomes = peer_rule_outcomes(report, seq_of)
    assert all(passed for rule, (passed, _) in outcomes.items() if rule != "stop-means-stop")
    stop = next(c for c in report.checks if ".rules.stop-means-stop" in c.id)
    assert stop.verdict == "INCONCLUSIVE" and "control.stop matches no span" in stop.message
    assert report.verdict == "INCONCLUSIVE"  # the vacuous rule, never a silent PASS
