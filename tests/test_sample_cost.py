"""benchmarks/sample_cost.py: the fixed-n design it compares with is the smallest one with the
stated error bounds, computed exactly."""

from __future__ import annotations

import runpy

import pytest

from tests.conftest import REPO

COST = runpy.run_path(str(REPO / "benchmarks" / "sample_cost.py"))


@pytest.mark.parametrize(
    ("p0", "p1", "alpha", "beta"),
    [(0.95, 0.8, 0.05, 0.2), (0.95, 0.8, 0.025, 0.1), (0.9, 0.7, 0.05, 0.1)],
)
def test_fixed_design_is_the_smallest_with_both_bounds(p0, p1, alpha, beta):
    cdf = COST["binomial_cdf"]
    n, cut = COST["fixed_design"](p0, p1, alpha, beta)
    assert cdf(cut, n, p0) <= alpha  # false FAIL at p0
    assert 1 - cdf(cut, n, p1) <= beta  # missed regression at p1
    for smaller in range(1, n):  # no smaller n has any cut meeting both
        assert not any(
            cdf(c, smaller, p0) <= alpha and 1 - cdf(c, smaller, p1) <= beta
            for c in range(smaller + 1)
        )


def test_the_default_comparison():
    assert COST["fixed_design"](0.95, 0.8, 0.05, 0.2) == (27, 23)
