"""Operating characteristics of the gate's SPRT, by simulation and by exact dynamic program.

For each configuration, simulate many candidate sets whose per-run pass rate is p0 (no
regression) or p1 (regression), feed them to the same ``abw.stats.run_sprt`` the gate uses, and
count decisions:

- false-FAIL rate   = P(accept H1 | p = p0), to compare with alpha;
- missed-regression = P(accept H0 | p = p1), to compare with beta;
- INCONCLUSIVE      = truncated at max_runs without a decision;
- E[N]              = mean runs used.

Usage: ``python benchmarks/sprt_oc.py [--trials 20000] [--seed 7]``. Prints a table; exits 1
if any simulated or exact error rate exceeds its configured bound by more than Monte Carlo noise.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time

from abw.stats import SprtPlan, operating_characteristics, run_sprt

CONFIGS = [
    SprtPlan(0.95, 0.80, 0.05, 0.20, max_runs=20),
    SprtPlan(0.95, 0.80, 0.05, 0.20, max_runs=50),
    SprtPlan(0.95, 0.80, 0.05, 0.20, max_runs=100),
    SprtPlan(0.95, 0.80, 0.05, 0.20, max_runs=50, boundaries="ville"),
    SprtPlan(0.90, 0.70, 0.05, 0.10, max_runs=60),
]


def simulate(plan: SprtPlan, p: float, trials: int, rng: random.Random) -> dict[str, float]:
    counts = {"accept_h1": 0, "accept_h0": 0, "truncated": 0}
    runs = 0
    for _ in range(trials):
        outcomes = [rng.random() < p for _ in range(plan.max_runs)]
        result = run_sprt(plan, outcomes)
        counts[result.decision] += 1
        runs += result.runs_used
    return {k: v / trials for k, v in counts.items()} | {"runs": runs / trials}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ok = True
    header = (
        f"{'p0':>5} {'p1':>5} {'alpha':>5} {'beta':>5} {'Nmax':>4} {'bound':>5} | "
        f"{'false-FAIL sim/exact':>21} {'missed sim/exact':>17} "
        f"{'INC@p0':>7} {'INC@p1':>7} {'E[N]@p0':>8} {'E[N]@p1':>8} | within"
    )
    print(f"SPRT operating characteristics, {args.trials} simulated candidate sets per cell")
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for plan in CONFIGS:
        h0_sim = simulate(plan, plan.p0, args.trials, rng)
        h1_sim = simulate(plan, plan.p1, args.trials, rng)
        h0 = operating_characteristics(plan, plan.p0)
        h1 = operating_characteristics(plan, plan.p1)
        # Allow 4 standard errors of Monte Carlo noise on the simulated rates.
        noise_a = 4 * math.sqrt(plan.alpha * (1 - plan.alpha) / args.trials)
        noise_b = 4 * math.sqrt(plan.beta * (1 - plan.beta) / args.trials)
        within = (
            h0.accept_h1 <= plan.alpha
            and h1.accept_h0 <= plan.beta
            and h0_sim["accept_h1"] <= plan.alpha + noise_a
            and h1_sim["accept_h0"] <= plan.beta + noise_b
        )
        ok &= within
        print(
            f"{plan.p0:>5} {plan.p1:>5} {plan.alpha:>5} {plan.beta:>5} {plan.max_runs:>4} "
            f"{plan.boundaries:>5} | "
            f"{h0_sim['accept_h1']:>10.4f}/{h0.accept_h1:<10.4f} "
            f"{h1_sim['accept_h0']:>8.4f}/{h1.accept_h0:<8.4f} "
            f"{h0_sim['truncated']:>7.4f} {h1_sim['truncated']:>7.4f} "
            f"{h0_sim['runs']:>8.2f} {h1_sim['runs']:>8.2f} | {'yes' if within else 'NO'}"
        )
    elapsed = time.perf_counter() - started
    print(f"\n{2 * len(CONFIGS) * args.trials} simulated gates in {elapsed:.1f}s")
    print("Detection power = 1 - missed - INC@p1; INCONCLUSIVE means 'collect more runs'.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
