"""Wilson bounds and the exact-lattice SPRT, cross-checked against independent implementations."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from abw.stats import (
    SprtPlan,
    operating_characteristics,
    run_sprt,
    runs_needed,
    wilson_bounds,
    wilson_decision,
)

PLAN = SprtPlan(p0=0.95, p1=0.80, alpha=0.05, beta=0.20, max_runs=50)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 500), data=st.data(), z=st.sampled_from([1.6449, 1.96, 2.5758]))
def test_wilson_matches_statsmodels(n, data, z):
    k = data.draw(st.integers(0, n))
    alpha = 2 * (1 - 0.5 * (1 + math.erf(z / math.sqrt(2))))
    low, high = proportion_confint(k, n, alpha=alpha, method="wilson")
    lower, upper = wilson_bounds(k, n, z)
    assert lower == pytest.approx(low, abs=1e-12)
    assert upper == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize(
    ("k", "n", "z", "expected"),
    [(10, 10, 1.645, 0.787), (20, 20, 1.96, 0.839), (19, 20, 1.96, 0.764), (95, 100, 1.96, 0.888)],
)
def test_wilson_lower_matches_research_table(k, n, z, expected):
    assert round(wilson_bounds(k, n, z)[0], 3) == expected


def test_wilson_three_way_rule():
    # 10/10 at tau=0.75: lower 0.722 < tau <= upper 1.0 -> inconclusive, never FAIL.
    assert wilson_decision(10, 10, 1.96, 0.75) == "inconclusive"
    assert wilson_decision(20, 20, 1.96, 0.75) == "pass"
    assert wilson_decision(0, 10, 1.96, 0.75) == "fail"
    assert wilson_decision(0, 0, 1.96, 0.75) == "inconclusive"
    assert wilson_bounds(0, 0, 1.96) is None


@pytest.mark.parametrize(
    ("tau", "z", "needed"),
    [
        (0.80, 1.6449, 11),
        (0.90, 1.6449, 25),
        (0.95, 1.6449, 52),
        (0.80, 1.96, 16),
        (0.95, 1.96, 73),
    ],
)
def test_runs_needed_from_nothing_matches_research_table(tau, z, needed):
    assert runs_needed(0, 0, z, tau) == needed


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 200), data=st.data(), tau=st.floats(0.05, 0.97))
def test_runs_needed_is_the_smallest(n, data, tau):
    k = data.draw(st.integers(0, n))
    m = runs_needed(k, n, 1.96, tau)
    assert m is not None
    assert wilson_bounds(k + m, n + m, 1.96)[0] >= tau
    if m > 0:
        previous = wilson_bounds(k + m - 1, n + m - 1, 1.96)
        assert previous is None or previous[0] < tau


@pytest.mark.parametrize(("z", "n", "tau"), [(3.0, 21, 0.7), (2.0, 36, 0.9), (1.0, 9, 0.9)])
def test_a_bound_that_equals_tau_is_at_tau(z, n, tau):
    """All n passing, the exact lower bound n/(n+z^2) equals tau: a PASS (it was
    0.6999999999999998 at 21 of 21, z=3: INCONCLUSIVE, and one run too many needed). None
    passing, the upper bound z^2/(n+z^2) equal to tau is not below it: no FAIL."""
    assert Fraction(n, n + round(z * z)) == Fraction(repr(tau))
    assert wilson_bounds(n, n, z)[0] == tau and wilson_decision(n, n, z, tau) == "pass"
    assert runs_needed(0, 0, z, tau) == n
    low = round(z * z) / (n + round(z * z))
    assert wilson_bounds(0, n, z)[1] == low and wilson_decision(0, n, z, low) == "inconclusive"


def test_runs_needed_is_none_when_tau_is_one():
    assert runs_needed(5, 5, 1.96, 1.0) is None


def test_sprt_decides_exactly_where_floats_would_not():
    # Two failures give a likelihood ratio of exactly 16 = A, but the seed's float formula
    # computes ln((1-p1)/(1-p0)) from 0.19999999999999996 / 0.050000000000000044, lands just
    # below ln A and would not stop here.
    p0, p1, alpha, beta = 0.95, 0.80, 0.05, 0.20
    assert 2 * math.log((1 - p1) / (1 - p0)) < math.log((1 - beta) / alpha)
    assert PLAN.decide(passes=0, failures=2) == "accept_h1"
    assert PLAN.decide(passes=0, failures=1) is None
    # The quickest PASS takes 10 straight passes.
    assert PLAN.decide(passes=9, failures=0) is None
    assert PLAN.decide(passes=10, failures=0) == "accept_h0"


@pytest.mark.parametrize("boundaries", ["wald", "ville"])
@pytest.mark.parametrize(
    ("p0", "p1", "alpha", "beta"), [(0.95, 0.8, 0.05, 0.2), (0.9, 0.7, 0.1, 0.1)]
)
def test_thresholds_match_brute_force_rationals(p0, p1, alpha, beta, boundaries):
    plan = SprtPlan(p0, p1, alpha, beta, 60, boundaries)
    fp0, fp1, fa, fb = (Fraction(str(v)) for v in (p0, p1, alpha, beta))
    upper, lower = ((1 - fb) / fa, fb / (1 - fa)) if boundaries == "wald" else (1 / fa, fb)
    for n in range(1, 61):
        for failures in range(n + 1):
            ratio = (fp1 / fp0) ** (n - failures) * ((1 - fp1) / (1 - fp0)) ** failures
            expected = "accept_h1" if ratio >= upper else "accept_h0" if ratio <= lower else None
            assert plan.decide(n - failures, failures) == expected, (n, failures)


def test_run_sprt_stops_at_first_boundary_and_truncates():
    assert run_sprt(PLAN, [False, False, True]).decision == "accept_h1"
    assert run_sprt(PLAN, [False, False, True]).runs_used == 2
    assert run_sprt(PLAN, [True] * 12).decision == "accept_h0"
    assert run_sprt(PLAN, [True] * 12).runs_used == 10
    assert run_sprt(PLAN, [True] * 5).decision == "continue"
    short = SprtPlan(0.95, 0.8, 0.05, 0.2, max_runs=5)
    assert run_sprt(short, [True] * 9).decision == "truncated"
    assert run_sprt(short, [True] * 9).runs_used == 5


def test_operating_characteristics_match_research_dp():
    untruncated = SprtPlan(0.95, 0.8, 0.05, 0.2, max_runs=600)
    h0 = operating_characteristics(untruncated, 0.95)
    h1 = operating_characteristics(untruncated, 0.80)
    assert round(h0.accept_h1, 4) == 0.0336
    assert round(h0.expected_runs, 2) == 16.47
    assert round(h1.accept_h1, 4) == 0.8252
    assert round(h1.expected_runs, 2) == 17.13
    h0 = operating_characteristics(PLAN, 0.95)
    h1 = operating_characteristics(PLAN, 0.80)
    assert (round(h0.accept_h1, 3), round(h0.accept_h0, 3), round(h0.undecided, 3)) == (
        0.033,
        0.948,
        0.020,
    )
    assert (round(h1.accept_h1, 3), round(h1.accept_h0, 3), round(h1.undecided, 3)) == (
        0.802,
        0.171,
        0.027,
    )
    # Within the configured error rates.
    assert h0.accept_h1 <= PLAN.alpha and h1.accept_h0 <= PLAN.beta


def test_dp_equals_enumeration_of_every_sequence():
    plan = SprtPlan(0.95, 0.8, 0.05, 0.2, max_runs=12)
    p = 0.9
    totals = {"accept_h1": 0.0, "accept_h0": 0.0, "truncated": 0.0}
    for outcomes in itertools.product([True, False], repeat=12):
        k = sum(outcomes)
        totals[run_sprt(plan, list(outcomes)).decision] += p**k * (1 - p) ** (12 - k)
    oc = operating_characteristics(plan, p)
    assert oc.accept_h1 == pytest.approx(totals["accept_h1"], abs=1e-12)
    assert oc.accept_h0 == pytest.approx(totals["accept_h0"], abs=1e-12)
    assert oc.undecided == pytest.approx(totals["truncated"], abs=1e-12)


@pytest.mark.parametrize(
    "fields",
    [
        {"p0": 0.8, "p1": 0.95},  # swapped: accept_h0 after 4 passes
        {"alpha": 2},  # accept_h1 at once
        {"p0": 1},  # ZeroDivisionError
        {"alpha": 0.6, "beta": 0.5},
        {"max_runs": 0},
    ],
)
def test_an_sprt_plan_a_spec_would_refuse_is_refused(fields):
    """``abw.stats.SprtPlan`` (docs/semantics.md) checked nothing: swapped rates decided for
    H0 after 4 passes, ``alpha=2`` at once, ``p0=1`` divided by zero. It refuses what a spec's
    ``thresholds.sprt`` refuses."""
    from abw.stats import SprtPlan

    plan = {"p0": 0.95, "p1": 0.8, "alpha": 0.05, "beta": 0.2, "max_runs": 50} | fields
    with pytest.raises(ValueError):
        SprtPlan(**plan)


def test_write_trace_refuses_what_no_loader_reads(tmp_path):
    """``write_trace`` wrote a trace repeating a span's ordinal, which ``load_trace`` then
    refused; it refuses it before writing, naming the span."""
    from abw.errors import AbwInputError
    from abw.traceio import write_trace
    from tests.rules_kit import trace

    run = trace("a", "b")
    run.spans[1].ordinal = run.spans[0].ordinal
    with pytest.raises(AbwInputError) as refused:
        write_trace(run, tmp_path / "run.json")
    assert refused.value.field == "spans.1.ordinal" and not (tmp_path / "run.json").exists()


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_write_trace_refuses_a_number_json_has_not(tmp_path, value):
    """An attribute a library caller set to NaN or infinity was written as null, and read back
    as null: the value changed without a word. It is refused before writing, naming it."""
    from abw.errors import AbwInputError
    from abw.models.trace import Trace
    from abw.traceio import write_trace
    from tests.rules_kit import trace

    document = trace("a", "b").model_dump(mode="python")
    document["spans"][1]["attributes"]["score"] = value
    with pytest.raises(AbwInputError) as refused:
        write_trace(Trace.model_validate(document), tmp_path / "run.json")
    assert (
        refused.value.field == "spans.1.attributes.score" and not (tmp_path / "run.json").exists()
    )
