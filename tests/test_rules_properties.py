"""Three-valued rules agree with brute force: a rule is satisfied (violated) exactly when it is
satisfied (violated) in every completion of the unrecorded (status unknown) spans."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from abw.models.rules import Rule
from abw.rules import evaluate_rule
from tests.rules_kit import span, trace

RULE = TypeAdapter(Rule)
RULES = [
    {"kind": "precedence", "before": "a", "after": "b"},
    {"kind": "precedence", "before": "a", "after": "b", "subject": "successes"},
    {"kind": "precedence", "before": "a", "after": "b", "within": 2},
    {"kind": "precedence", "before": {"name": "a", "status": ["error"]}, "after": "b"},
    {"kind": "absence_after", "stop": "a", "allowed": ["c", {"name": "b", "status": ["error"]}]},
    {"kind": "count", "tool": {"name": "*", "status": ["error"]}, "max": 1},
    {"kind": "count", "tool": {"name": ["a", "b"], "status": ["success"]}, "min": 2},
    {"kind": "retry_limit", "tool": "*", "max_attempts": 1},
    {"kind": "tool_allowlist", "tools": ["a", {"name": "b", "status": ["error"]}]},
    {"kind": "response", "trigger": "a", "response": "b"},
    {"kind": "response", "trigger": "a", "response": "b", "within_steps": 2},
    {"kind": "immediately_before", "before": "a", "after": "b"},
    {"kind": "absence_after", "stop": "a"},
    {"kind": "absence_after", "stop": "a", "forbidden": "b"},
    {"kind": "count", "tool": "b", "min": 1, "max": 2, "count_status": "success"},
    {"kind": "count", "tool": "*", "max": 3},
]

spans_strategy = st.lists(
    st.tuples(st.sampled_from("abc"), st.sampled_from(["success", "error", "unknown"])),
    max_size=6,
)


def _status(rule, spans) -> str:
    return evaluate_rule(rule, trace(*(span(n, s) for n, s in spans)).path()).status


@settings(max_examples=300, deadline=None)
@given(spans=spans_strategy, index=st.integers(0, len(RULES) - 1))
def test_unknown_means_the_unrecorded_spans_decide(spans, index):
    rule = RULE.validate_python(RULES[index])
    got = _status(rule, spans)
    holes = [i for i, (_, s) in enumerate(spans) if s == "unknown"]
    outcomes = set()
    for fill in itertools.product(["success", "error"], repeat=len(holes)):
        filled = list(spans)
        for i, status in zip(holes, fill, strict=True):
            filled[i] = (filled[i][0], status)
        outcomes.add(_status(rule, filled))
    expected = outcomes.pop() if len(outcomes) == 1 else "unknown"
    assert got == expected, (RULES[index], spans)
