"""Three-valued rules agree with brute force: a rule is satisfied (violated) exactly when it is
satisfied (violated) in every completion of the unrecorded (status unknown) spans."""

from __future__ import annotations

import itertools

from hypothesis import example, given, settings
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


def _reference_precedence(spans, within, bind):
    """Precedence by its definition, pair by pair (quadratic): a reference for the engine."""

    def link(b, a):
        if not bind:
            return True
        left, right = b.attributes.get("arguments"), a.attributes.get("arguments")
        if left is None or right is None:
            return None
        if "k" not in left or "k" not in right:
            return False
        return left["k"] == right["k"]

    violated = unknown = False
    for i, a in enumerate(spans):
        if a.name != "b":
            continue
        window = spans[max(0, i - within) if within else 0 : i]
        found = [
            (True if b.status == "success" else None, link(b, a))
            for b in window
            if b.name == "a" and b.status in ("success", "unknown")
        ]
        if any(f and lk for f, lk in found):
            continue
        if any(lk is not False for _, lk in found):
            unknown = True
        else:
            violated = True
    return "violated" if violated else "unknown" if unknown else "satisfied"


arguments_strategy = st.sampled_from([None, {}, {"k": 1}, {"k": 2}])


@settings(max_examples=500, deadline=None)
@given(
    spans=st.lists(
        st.tuples(
            st.sampled_from("ab"),
            st.sampled_from(["success", "error", "unknown"]),
            arguments_strategy,
        ),
        max_size=7,
    ),
    within=st.sampled_from([None, 1, 2]),
    bind=st.booleans(),
)
@example(spans=[("a", "success", None), ("b", "success", {"k": 1})], within=None, bind=True)
@example(spans=[("a", "unknown", {"k": 1}), ("b", "error", {"k": 1})], within=None, bind=True)
def test_precedence_agrees_with_its_definition(spans, within, bind):
    rule = {"kind": "precedence", "before": "a", "after": "b"}
    if within:
        rule["within"] = within
    if bind:
        rule["bind"] = {"before": "k", "after": "k"}
    built = trace(
        *(span(n, s) if args is None else span(n, s, arguments=args) for n, s, args in spans)
    ).path()
    got = evaluate_rule(RULE.validate_python(rule), built).status
    assert got == _reference_precedence(built, within, bind), (spans, within, bind)
