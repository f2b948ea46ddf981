"""What ``abw sample`` saves: expected agent runs to a decision, sequential against fixed n.

Simulated teams run an agent whose runs pass with probability p, one run at a time, and stop as
``abw sample`` does: after each run the real gate (``abw.gating.gate``, on synthetic traces
with increasing start times) is read by the same decision code (``abw.sample.decision``), and
the team stops when the scenario is decided or ``max_runs`` is spent. A failing run is one
that calls a forbidden tool; the spec tolerates failing runs (``failing_runs: tolerate``), so
the SPRT on the pass rate decides.

The comparison is the fixed-n design with the same error bounds: the smallest n and cut c such
that "FAIL when at most c of n runs pass" has P(FAIL | p0) <= alpha and P(PASS | p1) <= beta,
computed exactly from the binomial distribution.

Speed: a count-based sequential test that has not decided before run n decides at run n on
(passes, n) alone, so the gate's answer is cached per (passes, n). The cache is checked: the
first time a second, different run sequence reaches the same (passes, n), the gate is run
again on it and must agree (the script stops otherwise).

Usage: ``python benchmarks/sample_cost.py [--teams 2000] [--seed 7]``. Prints a table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from math import comb

from abw.gating import gate
from abw.models.spec import Spec
from abw.models.trace import Run, Source, Span, Trace
from abw.sample.decision import ScenarioState, scenario_state
from abw.traceio import TraceFile

SID = "simulated"
P0, P1, ALPHA, BETA, MAX_RUNS = 0.95, 0.80, 0.05, 0.20, 100
START = datetime(2026, 1, 1, tzinfo=UTC)


def spec(p0: float, p1: float, alpha: float, beta: float, max_runs: int) -> Spec:
    return Spec.model_validate(
        {
            "schema_version": "behavior-spec/v0",
            "id": "sample-cost",
            "invariants": {"forbidden_tools": ["bad_action"]},
            "thresholds": {
                "failing_runs": "tolerate",
                "min_wilson_pass_rate": (p0 + p1) / 2,
                "sprt": {
                    "enabled": True,
                    "p0": p0,
                    "p1": p1,
                    "alpha": alpha,
                    "beta": beta,
                    "max_runs": max_runs,
                },
            },
        }
    )


def trace_file(role: str, index: int, passed: bool) -> TraceFile:
    """A run calling ``work`` (and ``bad_action`` when it fails), started ``index`` minutes in."""
    when = (START + timedelta(minutes=index)).strftime("%Y-%m-%dT%H:%M:%SZ")
    spans = [Span(span_id="s0", ordinal=0, type="tool", name="work", status="success")]
    if not passed:
        spans.append(
            Span(span_id="s1", ordinal=1, type="tool", name="bad_action", status="success")
        )
    trace = Trace(
        source=Source(platform="simulated", export_format="none", source_hash="0" * 64),
        run=Run(
            trace_id=f"{role}-{index:06d}-{int(passed)}",
            scenario_id=SID,
            final_status="success",
            started_at=when,
        ),
        spans=spans,
    )
    digest = f"{index:062d}{int(passed)}{role[0] == 'b':d}"
    return TraceFile(f"{role}/{index:06d}-{int(passed)}.json", trace, digest)


@dataclass
class Oracle:
    """The gate's decision after each run, through ``abw.gating.gate`` and
    ``abw.sample.decision``, cached per (passes, runs) and cross-checked."""

    spec: Spec
    baseline: list[TraceFile]
    calls: int = 0
    checked: int = 0
    levels: tuple[float, float] = (ALPHA, BETA)  # the SPRT's alpha and beta as the gate uses them

    def __post_init__(self) -> None:
        self.cache: dict[tuple[int, int], tuple[ScenarioState, tuple[bool, ...]]] = {}
        self.runs: dict[tuple[int, bool], TraceFile] = {}

    def _gate(self, outcomes: tuple[bool, ...]) -> ScenarioState:
        candidate = []
        for index, passed in enumerate(outcomes):
            key = (index, passed)
            if key not in self.runs:
                self.runs[key] = trace_file("candidate", index, passed)
            candidate.append(self.runs[key])
        self.calls += 1
        report = gate(self.baseline, candidate, self.spec, spec_file="sim", spec_sha256="0" * 64)
        sprt = next(c for c in report.checks if c.id == f"sample_sufficiency.sprt@{SID}")
        self.levels = (sprt.limits["alpha"], sprt.limits["beta"])
        return scenario_state(report, SID)

    def state(self, outcomes: tuple[bool, ...]) -> ScenarioState:
        key = (sum(outcomes), len(outcomes))
        cached = self.cache.get(key)
        if cached is None:
            state = self._gate(outcomes)
            self.cache[key] = (state, outcomes)
            return state
        state, first = cached
        if first is not None and first != outcomes:
            again = self._gate(outcomes)
            if (again.decided, again.statistic) != (state.decided, state.statistic):
                raise SystemExit(f"the decision at {key} depends on the order of the runs")
            self.checked += 1
            self.cache[key] = (state, None)  # type: ignore[assignment]
        return state


def team(oracle: Oracle, p: float, rng: random.Random, max_runs: int) -> tuple[int, str]:
    """Runs until the gate decides (or max_runs): (runs used, verdict)."""
    outcomes: tuple[bool, ...] = ()
    while len(outcomes) < max_runs:
        outcomes += (rng.random() < p,)
        state = oracle.state(outcomes)
        if state.decided:
            return len(outcomes), state.statistic
    return len(outcomes), "INCONCLUSIVE"


def binomial_cdf(c: int, n: int, p: float) -> float:
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(c + 1))


def fixed_design(p0: float, p1: float, alpha: float, beta: float) -> tuple[int, int]:
    """Smallest (n, c): FAIL when passes <= c, P(FAIL | p0) <= alpha, P(PASS | p1) <= beta."""
    for n in range(1, 2000):
        for c in range(n + 1):
            if binomial_cdf(c, n, p0) > alpha:
                break
            if 1 - binomial_cdf(c, n, p1) <= beta:
                return n, c
    raise ValueError("no fixed design under 2000 runs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=2000, help="Simulated teams per p.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-runs", type=int, default=MAX_RUNS)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    oracle = Oracle(
        spec(P0, P1, ALPHA, BETA, args.max_runs),
        [trace_file("baseline", i, True) for i in range(3)],
    )
    oracle.state((True,))  # reads the levels the gate's SPRT runs at
    n_fixed, cut = fixed_design(P0, P1, ALPHA, BETA)
    used_alpha, used_beta = oracle.levels
    n_used, _ = fixed_design(P0, P1, used_alpha, used_beta)
    print(
        f"SPRT p0={P0} p1={P1} alpha={ALPHA} beta={BETA} (the gate runs it at alpha="
        f"{used_alpha:g}, beta={used_beta:g}), max_runs={args.max_runs}, {args.teams} teams per p"
    )
    print(
        f"fixed-n design with the same bounds: n={n_fixed} (FAIL when <= {cut} of them pass); "
        f"at the levels the gate uses: n={n_used}"
    )
    header = f"{'p':>6} {'E[runs]':>8} {'fixed n':>8} {'saving':>7} {'FAIL':>6} {'PASS':>6}"
    print(header + f" {'undecided':>9} {'fixed FAIL':>10} {'saving at used levels':>22}")
    rng = random.Random(args.seed)
    for p in (P1, (P0 + P1) / 2, P0, 1.0):
        results = [team(oracle, p, rng, args.max_runs) for _ in range(args.teams)]
        mean = sum(n for n, _ in results) / len(results)
        share = {v: sum(r == v for _, r in results) / len(results) for v in ("FAIL", "PASS")}
        share["INCONCLUSIVE"] = 1 - share["FAIL"] - share["PASS"]
        fixed_fail = binomial_cdf(cut, n_fixed, p)
        print(
            f"{p:>6.3f} {mean:>8.1f} {n_fixed:>8d} {1 - mean / n_fixed:>7.0%} "
            f"{share['FAIL']:>6.3f} {share['PASS']:>6.3f} {share['INCONCLUSIVE']:>9.3f} "
            f"{fixed_fail:>10.3f} {1 - mean / n_used:>22.0%}"
        )
    elapsed = time.perf_counter() - started
    print(f"{oracle.calls} gate runs ({oracle.checked} cache cross-checks agreed), {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
