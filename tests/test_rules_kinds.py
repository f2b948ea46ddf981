"""The rule kinds beyond order and count: allowlist, completeness, confidence, exceptions after a
stop, combined matchers, attempt limits and the two baseline-relative kinds. Each is satisfied,
violated (with the violating ordinals) and unknown on small traces."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from abw.models.rules import Rule
from abw.rules import BaselineRuns, evaluate_rules
from tests.rules_kit import span, trace

RULE = TypeAdapter(Rule)


def status(rule: dict, *spans, final_status="success", baseline=None):
    """(status, ordinals) of one rule on a trace, with the baseline runs' traces when given."""
    facts = None if baseline is None else BaselineRuns.of(baseline)
    run = trace(*spans, final_status=final_status)
    result = evaluate_rules([RULE.validate_python({"id": "r", **rule})], run, facts)["r"]
    return result.status, list(result.ordinals)


ALLOW = {"kind": "tool_allowlist", "tools": ["crm.read", "payments.*"]}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (ALLOW, ["crm.read", "payments.refund"], ("satisfied", [])),
        (ALLOW, ["crm.read", "shell.exec", "admin.delete"], ("violated", [1, 2])),
        # only tool spans are governed by default; a failed call is still a call
        (ALLOW, [span("memo", type="memory"), span("shell.exec", "error")], ("violated", [1])),
        ({**ALLOW, "types": ["tool", "memory"]}, [span("memo", type="memory")], ("violated", [0])),
        # a list that governs llm spans allows them by its plain globs too (none could be
        # allowed: a plain glob reads no llm span elsewhere, and every run FAILed)
        (
            {**ALLOW, "tools": ["crm.read", "claude-*"], "types": ["tool", "llm"]},
            [span("claude-sonnet-4-5", type="llm"), "crm.read", span("gpt-4o", type="llm")],
            ("violated", [2]),
        ),
        # allowed only when it failed (e.g. a refused shell call): unrecorded result -> unknown
        (
            {
                "kind": "tool_allowlist",
                "tools": ["crm.*", {"name": "shell.*", "status": ["error"]}],
            },
            [span("shell.exec", "error"), span("shell.exec", "unknown")],
            ("unknown", [1]),
        ),
    ],
)
def test_tool_allowlist(rule, spans, expected):
    assert status(rule, *spans) == expected


RESULT = {"kind": "result_required", "tool": "*"}


@pytest.mark.parametrize(
    ("spans", "final_status", "expected"),
    [
        (["a", span("b", "error")], "success", ("satisfied", [])),
        # status unknown but an output was recorded: the call answered
        ([span("a", "unknown")], "success", ("satisfied", [])),
        ([span("a", "unknown", result=None), "b"], "success", ("violated", [0])),
        ([span("a", "unknown", result=None)], "error", ("violated", [0])),
        # the recording may have been cut off before the result
        ([span("a", "unknown", result=None)], "unknown", ("unknown", [0])),
        # the importer saw the whole file and no result
        ([span("a", "unknown", result=None, outcome="incomplete")], "unknown", ("violated", [0])),
    ],
)
def test_result_required(spans, final_status, expected):
    assert status(RESULT, *spans, final_status=final_status) == expected


CONFIDENCE = {
    "kind": "confidence",
    "tool": {"name": "claim", "type": ["llm"]},
    "field": "confidence",
    "threshold": 0.9,
    "evidence": "verify",
}


def claim(value=None, **extra):
    arguments = {} if value is None else {"confidence": value}
    return span("claim", type="llm", arguments=arguments, **extra)


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["verify", claim(0.95)], ("satisfied", [])),
        ([claim(0.5), claim()], ("satisfied", [])),  # below the threshold, or no claim at all
        ([claim(0.95), "verify", claim(0.99)], ("violated", [0])),
        ([span("verify", "error"), claim(0.9)], ("violated", [1])),
        ([span("verify", "unknown"), claim(0.95)], ("unknown", [1])),
        # not extracted, or not a number: cannot tell whether it was a confident claim
        ([span("claim", type="llm")], ("unknown", [0])),
        ([claim("high")], ("unknown", [0])),
    ],
)
def test_confidence(spans, expected):
    assert status(CONFIDENCE, *spans) == expected


