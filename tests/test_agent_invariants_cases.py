"""agent-invariants' own rule cases (its test/evaluator.test.ts, MIT; event lists transcribed),
each checked by abw under the hand mapping of :mod:`tests.agent_invariants_kit`, against the
outcome the peer's test asserts. Cases abw cannot express are listed in docs/contracts.md."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from abw.models.rules import Rule
from abw.rules import evaluate_rules
from tests.agent_invariants_kit import to_trace

RULE = TypeAdapter(Rule)
TOOL = {"type": ["tool"]}
PROOF = ["outcome.externally_observed:*", "outcome.configured_verifier:*"]
APPROVAL = {
    "kind": "precedence",
    "before": "approval:payments.*",
    "after": {"name": "payments.*", **TOOL},
    "bind": {"before": "approval_id", "after": "approval_id"},
}
BASE_EVENTS = [
    {"seq": 1, "type": "run.start"},
    {
        "seq": 2,
        "type": "approval.granted",
        "approval_id": "ap-1",
        "approval_scope": "payments.refund",
        "approved": True,
    },
    {
        "seq": 3,
        "type": "tool.call",
        "tool": "payments.refund",
        "call_id": "c-1",
        "call_signature": "refund:42",
        "approval_id": "ap-1",
    },
    {"seq": 4, "type": "tool.result", "tool": "payments.refund", "call_id": "c-1", "ok": True},
    {
        "seq": 5,
        "type": "outcome.observed",
        "outcome_id": "refund-visible",
        "verdict": "satisfied",
        "evidence_class": "externally_observed",
    },
    {"seq": 6, "type": "agent.message", "claims_completion": True, "confidence": 0.98},
    {"seq": 7, "type": "run.completed"},
]
COMPLETION = {
    "kind": "precedence",
    "before": {"name": PROOF, "type": ["guardrail"]},
    "after": {"name": ["run.completed", "agent.claims_completion"], "type": ["guardrail", "llm"]},
}


def outcome(rule: dict, items: list[dict]) -> tuple[str, list[int]]:
    """(status, violating event seqs) of one mapped rule on the mapped events."""
    trace, seq_of = to_trace(items, "t")
    result = evaluate_rules([RULE.validate_python({"id": "r", **rule})], trace)["r"]
    return result.status, [seq_of[o] for o in result.ordinals]


def call(seq: int, tool: str, **extra) -> dict:
    return {"seq": seq, "type": "tool.call", "tool": tool, **extra}


CASES = [
    # "a complete approved and externally observed run passes"
    ("approved run: approval", APPROVAL, BASE_EVENTS, ("satisfied", [])),
    (
        "approved run: results",
        {"kind": "result_required", "tool": TOOL},
        BASE_EVENTS,
        ("satisfied", []),
    ),
    ("approved run: completion", COMPLETION, BASE_EVENTS, ("satisfied", [])),
    (
        "approved run: confidence",
        {
            "kind": "confidence",
            "tool": {"name": "agent.claims_completion", "type": ["llm"]},
            "field": "confidence",
            "threshold": 0.9,
            "evidence": {"name": PROOF},
        },
        BASE_EVENTS,
        ("satisfied", []),
    ),
    # "deny_tool and allow_tools catch capability expansion"
    (
        "deny_tool",
        {"kind": "count", "tool": {"name": "shell.*", **TOOL}, "max": 0},
        [call(1, "shell.delete", call_id="x")],
        ("violated", [1]),
    ),
    (
        "allow_tools",
        {"kind": "tool_allowlist", "tools": ["payments.*"]},
        [call(1, "shell.delete", call_id="x")],
        ("violated", [1]),
    ),
    # "require_approval rejects missing, denied, stale, and wrong approvals"
    (
        "stale and wrong approval",
        {**APPROVAL, "within": 2},
        [
            {
                "seq": 1,
                "type": "approval.granted",
                "approval_id": "old",
                "approval_scope": "payments.refund",
                "approved": True,
            },
            {"seq": 2, "type": "agent.message"},
            {"seq": 3, "type": "agent.message"},
            call(4, "payments.refund", call_id="c", approval_id="wrong"),
        ],
        ("violated", [4]),
    ),
    (
        "denied approval",
        APPROVAL,
        [
            {
                "seq": 1,
                "type": "approval.granted",
                "approval_id": "a",
                "approval_scope": "payments.refund",
                "approved": False,
            },
            call(2, "payments.refund", call_id="c", approval_id="a"),
        ],
        ("violated", [2]),
    ),
    (
        "approval for another scope",
        APPROVAL,
        [
            {
                "seq": 1,
                "type": "approval.granted",
                "approval_id": "a",
                "approval_scope": "crm.read",
                "approved": True,
            },
            call(2, "payments.refund", call_id="c", approval_id="a"),
        ],
        ("violated", [2]),
    ),
    # "stop_is_final permits only explicit lifecycle events after stop"
    (
        "stop_is_final",
        {
            "kind": "absence_after",
            "stop": "control.stop",
            "forbidden": {"type": ["llm", "tool", "retriever", "memory", "handoff", "guardrail"]},
            "allowed": ["run.completed", "run.failed", "telemetry.*"],
        },
        [
            {"seq": 1, "type": "control.stop"},
            {"seq": 2, "type": "telemetry.flush"},
            call(3, "email.send"),
            {"seq": 4, "type": "run.completed"},
        ],
        ("violated", [3]),
    ),
    # "completion does not accept self-attestation as external outcome proof by default"
    (
        "self-attestation is no proof",
        COMPLETION,
        [
            {
                "seq": 1,
                "type": "outcome.observed",
                "outcome_id": "x",
                "verdict": "satisfied",
                "evidence_class": "self_attestation",
            },
            {"seq": 2, "type": "run.completed"},
        ],
        ("violated", [2]),
    ),
    # "completion can pin a specific outcome and allowed evidence class"
    (
        "pinned outcome",
        {**COMPLETION, "before": "outcome.configured_verifier:deploy-*"},
        [
            {
                "seq": 1,
                "type": "outcome.observed",
                "outcome_id": "deploy-prod",
                "verdict": "satisfied",
                "evidence_class": "configured_verifier",
            },
            {"seq": 2, "type": "run.completed"},
        ],
        ("satisfied", []),
    ),
    # "retry_limit groups by call signature and catches loops"
    (
        "retry loop",
        {"kind": "retry_limit", "tool": TOOL, "max_attempts": 2},
        [call(i, "http.get", call_signature="GET:/same") for i in (1, 2, 3)],
        ("violated", [3]),
    ),
    # "event_budget counts calls and failed results" (the max_tool_calls part)
    (
        "tool-call budget",
        {"kind": "count", "tool": TOOL, "max": 1},
        [call(1, "a"), call(2, "b"), {"seq": 3, "type": "tool.result", "ok": False}],
        ("violated", [2]),
    ),
    # "warnings are reported but do not fail the check": a soft rule (WARN) on the same count
    (
        "event budget as a warning",
        {"kind": "count", "tool": {"type": ["guardrail"]}, "max": 0, "enforcement": "soft"},
        [{"seq": 1, "type": "run.start"}],
        ("violated", [1]),
    ),
    # "require_order checks every matching after-event"
    (
        "require_order without predecessor",
        {"kind": "precedence", "before": "policy.checked", "after": {"name": "admin.*", **TOOL}},
        [call(1, "admin.delete")],
        ("violated", [1]),
    ),
    (
        "require_order with predecessor",
        {"kind": "precedence", "before": "policy.checked", "after": {"name": "admin.*", **TOOL}},
        [{"seq": 1, "type": "policy.checked"}, call(2, "admin.delete")],
        ("satisfied", []),
    ),
    # "require_event and deny_event support structured matchers" (the deny_event part)
    (
        "deny_event claims_completion",
        {"kind": "count", "tool": {"name": "agent.claims_completion", "type": ["llm"]}, "max": 0},
        [
            {"seq": 1, "type": "tool.result", "ok": False},
            {"seq": 2, "type": "agent.message", "claims_completion": True},
        ],
        ("violated", [2]),
    ),
    # "confidence_requires_outcome only checks high-confidence completion claims"
    (
        "confidence threshold",
        {
            "kind": "confidence",
            "tool": {"name": "agent.claims_completion", "type": ["llm"]},
            "field": "confidence",
            "threshold": 0.8,
            "evidence": {"name": PROOF},
        },
        [
            {"seq": 1, "type": "agent.message", "claims_completion": True, "confidence": 0.5},
            {"seq": 2, "type": "agent.message", "claims_completion": True, "confidence": 0.9},
        ],
        ("violated", [2]),
    ),
]


@pytest.mark.parametrize(("name", "rule", "items", "expected"), CASES, ids=[c[0] for c in CASES])
def test_agrees_with_the_peers_own_cases(name, rule, items, expected):
    assert outcome(rule, items) == expected


def test_stop_is_final_allowed_after_names_event_types_as_the_importer_maps_them():
    """``allowed_after`` lists event *types*; the converted rule matched them against span
    names, which the importer spells otherwise for approvals (``approval:<scope>``), outcomes
    (``outcome.<class>:<id>``) and messages (``agent.message``/``agent.claims_completion``):
    a run the peer passes was violated. Each type now reads as the spans it becomes."""
    from abw.spec_convert import convert

    allowed = ["run.completed", "outcome.observed", "approval.granted", "agent.message"]
    contract = {
        "version": 1,
        "name": "stop",
        "rules": [{"id": "final", "kind": "stop_is_final", "allowed_after": allowed}],
    }
    conversion = convert(contract, "agent-invariants")
    (rule,) = [r for r in conversion.spec.rules if r.kind == "absence_after"]
    after_stop = [
        {"seq": 1, "type": "control.stop"},
        *({**e, "seq": 2 + i} for i, e in enumerate(BASE_EVENTS[4:])),  # outcome, message, end
        {**BASE_EVENTS[1], "seq": 5},  # an approval
    ]
    data = rule.model_dump(exclude={"id"}, exclude_none=True)
    assert outcome(data, after_stop) == ("satisfied", [])
    assert outcome(data, [*after_stop, call(6, "email.send")]) == ("violated", [6])
    assert any("tool.result after the stop is not seen" in n for n in conversion.unexpressible)


def test_a_refused_approval_is_a_denial_as_in_every_importer(tmp_path):
    """``approved: false`` read outcome ``error``, where a policy's or a person's refusal of
    a call is ``denied`` in every other importer (the status stays ``error``)."""
    import json

    from tests.importkit import import_traces

    events = [
        {"seq": 1, "type": "approval.granted", "approval_id": "a",
         "approval_scope": "payments.refund", "approved": False},
        {"seq": 2, "type": "approval.granted", "approval_id": "b",
         "approval_scope": "payments.refund", "approved": True},
    ]  # fmt: skip
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    (trace,) = import_traces("agent-invariants", path)
    assert [(s.status, s.outcome) for s in trace.spans] == [("error", "denied"), ("success", "ok")]
