"""``sample_sufficiency``: enough runs, Wilson bounds on the pass rate, and the optional SPRT."""

from __future__ import annotations

from abw.gating.common import Finding, scenario_check, scenario_text, violation
from abw.models.report import Check, SampleStatistics, SprtState, Verdict
from abw.models.spec import Thresholds
from abw.stats import SprtPlan, run_sprt, runs_needed, wilson_bounds, wilson_decision
from abw.text import plural
from abw.traceio import TraceFile

_WILSON_VERDICT: dict[str, Verdict] = {
    "pass": "PASS",
    "fail": "FAIL",
    "inconclusive": "INCONCLUSIVE",
}
_SPRT_VERDICT: dict[str, Verdict] = {
    "accept_h0": "PASS",
    "accept_h1": "FAIL",
    "continue": "INCONCLUSIVE",
    "truncated": "INCONCLUSIVE",
}


def statistics(
    scenario_id: str | None, outcomes: list[bool], thresholds: Thresholds
) -> SampleStatistics:
    """k, n, Wilson bounds and decision, SPRT state and runs still needed for one scenario.

    ``outcomes`` are the per-run pass indicators in run order (sorted by trace id), the order
    in which the SPRT reads them.
    """
    n, k = len(outcomes), sum(outcomes)
    z, tau = thresholds.wilson_z, thresholds.min_wilson_pass_rate
    bounds = wilson_bounds(k, n, z)
    decision = wilson_decision(k, n, z, tau)
    config = thresholds.sprt
    if config.enabled:
        plan = SprtPlan(
            config.p0, config.p1, config.alpha, config.beta, config.max_runs, config.boundaries
        )
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
            alpha=config.alpha,
            beta=config.beta,
        )
    else:
        sprt = SprtState(enabled=False, decision="disabled", passes=k, failures=n - k, runs_used=n)
    needed = None
    if decision != "pass" or n < thresholds.min_runs:
        wilson_more = runs_needed(k, n, z, tau)
        short = max(thresholds.min_runs - n, 0)
        needed = None if wilson_more is None else max(wilson_more, short)
    return SampleStatistics(
        scenario_id=scenario_id,
        n=n,
        k=k,
        pass_rate=k / n if n else None,
        z=z,
        threshold=tau,
        wilson_lower=bounds[0] if bounds else None,
        wilson_upper=bounds[1] if bounds else None,
        wilson_decision=decision,
        min_runs=thresholds.min_runs,
        sprt=sprt,
        runs_needed=needed,
    )


def checks(
    stats: SampleStatistics,
    runs: list[TraceFile],
    failed: dict[str, list[str]],
    baseline_runs: int,
) -> list[Check]:
    """min_runs, Wilson and (when enabled) SPRT checks for one scenario."""
    sid = stats.scenario_id
    where = scenario_text(sid)
    more = (
        f" Run about {plural(stats.runs_needed, 'more passing run')}." if stats.runs_needed else ""
    )
    found: list[Check] = []

    enough = stats.n >= stats.min_runs
    if stats.n == 0:
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

    failing = [
        violation(t, Finding("failed " + ", ".join(failed[t.path])))
        for t in runs
        if failed.get(t.path)
    ]
    verdict = _WILSON_VERDICT[stats.wilson_decision]
    if stats.n == 0:
        text = f"No candidate runs for {where}: the pass rate cannot be bounded."
    else:
        assert stats.wilson_lower is not None and stats.wilson_upper is not None
        interval = (
            f"{stats.k} of {stats.n} runs passed; Wilson bounds "
            f"[{stats.wilson_lower:.3f}, {stats.wilson_upper:.3f}] (z={stats.z})"
        )
        if verdict == "PASS":
            text = f"{interval}: the lower bound reaches tau={stats.threshold}."
        elif verdict == "FAIL":
            text = f"{interval}: even the upper bound is below tau={stats.threshold}."
        else:
            text = f"{interval} straddle tau={stats.threshold}: not enough evidence either way."
    found.append(
        scenario_check(
            "sample_sufficiency",
            "wilson",
            sid,
            verdict=verdict,
            message=text + (more if verdict == "INCONCLUSIVE" else ""),
            runs_checked=stats.n,
            measured={
                "k": stats.k,
                "n": stats.n,
                "wilson_lower": stats.wilson_lower,
                "wilson_upper": stats.wilson_upper,
                "runs_needed": stats.runs_needed,
            },
            limits={"min_wilson_pass_rate": stats.threshold, "z": stats.z},
            violations=failing if verdict != "PASS" else [],
        )
    )

    sprt = stats.sprt
    if sprt.enabled:
        verdict = _SPRT_VERDICT[sprt.decision]
        counts = f"after {sprt.runs_used} run(s) ({sprt.passes} passed, {sprt.failures} failed)"
        text = {
            "accept_h0": f"SPRT accepted H0 (pass rate >= p0={sprt.p0}) {counts}.",
            "accept_h1": f"SPRT accepted H1 (pass rate degraded to p1={sprt.p1}) {counts}.",
            "continue": f"SPRT has not reached a boundary {counts}: collect more runs.",
            "truncated": f"SPRT reached its limit of {sprt.max_runs} runs without a decision.",
        }[sprt.decision]
        found.append(
            scenario_check(
                "sample_sufficiency",
                "sprt",
                sid,
                verdict=verdict,
                message=text,
                runs_checked=sprt.runs_used,
                measured={
                    "decision": sprt.decision,
                    "llr": sprt.llr,
                    "passes": sprt.passes,
                    "failures": sprt.failures,
                    "runs_used": sprt.runs_used,
                },
                limits={
                    "p0": sprt.p0,
                    "p1": sprt.p1,
                    "alpha": sprt.alpha,
                    "beta": sprt.beta,
                    "max_runs": sprt.max_runs,
                    "lower_boundary": sprt.lower_boundary,
                    "upper_boundary": sprt.upper_boundary,
                },
                violations=failing if verdict != "PASS" else [],
            )
        )
    return found