STOP = {"kind": "absence_after", "stop": "stop", "allowed": ["finish", "telemetry.*"]}


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        (["work", "stop", "telemetry.flush", "finish"], ("satisfied", [])),
        (["stop", "telemetry.flush", "email.send", "finish"], ("violated", [2])),
        ([span("stop", "unknown"), "email.send", "finish"], ("unknown", [1])),
        ([span("stop", "error"), "email.send"], ("satisfied", [])),
    ],
)
def test_absence_after_with_an_exception_list(spans, expected):
    assert status(STOP, *spans) == expected


FAILED_TOOLS = {"kind": "count", "tool": {"type": ["tool"], "status": ["error"]}, "max": 1}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        (FAILED_TOOLS, ["a", span("b", "error"), "c"], ("satisfied", [])),
        (
            FAILED_TOOLS,
            [span("a", "error"), span("b", "error"), span("c", "error")],
            ("violated", [1, 2]),
        ),
        # a failed guardrail is not a failed tool call
        (
            FAILED_TOOLS,
            [span("a", "error"), span("g", "error", type="guardrail")],
            ("satisfied", []),
        ),
        (FAILED_TOOLS, [span("a", "error"), span("b", "unknown")], ("unknown", [1])),
        # type + status + name together
        (
            {
                "kind": "count",
                "tool": {"name": "shell.*", "type": ["tool"], "status": ["success"]},
                "min": 1,
            },
            [span("shell.exec", "error"), span("shell.exec", type="guardrail")],
            ("violated", [0]),
        ),
        # llm spans count only when the matcher names them
        ({"kind": "count", "tool": "*", "max": 1}, ["a", span("m", type="llm")], ("satisfied", [])),
        (
            {"kind": "count", "tool": {"type": ["llm"]}, "max": 1},
            ["a", span("m", type="llm"), span("n", type="llm")],
            ("violated", [2]),
        ),
    ],
)
def test_count_with_combined_matchers(rule, spans, expected):
    assert status(rule, *spans) == expected


ATTEMPTS = {"kind": "retry_limit", "tool": "*", "max_attempts": 2}


@pytest.mark.parametrize(
    ("rule", "spans", "expected"),
    [
        # three identical successful calls: over an attempt limit of 2 (no failure needed)
        (ATTEMPTS, [span("get", input="x") for _ in range(3)], ("violated", [2])),
        (
            ATTEMPTS,
            [span("get", input="x"), span("get", input="y"), span("get", input="x")],
            ("satisfied", []),
        ),
        # an unrecorded result is an attempt too
        (ATTEMPTS, [span("get", "unknown", input="x")] * 3, ("violated", [2])),
        # a call without an input hash might be the same call: unknown
        (
            ATTEMPTS,
            [span("get", input="x"), span("get", input="x"), span("get", input=None)],
            ("unknown", [2]),
        ),
        (
            {**ATTEMPTS, "group_by": "tool"},
            [span("get", input="x"), span("get", input="y"), "get"],
            ("violated", [2]),
        ),
        # a span without an input hash may repeat a failed call of its own name only: B's
        # cannot push A's retries over the limit (it was unknown)
        (
            {"kind": "retry_limit", "tool": "*", "max_retries": 1},
            [
                span("A", "error", input="x"),
                span("A", input="x"),
                span("B", "error", input="y"),
                span("B", input=None),
            ],
            ("satisfied", []),
        ),
        (
            {"kind": "retry_limit", "tool": "*", "max_retries": 1},
            [span("A", "error", input="x"), span("A", input=None), span("A", input=None)],
            ("unknown", [1, 2]),
        ),
        # the retries definition stays: identical successes are not retries
        (
            {"kind": "retry_limit", "max_retries": 0},
            [span("get", input="x")] * 3,
            ("satisfied", []),
        ),
    ],
)
def test_retry_limit_counts_attempts_or_retries(rule, spans, expected):
    assert status(rule, *spans) == expected


def test_retry_limit_needs_exactly_one_limit():
    for bad in (
        {"kind": "retry_limit"},
        {"kind": "retry_limit", "max_retries": 1, "max_attempts": 2},
    ):
        with pytest.raises(ValidationError, match="exactly one of max_retries, max_attempts"):
            RULE.validate_python(bad)


BASE = [
    trace("lookup", "refund", trace_id="b1"),
    trace("lookup", "lookup", "refund", trace_id="b2"),
]


