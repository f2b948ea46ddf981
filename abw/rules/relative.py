"""Rules that compare one candidate run with the baseline runs of its scenario: tools the
baseline never used, and growth of the number of calls."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from abw.rules.outcome import RuleOutcome, combine, label, span_matches

Span = Any  # abw.models.trace.Span


@dataclass(frozen=True)
class BaselineRuns:
    """The baseline runs of one scenario, as the relative rules need them."""

    paths: tuple[tuple[Span, ...], ...]

    @classmethod
    def of(cls, traces: Sequence[Any]) -> BaselineRuns:
        return cls(tuple(tuple(t.path()) for t in traces))


def _no_baseline() -> RuleOutcome:
    return RuleOutcome("unknown", "no baseline run for this scenario to compare with")


def new_tools(path: Sequence[Span], tool: Any, baseline: BaselineRuns | None) -> RuleOutcome:
    """No span matching ``tool`` whose name no baseline run of the scenario has.

    Only new names count (a tool the candidate stopped using is not a violation)."""
    if baseline is None or not baseline.paths:
        return _no_baseline()
    known = {s.name for run in baseline.paths for s in run}
    new = [s for s in path if span_matches(tool, s) is True and s.name not in known]
    names = ", ".join(sorted({s.name for s in new}))
    return combine(
        [s.ordinal for s in new],
        [],
        f"no {label(tool)} span of a tool the baseline did not use",
        f"tools the baseline never used: {names}",
        "",
    )


_AGGREGATE = {"median": statistics.median, "max": max, "min": min}


def tool_call_growth(
    path: Sequence[Span],
    tool: Any,
    max_increase_percent: float,
    how: str,
    baseline: BaselineRuns | None,
) -> RuleOutcome:
    """Spans matching ``tool`` grow at most ``max_increase_percent`` over the baseline's
    ``how`` (median, max, min) count. From a baseline of 0, any call is infinite growth."""
    if baseline is None or not baseline.paths:
        return _no_baseline()
    counts = [sum(span_matches(tool, s) is True for s in run) for run in baseline.paths]
    base = _AGGREGATE[how](counts)
    hits = [(s, span_matches(tool, s)) for s in path]
    sure = [s for s, m in hits if m is True]
    high = len(sure) + sum(m is None for _, m in hits)

    def growth(n: int) -> float:
        if base == 0:
            return 0.0 if n == 0 else float("inf")
        return (n - base) / base * 100

    limit = max_increase_percent
    what = f"{label(tool)} calls: {len(sure)} vs baseline {how} {base:g}"
    if growth(len(sure)) > limit:
        allowed = int(base + base * limit / 100)  # the calls within the allowance
        excess = tuple(s.ordinal for s in sure[allowed:])
        shown = growth(len(sure))
        pct = "∞" if shown == float("inf") else f"{shown:.1f}"
        return RuleOutcome("violated", f"{what}, +{pct}% > {limit:g}%", excess, len(excess))
    if growth(high) > limit:
        maybe = tuple(s.ordinal for s, m in hits if m is None)
        return RuleOutcome("unknown", f"{what} (up to {high} with unrecorded results)", maybe)
    return RuleOutcome("satisfied", f"{what}, within +{limit:g}%")
