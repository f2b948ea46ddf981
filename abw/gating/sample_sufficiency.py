"""``sample_sufficiency``: enough runs, and the pass-rate test against tau.

The rule that decides the pass rate (docs/semantics.md, "Statistics"):

* ``sequential: anytime`` (default): a one-sided beta-binomial mixture confidence sequence
  (abw.stats.MixturePlan), read in recording order and stopped the first time a side crosses:
  valid however often anyone looks or re-gates.
* ``sequential: fixed``: Wilson bounds at the current n, for a single look only, and
  approximate (their error can exceed the level with few runs or tau near 0 or 1).
* ``sprt.enabled`` (``failing_runs: tolerate`` only): the SPRT, with Ville's boundaries unless
  the spec asks for Wald's.

Levels: the gate's budget ``alpha`` is shared by every scenario (Bonferroni on the FAIL side:
any scenario's false FAIL FAILs the gate; the PASS side needs none, as the gate PASSes only if
every scenario does) and by every restart (the k-th sequence, k = 0, 1, ..., gets
alpha * 2^-(k+1), which sums to alpha). Under ``failing_runs: forbid`` the FAIL side is not
tested: a failing run already FAILs its hard check, and the statistic can only hold PASS back.
"""

from __future__ import annotations

from fractions import Fraction
from statistics import NormalDist
from typing import Any

from abw.gating.common import run_violation, scenario_check, scenario_text
from abw.gating.sequence import MAX_RESTARTS
from abw.models.report import Check, SampleStatistics, SequenceState, SprtState, Verdict
from abw.models.spec import Thresholds
from abw.stats import (
    MixturePlan,
    SprtPlan,
    mixture_bounds,
    mixture_runs_needed,
    run_mixture,
    run_sprt,
    runs_needed,
    wilson_bounds,
    wilson_decision,
)
from abw.text import plural

_SPRT_DECISION = {
    "accept_h0": "pass",
    "accept_h1": "fail",
    "continue": "inconclusive",
    "truncated": "inconclusive",
}


def _exact(value: float | Fraction) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(repr(value))


def spend(restarts: int) -> Fraction:
    """The share of a level the (restarts)-th sequence gets: 2^-(restarts+1), summing to 1.
    From :data:`~abw.gating.sequence.MAX_RESTARTS` on none is left (:func:`statistics`)."""
    return Fraction(1, 2 ** (min(restarts, MAX_RESTARTS - 1) + 1))


def _z_for(level: float) -> float:
    return NormalDist().inv_cdf(1 - level)


def fail_z(z: float, scenarios: int) -> float:
    """The Wilson z of the FAIL side: ``z``'s one-sided level Bonferroni-split over the
    scenarios (``z`` itself for one)."""
    return _z_for((1 - NormalDist().cdf(z)) / scenarios) if scenarios > 1 else z


def sprt_plan(thresholds: Thresholds, scenarios: int = 1, restarts: int = 0) -> SprtPlan:
    """The SPRT a scenario is tested with: sprt.alpha / S and sprt.beta, both spent down."""
    config = thresholds.sprt
    share = spend(restarts)
    alpha = _exact(config.alpha) * share / scenarios
    beta = _exact(config.beta) * share
    return SprtPlan(config.p0, config.p1, alpha, beta, config.max_runs, config.boundaries)


def mixture_plan(thresholds: Thresholds, scenarios: int = 1, restarts: int = 0) -> MixturePlan:
    """The confidence-sequence test a scenario is tested with (FAIL side only under tolerate)."""
    pass_level = _exact(thresholds.alpha) * spend(restarts)
    fail_level = pass_level / scenarios if thresholds.failing_runs == "tolerate" else None
    return MixturePlan(_exact(thresholds.min_wilson_pass_rate), pass_level, fail_level)


