"""The standalone HTML report: one file, inline CSS and SVG, no script, no external requests.

Jinja2 renders ``templates/report.html.j2`` with autoescaping on; every string from the report
is also passed through :func:`abw.text.clean`. Charts come from :mod:`abw.render.svg`
and are the only markup inserted unescaped.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markupsafe import Markup

from abw.models.report import Check, DiffResult, Divergence, GateReport, SampleStatistics
from abw.render import svg
from abw.render.common import (
    DIFF_METRICS,
    category_title,
    checks_by_category,
    decision_bounds,
    diff_shape_checks,
    fmt_num,
    fmt_pct,
    fold_numbers,
    safe_url,
    summary_text,
    thresholds,
    verdict_counts,
    worst_first,
)
from abw.render.rules import rule_text
from abw.text import clean

MAX_VIOLATIONS = 100
MAX_RUNS = 1000
MAX_DIVERGENCES = 50
_SPRT_WORDS = {
    "accept_h0": "accepted H0: the pass rate is acceptable",
    "accept_h1": "accepted H1: the pass rate is degraded",
    "continue": "undecided: more runs needed",
    "truncated": "truncated at the maximum number of runs",
    "disabled": "disabled",
}


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("abw.render", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["c"] = clean
    env.filters["num"] = fmt_num
    env.filters["pct"] = fmt_pct
    env.filters["fold"] = fold_numbers
    return env


def _check_view(check: Check, anchor: str) -> dict[str, Any]:
    return {
        "anchor": anchor,
        "id": check.id,
        "rule": check.rule,
        "rule_help": rule_text(check.rule, check.category).full,
        "verdict": check.verdict,
        "message": check.message,
        "scenario_id": check.scenario_id,
        "hard": check.hard,
        "runs_checked": check.runs_checked,
        "measured": list(check.measured.items()),
        "limits": list(check.limits.items()),
        "violations": check.violations[:MAX_VIOLATIONS],
        "more": max(len(check.violations) - MAX_VIOLATIONS, 0),
        "violation_count": len(check.violations),
        "open": check.verdict != "PASS",
    }


def _alignment(div: Divergence) -> list[dict[str, Any]]:
    base, cand = div.baseline_path, div.candidate_path
    rows = []

    def cell(path: list[str], i: int) -> dict[str, Any]:
        # a tool, the end of the path (once), or nothing past the end
        state = "tool" if i < len(path) else "end" if i == len(path) else "none"
        return {"state": state, "name": path[i] if i < len(path) else None}

    for i in range(max(len(base), len(cand)) + 1):
        kind = "same" if i < div.step else "diverge" if i == div.step else "after"
        b, c = cell(base, i), cell(cand, i)
        if b["state"] == c["state"] == "end" and kind != "diverge":
            continue
        rows.append({"step": i, "baseline": b, "candidate": c, "kind": kind})
    if div.step >= len(rows):  # a divergence past both paths
        end = {"state": "end", "name": None}
        rows.append({"step": div.step, "baseline": end, "candidate": end, "kind": "diverge"})
    return rows


def _diff_view(diff: DiffResult, report: GateReport) -> dict[str, Any]:
    shape = diff_shape_checks(report, diff.scenario_id)
    metrics = []
    for key, label, attribute in DIFF_METRICS:
        value = getattr(diff, attribute)  # None: runs on one side only, nothing compared
        value = None if value is None else float(value)
        check = shape.get(key)
        warn, fail = thresholds(check.limits) if check else (None, None)
        metrics.append(
            {
                "label": label,
                "value": value,
                "warn": warn,
                "fail": fail,
                "verdict": check.verdict if check else None,
                "gauge": Markup(svg.gauge(value, warn, fail, label=label))
                if value is not None
                else "",
            }
        )
    edit = shape.get("path_edit_distance")
    warn, fail = thresholds(edit.limits) if edit else (None, None)
    div = diff.first_divergence
    measured = [r.path_edit_distance for r in diff.per_run if r.path_edit_distance is not None]
    return {
        "scenario_id": diff.scenario_id,
        "diff": diff,
        "metrics": metrics,
        "histogram": Markup(svg.histogram(measured, warn=warn, fail=fail))
        if diff.path_edit_distance_mean is not None and measured
        else None,
        "tool_bars": Markup(svg.tool_bars(diff.baseline_tool_means, diff.candidate_tool_means))
        if diff.baseline_tool_means or diff.candidate_tool_means
        else None,
        "divergence": div,
        "alignment": _alignment(div) if div else [],
        "sequence": Markup(svg.sequence_chart(div.baseline_path, div.candidate_path, div.step))
        if div
        else None,
        "divergences": diff.divergences[:MAX_DIVERGENCES],
        "more_divergences": max(len(diff.divergences) - MAX_DIVERGENCES, 0),
    }


_RULE_WORDS = {
    "confidence_sequence": "Confidence sequence",
    "wilson": "Wilson bounds",
    "sprt": "SPRT",
}


def _stats_view(stats: SampleStatistics, report: GateReport | None = None) -> dict[str, Any]:
    execution = next(
        (e for e in (report.execution if report else []) if e.scenario_id == stats.scenario_id),
        None,
    )
    lower, upper, bounds = decision_bounds(stats)
    return {
        "s": stats,
        "rule_words": _RULE_WORDS.get(stats.rule, stats.rule),
        "execution": execution,
        "bounds": bounds,
        "lower": lower,
        "upper": upper,
        "interval": Markup(
            svg.interval_chart(
                lower,
                upper,
                stats.pass_rate,
                stats.threshold,
                label=f"Bounds ({bounds}) of the per-run pass rate against tau",
                decision=stats.decision,
            )
        ),
        "sprt_words": _SPRT_WORDS.get(stats.sprt.decision, stats.sprt.decision),
    }


def _runs_view(report: GateReport) -> tuple[list[Any], int]:
    order = {False: 0, None: 2, True: 1}
    runs = sorted(report.runs, key=lambda r: (r.role != "candidate", order[r.passed]))
    return runs[:MAX_RUNS], max(len(runs) - MAX_RUNS, 0)


def render_html(
    report: GateReport, *, details_url: str | None = None, title: str | None = None
) -> str:
    """The HTML report. ``details_url`` is shown as a link back to the CI run; ``title`` names
    the page (default: ``abw gate: <verdict> — <spec id>``)."""
    counts = verdict_counts(report.checks)
    anchors = {id(c): f"check-{i}" for i, c in enumerate(report.checks)}
    runs, more_runs = _runs_view(report)
    latent = report.evidence_ledger.latent
    candidates = [r for r in report.runs if r.role == "candidate"]
    context = {
        "r": report,
        "title": title or f"abw gate: {report.verdict} \u2014 {clean(report.spec_id)}",
        "summary": summary_text(report),
        "counts": counts,
        "flagged": [
            _check_view(c, anchors[id(c)])
            for c in worst_first([c for c in report.checks if c.verdict != "PASS"])
        ],
        "categories": [
            {
                "key": category,
                "title": category_title(category),
                "counts": verdict_counts(checks),
                "checks": [_check_view(c, anchors[id(c)]) for c in worst_first(checks)],
            }
            for category, checks in checks_by_category(report)
        ],
        "diffs": [_diff_view(d, report) for d in report.diff],
        "stats": [_stats_view(s, report) for s in report.statistics],
        "runs": runs,
        "more_runs": more_runs,
        "n_candidate": len(candidates),
        "n_candidate_passed": sum(r.passed is True for r in candidates),
        "n_baseline": sum(r.role == "baseline" for r in report.runs),
        "latent": latent,
        "latent_plot": Markup(svg.projection_plot(latent.projections))
        if latent and latent.projections
        else None,
        "details_url": safe_url(details_url),
        "tool_color": svg.tool_color,
    }
    return _environment().get_template("report.html.j2").render(context)