@pytest.mark.parametrize(
    ("spans", "baseline", "expected"),
    [
        (["refund"], BASE, ("satisfied", [])),  # dropping lookup is not a new tool
        (["lookup", "shell.exec", "refund", "shell.exec"], BASE, ("violated", [1, 3])),
        (["refund"], [], ("unknown", [])),  # nothing to compare with
    ],
)
def test_new_tools(spans, baseline, expected):
    assert status({"kind": "new_tools"}, *spans, baseline=baseline) == expected


GROWTH = {"kind": "tool_call_growth", "max_increase_percent": 50}


@pytest.mark.parametrize(
    ("rule", "spans", "baseline", "expected"),
    [
        # baseline median 2.5 tool calls: 3 is +20 %
        (GROWTH, ["a", "b", "c"], BASE, ("satisfied", [])),
        (GROWTH, ["a", "b", "c", "d"], BASE, ("violated", [3])),
        ({**GROWTH, "baseline": "max"}, ["a", "b", "c", "d"], BASE, ("satisfied", [])),
        # only tool spans count by default
        (GROWTH, ["a", "b", "c", span("g", type="guardrail")], BASE, ("satisfied", [])),
        (
            {**GROWTH, "tool": {"type": ["tool"], "status": ["error"]}},
            [span("a", "error"), span("b", "unknown")],
            [trace(span("a", "error"), trace_id="b1")],
            ("unknown", [1]),
        ),
        (GROWTH, ["a"], [], ("unknown", [])),
        (GROWTH, ["a"], [trace(span("g", type="guardrail"), trace_id="b1")], ("violated", [0])),
    ],
)
def test_tool_call_growth(rule, spans, baseline, expected):
    assert status(rule, *spans, baseline=baseline) == expected


@pytest.mark.parametrize(("base", "limit"), [(25, 28), (50, 14), (10, 110), (20, 55)])
def test_tool_call_growth_exactly_at_the_allowance_is_within_it(base, limit):
    """32 calls over a baseline of 25 is exactly +28 %: in floats it was 28.000000000000004 %
    and FAILed ``max_increase_percent: 28``, naming no span."""
    baseline = [trace(*[f"t{i}" for i in range(base)], trace_id="b1")]
    rule = {"kind": "tool_call_growth", "max_increase_percent": limit}
    at = base + base * limit // 100
    assert status(rule, *[f"t{i}" for i in range(at)], baseline=baseline) == ("satisfied", [])
    assert status(rule, *[f"t{i}" for i in range(at + 1)], baseline=baseline) == (
        "violated",
        [at],
    )


def test_relative_rules_over_llm_spans_read_the_baseline_spans_alike():
    """A matcher naming ``llm`` reads every span of a candidate run, but the baseline side
    read only its path: a candidate identical to its baseline FAILed new_tools ("tools the
    baseline never used: chat") and tool_call_growth ("2 vs baseline median 0, +inf%")."""
    chat = span("chat", type="llm")
    same = [trace(chat, "a", chat, trace_id="b1")]
    llm = {"type": ["llm"]}
    assert status({"kind": "new_tools", "tool": llm}, chat, "a", chat, baseline=same) == (
        "satisfied",
        [],
    )
    growth = {"kind": "tool_call_growth", "tool": llm, "max_increase_percent": 50}
    assert status(growth, chat, "a", chat, baseline=same) == ("satisfied", [])
    assert status(growth, chat, "a", chat, chat, chat, baseline=same)[0] == "violated"
    # a matcher without llm still reads the path alone, on both sides
    assert status(GROWTH, "a", chat, chat, chat, baseline=same) == ("satisfied", [])


@pytest.mark.parametrize(
    ("pattern", "name", "hit"),
    [
        ("tool[1]", "tool1", True),  # [...] is a character class
        ("tool[1]", "tool[1]", False),
        ("tool[[]1]", "tool[1]", True),  # [[] is a literal [
        ("=tool[1]", "tool[1]", True),  # = is the literal name
        ("=tool*", "tool1", False),
    ],
)
def test_globs_and_literal_names(pattern, name, hit):
    got = status({"kind": "count", "tool": pattern, "max": 0}, name)
    assert got == (("violated", [0]) if hit else ("satisfied", []))


@pytest.mark.parametrize("name", [[], "", [""]])
def test_a_matcher_needs_a_name(name):
    with pytest.raises(ValidationError, match="non-empty glob"):
        RULE.validate_python({"kind": "count", "tool": {"name": name}, "max": 1})


def test_an_empty_name_is_refused():
    with pytest.raises(ValidationError):
        RULE.validate_python({"kind": "precedence", "before": "", "after": "b"})