def statistics(
    scenario_id: str | None,
    outcomes: list[bool],
    thresholds: Thresholds,
    *,
    scenarios: int = 1,
    sequence: SequenceState | None = None,
    hard_fail: bool = False,
) -> SampleStatistics:
    """The pass-rate statistics of one scenario.

    ``outcomes``: per-run pass indicators in sequence order (``sequence.order``);
    ``scenarios``: how many scenarios share the gate's budget; ``hard_fail``: a hard check
    already FAILs the gate, so no number of passing runs changes the verdict (no runs needed).
    """
    n, k = len(outcomes), sum(outcomes)
    tau = thresholds.min_wilson_pass_rate
    tolerate = thresholds.failing_runs == "tolerate"
    restarts = sequence.restarts if sequence is not None else 0
    # The restart count stops at MAX_RESTARTS, so every sequence from there on would share one
    # level and the levels would sum past alpha: such a sequence gets none and decides nothing.
    spent_out = restarts >= MAX_RESTARTS
    order_ok = sequence is None or sequence.order == "recording"

    # Fixed-n Wilson bounds: always shown; decide under ``sequential: fixed``. The FAIL side's
    # z is Bonferroni-corrected over the scenarios.
    z = thresholds.wilson_z
    one_side = 1 - NormalDist().cdf(z)
    z_fail = fail_z(z, scenarios)
    bounds = wilson_bounds(k, n, z)
    fail_bounds = wilson_bounds(k, n, z_fail)
    wilson = wilson_decision(k, n, z, tau)
    if wilson == "fail" and fail_bounds is not None and fail_bounds[1] >= tau:
        wilson = "inconclusive"

    config = thresholds.sprt
    runs_used: int | None = None
    cs_lower = cs_upper = None
    if config.enabled:
        rule = "sprt"
        plan = sprt_plan(thresholds, scenarios, restarts)
        alpha, beta = _exact(plan.alpha), _exact(plan.beta)
        result = run_sprt(plan, outcomes)
        lower, upper = plan.log_boundaries
        sprt = SprtState(
            enabled=True,
            decision=result.decision,
            llr=plan.llr(result.passes, result.failures),
            lower_boundary=lower,
            upper_boundary=upper,
            passes=result.passes,
            failures=result.failures,
            runs_used=result.runs_used,
            max_runs=config.max_runs,
            p0=config.p0,
            p1=config.p1,
            alpha=float(alpha),
            beta=float(beta),
        )
        decision = _SPRT_DECISION[result.decision]
        runs_used = result.runs_used if decision != "inconclusive" else None
        looks = "any" if config.boundaries == "ville" and order_ok else "single"
        fail_level, pass_level = float(alpha), float(beta)
        needed = _sprt_needed(plan, result) if decision == "inconclusive" else None
    else:
        sprt = SprtState(enabled=False, decision="disabled", passes=k, failures=n - k, runs_used=n)
        mixture = mixture_plan(thresholds, scenarios, restarts)
        pass_level_x, fail_level_x = mixture.pass_level, mixture.fail_level
        if thresholds.sequential == "anytime":
            rule = "confidence_sequence"
            result_cs = run_mixture(mixture, outcomes)
            decision = "inconclusive" if result_cs.decision == "continue" else result_cs.decision
            runs_used = result_cs.runs_used if decision != "inconclusive" else None
            at_pass, at_fail = (result_cs.passes, result_cs.failures) if runs_used else (k, n - k)
            if at_pass + at_fail:
                cs_lower, cs_upper = mixture_bounds(
                    at_pass,
                    at_fail,
                    float(pass_level_x),
                    float(fail_level_x if fail_level_x is not None else pass_level_x),
                )
            looks = "any" if order_ok else "single"
            needed = mixture_runs_needed(mixture, k, n - k) if decision == "inconclusive" else None
        else:
            rule = "wilson"
            decision = wilson if tolerate or wilson != "fail" else "inconclusive"
            looks = "single"
            needed = runs_needed(k, n, z, tau) if decision != "pass" else None
        fail_level = float(fail_level_x) if fail_level_x is not None else None
        pass_level = float(pass_level_x)
        if rule == "wilson":
            fail_level = (one_side / scenarios) if tolerate else None
            pass_level = one_side
    if spent_out and rule != "wilson":  # (the fixed rule is single-look: it spends none)
        decision, runs_used, needed, cs_lower, cs_upper = "inconclusive", None, None, None, None
        pass_level, fail_level = 0.0, (0.0 if fail_level is not None else None)
    if decision == "fail" or hard_fail:
        needed = None
    elif n < thresholds.min_runs:
        short = thresholds.min_runs - n
        needed = None if needed is None and decision != "pass" else max(needed or 0, short)
    return SampleStatistics(
        scenario_id=scenario_id,
        n=n,
        k=k,
        pass_rate=k / n if n else None,
        z=z,
        threshold=tau,
        wilson_lower=bounds[0] if bounds else None,
        wilson_upper=fail_bounds[1] if fail_bounds else None,
        wilson_decision=wilson,
        min_runs=thresholds.min_runs,
        sprt=sprt,
        runs_needed=needed or None,
        rule=rule,  # type: ignore[arg-type]
        looks=looks,  # type: ignore[arg-type]
        failing_runs=thresholds.failing_runs,
        decision=decision,  # type: ignore[arg-type]
        runs_used=runs_used,
        fail_level=fail_level,
        pass_level=pass_level,
        cs_lower=cs_lower,
        cs_upper=cs_upper,
        sequence=sequence,
    )


