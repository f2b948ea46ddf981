"""Rules that compare one candidate run with the baseline runs of its scenario: tools the
baseline never used, and growth of the number of calls."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from abw.rules.outcome import RuleOutcome, combine, label, span_matches, uses_llm

Span = Any  # abw.models.trace.Span


@dataclass(frozen=True)
class BaselineRuns:
    """The baseline runs of one scenario, as the relative rules need them: each run's path,
    and each run's every span (ordinal order) for a rule whose matcher names ``llm``."""

    paths: tuple[tuple[Span, ...], ...]
    spans: tuple[tuple[Span, ...], ...] = ()

    @classmethod
    def of(cls, traces: Sequence[Any]) -> BaselineRuns:
        return cls(
            tuple(tuple(t.path()) for t in traces),
            tuple(tuple(sorted(t.spans, key=lambda s: s.ordinal)) for t in traces),
        )

    def read_by(self, tool: Any) -> tuple[tuple[Span, ...], ...]:
        """The spans of each run that a rule over ``tool`` reads, as it reads a candidate run
        (abw.rules.rule_spans): every span when ``tool`` names ``llm``, else the path."""
        return self.spans if uses_llm([tool]) else self.paths


def _no_baseline() -> RuleOutcome:
    return RuleOutcome("unknown", "no baseline run for this scenario to compare with")


def new_tools(path: Sequence[Span], tool: Any, baseline: BaselineRuns | None) -> RuleOutcome:
    """No span matching ``tool`` whose name no baseline run of the scenario has.

    Only new names count (a tool the candidate stopped using is not a violation)."""
    if baseline is None or not baseline.paths:
        return _no_baseline()
    known = {s.name for run in baseline.read_by(tool) for s in run}
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
    counts = [sum(span_matches(tool, s) is True for s in run) for run in baseline.read_by(tool)]
    base = _AGGREGATE[how](counts)
    hits = [(s, span_matches(tool, s)) for s in path]
    sure = [s for s, m in hits if m is True]
    high = len(sure) + sum(m is None for _, m in hits)

    # Exact rationals (the percentage as written: 28 is 28/100), so that a count exactly at
    # the allowance is within it: in floats 32 over a median of 25 was +28.000000000000004 %.
    exact_base, exact_limit = Fraction(base), Fraction(repr(float(max_increase_percent)))
    allowed = math.floor(exact_base * (1 + exact_limit / 100))  # the calls within it

    def over(n: int) -> bool:
        return n > (0 if base == 0 else allowed)

    limit = max_increase_percent
    what = f"{label(tool)} calls: {len(sure)} vs baseline {how} {base:g}"
    if over(len(sure)):
        excess = tuple(s.ordinal for s in sure[allowed:])
        pct = "∞" if base == 0 else f"{(len(sure) - base) / base * 100:.1f}"
        return RuleOutcome("violated", f"{what}, +{pct}% > {limit:g}%", excess, len(excess))
    if over(high):
        maybe = tuple(s.ordinal for s, m in hits if m is None)
        return RuleOutcome("unknown", f"{what} (up to {high} with unrecorded results)", maybe)
    return RuleOutcome("satisfied", f"{what}, within +{limit:g}%")
