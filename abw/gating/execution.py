"""``execution``: how each candidate run ended, apart from how it behaved.

A run whose ``final_status`` is not ``success`` did not complete. Its spans are still checked
(a counterexample in a crashed run is still a counterexample), but it never counts as a
passing run, and ``execution.incomplete_runs@<scenario>`` WARNs with the runs named.
"""

from __future__ import annotations

from typing import Any

from abw.gating.common import run_violation, scenario_check, scenario_text
from abw.models.report import Check, ExecutionStatus, IncompleteRun
from abw.sharedfields import shared
from abw.text import plural

# A run here is a run summary (abw.gating.summary.RunHead): trace_id, path, final_status.


def status(scenario_id: str | None, runs: list[Any]) -> ExecutionStatus:
    """Completed / error / cancelled / unknown counts of one scenario's candidate runs."""
    counts = {"success": 0, "error": 0, "cancelled": 0, "unknown": 0}
    incomplete = []
    for t in runs:
        final = t.final_status
        counts[final] += 1
        if final != "success":
            incomplete.append(
                shared(IncompleteRun(trace_id=t.trace_id, trace_file=t.path, final_status=final))
            )
    return ExecutionStatus(
        scenario_id=scenario_id,
        runs=len(runs),
        completed=counts["success"],
        error=counts["error"],
        cancelled=counts["cancelled"],
        unknown=counts["unknown"],
        incomplete_runs=incomplete,
    )


def check(state: ExecutionStatus, runs: list[Any], *, baseline_runs: int = 1) -> Check:
    """PASS when every run completed; WARN naming how many did not, and how they ended;
    INCONCLUSIVE when the scenario has no candidate run (never "All 0 runs completed");
    ``baseline_runs`` 0 with no candidate run: a scenario only an earlier gate had."""
    where = scenario_text(state.scenario_id)
    bad = len(state.incomplete_runs)
    verdict = "WARN" if bad else "PASS" if state.runs else "INCONCLUSIVE"
    if not state.runs and not baseline_runs:
        message = (
            f"No candidate run to check: neither set has a run of {where}, which an earlier "
            "gate of this candidate (--previous) gated, so none is known to complete."
        )
    elif not state.runs:
        message = (
            f"No candidate run to check: the candidate has no run of {where} (is its "
            "--scenario-id spelled as the baseline's?), so none is known to complete."
        )
    elif not bad:
        message = (
            f"All {plural(state.runs, 'candidate run')} of {where} completed (final_status "
            "success)."
        )
    else:
        how = ", ".join(
            f"{count} {name}"
            for name, count in (
                ("error", state.error),
                ("cancelled", state.cancelled),
                ("unknown", state.unknown),
            )
            if count
        )
        message = (
            f"{bad} of {plural(state.runs, 'candidate run')} of {where} did not complete "
            f"({how}); they are still checked, but never count as passing runs."
        )
    return scenario_check(
        "execution",
        "incomplete_runs",
        state.scenario_id,
        verdict=verdict,
        message=message,
        runs_checked=state.runs,
        measured={
            "completed": state.completed,
            "error": state.error,
            "cancelled": state.cancelled,
            "unknown": state.unknown,
        },
        limits={"requires": "run.final_status success"},
        violations=[
            run_violation(t, f"final_status {t.final_status}: did not complete")
            for t in runs
            if t.final_status != "success"
        ],
    )


def failing(runs: list[Any], failed: dict[str, list[str]]) -> dict[str, str]:
    """Per candidate trace file that does not count as passing, why."""
    reasons: dict[str, str] = {}
    for t in runs:
        parts = []
        if failed.get(t.path):
            parts.append("failed " + ", ".join(failed[t.path]))
        if t.final_status != "success":
            parts.append(f"did not complete (final_status {t.final_status})")
        if parts:
            reasons[t.path] = "; ".join(parts)
    return reasons
