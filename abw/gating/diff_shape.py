"""``diff_shape``: how far the candidate's paths moved from the baseline (soft thresholds)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from abw.gating.common import Finding, run_violation, scenario_check, scenario_text
from abw.models.report import Check, DiffResult, Verdict
from abw.models.spec import Thresholds
from abw.text import plural

if TYPE_CHECKING:
    from abw.gating.summary import RunSummary


def band(value: float, warn: float, fail: float) -> Verdict:
    """FAIL past the fail threshold, WARN past the warn threshold; at a threshold is within it."""
    if value > fail:
        return "FAIL"
    if value > warn:
        return "WARN"
    return "PASS"


def _word(verdict: Verdict) -> str:
    return {"FAIL": "past the fail threshold", "WARN": "past the warn threshold"}.get(
        verdict, "within the thresholds"
    )


def coverage_check(scenario_id: str | None, candidate_runs: int) -> Check:
    """A candidate scenario with no baseline runs: nothing to compare with, so INCONCLUSIVE."""
    return scenario_check(
        "diff_shape",
        "baseline_coverage",
        scenario_id,
        verdict="INCONCLUSIVE",
        message=(
            f"The candidate has {plural(candidate_runs, 'run')} for {scenario_text(scenario_id)} "
            "but the "
            "baseline has none, so their shape cannot be compared; record baseline runs for it "
            "(or check that both sets were imported with the same --scenario-id)."
        ),
        runs_checked=candidate_runs,
        measured={"baseline_runs": 0, "candidate_runs": candidate_runs},
        limits={"baseline_runs": ">= 1"},
    )


def new_tool_finding(
    path: list[Any], names: Iterable[str], baseline_tools: frozenset[str]
) -> Finding | None:
    """A run's path spans (their ``names``) of tools the baseline of its scenario never used,
    if any."""
    if baseline_tools.issuperset(names):  # (one C call for the run that uses none)
        return None
    hits = [s for s in path if s.name not in baseline_tools]
    if not hits:
        return None
    names = ", ".join(sorted({s.name for s in hits}))
    return Finding(f"uses tool(s) the baseline never used: {names}", tuple(s.ordinal for s in hits))


def checks(
    result: DiffResult, thresholds: Thresholds, candidate: dict[str, RunSummary]
) -> list[Check]:
    """The three shape checks for one scenario that has both baseline and candidate runs
    (``candidate``: its runs' summaries by trace file)."""
    sid = result.scenario_id
    where = scenario_text(sid)
    found: list[Check] = []

    # Path edit distance: the mean over candidate runs decides; far runs are listed.
    warn, fail = thresholds.path_edit_distance_warn, thresholds.path_edit_distance_fail
    verdict = band(result.path_edit_distance_mean, warn, fail)
    divergence = {d.trace_file: d for d in result.divergences}
    violations = []
    for run in result.per_run:
        if run.path_edit_distance > warn:
            d = divergence.get(run.trace_file)
            summary = candidate[run.trace_file]
            ordinals = (d.span_ordinal,) if d is not None and d.span_ordinal is not None else ()
            text = f"path edit distance {run.path_edit_distance:.3f} to nearest baseline run"
            if d is not None:
                text += (
                    f" {run.nearest_baseline_trace_id}; first leaves the baseline at step {d.step}"
                    f" ({d.candidate_tool or 'path ended'}; baseline had "
                    f"{', '.join(d.baseline_alternatives) or 'nothing'})"
                )
            lines = [summary.divergence_line] if ordinals else []
            violations.append(run_violation(summary, text, list(ordinals), lines))
    found.append(
        scenario_check(
            "diff_shape",
            "path_edit_distance",
            sid,
            verdict=verdict,
            message=(
                f"Mean path edit distance to the nearest baseline run is "
                f"{result.path_edit_distance_mean:.3f} (max {result.path_edit_distance_max:.3f}) "
                f"for {where}, {_word(verdict)} ({warn}/{fail})."
            ),
            runs_checked=result.candidate_runs,
            measured={
                "mean": result.path_edit_distance_mean,
                "max": result.path_edit_distance_max,
                "runs_past_warn": [v.trace_id for v in violations],
            },
            limits={"warn": warn, "fail": fail, "compared": "mean"},
            violations=violations if verdict != "PASS" else [],
        )
    )

    warn, fail = thresholds.fingerprint_distance_warn, thresholds.fingerprint_distance_fail
    verdict = band(result.fingerprint_distance, warn, fail)
    tools = sorted(set(result.baseline_tool_means) | set(result.candidate_tool_means))
    shift = {
        t: result.candidate_tool_means.get(t, 0.0) - result.baseline_tool_means.get(t, 0.0)
        for t in tools
    }
    found.append(
        scenario_check(
            "diff_shape",
            "fingerprint_distance",
            sid,
            verdict=verdict,
            message=(
                f"Euclidean distance between mean tool-call counts is "
                f"{result.fingerprint_distance:.3f} for {where}, {_word(verdict)} ({warn}/{fail})."
            ),
            runs_checked=result.candidate_runs,
            measured={"distance": result.fingerprint_distance, "mean_count_shift": shift},
            limits={"warn": warn, "fail": fail},
        )
    )

    warn, fail = thresholds.tool_jaccard_warn, thresholds.tool_jaccard_fail
    verdict = band(result.tool_jaccard_distance, warn, fail)
    violations = [candidate[path].new_tools for path in sorted(candidate)]
    violations = [v for v in violations if v is not None]
    changes = []
    if result.tools_new:
        changes.append(f"new: {', '.join(result.tools_new)}")
    if result.tools_missing:
        changes.append(f"missing: {', '.join(result.tools_missing)}")
    found.append(
        scenario_check(
            "diff_shape",
            "tool_jaccard",
            sid,
            verdict=verdict,
            message=(
                f"Tool-set Jaccard distance is {result.tool_jaccard_distance:.3f} for {where}"
                + (f" ({'; '.join(changes)})" if changes else "")
                + f", {_word(verdict)} ({warn}/{fail})."
            ),
            runs_checked=result.candidate_runs,
            measured={
                "distance": result.tool_jaccard_distance,
                "tools_new": result.tools_new,
                "tools_missing": result.tools_missing,
            },
            limits={"warn": warn, "fail": fail},
            violations=violations if verdict != "PASS" else [],
        )
    )
    return found
