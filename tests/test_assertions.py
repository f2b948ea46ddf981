"""Value assertions: every matcher compatible / drifted / unknown, JSON Pointer selectors,
baseline consensus, and the checks they become."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from abw.models.rules import Assertion
from abw.rules.assertions import assert_run, baseline_value, observations
from abw.rules.checks import assertion_checks
from abw.rules.jsonvalue import MISSING, json_equal, parse_pointer, resolve
from tests.rules_kit import span, trace, trace_file

ASSERTION = TypeAdapter(Assertion)


def check(matcher: dict, candidate, baselines=(), selector="/output/v", **extra):
    """Status of one matcher on a candidate value against baseline values."""
    a = ASSERTION.validate_python(
        {"id": "a", "statement": "s", "selector": selector, "matcher": matcher, **extra}
    )
    cand = trace("x", output=None if candidate is MISSING else {"v": candidate})
    base = [trace("x", output=None if b is MISSING else {"v": b}) for b in baselines]
    result = assert_run(a, cand, base)
    return result.status


CASES = [
    # (matcher, candidate, baselines, expected)
    ({"op": "exists"}, None, (), "compatible"),  # explicit null exists
    ({"op": "exists"}, MISSING, (), "drifted"),
    ({"op": "equals", "value": {"a": [1, 2]}}, {"a": [1.0, 2]}, (), "compatible"),
    ({"op": "equals", "value": 1}, True, (), "drifted"),
    ({"op": "equals", "value": 1}, MISSING, (), "drifted"),
    ({"op": "allowlist", "values": ["json", "markdown"]}, "markdown", (), "compatible"),
    ({"op": "allowlist", "values": ["json", "markdown"]}, "html", (), "drifted"),
    ({"op": "same"}, {"x": 1}, ({"x": 1}, {"x": 1.0}), "compatible"),
    ({"op": "same"}, {"x": 2}, ({"x": 1},), "drifted"),
    ({"op": "same"}, 1, (), "unknown"),  # no baseline run
    ({"op": "same"}, 1, (MISSING,), "unknown"),  # baseline value missing
    ({"op": "same"}, 1, (1, 2), "unknown"),  # baselines disagree
    ({"op": "contains", "value": "call to action"}, "a call to action!", (), "compatible"),
    ({"op": "contains", "value": "cta"}, "nothing", (), "drifted"),
    ({"op": "contains", "value": {"k": 1}}, [{"k": 1}, 2], (), "compatible"),
    ({"op": "contains", "value": 3}, [1, 2], (), "drifted"),
    ({"op": "contains", "value": 3}, "text", (), "unknown"),
    ({"op": "contains", "value": 3}, 42, (), "unknown"),
    ({"op": "set_same"}, ["b", "a", "a"], (["a", "b"],), "compatible"),
    ({"op": "set_same"}, ["a"], (["a", "b"],), "drifted"),
    ({"op": "set_same"}, "a", (["a"],), "unknown"),
    ({"op": "sequence_same"}, ["a", "b"], (["a", "b"],), "compatible"),
    ({"op": "sequence_same"}, ["b", "a"], (["a", "b"],), "drifted"),
    ({"op": "sequence_same"}, ["a"], ({"a": 1},), "unknown"),
    ({"op": "number_delta", "rel": 0.25}, 118, (100,), "compatible"),
    ({"op": "number_delta", "rel": 0.25}, 130, (100,), "drifted"),
    ({"op": "number_delta", "abs": 5}, 96, (100,), "compatible"),
    ({"op": "number_delta", "abs": 5, "rel": 0.5}, 90, (100,), "drifted"),  # both must hold
    ({"op": "number_delta", "abs": 5, "direction": "increase"}, 10, (100,), "compatible"),
    ({"op": "number_delta", "rel": 0.1}, 1, (0,), "drifted"),
    ({"op": "number_delta", "rel": 0.1}, 0, (0,), "compatible"),
    ({"op": "number_delta", "abs": 1}, "5", (5,), "unknown"),
    ({"op": "number_delta", "abs": 1}, True, (1,), "unknown"),  # bool is not a number
    ({"op": "number_delta", "abs": 1}, MISSING, (1,), "drifted"),
    ({"op": "rank_not_lower", "order": ["allow", "ask", "deny"]}, "deny", ("ask",), "compatible"),
    ({"op": "rank_not_lower", "order": ["allow", "ask", "deny"]}, "ask", ("ask",), "compatible"),
    ({"op": "rank_not_lower", "order": ["allow", "ask", "deny"]}, "allow", ("ask",), "drifted"),
    ({"op": "rank_not_lower", "order": ["allow", "ask", "deny"]}, "maybe", ("ask",), "unknown"),
    ({"op": "rank_not_lower", "order": ["allow", "ask", "deny"]}, "deny", (), "unknown"),
]


@pytest.mark.parametrize(("matcher", "candidate", "baseline", "expected"), CASES)
def test_matchers(matcher, candidate, baseline, expected):
    assert check(matcher, candidate, baseline) == expected


def test_every_matcher_has_all_three_statuses_where_defined():
    seen: dict[str, set[str]] = {}
    for matcher, *_, expected in CASES:
        seen.setdefault(matcher["op"], set()).add(expected)
    assert set(seen) == {
        "exists",
        "equals",
        "allowlist",
        "same",
        "contains",
        "set_same",
        "sequence_same",
        "number_delta",
        "rank_not_lower",
    }
    for op in ("same", "contains", "set_same", "sequence_same", "number_delta", "rank_not_lower"):
        assert seen[op] == {"compatible", "drifted", "unknown"}, op


def test_baseline_reductions():
    assert baseline_value([3, 1, 2], "median") == (2, None)
    assert baseline_value([3, 1, 2], "max") == (3, None)
    value, why = baseline_value([1, "x"], "min")
    assert value is MISSING and "numbers" in why
    median = {"baseline": "median"}
    assert check({"op": "number_delta", "rel": 0.1}, 105, (90, 100, 130), **median) == (
        "compatible"
    )
    assert check({"op": "number_delta", "rel": 0.1}, 105, (90, 100, 130)) == "unknown"


def test_json_pointer_rfc6901():
    doc = {"a/b": {"~c": [10, 20]}, "": 1}
    assert parse_pointer("/a~1b/~0c/1") == ["a/b", "~c", "1"]
    assert resolve(doc, "/a~1b/~0c/1") == 20
    assert resolve(doc, "") == doc
    assert resolve(doc, "/") == 1
    assert resolve(doc, "/a~1b/~0c/01") is MISSING
    assert resolve(doc, "/a~1b/~0c/2") is MISSING
    assert resolve(doc, "/a~1b/~0c/-") is MISSING
    with pytest.raises(ValidationError):
        ASSERTION.validate_python(
            {"id": "a", "statement": "s", "selector": "output/x", "matcher": {"op": "exists"}}
        )


def test_observations_hold_path_counts_and_output():
    t = trace(
        "lookup",
        span("fetch", "error", input="q"),
        span("fetch", input="q"),
        span("think", type="llm"),
        output={"refund.amount": 40},
    )
    doc = observations(t)
    assert doc["path"] == ["lookup", "fetch", "fetch"]
    assert doc["tool_counts"] == {"fetch": 2, "lookup": 1}
    assert doc["tools"] == ["fetch", "lookup"]
    assert (doc["errors"], doc["retries"], doc["path_length"]) == (1, 1, 3)
    assert resolve(doc, "/output/refund.amount") == 40
    assert "output" not in observations(trace("x"))


def test_json_equal_semantics():
    assert json_equal({"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1})
    assert not json_equal(True, 1)
    assert not json_equal("1", 1)
    assert not json_equal([1], [1, 1])


def _checks(assertion: dict, baseline, candidate):
    a = ASSERTION.validate_python(assertion)
    return assertion_checks([a], baseline, candidate)


def test_assertion_checks_verdicts_by_severity():
    base = [trace_file(trace("x", output={"decision": "ask"}, trace_id=f"b{i}")) for i in range(2)]
    weaker = trace_file(trace("x", output={"decision": "allow"}, trace_id="c1"))
    stricter = trace_file(trace("x", output={"decision": "deny"}, trace_id="c2"))
    rank = {
        "id": "perm",
        "statement": "The permission decision does not weaken.",
        "selector": "/output/decision",
        "matcher": {"op": "rank_not_lower", "order": ["allow", "ask", "deny"]},
    }
    result = _checks(rank, base, [stricter, weaker])
    (c,) = result.checks
    assert (c.id, c.category, c.verdict, c.hard) == (
        "output_eval.assertions.perm",
        "output_eval",
        "FAIL",
        True,
    )
    assert c.measured["drifted"] == 1 and c.measured["compatible"] == 1
    assert [v.trace_id for v in c.violations] == ["c1"]
    assert '"allow"' in c.violations[0].message and '"ask"' in c.violations[0].message
    assert result.run_failed == {"c1.json": ["output_eval.assertions.perm"]}
    assert _checks({**rank, "severity": "warn"}, base, [weaker]).checks[0].verdict == "WARN"
    assert _checks({**rank, "severity": "info"}, base, [weaker]).checks[0].verdict == "PASS"
    assert _checks(rank, base, [stricter]).checks[0].verdict == "PASS"


def test_unknown_is_inconclusive_for_errors_never_pass():
    rank = {
        "id": "perm",
        "statement": "s",
        "selector": "/output/decision",
        "matcher": {"op": "rank_not_lower", "order": ["allow", "ask", "deny"]},
    }
    other = trace_file(trace("x", output={"decision": "deny"}, scenario="new", trace_id="c"))
    base = [trace_file(trace("x", output={"decision": "ask"}, trace_id="b"))]
    (c,) = _checks(rank, base, [other]).checks
    assert c.verdict == "INCONCLUSIVE" and c.measured["unknown"] == 1
    assert "no baseline run" in c.violations[0].message
    (w,) = _checks({**rank, "severity": "warn"}, base, [other]).checks
    assert w.verdict == "WARN"
    (none,) = _checks({**rank, "scenarios": ["nothing"]}, base, [other]).checks
    assert none.verdict == "INCONCLUSIVE" and none.runs_checked == 0


def test_set_members_use_json_number_equality_exactly():
    assert check({"op": "set_same"}, [1.0, 2], ([2, 1],)) == "compatible"
    assert check({"op": "set_same"}, [2**60 + 1], ([2**60],)) == "drifted"
