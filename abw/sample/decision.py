"""Whether a scenario is decided, read from a gate report: the gate decides, not abw sample.

``abw sample`` gates every recorded trace after each run and reads the scenario's checks here,
so its stopping rule is exactly the gate's verdict on the same traces:

- a hard check FAILs with a counterexample in the scenario (under ``failing_runs: forbid`` one
  violating run is proof, and no later run can undo it): decided, at once;
- every ``sample_sufficiency`` check of the scenario has a verdict other than INCONCLUSIVE
  (the sequential statistic has reached PASS or FAIL): decided;
- otherwise the evidence is not yet enough either way, and another run is worth paying for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from abw.models.report import GateReport, Verdict

STATISTIC_CATEGORY = "sample_sufficiency"


@dataclass(frozen=True)
class ScenarioState:
    """One scenario as the gate sees it now."""

    scenario_id: str
    n: int  # candidate runs recorded
    passed: int  # of them, runs that passed every per-run check
    verdict: Verdict  # the worst verdict of this scenario's checks (diff shape included)
    statistic: Verdict  # the pass-rate test alone: PASS, FAIL or INCONCLUSIVE
    decided_by: Literal["counterexample", "statistic"] | None  # None: not decided yet
    why: str  # one plain sentence: what decided it, or what is still missing
    evidence: str = "no runs yet"  # where the deciding rule stands, in a few words

    @property
    def decided(self) -> bool:
        return self.decided_by is not None


def _evidence(stats: Any) -> str:
    """The deciding rule's current standing: its bounds on the pass rate, or the SPRT's
    log-likelihood ratio between its boundaries."""
    if stats.rule == "sprt" and stats.sprt.llr is not None:
        sprt = stats.sprt
        return (
            f"SPRT log-LR {sprt.llr:.2f} in ({sprt.lower_boundary:.2f}, {sprt.upper_boundary:.2f})"
        )
    if stats.rule == "confidence_sequence" and stats.cs_lower is not None:
        return f"confidence-sequence bounds [{stats.cs_lower:.3f}, {stats.cs_upper:.3f}]"
    if stats.wilson_lower is not None:
        return f"Wilson bounds [{stats.wilson_lower:.3f}, {stats.wilson_upper:.3f}]"
    return "no bounds yet"


def undecided(scenario_id: str) -> ScenarioState:
    """The state of a scenario with no recorded run."""
    return ScenarioState(
        scenario_id, 0, 0, "INCONCLUSIVE", "INCONCLUSIVE", None, "no runs recorded yet"
    )


def scenario_state(report: GateReport, scenario_id: str) -> ScenarioState:
    """Read one scenario's decision from ``report`` (see the module docstring)."""
    from abw.models.report import worst_verdict

    stats = next((s for s in report.statistics if s.scenario_id == scenario_id), None)
    if stats is None or stats.n == 0:
        return undecided(scenario_id)
    own = [c for c in report.checks if c.scenario_id == scenario_id]
    statistic_checks = [c for c in own if c.category == STATISTIC_CATEGORY]
    statistic = worst_verdict([c.verdict for c in statistic_checks])
    if not statistic_checks:
        statistic = "INCONCLUSIVE"
    state: dict[str, Any] = {
        "scenario_id": scenario_id,
        "n": stats.n,
        "passed": stats.k,
        "statistic": statistic,
        "evidence": _evidence(stats),
    }
    verdict = worst_verdict([c.verdict for c in own])
    for check in report.checks:
        if not (check.hard and check.verdict == "FAIL"):
            continue
        hit = next((v for v in check.violations if v.scenario_id == scenario_id), None)
        if hit is not None:
            why = f"{check.id} has a counterexample in run {hit.trace_id}: {hit.message}"
            return ScenarioState(**state, verdict="FAIL", decided_by="counterexample", why=why)
    if statistic == "INCONCLUSIVE":
        waiting = next((c for c in statistic_checks if c.verdict == "INCONCLUSIVE"), None)
        why = waiting.message if waiting is not None else "the report has no statistic for it"
        return ScenarioState(**state, verdict=verdict, decided_by=None, why=why)
    deciding = [c for c in statistic_checks if c.verdict == statistic]
    decisive = ([c for c in deciding if c.rule != "min_runs"] or deciding)[-1]
    return ScenarioState(**state, verdict=verdict, decided_by="statistic", why=decisive.message)
