"""What every check category shares: per-run rules, findings and how a check is assembled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from abw.findings import Finding, violation
from abw.models.report import Category, Check, Verdict, Violation
from abw.text import plural
from abw.traceio import TraceFile


@dataclass(frozen=True)
class RunRule:
    """A hard, per-run rule: a run either satisfies it or is a counterexample."""

    id: str
    rule: str
    category: Category
    limits: dict[str, Any]
    evaluate: Callable[[TraceFile], Finding | None]
    passed_message: Callable[[int], str]  # runs checked -> sentence
    failed_message: Callable[[int, int], str]  # (violating runs, runs checked) -> sentence
    measured: dict[str, Any] = field(default_factory=dict)
    references: tuple[str, ...] = ()  # tool names / globs some run must show (gating.vacuity)


def evaluate_rule(rule: RunRule, runs: list[TraceFile]) -> tuple[Check, dict[str, bool]]:
    """Apply a hard rule to every candidate run: FAIL on any counterexample.

    Returns the check and, per trace file path, whether that run satisfied the rule.
    """
    violations: list[Violation] = []
    outcome: dict[str, bool] = {}
    for trace_file in runs:
        finding = rule.evaluate(trace_file)
        outcome[trace_file.path] = finding is None
        if finding is not None:
            violations.append(violation(trace_file, finding))
    bad = len(violations)
    verdict: Verdict = "FAIL" if bad else "PASS"
    message = rule.failed_message(bad, len(runs)) if bad else rule.passed_message(len(runs))
    check = Check(
        id=rule.id,
        rule=rule.rule,
        category=rule.category,
        verdict=verdict,
        message=message,
        hard=True,
        runs_checked=len(runs),
        measured={**rule.measured, "violating_runs": bad, "runs": len(runs)},
        limits=rule.limits,
        violations=violations,
    )
    return check, outcome


def runs_word(count: int) -> str:
    return plural(count, "candidate run")


def ordinals_text(ordinals: list[int] | tuple[int, ...]) -> str:
    shown = ", ".join(str(o) for o in ordinals[:8])
    return shown + (f" and {len(ordinals) - 8} more" if len(ordinals) > 8 else "")


def scenario_suffix(scenario_id: str | None) -> str:
    """Per-scenario checks carry ``@scenario`` in their id (nothing for runs without one)."""
    return "" if scenario_id is None else f"@{scenario_id}"


def scenario_check(category: Category, rule: str, scenario_id: str | None, **fields: Any) -> Check:
    """An advisory (``hard=False``) check of one scenario, id ``<category>.<rule>[@scenario]``."""
    return Check(
        id=f"{category}.{rule}{scenario_suffix(scenario_id)}",
        rule=rule,
        category=category,
        scenario_id=scenario_id,
        hard=False,
        **fields,
    )


def scenario_text(scenario_id: str | None) -> str:
    return "runs without a scenario id" if scenario_id is None else f"scenario {scenario_id}"


def mark_against_baseline(
    rule: RunRule,
    check: Check,
    outcome: dict[str, bool],
    baseline: list[TraceFile],
    policy: str,
) -> tuple[Check, dict[str, bool]]:
    """The rule also on the baseline runs of the violating scenarios: each violation marked
    new or already in the baseline (with the baseline rate). ``policy: warn``: runs whose
    violation the baseline already had do not count as failed, and a check with only such
    violations WARNs."""
    from abw.rules.baseline_marks import mark, split_text

    scenarios = {v.scenario_id for v in check.violations}
    rate: dict[str | None, tuple[int, int]] = {}
    for run in baseline:
        sid = run.trace.run.scenario_id
        if sid in scenarios:
            bad, total = rate.get(sid, (0, 0))
            rate[sid] = (bad + (rule.evaluate(run) is not None), total + 1)
    marked = [mark(v, *rate.get(v.scenario_id, (0, 0))) for v in check.violations]
    known = {v.trace_file for v in marked if v.in_baseline}
    new = len(marked) - len(known)
    message = check.message
    if known:
        text = split_text(new, len(known))
        message = message[:-1] + text + "." if message.endswith(".") else message + text
    update: dict[str, Any] = {
        "violations": marked,
        "message": message,
        "measured": {**check.measured, "violating_new": new, "violating_in_baseline": len(known)},
    }
    if policy == "warn" and known:
        outcome = {path: ok or path in known for path, ok in outcome.items()}
        if new == 0:
            update["verdict"] = "WARN"
    return check.model_copy(update=update), outcome
