"""Sample statistics for the per-run pass indicator: Wilson bounds and an exact-lattice SPRT.

Everything here is pure and deterministic. The SPRT never compares floating-point log-likelihood
ratios with a boundary: for every sample size it precomputes, with exact rational arithmetic,
how many failures accept H1 and how many accept H0, and then decides on integer counts. (In
doubles ``2*log(4) < log(16)``, so a float SPRT with p0=0.95, p1=0.80, alpha=0.05, beta=0.20
would not stop after two initial failures; the exact one does.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

WilsonDecision = Literal["pass", "fail", "inconclusive"]
SprtDecision = Literal["accept_h0", "accept_h1", "continue", "truncated"]

#: Largest number of extra runs :func:`runs_needed` searches before giving up.
RUNS_NEEDED_LIMIT = 10_000_000


def wilson_bounds(k: int, n: int, z: float) -> tuple[float, float] | None:
    """Wilson score interval (lower, upper) for k successes in n trials; None when n == 0."""
    if n <= 0:
        return None
    if not 0 <= k <= n:
        raise ValueError(f"k={k} must lie in [0, n={n}]")
    phat = k / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (phat + z2 / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z2 / (4 * n * n)) / denom
    # Exact ends: with every run passing the upper bound is 1 (not 0.9999999999999999, which
    # would FAIL tau = 1) and the lower n/(n+z^2); with none passing the lower bound is 0 and
    # the upper z^2/(n+z^2). The difference center - half lands one step off those closed
    # forms (21 of 21 at z=3: 0.6999999999999998, short of tau = 0.7), which flips a decision
    # at a bound that equals tau.
    lower = 0.0 if k == 0 else n / (n + z2) if k == n else max(0.0, center - half)
    upper = 1.0 if k == n else z2 / (n + z2) if k == 0 else min(1.0, center + half)
    return lower, upper


def wilson_decision(k: int, n: int, z: float, tau: float) -> WilsonDecision:
    """Three-way rule: lower >= tau -> pass, upper < tau -> fail, otherwise inconclusive."""
    bounds = wilson_bounds(k, n, z)
    if bounds is None:
        return "inconclusive"
    lower, upper = bounds
    if lower >= tau:
        return "pass"
    if upper < tau:
        return "fail"
    return "inconclusive"


def runs_needed(k: int, n: int, z: float, tau: float) -> int | None:
    """Fewest additional all-pass runs m with Wilson lower(k+m, n+m) >= tau.

    0 when the bound already reaches tau; None when no number of runs can (tau >= 1).
    The lower bound grows with every added pass, so a doubling then bisection search is exact.
    """

    def reaches(m: int) -> bool:
        bounds = wilson_bounds(k + m, n + m, z)
        return bounds is not None and bounds[0] >= tau

    if reaches(0):
        return 0
    if tau >= 1:
        return None
    return _fewest(reaches, RUNS_NEEDED_LIMIT)


def _fewest(reaches: Callable[[int], bool], limit: int) -> int | None:
    """The smallest m >= 1 with ``reaches(m)`` for a monotone ``reaches`` false at 0: doubling,
    then bisection; None once the doubling passes ``limit``."""
    high = 1
    while not reaches(high):
        high *= 2
        if high > limit:
            return None
    low = high // 2  # reaches(low) is False (or low == 0, checked by the caller)
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def _exact(value: float | Fraction) -> Fraction:
    """The decimal a person wrote (0.95 -> 19/20), not the binary double nearest to it."""
    return value if isinstance(value, Fraction) else Fraction(repr(value))


def sprt_problem(p0: float, p1: float, alpha: float, beta: float, prefix: str = "") -> str | None:
    """Why the SPRT of these rates and error bounds could decide nothing sound (``prefix``:
    how its fields are named, ``sprt.`` in a spec), or None: swapped rates, or error bounds
    that a single run meets. (Each value's own range is its model's: a spec's fields.)"""
    if not p1 < p0:
        return (
            f"{prefix}p1 ({p1}) must be lower than {prefix}p0 ({p0}): p0 is the acceptable "
            "pass rate, p1 the degraded one"
        )
    if alpha + beta >= 1:
        return (
            f"{prefix}alpha + {prefix}beta ({alpha} + {beta}) must be below 1, or a single run "
            "decides the test; use e.g. alpha: 0.05, beta: 0.2"
        )
    return None


@dataclass(frozen=True)
class SprtPlan:
    """Wald's SPRT for H0: p = p0 against H1: p = p1 < p0 on the pass indicator.

    ``boundaries="wald"`` uses A = (1-beta)/alpha, B = beta/(1-alpha); ``"ville"`` uses
    A = 1/alpha, B = beta (error bounds that hold for any stopping rule).
    """

    p0: float
    p1: float
    alpha: float | Fraction
    beta: float | Fraction
    max_runs: int
    boundaries: Literal["wald", "ville"] = "wald"

    def __post_init__(self) -> None:
        """The plan a spec's ``thresholds.sprt`` would accept, else ValueError: swapped rates,
        an error bound of 1 or more, or rates at 0 or 1 decided the test at once or divided
        by zero."""
        if not (0 < self.p1 < 1 and 0 < self.p0 < 1 and 0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError(
                f"need p0, p1, alpha and beta in (0, 1) (p0 {self.p0}, p1 {self.p1}, alpha "
                f"{self.alpha}, beta {self.beta})"
            )
        problem = sprt_problem(self.p0, self.p1, self.alpha, self.beta)
        if problem is not None:
            raise ValueError(problem)
        if self.max_runs < 1 or self.boundaries not in ("wald", "ville"):
            raise ValueError("need max_runs >= 1 and boundaries wald or ville")

    def _ratios(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        p0, p1 = _exact(self.p0), _exact(self.p1)
        alpha, beta = _exact(self.alpha), _exact(self.beta)
        if self.boundaries == "ville":
            upper, lower = 1 / alpha, beta
        else:
            upper, lower = (1 - beta) / alpha, beta / (1 - alpha)
        return p1 / p0, (1 - p1) / (1 - p0), upper, lower

    @property
    def log_boundaries(self) -> tuple[float, float]:
        """(ln B, ln A) for display only; decisions never use these floats."""
        _, _, upper, lower = self._ratios()
        return math.log(lower), math.log(upper)

    def llr(self, passes: int, failures: int) -> float:
        """Log-likelihood ratio for display only."""
        return passes * math.log(self.p1 / self.p0) + failures * math.log(
            (1 - self.p1) / (1 - self.p0)
        )

    def thresholds(self, n: int) -> tuple[int, int]:
        """For n runs: (most failures that still accept H0, fewest failures that accept H1).

        The likelihood ratio grows with every failure, so both are single integers; -1 means no
        failure count accepts H0 at this n, and n+1 that none accepts H1.
        """
        return _thresholds(self, n)

    def decide(self, passes: int, failures: int) -> SprtDecision | None:
        """The boundary (if any) crossed at exactly these counts."""
        accept_h0_max, accept_h1_min = self.thresholds(passes + failures)
        if failures >= accept_h1_min:
            return "accept_h1"
        if failures <= accept_h0_max:
            return "accept_h0"
        return None


@lru_cache(maxsize=65536)
def _thresholds(plan: SprtPlan, n: int) -> tuple[int, int]:
    pass_ratio, fail_ratio, upper, lower = plan._ratios()

    def ratio(failures: int) -> Fraction:
        return pass_ratio ** (n - failures) * fail_ratio**failures

    accept_h1_min = n + 1
    low, high = 0, n + 1  # smallest f in [0, n] with ratio(f) >= upper, else n + 1
    while low < high:
        middle = (low + high) // 2
        if ratio(middle) >= upper:
            high = middle
        else:
            low = middle + 1
    accept_h1_min = low
    low, high = -1, n  # largest f in [0, n] with ratio(f) <= lower, else -1
    while low < high:
        middle = (low + high + 1) // 2
        if ratio(middle) <= lower:
            low = middle
        else:
            high = middle - 1
    return low, accept_h1_min


@dataclass(frozen=True)
class SprtResult:
    decision: SprtDecision
    passes: int
    failures: int
    runs_used: int


def run_sprt(plan: SprtPlan, outcomes: list[bool]) -> SprtResult:
    """Walk the outcomes in order and stop at the first boundary crossed.

    Past ``plan.max_runs`` runs without a decision the test is truncated (INCONCLUSIVE); when
    the outcomes run out first it is ``continue`` (collect more runs).
    """
    passes = failures = 0
    for outcome in outcomes[: plan.max_runs]:
        if outcome:
            passes += 1
        else:
            failures += 1
        decision = plan.decide(passes, failures)
        if decision is not None:
            return SprtResult(decision, passes, failures, passes + failures)
    used = passes + failures
    decision: SprtDecision = "truncated" if used >= plan.max_runs else "continue"
    return SprtResult(decision, passes, failures, used)


@dataclass(frozen=True)
class OperatingCharacteristics:
    p: float
    accept_h1: float
    accept_h0: float
    undecided: float
    expected_runs: float


def operating_characteristics(plan: SprtPlan, p: float) -> OperatingCharacteristics:
    """Exact probabilities of each decision when the true pass rate is p (dynamic program).

    Runs up to ``plan.max_runs``; the undecided mass is what truncation turns INCONCLUSIVE.
    """
    alive = {0: 1.0}  # failures so far -> probability of being undecided with them
    accept_h0 = accept_h1 = expected = 0.0
    for n in range(1, plan.max_runs + 1):
        step: dict[int, float] = {}
        for failures, mass in alive.items():
            step[failures] = step.get(failures, 0.0) + mass * p
            step[failures + 1] = step.get(failures + 1, 0.0) + mass * (1 - p)
        h0_max, h1_min = plan.thresholds(n)
        alive = {}
        for failures in sorted(step):
            mass = step[failures]
            if failures >= h1_min:
                accept_h1 += mass
                expected += n * mass
            elif failures <= h0_max:
                accept_h0 += mass
                expected += n * mass
            else:
                alive[failures] = mass
        if not alive:
            break
    undecided = sum(alive.values())
    expected += plan.max_runs * undecided
    return OperatingCharacteristics(p, accept_h1, accept_h0, undecided, expected)


# --- Anytime-valid pass-rate test: one-sided beta-binomial mixture e-processes -------------
#
# Robbins (1970); Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric,
# nonasymptotic confidence sequences", Ann. Statist. 49(2), 2021, section on the beta-binomial
# mixture. With k passes and f failures (n = k + f), the mixture of likelihood ratios over a
# uniform prior on the alternative side of tau is
#
#   FAIL side (against p >= tau; prior uniform on [0, tau]):
#     E_fail = (1/tau) * int_0^tau q^k (1-q)^f dq / (tau^k (1-tau)^f)
#            = sum_{i=0}^{f} c_i r^i,  r = tau / (1 - tau),
#              c_0 = 1/(k+1),  c_{i+1} = c_i (f - i) / (k + 2 + i)
#   PASS side (against p <= tau; prior uniform on [tau, 1]): E_fail with k <-> f, tau <-> 1 - tau.
#
# Each is a nonnegative supermartingale under its null (every likelihood ratio in the mixture
# is one), so by Ville's inequality P(ever E >= 1/level) <= level: a decision taken the first
# time either crosses is valid however often, and whenever, anyone looks. The set of tau not
# rejected is the one-sided confidence sequence. Decisions compare the finite sum with 1/level
# exactly (rational arithmetic) whenever the float sum is within 1e-9 of the boundary.

MIXTURE_SEARCH_LIMIT = 100_000


def _as_fraction(value: float | Fraction) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(repr(value))


def _mixture_float(k: int, f: int, r: float, stop: float) -> float:
    """sum_{i<=f} c_i r^i in floats, returning early once it reaches ``stop``."""
    term = 1.0 / (k + 1)
    total = term
    for i in range(f):
        term *= (f - i) * r / (k + 2 + i)
        total += term
        if total >= stop:
            return total
        if term < total * 1e-18 and (f - i) * r < k + 2 + i:  # past the peak: negligible
            break
    return total


def _mixture_exact(k: int, f: int, r: Fraction) -> Fraction:
    term = Fraction(1, k + 1)
    total = term
    for i in range(f):
        term = term * (f - i) * r / (k + 2 + i)
        total += term
    return total


def _reaches(k: int, f: int, tau: Fraction, bound: Fraction) -> bool:
    """Whether the FAIL-side mixture at (k passes, f failures) is >= ``bound`` (exact)."""
    if tau <= 0:
        return False
    if tau >= 1:
        return f > 0  # one failure disproves p = 1
    r = tau / (1 - tau)
    approx = _mixture_float(k, f, float(r), float(bound) * (1 + 1e-9))
    if approx >= float(bound) * (1 + 1e-9):
        return True
    if approx <= float(bound) * (1 - 1e-9):
        return False
    return _mixture_exact(k, f, r) >= bound


def mixture_evalue(k: int, f: int, tau: float, side: Literal["fail", "pass"]) -> float:
    """The e-value against p >= tau (``fail``) or p <= tau (``pass``), for display."""
    if side == "pass":
        k, f, tau = f, k, 1 - tau
    if tau <= 0:
        return 0.0
    if tau >= 1:
        return math.inf if f else 1.0 / (k + 1)
    return _mixture_float(k, f, tau / (1 - tau), math.inf)


@dataclass(frozen=True)
class MixturePlan:
    """The anytime-valid three-way rule against tau, at error levels for each side.

    ``fail_level`` None: the FAIL side is not tested (``failing_runs: forbid``, where a failing
    run FAILs its hard check and the statistic can only hold PASS back).
    """

    tau: Fraction
    pass_level: Fraction
    fail_level: Fraction | None

    def decide(self, passes: int, failures: int) -> Literal["pass", "fail"] | None:
        if self.fail_level is not None and _reaches(
            passes, failures, self.tau, 1 / self.fail_level
        ):
            return "fail"
        if _reaches(failures, passes, 1 - self.tau, 1 / self.pass_level):
            return "pass"
        return None


@lru_cache(maxsize=262144)
def _mixture_decide(plan: MixturePlan, passes: int, failures: int) -> str | None:
    return plan.decide(passes, failures)


@dataclass(frozen=True)
class SequentialResult:
    """Where a sequential rule stopped: ``pass`` / ``fail`` at ``runs_used``, or ``continue``."""

    decision: Literal["pass", "fail", "continue"]
    passes: int
    failures: int
    runs_used: int


def run_mixture(plan: MixturePlan, outcomes: list[bool]) -> SequentialResult:
    """Walk the outcomes in recording order; stop the first time a side crosses 1/level."""
    passes = failures = 0
    for outcome in outcomes:
        passes += outcome
        failures += not outcome
        decision = _mixture_decide(plan, passes, failures)
        if decision is not None:
            return SequentialResult(decision, passes, failures, passes + failures)  # type: ignore[arg-type]
    return SequentialResult("continue", passes, failures, passes + failures)


def mixture_runs_needed(plan: MixturePlan, passes: int, failures: int) -> int | None:
    """Fewest further passing runs after which the PASS side crosses; None past the search
    limit or when no number can (tau = 1). Passing runs never move the FAIL side up."""
    if plan.tau >= 1:
        return None

    def reaches(m: int) -> bool:
        return _mixture_decide(plan, passes + m, failures) == "pass"

    if reaches(0):
        return 0
    return _fewest(reaches, MIXTURE_SEARCH_LIMIT)


def mixture_bounds(
    passes: int, failures: int, pass_level: float, fail_level: float
) -> tuple[float, float]:
    """The one-sided confidence-sequence bounds at these counts (display only): the lowest
    rate the PASS side does not reject and the highest the FAIL side does not reject."""

    def rejected_below(m: float) -> bool:  # PASS side rejects p <= m
        return mixture_evalue(passes, failures, m, "pass") >= 1 / pass_level

    def rejected_above(m: float) -> bool:  # FAIL side rejects p >= m
        return mixture_evalue(passes, failures, m, "fail") >= 1 / fail_level

    lower = _boundary(rejected_below, below=True)
    upper = 1.0 if failures == 0 else _boundary(rejected_above, below=False)
    return round(lower, 12), round(upper, 12)


def _boundary(rejected: Callable[[float], bool], *, below: bool) -> float:
    """Where, in [0, 1], the rates ``rejected`` rejects end: they lie below the boundary
    (``below``) or above it; 50 bisection steps."""
    low, high = 0.0, 1.0
    for _ in range(50):
        middle = (low + high) / 2
        if rejected(middle) == below:
            low = middle
        else:
            high = middle
    return low if below else high