def _sprt_needed(plan: SprtPlan, result: object) -> int | None:
    """Fewest further passing runs that make the SPRT accept H0 within max_runs."""
    passes, failures = result.passes, result.failures  # type: ignore[attr-defined]
    if passes + failures >= plan.max_runs:
        return None
    for extra in range(1, plan.max_runs - passes - failures + 1):
        if plan.decide(passes + extra, failures) == "accept_h0":
            return extra
    return None


_VERDICT: dict[str, Verdict] = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _z_label(z: float, z_upper: float) -> str:
    """The z of each Wilson bound: one, or the lower's and the upper's (the FAIL side's,
    corrected for several scenarios)."""
    if z_upper == z:
        return f"z={z}"
    return f"lower z={z}, upper z={z_upper:.4g}: the FAIL side split over the scenarios"


def _level(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


def _validity(stats: SampleStatistics) -> str:
    if stats.looks == "any":
        return "valid however often anyone looks or re-gates"
    if (
        stats.rule != "wilson"
        and stats.sequence is not None
        and stats.sequence.order != "recording"
    ):
        return "single-look only: some run has no start time, so runs are in trace-id order"
    if stats.rule == "sprt":
        return "single-look only: Wald's boundaries are approximate"
    return (
        "single-look only, and approximate: Wilson's interval can miss its level with few runs "
        "or tau near 0 or 1; the default confidence sequence is exact"
    )


def checks(
    stats: SampleStatistics,
    runs: list[Any],
    failing: dict[str, str],
    baseline_runs: int,
    scenarios: int = 1,
    sequential: str = "anytime",
) -> list[Check]:
    """min_runs and the pass-rate check for one scenario.

    ``runs``: the scenario's run summaries in sequence order; ``failing``: per candidate
    trace file that did not pass, why (failed checks, or how it
    ended when it did not complete); ``scenarios``: as for :func:`statistics`;
    ``sequential``: the spec's setting (the SPRT overrides fixed).
    """
    sid = stats.scenario_id
    where = scenario_text(sid)
    z_upper = fail_z(stats.z, scenarios)
    more = (
        f" Run about {plural(stats.runs_needed, 'more passing run')}." if stats.runs_needed else ""
    )
    found: list[Check] = []

    enough = stats.n >= stats.min_runs
    left_out = stats.sequence is not None and bool(stats.sequence.left_out)
    if stats.n == 0 and left_out:
        text = (
            f"No candidate run of {where} counts: none was recorded since its sequence "
            "restarted (the runs an earlier gate saw are left out of it)."
        )
    elif stats.n == 0 and not baseline_runs:  # (only an earlier gate had it: sequence.carried)
        text = (
            f"Neither set has runs for {where}, which an earlier gate of this candidate "
            "(--previous) gated: its sequence is kept, not dropped."
        )
    elif stats.n == 0:
        text = (
            f"The candidate has no runs for {where}, which the baseline covers with "
            f"{plural(baseline_runs, 'run')}."
        )
    else:
        text = (
            f"The candidate has {plural(stats.n, 'run')} for {where}; the spec asks for "
            f"{stats.min_runs}."
        )
    found.append(
        scenario_check(
            "sample_sufficiency",
            "min_runs",
            sid,
            verdict="PASS" if enough else "INCONCLUSIVE",
            message=text + ("" if enough else more),
            runs_checked=stats.n,
            measured={"n": stats.n, "baseline_runs": baseline_runs},
            limits={"min_runs": stats.min_runs},
        )
    )

    violations = [run_violation(t, failing[t.path]) for t in runs if t.path in failing]
    verdict = _VERDICT[stats.decision]
    tau = stats.threshold
    validity = _validity(stats)
    levels = (
        f"levels: FAIL {_level(stats.fail_level)}, PASS {_level(stats.pass_level)}"
        if stats.fail_level is not None
        else f"PASS level {_level(stats.pass_level)}"
    )
    if stats.n == 0 and left_out:
        text = (
            f"No candidate run of {where} counts since its sequence restarted: the pass rate "
            "cannot be bounded."
        )
    elif stats.n == 0:
        text = f"No candidate runs for {where}: the pass rate cannot be bounded."
    elif stats.rule != "wilson" and stats.pass_level == 0:
        text = (
            f"{stats.k} of {stats.n} runs passed, but the sequence of {where} has restarted "
            f"{MAX_RESTARTS} times and no level is left for it: it cannot decide ({validity})."
        )
    elif stats.rule == "sprt":
        sprt = stats.sprt
        counts = (
            f"after {plural(sprt.runs_used, 'run')} ({sprt.passes} passed, {sprt.failures} failed)"
        )
        text = {
            "accept_h0": f"SPRT accepted H0 (pass rate >= p0={sprt.p0}) {counts}",
            "accept_h1": f"SPRT accepted H1 (pass rate degraded to p1={sprt.p1}) {counts}",
            "continue": f"SPRT has not reached a boundary {counts}: collect more runs",
            "truncated": f"SPRT reached its limit of {sprt.max_runs} runs without a decision",
        }[sprt.decision] + f" ({levels}; {validity})."
        if sequential == "fixed":
            text += " sprt.enabled: the SPRT decides, not the Wilson bounds of sequential: fixed."
    elif stats.rule == "confidence_sequence":
        interval = (
            f"{stats.k} of {stats.n} runs passed; confidence-sequence bounds "
            f"[{_fmt(stats.cs_lower)}, {_fmt(stats.cs_upper)}]"
        )
        at = f" at run {stats.runs_used}" if stats.runs_used else ""
        if verdict == "PASS":
            text = f"{interval}{at}: the lower bound reached tau={tau}"
        elif verdict == "FAIL":
            text = f"{interval}{at}: the upper bound fell below tau={tau}"
        elif stats.failing_runs == "forbid" and stats.k < stats.n:
            text = f"{interval}: the pass rate is not shown to reach tau={tau}"
        else:
            text = f"{interval} straddle tau={tau}: not enough evidence either way"
        text += f" ({levels}; {validity})."
    else:
        interval = (
            f"{stats.k} of {stats.n} runs passed; Wilson bounds "
            f"[{_fmt(stats.wilson_lower)}, {_fmt(stats.wilson_upper)}] "
            f"({_z_label(stats.z, z_upper)})"
        )
        if verdict == "PASS":
            text = f"{interval}: the lower bound reaches tau={tau}"
        elif verdict == "FAIL":
            text = f"{interval}: even the upper bound is below tau={tau}"
        else:
            text = f"{interval} straddle tau={tau}: not enough evidence either way"
        text += f" ({validity})."
    if stats.sequence is not None and stats.sequence.continuity == "restarted":
        text += f" This gate {stats.sequence.continuity_message}"  # evidence removed: say so
    measured = {
        "k": stats.k,
        "n": stats.n,
        "decision": stats.decision,
        "runs_used": stats.runs_used,
        "runs_needed": stats.runs_needed,
    }
    if stats.rule == "confidence_sequence":
        measured |= {"cs_lower": stats.cs_lower, "cs_upper": stats.cs_upper}
    elif stats.rule == "wilson":
        measured |= {"wilson_lower": stats.wilson_lower, "wilson_upper": stats.wilson_upper}
    else:
        measured |= {
            "llr": stats.sprt.llr,
            "passes": stats.sprt.passes,
            "failures": stats.sprt.failures,
        }
    limits: dict[str, object] = {
        "min_wilson_pass_rate": tau,
        "failing_runs": stats.failing_runs,
        "looks": stats.looks,
        "fail_level": stats.fail_level,
        "pass_level": stats.pass_level,
    }
    if stats.rule == "wilson":
        limits["z"] = stats.z
        if z_upper != stats.z:
            limits["z_upper"] = z_upper
    if stats.rule == "sprt":
        sprt = stats.sprt
        limits |= {
            "p0": sprt.p0,
            "p1": sprt.p1,
            "alpha": sprt.alpha,
            "beta": sprt.beta,
            "max_runs": sprt.max_runs,
            "lower_boundary": sprt.lower_boundary,
            "upper_boundary": sprt.upper_boundary,
        }
    found.append(
        scenario_check(
            "sample_sufficiency",
            stats.rule,
            sid,
            verdict=verdict,
            message=text + (more if verdict == "INCONCLUSIVE" else ""),
            runs_checked=stats.n,
            measured=measured,
            limits=limits,
            violations=violations if verdict != "PASS" else [],
        )
    )
    return found
