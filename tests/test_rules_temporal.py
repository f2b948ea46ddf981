"""Temporal, count, retry, recovery and soft-budget rules: satisfied, violated (with the
violating ordinals) and unknown, each on small traces."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from abw.models.rules import Rule
from abw.rules import evaluate_rule, evaluate_rules
from tests.rules_kit import span, trace

RULE = TypeAdapter(Rule)


def outcome(rule: dict, *spans):
    return evaluate_rule(RULE.validate_python(rule), trace(*spans).path())


def status(rule: dict, *spans):
    result = outcome(rule, *spans)
    return result.status, list(result.ordinals)


PRECEDENCE = {"kind": "precedence", "before": "policy_check", "after": "refund_*"}
SUCCESSES = {**PRECEDENCE, "subject": "successes"}


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["policy_check", "refund_commit"], ("satisfied", [])),
        (["refund_commit", "policy_check"], ("violated", [0])),
        ([span("policy_check", "error"), "refund_commit"], ("violated", [1])),
        # a failed commit needs no check; glob on the after side
        ([span("refund_commit", "error"), "policy_check", "refund_issue"], ("satisfied", [])),
        ([span("policy_check", "unknown"), "refund_commit"], ("unknown", [1])),
        ([span("refund_commit", "unknown")], ("unknown", [0])),
        ([], ("satisfied", [])),
    ],
)
def test_precedence_over_successes(spans, expected):
    assert status(SUCCESSES, *spans) == expected


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["policy_check", "refund_commit"], ("satisfied", [])),
        # an unapproved attempt is the defect, whether or not the refund API then failed
        ([span("refund_commit", "error"), "policy_check", "refund_issue"], ("violated", [0])),
        ([span("refund_commit", "cancelled")], ("violated", [0])),
        # a call with no recorded result is an attempt too
        ([span("refund_commit", "unknown")], ("violated", [0])),
        ([span("policy_check", "unknown"), span("refund_commit", "error")], ("unknown", [1])),
        ([span("policy_check", "error"), span("refund_commit", "error")], ("violated", [1])),
    ],
)
def test_precedence_over_attempts_is_the_default(spans, expected):
    assert status(PRECEDENCE, *spans) == expected
    assert "(subject: attempts)" in outcome(PRECEDENCE, *spans).message


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["policy_check", "x", "refund_commit"], ("satisfied", [])),
        # a stale approval: more than 2 path steps back
        (["policy_check", "x", "y", "refund_commit"], ("violated", [3])),
        (["policy_check", "x", "y", "policy_check", "refund_commit"], ("satisfied", [])),
        ([span("policy_check", "unknown"), "x", "refund_commit"], ("unknown", [2])),
    ],
)
def test_precedence_within_k_steps(spans, expected):
    assert status({**PRECEDENCE, "within": 2}, *spans) == expected


BOUND = {**PRECEDENCE, "bind": {"before": "order_id", "after": "order_id"}}


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (
            [
                span("policy_check", arguments={"order_id": 42}),
                span("refund_commit", arguments={"order_id": 42}),
            ],
            ("satisfied", []),
        ),
        # an approval for another order does not count
        (
            [
                span("policy_check", arguments={"order_id": 7}),
                span("refund_commit", arguments={"order_id": 42}),
            ],
            ("violated", [1]),
        ),
        (
            [
                span("policy_check", arguments={"order_id": 7}),
                span("policy_check", arguments={"order_id": 42}),
                span("refund_commit", arguments={"order_id": 42}),
            ],
            ("satisfied", []),
        ),
        # a call that passed no order_id has nothing to bind
        (
            [span("policy_check", arguments={"order_id": 42}), span("refund_commit", arguments={})],
            ("violated", [1]),
        ),
        # a side whose arguments were not extracted: unknown
        (
            [span("policy_check"), span("refund_commit", arguments={"order_id": 42})],
            ("unknown", [1]),
        ),
        ([span("policy_check", arguments={"order_id": 42}), "refund_commit"], ("unknown", [1])),
    ],
)
def test_precedence_binds_arguments(spans, expected):
    assert status(BOUND, *spans) == expected


def test_precedence_with_combined_matchers():
    rule = {
        "kind": "precedence",
        "before": {"name": ["approve", "escalate"], "type": ["guardrail"]},
        "after": {"name": "refund_*", "type": ["tool"]},
    }
    assert status(rule, span("approve", type="guardrail"), "refund_commit") == ("satisfied", [])
    # a tool span named approve is not the guardrail the rule asks for
    assert status(rule, "approve", "refund_commit") == ("violated", [1])
    assert status(rule, span("escalate", type="guardrail"), "refund_commit") == ("satisfied", [])


def test_precedence_ignores_llm_spans():
    rule = {"kind": "precedence", "before": "policy_check", "after": "refund_commit"}
    llm = span("policy_check", type="llm")
    assert status(rule, llm, "refund_commit") == ("violated", [1])


RESPONSE = {"kind": "response", "trigger": "refund_commit", "response": "notify"}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (RESPONSE, ["refund_commit", "lookup", "notify"], ("satisfied", [])),
        (RESPONSE, ["notify", "refund_commit"], ("violated", [1])),
        (RESPONSE, ["refund_commit", span("notify", "error")], ("violated", [0])),
        (RESPONSE, ["refund_commit", span("notify", "unknown")], ("unknown", [0])),
        (RESPONSE, [span("refund_commit", "unknown")], ("unknown", [0])),
        ({**RESPONSE, "within_steps": 1}, ["refund_commit", "lookup", "notify"], ("violated", [0])),
        ({**RESPONSE, "within_steps": 2}, ["refund_commit", "lookup", "notify"], ("satisfied", [])),
        (RESPONSE, ["refund_commit", "notify", "refund_commit"], ("violated", [2])),
    ],
)
def test_response(rule, spans, expected):
    assert status(rule, *spans) == expected


IMMEDIATE = {"kind": "immediately_before", "before": "policy_check", "after": "refund_commit"}


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["lookup", "policy_check", "refund_commit"], ("satisfied", [])),
        (["policy_check", "lookup", "refund_commit"], ("violated", [2])),
        (["refund_commit"], ("violated", [0])),
        ([span("policy_check", "error"), "refund_commit"], ("violated", [1])),
        ([span("policy_check", "unknown"), "refund_commit"], ("unknown", [1])),
        (["policy_check", span("llm_call", type="llm"), "refund_commit"], ("satisfied", [])),
    ],
)
def test_immediately_before(spans, expected):
    assert status(IMMEDIATE, *spans) == expected


ABSENCE = {"kind": "absence_after", "stop": "finish"}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (ABSENCE, ["lookup", "finish"], ("satisfied", [])),
        (ABSENCE, ["finish", "lookup", span("write", "error")], ("violated", [1, 2])),
        (ABSENCE, [span("finish", "error"), "lookup", "finish"], ("satisfied", [])),
        (ABSENCE, [span("finish", "unknown"), "lookup"], ("unknown", [1])),
        ({**ABSENCE, "forbidden": "write*"}, ["finish", "lookup", "write_file"], ("violated", [2])),
        (ABSENCE, ["finish", span("summary", type="llm")], ("satisfied", [])),
    ],
)
def test_absence_after(rule, spans, expected):
    assert status(rule, *spans) == expected


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        ({"kind": "count", "tool": "search", "max": 2}, ["search", "search"], ("satisfied", [])),
        (
            {"kind": "count", "tool": "search", "max": 1},
            ["search", "lookup", span("search", "error"), "search"],
            ("violated", [2, 3]),
        ),
        ({"kind": "count", "tool": "search", "min": 1}, ["lookup"], ("violated", [])),
        (
            {"kind": "count", "tool": "se*", "min": 2, "count_status": "success"},
            ["search", span("search", "error")],
            ("violated", [0, 1]),
        ),
        (
            {"kind": "count", "tool": "search", "min": 2, "count_status": "success"},
            ["search", span("search", "unknown")],
            ("unknown", [1]),
        ),
        (
            {"kind": "count", "tool": "search", "min": 1, "max": 1, "count_status": "success"},
            ["search", span("search", "unknown")],
            ("unknown", [1]),
        ),
    ],
)
def test_count(rule, spans, expected):
    assert status(rule, *spans) == expected


def test_count_needs_a_bound():
    with pytest.raises(ValidationError):
        RULE.validate_python({"kind": "count", "tool": "x"})
    with pytest.raises(ValidationError):
        RULE.validate_python({"kind": "count", "tool": "x", "min": 3, "max": 1})


RETRY = {"kind": "retry_limit", "tool": "fetch", "max_retries": 1}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (RETRY, [span("fetch", "error", input="a"), span("fetch", input="a")], ("satisfied", [])),
        (
            RETRY,
            [
                span("fetch", "error", input="a"),
                span("fetch", "error", input="a"),
                span("fetch", input="a"),
            ],
            ("violated", [2]),
        ),
        # same input repeated after successes is not a retry
        (RETRY, [span("fetch", input="a")] * 3, ("satisfied", [])),
        # different inputs: different signatures ...
        (
            RETRY,
            [span("fetch", "error", input="a"), span("fetch", "error", input="b"), "fetch"],
            ("satisfied", []),
        ),
        # ... unless grouped by tool
        (
            {**RETRY, "group_by": "tool"},
            [span("fetch", "error", input="a"), span("fetch", "error", input="b"), "fetch"],
            ("violated", [2]),
        ),
        (
            RETRY,
            [
                span("fetch", "error", input="a"),
                span("fetch", "unknown", input="a"),
                span("fetch", input="a"),
            ],
            ("violated", [2]),
        ),
        (
            {**RETRY, "max_retries": 0},
            [span("fetch", "unknown", input="a"), span("fetch", input="a")],
            ("unknown", [1]),
        ),
        (
            {**RETRY, "max_retries": 0},
            [span("fetch", "error", input="a"), span("fetch", input=None)],
            ("unknown", [1]),
        ),
        # a failed call without an input hash may be repeated by any later call of its name
        # (these three PASSed: only failed calls with a hash were counted)
        (
            {**RETRY, "max_retries": 0},
            [span("fetch", "error", input=None), span("fetch", input=None)],
            ("unknown", [1]),
        ),
        (
            {**RETRY, "max_retries": 0},
            [span("fetch", "error", input=None), span("fetch", input="a")],
            ("unknown", [1]),
        ),
        # ... but it has one signature: of two later calls with two signatures, at most one
        # repeats it (unknown while the limit was counted over every later call)
        (
            RETRY,
            [span("fetch", "error", input=None), span("fetch", "error"), span("fetch")],
            ("satisfied", []),
        ),
        (
            RETRY,
            [
                span("fetch", "error", input=None),
                span("fetch", input="x"),
                span("fetch", input="y"),
            ],
            ("satisfied", []),
        ),
        (
            RETRY,
            [
                span("fetch", "error", input=None),
                span("fetch", input="x"),
                span("fetch", input="x"),
            ],
            ("unknown", [1, 2]),
        ),
        (
            RETRY,
            [
                span("fetch", "error", input=None),
                span("fetch", input="x"),
                span("fetch", input=None),
            ],
            ("unknown", [1, 2]),
        ),
        (RETRY, [span("fetch", "error", input=None), span("fetch", input="a")], ("satisfied", [])),
        (
            {**RETRY, "max_retries": 0},
            [span("fetch", "error", input=None), span("other", input="a")],
            ("satisfied", []),
        ),
    ],
)
def test_retry_limit(rule, spans, expected):
    assert status(rule, *spans) == expected


def _run(rules: list[dict], *spans):
    parsed = [RULE.validate_python(r) for r in rules]
    return evaluate_rules(parsed, trace(*spans))


SOFT = {"id": "no-double-lookup", "kind": "count", "tool": "lookup", "max": 1}
RECOVER = {
    "id": "recover",
    "kind": "recovery",
    "violation": "no-double-lookup",
    "actions": ["cache_*"],
    "within_steps": 2,
}


def test_recovery_satisfied_violated_unknown():
    ok = _run([SOFT, RECOVER], "lookup", "lookup", "x", "cache_put")
    assert ok["no-double-lookup"].status == "violated"
    assert ok["recover"].status == "satisfied"
    late = _run([SOFT, RECOVER], "lookup", "lookup", "x", "y", "cache_put")
    assert (late["recover"].status, late["recover"].ordinals) == ("violated", (1,))
    maybe = _run([SOFT, RECOVER], "lookup", "lookup", span("cache_put", "unknown"))
    assert (maybe["recover"].status, maybe["recover"].ordinals) == ("unknown", (1,))
    clean = _run([SOFT, RECOVER], "lookup")
    assert clean["recover"].status == "satisfied"


def test_recovery_from_a_rule_over_llm_spans_looks_after_the_violation():
    """A rule whose matcher names ``llm`` reads every span, so its violation may sit off the
    path: recovery then looked from the run's first step, and a ``fix`` before the violation
    recovered it (a hard rule PASSed)."""
    quiet = {
        "id": "quiet",
        "kind": "absence_after",
        "stop": "finish",
        "forbidden": {"name": "*", "type": ["llm"]},
        "enforcement": "soft",
    }
    recover = {
        "id": "rec",
        "kind": "recovery",
        "violation": "quiet",
        "actions": ["fix"],
        "within_steps": 1,
    }
    chat = span("chat", type="llm")
    late = _run([quiet, recover], "fix", "finish", chat, "x")
    assert (late["quiet"].status, late["quiet"].ordinals) == ("violated", (2,))
    assert (late["rec"].status, late["rec"].ordinals) == ("violated", (2,))
    assert _run([quiet, recover], "finish", chat, "fix")["rec"].status == "satisfied"


def test_soft_budget_counts_violating_spans():
    budget = {
        "id": "budget",
        "kind": "soft_budget",
        "rules": ["no-double-lookup"],
        "max_violations": 1,
    }
    assert _run([SOFT, budget], "lookup", "lookup")["budget"].status == "satisfied"
    over = _run([SOFT, budget], "lookup", "lookup", "lookup")["budget"]
    assert (over.status, over.ordinals) == ("violated", (1, 2))
    success_only = {**SOFT, "count_status": "success"}
    unsure = _run([success_only, budget], "lookup", span("lookup", "unknown"))["budget"]
    assert (unsure.status, unsure.ordinals) == ("unknown", (1,))
    unsure = _run(
        [success_only, {**budget, "max_violations": 0}],
        "lookup",
        "lookup",
        span("lookup", "unknown"),
    )["budget"]
    assert (unsure.status, unsure.ordinals) == ("violated", (1,))


def test_rules_skip_runs_of_other_scenarios():
    rule = RULE.validate_python({**PRECEDENCE, "scenarios": ["other-*"]})
    assert evaluate_rules([rule], trace("refund_commit", scenario="refund")) == {
        "precedence-0": None
    }
    assert (
        evaluate_rules([rule], trace("refund_commit", scenario="other-1"))["precedence-0"].status
        == "violated"
    )


def test_spec_rejects_bad_references_and_unknown_keys():
    from abw.models.spec import Spec

    with pytest.raises(ValidationError, match="unknown rule ids"):
        Spec.model_validate({"id": "s", "rules": [{**RECOVER}]})
    with pytest.raises(ValidationError, match="repeat"):
        Spec.model_validate({"id": "s", "rules": [SOFT, SOFT]})
    with pytest.raises(ValidationError):
        Spec.model_validate({"id": "s", "rules": [{**PRECEDENCE, "befor": "x"}]})
    with pytest.raises(ValidationError):
        Spec.model_validate({"id": "s", "rules": [{"kind": "eventually", "tool": "x"}]})


def _response_by_windows(path, trigger, reply, within_steps):
    """The definition, window by window (quadratic): the reference the linear rule meets."""
    from abw.rules.outcome import matches

    violated, unknown = [], []
    for index, s in enumerate(path):
        if not (matches(trigger, s.name) and s.status in ("success", "unknown")):
            continue
        end = len(path) if within_steps is None else min(len(path), index + 1 + within_steps)
        window = [w for w in path[index + 1 : end] if matches(reply, w.name)]
        if any(w.status == "success" for w in window):
            continue
        if s.status == "unknown" or any(w.status == "unknown" for w in window):
            unknown.append(s.ordinal)
        else:
            violated.append(s.ordinal)
    return violated, unknown


def test_response_is_linear_and_meets_its_window_definition():
    """Every ordinal list (not only the status) equals the window-by-window definition, on
    every path of up to 4 spans over three names and three statuses, globs and limits."""
    import itertools

    from abw.rules.temporal import response

    steps = [(n, s) for n in "abc" for s in ("success", "error", "unknown")]
    for length in range(5):
        for combo in itertools.product(steps, repeat=length):
            path = trace(*(span(n, s) for n, s in combo)).path()
            for trigger, reply in (("a", "b"), ("a", "[ab]"), ("*", "c")):
                for within in (None, 1, 2):
                    got = response(path, trigger, reply, within)
                    violated, unknown = _response_by_windows(path, trigger, reply, within)
                    expected = violated or unknown
                    assert list(got.ordinals) == expected, (combo, trigger, reply, within)
                    assert got.status == (
                        "violated" if violated else "unknown" if unknown else "satisfied"
                    )
