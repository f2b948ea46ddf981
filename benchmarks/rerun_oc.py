"""Re-run operating characteristics: does the gate keep its error bounds when teams re-gate?

Simulated teams gate a candidate whose runs each pass with probability p, and act on the
overall verdict the way real teams do:

- (a) **add**: gate 10 runs; after every INCONCLUSIVE add 10 more runs and re-gate (the new
  runs are recorded later, so they append to the sequence; ``--previous`` links the gates),
  up to 200 runs;
- (b) **rerun**: gate 30 fresh runs; after every INCONCLUSIVE throw them away and gate 30 new
  ones (linked by ``--previous``, so each fresh start is a restart at a spent-down level), up
  to 5 attempts;
- (c) **every run**: gate after every single run, up to 200.

Three rules, default levels: the anytime confidence sequence (``sequential: anytime``,
alpha 0.05), the SPRT with Ville's boundaries (p0 0.95, p1 0.80, alpha 0.05, beta 0.20) and, for
contrast, fixed-n Wilson bounds (``sequential: fixed``, z 1.96, a single-look rule). All under
``failing_runs: tolerate`` with tau = 0.8, for 1 scenario and for 20 scenarios gated together
(every scenario at the same p; the team acts on the overall verdict, FAIL if any scenario
FAILs). Reported per cell: P(FAIL), P(PASS), P(INCONCLUSIVE) and the mean agent runs a team
spent (per scenario).

How: each team's runs are drawn with numpy; every look's per-scenario decision comes from the
gate's own decision tables (``abw.gating.sample_sufficiency.mixture_plan`` / ``sprt_plan`` /
``statistics``), read in recording order, and the team's final verdict is re-checked by the
full ``abw.gating.gate`` on lean in-memory traces (with ``previous`` for linked gates) for
``--confirm`` teams per 1-scenario cell (``--confirm-many`` per 20-scenario cell), which must
agree exactly. Exits 1 on any disagreement or when a
guaranteed bound is exceeded by more than 3 Monte-Carlo standard errors.

Usage: ``python benchmarks/rerun_oc.py [--teams 2000] [--confirm 25] [--confirm-many 5]
[--seed 13]``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from abw.gating import gate
from abw.gating import sample_sufficiency as ss
from abw.gating.sequence import Previous, chain
from abw.models.spec import Spec
from abw.models.trace import Run, Source, Span, Trace
from abw.traceio import TraceFile

TAU = 0.8
P_GRID = (0.95, 0.9, 0.8, 0.7, 0.6)
N_MAX = 200
ADD_START, ADD_STEP = 10, 10
RERUN_N, RERUN_ATTEMPTS = 30, 5
RULES = ("anytime", "sprt", "fixed")
PRACTICES = ("add", "rerun", "every")


def spec_for(rule: str) -> Spec:
    thresholds: dict[str, Any] = {
        "failing_runs": "tolerate",
        "min_wilson_pass_rate": TAU,
        "sequential": "fixed" if rule == "fixed" else "anytime",
        "path_edit_distance_warn": 1.0,
        "path_edit_distance_fail": 1.0,
    }
    if rule == "sprt":
        thresholds["sprt"] = {"enabled": True, "max_runs": N_MAX}
    return Spec.model_validate(
        {
            "schema_version": "behavior-spec/v0",
            "id": "rerun-oc",
            "output": {"expected": {"ok": True}},
            "thresholds": thresholds,
        }
    )


# --- decision tables: the gate's own rules on the (n, failures) lattice ----------------------


@dataclass(frozen=True)
class Table:
    """Per n: fewest failures that FAIL (n+1: none) and most that PASS (-1: none)."""

    fail_min: np.ndarray
    pass_max: np.ndarray
    first_crossing: bool  # sequential rules stop at the first crossing; Wilson re-reads each n


def _bisect(n: int, decide: Any) -> tuple[int, int]:
    """decide(failures) in {"fail", "pass", None}, monotone: pass at few, fail at many."""
    low, high = 0, n + 1  # smallest f with "fail"
    while low < high:
        mid = (low + high) // 2
        if decide(mid) == "fail":
            high = mid
        else:
            low = mid + 1
    fail_min = low
    low, high = -1, n  # largest f with "pass"
    while low < high:
        mid = (low + high + 1) // 2
        if decide(mid) == "pass":
            low = mid
        else:
            high = mid - 1
    return fail_min, low


@cache
def table(rule: str, scenarios: int, restarts: int) -> Table:
    spec = spec_for(rule)
    fail_min = np.full(N_MAX + 1, 10**9, dtype=np.int64)
    pass_max = np.full(N_MAX + 1, -1, dtype=np.int64)
    if rule == "anytime":
        plan = ss.mixture_plan(spec.thresholds, scenarios, restarts)
        for n in range(1, N_MAX + 1):
            fail_min[n], pass_max[n] = _bisect(n, lambda f, n=n: plan.decide(n - f, f))
        return Table(fail_min, pass_max, True)
    if rule == "sprt":
        plan = ss.sprt_plan(spec.thresholds, scenarios, restarts)
        mapping = {"accept_h1": "fail", "accept_h0": "pass", None: None}
        for n in range(1, N_MAX + 1):
            fail_min[n], pass_max[n] = _bisect(n, lambda f, n=n: mapping[plan.decide(n - f, f)])
        return Table(fail_min, pass_max, True)
    for n in range(1, N_MAX + 1):  # Wilson: the gate's statistics at each (n, k)

        def decide(f: int, n: int = n) -> str | None:
            outcomes = [True] * (n - f) + [False] * f
            stats = ss.statistics(None, outcomes, spec.thresholds, scenarios=scenarios)
            return None if stats.decision == "inconclusive" else stats.decision

        fail_min[n], pass_max[n] = _bisect(n, decide)
    return Table(fail_min, pass_max, False)


def decisions(t: Table, failures: np.ndarray, looks: np.ndarray) -> np.ndarray:
    """Per team and scenario, the decision at each look: 1 FAIL, 2 PASS, 0 undecided.

    ``failures``: cumulative failures [teams, scenarios, N_MAX+1] (index n = after n runs).
    """
    n = np.arange(N_MAX + 1)
    fail = failures >= t.fail_min[n]
    ok = failures <= t.pass_max[n]
    state = np.where(fail, 1, np.where(ok, 2, 0)).astype(np.int8)
    state[..., 0] = 0
    if t.first_crossing:  # the decision at n is the first crossing at or before n
        decided = state != 0
        first = np.where(decided.any(-1), decided.argmax(-1), N_MAX + 1)
        at_first = np.take_along_axis(state, np.minimum(first, N_MAX)[..., None], -1)[..., 0]
        state = np.where(n[None, None, :] >= first[..., None], at_first[..., None], 0)
    return state[..., looks]


def overall(state: np.ndarray) -> np.ndarray:
    """Per team and look: FAIL if any scenario FAILs, PASS if all PASS, else undecided."""
    return np.where((state == 1).any(1), 1, np.where((state == 2).all(1), 2, 0))


# --- practices -----------------------------------------------------------------------------


@dataclass
class Outcome:
    verdict: np.ndarray  # per team: 1 FAIL, 2 PASS, 0 INCONCLUSIVE
    runs: np.ndarray  # per team: agent runs spent per scenario
    stop: np.ndarray  # per team: look index (add, every) or attempt (rerun)


def _cumulative(passes: np.ndarray) -> np.ndarray:
    zeros = np.zeros((*passes.shape[:-1], 1), dtype=np.int16)
    return np.concatenate([zeros, np.cumsum(~passes, axis=-1, dtype=np.int16)], axis=-1)


def simulate_looks(rule: str, scenarios: int, passes: np.ndarray, looks: np.ndarray) -> Outcome:
    state = overall(decisions(table(rule, scenarios, 0), _cumulative(passes), looks))
    decided = state != 0
    stop = np.where(decided.any(1), decided.argmax(1), len(looks) - 1)
    verdict = state[np.arange(len(state)), stop]
    return Outcome(verdict, looks[stop], stop)


def simulate_rerun(rule: str, scenarios: int, attempts: list[np.ndarray]) -> Outcome:
    teams = attempts[0].shape[0]
    verdict = np.zeros(teams, dtype=np.int64)
    stop = np.full(teams, len(attempts) - 1)
    open_ = np.ones(teams, dtype=bool)
    looks = np.array([RERUN_N])
    for j, passes in enumerate(attempts):
        restarts = j if rule != "fixed" else 0
        padded = np.ones((*passes.shape[:-1], N_MAX), dtype=bool)
        padded[..., :RERUN_N] = passes
        state = overall(decisions(table(rule, scenarios, restarts), _cumulative(padded), looks))
        now = open_ & (state[:, 0] != 0)
        verdict[now] = state[now, 0]
        stop[now] = j
        open_ &= ~now
    return Outcome(verdict, (stop + 1) * RERUN_N, stop)


# --- the full gate on lean in-memory traces ---------------------------------------------------


def _template(ok: bool, scenario: str) -> Trace:
    return Trace(
        source=Source(platform="sim", export_format="json", source_hash="0" * 64),
        run=Run(
            trace_id="t", scenario_id=scenario, final_status="success", canonical_output={"ok": ok}
        ),
        spans=[Span(span_id="s1", ordinal=0, type="tool", name="work", status="success")],
    )


@cache
def _templates(scenario: str) -> tuple[Trace, Trace]:
    return _template(False, scenario), _template(True, scenario)


def lean_runs(tag: str, scenario: str, passes: np.ndarray, start: int = 0) -> list[TraceFile]:
    """One TraceFile per outcome, recorded one minute apart from ``start``."""
    files = []
    for i, ok in enumerate(passes.tolist()):
        base = _templates(scenario)[int(ok)]
        minute = start + i
        run = base.run.model_copy(update={"trace_id": f"{tag}-{scenario}-{minute:04d}"})
        day, hour, mins = 1 + minute // 1440, minute // 60 % 24, minute % 60
        span = base.spans[0].model_copy(
            update={"started_at": f"2026-06-{day:02d}T{hour:02d}:{mins:02d}:00Z"}
        )
        trace = base.model_copy(update={"run": run, "spans": [span]})
        digest = hashlib.sha256(f"{tag}/{scenario}/{minute}".encode()).hexdigest()
        files.append(TraceFile(f"{tag}/{scenario}/{minute}.json", trace, digest))
    return files


def gate_verdict(rule, baseline, candidate, previous=None) -> tuple[int, Any]:
    report = gate(
        baseline,
        candidate,
        spec_for(rule),
        spec_file="s.yaml",
        spec_sha256="0" * 64,
        previous=previous,
    )
    code = {"FAIL": 1, "PASS": 2, "WARN": 2, "INCONCLUSIVE": 0}[report.verdict]
    return code, report


def confirm(rule, practice, scenarios, sims, outcome, team) -> None:
    names = [f"s{i:02d}" for i in range(scenarios)]
    baseline = [f for s in names for f in lean_runs("base", s, np.ones(1, dtype=bool))]
    previous = None
    if practice == "rerun":
        attempt = int(outcome.stop[team])
        for j in range(attempt):  # the earlier attempts' chains, linked like --previous
            heads = {
                s: chain([t.sha256 for t in lean_runs(f"t{team}a{j}", s, sims[j][team, i])])[-1]
                for i, s in enumerate(names)
            }
            previous = {s: Previous(RERUN_N, heads[s], j) for s in names}
        candidate = [
            f
            for i, s in enumerate(names)
            for f in lean_runs(f"t{team}a{attempt}", s, sims[attempt][team, i])
        ]
    else:
        n = int(outcome.runs[team])
        candidate = [
            f for i, s in enumerate(names) for f in lean_runs(f"t{team}", s, sims[team, i, :n])
        ]
    code, report = gate_verdict(rule, baseline, candidate, previous)
    if code != int(outcome.verdict[team]):
        raise SystemExit(
            f"gate disagrees: {rule}/{practice}/S={scenarios} team {team}: "
            f"gate {report.verdict}, simulation {int(outcome.verdict[team])}"
        )


# --- the table ----------------------------------------------------------------------------


def bound_for(rule: str, p: float) -> tuple[str, float] | None:
    """The guaranteed bound for this (rule, p): on P(FAIL) or on P(PASS)."""
    if rule == "sprt":
        if p >= 0.95:
            return ("FAIL", 0.05)
        if p <= 0.80:
            return ("PASS", 0.20)
        return None
    if rule == "anytime":
        return ("FAIL", 0.05) if p >= TAU else ("PASS", 0.05)
    return ("FAIL", 0.025) if p >= TAU else ("PASS", 0.025)  # nominal single-look level


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=2000)
    parser.add_argument("--confirm", type=int, default=25, help="full gates per 1-scenario cell")
    parser.add_argument(
        "--confirm-many", type=int, default=5, help="full gates per 20-scenario cell"
    )
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    looks = {"add": np.arange(ADD_START, N_MAX + 1, ADD_STEP), "every": np.arange(1, N_MAX + 1)}
    print(
        f"# Re-run operating characteristics: {args.teams} simulated teams per cell, tau = "
        f"{TAU}, tolerate; the full gate re-checked on {args.confirm} teams per 1-scenario "
        f"cell and {args.confirm_many} per 20-scenario cell"
    )
    print()
    print(
        "| scenarios | rule | practice | p | P(FAIL) | P(PASS) | P(INC) | runs/scenario "
        "| bound | within |"
    )
    print("|--:|---|---|--:|--:|--:|--:|--:|---|---|")
    bad = 0
    for scenarios in (1, 20):
        for rule in RULES:
            for practice in PRACTICES:
                for p in P_GRID:
                    if practice == "rerun":
                        sims = [
                            rng.random((args.teams, scenarios, RERUN_N)) < p
                            for _ in range(RERUN_ATTEMPTS)
                        ]
                        outcome = simulate_rerun(rule, scenarios, sims)
                    else:
                        sims = rng.random((args.teams, scenarios, N_MAX)) < p
                        outcome = simulate_looks(rule, scenarios, sims, looks[practice])
                    confirmations = args.confirm if scenarios == 1 else args.confirm_many
                    for team in range(min(confirmations, args.teams)):
                        confirm(rule, practice, scenarios, sims, outcome, team)
                    fail = float(np.mean(outcome.verdict == 1))
                    ok = float(np.mean(outcome.verdict == 2))
                    inc = 1 - fail - ok
                    bound = bound_for(rule, p)
                    verdict_text = "-"
                    if bound is not None:
                        side, level = bound
                        rate = fail if side == "FAIL" else ok
                        noise = 3 * math.sqrt(level * (1 - level) / args.teams)
                        within = rate <= level + noise
                        guaranteed = rule != "fixed"
                        verdict_text = ("yes" if within else "NO") + (
                            "" if guaranteed else " (single-look)"
                        )
                        bad += guaranteed and not within
                        bound_text = f"{side} <= {level}"
                    else:
                        bound_text = "none (p0 > p > p1)"
                    print(
                        f"| {scenarios} | {rule} | {practice} | {p} | {fail:.3f} | {ok:.3f} | "
                        f"{inc:.3f} | {float(np.mean(outcome.runs)):.1f} | {bound_text} | "
                        f"{verdict_text} |",
                        flush=True,
                    )
    print()
    status = "all guaranteed cells within their bounds" if not bad else f"{bad} cell(s) outside"
    print(f"{time.perf_counter() - started:.0f} s; {status}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
