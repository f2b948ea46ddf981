"""Argument rules on explicitly extracted fields (span.attributes.arguments)."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from abw.models.rules import Rule
from abw.rules import evaluate_rule
from tests.rules_kit import span, trace

RULE = TypeAdapter(Rule)
EXPECTED = {"currency": "EUR", "amount": 40}


def status(mode: str, *spans, **extra):
    rule = RULE.validate_python(
        {"kind": "arguments", "tool": "refund_*", "mode": mode, "expected": EXPECTED, **extra}
    )
    result = evaluate_rule(rule, trace(*spans).path())
    return result.status, list(result.ordinals)


def call(arguments=None, status="success"):
    extra = {} if arguments is None else {"arguments": arguments}
    return span("refund_commit", status, **extra)


@pytest.mark.parametrize(
    ("mode", "arguments", "expected"),
    [
        ("exact", {"currency": "EUR", "amount": 40.0}, "satisfied"),  # 40 == 40.0 in JSON
        ("exact", {"currency": "EUR", "amount": 40, "note": "x"}, "violated"),
        ("exact", {"currency": "EUR"}, "violated"),
        ("observed_superset", {"currency": "EUR", "amount": 40, "note": "x"}, "satisfied"),
        ("observed_superset", {"currency": "EUR"}, "violated"),
        ("observed_superset", {"currency": "USD", "amount": 40}, "violated"),
        ("observed_subset", {"currency": "EUR"}, "satisfied"),
        ("observed_subset", {"currency": "EUR", "note": "x"}, "violated"),
        ("observed_subset", {"amount": True}, "violated"),  # true is not 1, nor 40
        ("ignore", {"anything": 1}, "satisfied"),
    ],
)
def test_modes(mode, arguments, expected):
    got = status(mode, "lookup", call(arguments))
    assert got == (expected, [1] if expected == "violated" else [])


def test_violation_reports_every_bad_call_and_a_reason():
    rule = RULE.validate_python(
        {"kind": "arguments", "tool": "refund_commit", "mode": "exact", "expected": EXPECTED}
    )
    result = evaluate_rule(
        rule,
        trace(
            call({"currency": "USD", "amount": 40}), "x", call(EXPECTED), call({"amount": 40})
        ).path(),
    )
    assert result.status == "violated"
    assert result.ordinals == (0, 3)
    assert "currency" in result.message and "USD" in result.message


def test_not_extracted_is_unknown_never_satisfied():
    assert status("ignore", call(None)) == ("unknown", [0])
    assert status("exact", call(EXPECTED), call(None)) == ("unknown", [1])
    # a definite violation outweighs an undecidable call
    assert status("exact", call({"currency": "USD"}), call(None)) == ("violated", [0])


def test_ignore_fields_are_dropped_on_both_sides():
    got = status(
        "exact",
        call({"currency": "EUR", "amount": 40, "request_id": "r-1"}),
        ignore_fields=["request_id"],
    )
    assert got == ("satisfied", [])


def test_failed_calls_are_checked_too():
    assert status("exact", call({"currency": "USD", "amount": 40}, "error")) == ("violated", [0])


def test_no_matching_call_is_vacuously_satisfied():
    assert status("exact", "lookup") == ("satisfied", [])
