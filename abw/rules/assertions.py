"""Value assertions between runs (the behaviorlock model, over abw traces).

A selector (RFC 6901 JSON Pointer) picks a value from a run's *observations*
(:func:`observations`); a deterministic matcher compares the candidate's value with a contract
value or with the baseline's. Status: ``compatible``, ``drifted`` or ``unknown``. A missing
baseline value, baseline runs that disagree, or a type mismatch is ``unknown``, never
``compatible``; a candidate value that is missing is ``drifted`` (except for relational
matchers whose baseline is missing too, which are ``unknown``).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from abw.rules.jsonvalue import MISSING, is_number, json_equal, json_key, resolve, show
from abw.semantics import errors, in_order, retries

if TYPE_CHECKING:
    from fractions import Fraction

AssertionStatus = Literal["compatible", "drifted", "unknown"]
RELATIONAL = frozenset({"same", "set_same", "sequence_same", "number_delta", "rank_not_lower"})


@dataclass(frozen=True)
class MatchResult:
    status: AssertionStatus
    reason: str


def observations(trace: Any) -> dict[str, Any]:
    """The document a selector reads: recorded observations of one run, no raw content.

    ``/output/<field>`` (canonical_output, only when recorded), ``/final_status``,
    ``/scenario_id``, ``/path`` (tool names in order), ``/tools`` (sorted, unique),
    ``/tool_counts/<name>``, ``/path_length``, ``/errors``, ``/retries``.
    """
    ordered = in_order(trace.spans)
    path = trace.path()
    names = [s.name for s in path]
    document: dict[str, Any] = {
        "final_status": trace.run.final_status,
        "path": names,
        "tools": sorted(set(names)),
        "tool_counts": dict(sorted(Counter(names).items())),
        "path_length": len(path),
        "errors": len(errors(ordered)),
        "retries": len(retries(ordered)),
    }
    if trace.run.scenario_id is not None:
        document["scenario_id"] = trace.run.scenario_id
    if trace.run.canonical_output is not None:
        document["output"] = trace.run.canonical_output
    return document


def baseline_value(values: list[Any], how: str = "consensus") -> tuple[Any, str | None]:
    """The baseline value of a scenario, or ``(MISSING, why)``.

    consensus: the value every baseline run agrees on; median/min/max: numbers only.
    """
    if not values:
        return MISSING, "no baseline run for this scenario"
    if any(v is MISSING for v in values):
        missing = sum(1 for v in values if v is MISSING)
        return MISSING, f"the selector does not resolve in {missing} of {len(values)} baseline runs"
    if how == "consensus":
        if len({json_key(v) for v in values}) > 1:
            return MISSING, f"the {len(values)} baseline runs disagree on this value"
        return values[0], None
    if not all(is_number(v) for v in values):
        return MISSING, f"baseline {how} needs numbers in every baseline run"
    reduce = {"median": statistics.median, "min": min, "max": max}[how]
    try:
        return reduce(values), None
    except OverflowError:  # the mean of two middle integers beyond a float's range
        return MISSING, f"the baseline {how} of these integers is beyond a float's range"


def match(matcher: Any, candidate: Any, baseline: Any = MISSING) -> MatchResult:
    """Apply one matcher; ``baseline`` is MISSING when it is unknown or not needed."""
    op = matcher.op
    if op in RELATIONAL and baseline is MISSING:
        return MatchResult("unknown", "no baseline value to compare with")
    if candidate is MISSING:
        return MatchResult("drifted", "the selector does not resolve in the candidate run")
    handler = _MATCHERS[op]
    return handler(matcher, candidate, baseline)


def _exists(_m: Any, candidate: Any, _b: Any) -> MatchResult:
    return MatchResult("compatible", f"the value is present ({show(candidate)})")


def _equals(m: Any, candidate: Any, _b: Any) -> MatchResult:
    if json_equal(candidate, m.value):
        return MatchResult("compatible", f"equals {show(m.value)}")
    return MatchResult("drifted", f"{show(candidate)} is not {show(m.value)}")


def _allowlist(m: Any, candidate: Any, _b: Any) -> MatchResult:
    if any(json_equal(candidate, v) for v in m.values):
        return MatchResult("compatible", f"{show(candidate)} is allowed")
    return MatchResult("drifted", f"{show(candidate)} is not one of {show(m.values)}")


def _same(_m: Any, candidate: Any, baseline: Any) -> MatchResult:
    if json_equal(candidate, baseline):
        return MatchResult("compatible", f"same as baseline ({show(baseline)})")
    return MatchResult("drifted", f"{show(candidate)} differs from baseline {show(baseline)}")


def _contains(m: Any, candidate: Any, _b: Any) -> MatchResult:
    if isinstance(candidate, str):
        if not isinstance(m.value, str):
            return MatchResult("unknown", "a string can only contain text")
        found = m.value in candidate
    elif isinstance(candidate, list):
        found = any(json_equal(item, m.value) for item in candidate)
    else:
        return MatchResult("unknown", "contains needs a string or an array")
    if found:
        return MatchResult("compatible", f"contains {show(m.value)}")
    return MatchResult("drifted", f"{show(candidate)} does not contain {show(m.value)}")


def _set_same(_m: Any, candidate: Any, baseline: Any) -> MatchResult:
    if not (isinstance(candidate, list) and isinstance(baseline, list)):
        return MatchResult("unknown", "set_same needs arrays on both sides")
    have = {json_key(v) for v in candidate}
    want = {json_key(v) for v in baseline}
    if have == want:
        return MatchResult("compatible", "same members as baseline, order ignored")
    added = sorted(have - want)
    removed = sorted(want - have)
    return MatchResult("drifted", f"members added {added or '[]'}, removed {removed or '[]'}")


def _sequence_same(_m: Any, candidate: Any, baseline: Any) -> MatchResult:
    if not (isinstance(candidate, list) and isinstance(baseline, list)):
        return MatchResult("unknown", "sequence_same needs arrays on both sides")
    if json_equal(candidate, baseline):
        return MatchResult("compatible", "same sequence as baseline")
    index = next(
        (
            i
            for i, (a, b) in enumerate(zip(candidate, baseline, strict=False))
            if not json_equal(a, b)
        ),
        min(len(candidate), len(baseline)),
    )
    return MatchResult(
        "drifted", f"sequence differs from baseline at index {index} ({show(baseline)})"
    )


def _number_delta(m: Any, candidate: Any, baseline: Any) -> MatchResult:
    if not (is_number(candidate) and is_number(baseline)):
        return MatchResult("unknown", "number_delta needs numbers on both sides")
    change = _difference(candidate, baseline)
    if (m.direction == "increase" and change <= 0) or (m.direction == "decrease" and change >= 0):
        return MatchResult(
            "compatible", f"changed by {_number(change)}, not in the budgeted direction"
        )
    size = abs(change)
    problems = []
    if m.abs is not None and size > m.abs:
        problems.append(f"absolute change {_number(size)} > {m.abs:g}")
    if m.rel is not None:
        relative = _relative(size, baseline)
        if relative > m.rel:
            problems.append(f"relative change {relative:.4g} > {m.rel:g}")
    if problems:
        change_text = f"{show(baseline)} -> {show(candidate)}"
        return MatchResult("drifted", f"{change_text}: {'; '.join(problems)}")
    return MatchResult("compatible", f"{show(baseline)} -> {show(candidate)} within budget")


def _difference(candidate: float, baseline: float) -> float | Fraction:
    """c - b, exactly when an integer beyond a float's range meets a float (a median)."""
    try:
        return candidate - baseline
    except OverflowError:
        from fractions import Fraction  # (only for integers beyond a float)

        return Fraction(candidate) - Fraction(baseline)


def _number(value: float | Fraction) -> str:
    """A number for a message: ``:g``, or the digits of an integer beyond a float's range."""
    try:
        return f"{float(value):g}"
    except OverflowError:
        return show(int(value))


def _relative(size: float | Fraction, baseline: float) -> float:
    """|c - b| / |b| (b = 0: any change is infinite); a quotient of integers beyond a float's
    range is infinite too, as it exceeds every budget."""
    if size == 0:
        return 0.0
    try:
        return size / abs(baseline) if baseline != 0 else float("inf")
    except OverflowError:
        return float("inf")


def _rank_not_lower(m: Any, candidate: Any, baseline: Any) -> MatchResult:
    def rank(value: Any) -> int | None:
        return next((i for i, v in enumerate(m.order) if json_equal(v, value)), None)

    have, want = rank(candidate), rank(baseline)
    if have is None or want is None:
        missing = show(candidate if have is None else baseline)
        return MatchResult("unknown", f"{missing} is not in the rank order {show(m.order)}")
    if have >= want:
        return MatchResult(
            "compatible", f"rank {show(candidate)} is not lower than {show(baseline)}"
        )
    return MatchResult("drifted", f"rank {show(candidate)} is lower than baseline {show(baseline)}")


_MATCHERS = {
    "exists": _exists,
    "equals": _equals,
    "allowlist": _allowlist,
    "same": _same,
    "contains": _contains,
    "set_same": _set_same,
    "sequence_same": _sequence_same,
    "number_delta": _number_delta,
    "rank_not_lower": _rank_not_lower,
}


@dataclass(frozen=True)
class RunAssertion:
    """One assertion on one candidate run, with both selected values (for explain)."""

    status: AssertionStatus
    reason: str
    candidate_value: Any
    baseline_value: Any


def relational_baseline(
    assertion: Any, baseline_docs: list[dict[str, Any]]
) -> tuple[Any, str | None]:
    """What a relational assertion compares with, from its scenario's baseline runs'
    :func:`observations`: ``(value, None)`` or ``(MISSING, why)``; ``(MISSING, None)`` for a
    matcher that needs no baseline."""
    if assertion.matcher.op not in RELATIONAL:
        return MISSING, None
    values = [resolve(doc, assertion.selector) for doc in baseline_docs]
    return baseline_value(values, assertion.baseline)


def assess(
    assertion: Any, candidate_doc: dict[str, Any], base: Any, why: str | None
) -> RunAssertion:
    """``assertion`` on one candidate run's observations, given :func:`relational_baseline`."""
    candidate = resolve(candidate_doc, assertion.selector)
    result = match(assertion.matcher, candidate, base)
    reason = why if (why and result.status == "unknown") else result.reason
    return RunAssertion(result.status, reason, candidate, base)


def assert_run(assertion: Any, candidate_trace: Any, baseline_traces: list[Any]) -> RunAssertion:
    """Evaluate ``assertion`` on one candidate run against its scenario's baseline runs."""
    relational = assertion.matcher.op in RELATIONAL
    docs = [observations(t) for t in baseline_traces] if relational else []
    return assess(assertion, observations(candidate_trace), *relational_baseline(assertion, docs))
