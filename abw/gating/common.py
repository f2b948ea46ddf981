"""What every check category shares: per-run rules, findings and how a check is assembled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from abw.findings import Finding
from abw.models.report import Category, Check, Verdict, Violation
from abw.sharedfields import shared
from abw.text import plural
from abw.traceio import TraceFile

#: The sentence a hard check's message ends with where ``failing_runs: tolerate`` turned its
#: FAIL into WARN (abw.gating; read back by abw.explain).
TOLERATED = "Tolerated (failing_runs: tolerate): the pass-rate test against tau decides."


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
    #: what it refers to (gating.vacuity): tool names / globs some run must show, or a
    #: typed reference (the names a rule forbids: abw.models.rules.ForbiddenRef)
    references: tuple[Any, ...] = ()
    output_fields: tuple[str, ...] = ()  # canonical_output fields it reads (gating.vacuity)


def rule_check(rule: RunRule, violations: list[Violation], runs: int) -> Check:
    """A hard rule's check over ``runs`` candidate runs, from the counterexamples found
    (``rule.evaluate`` on each run, in run order): FAIL on any."""
    bad = len(violations)
    verdict: Verdict = "FAIL" if bad else "PASS"
    message = rule.failed_message(bad, runs) if bad else rule.passed_message(runs)
    return Check(
        id=rule.id,
        rule=rule.rule,
        category=rule.category,
        verdict=verdict,
        message=message,
        hard=True,
        runs_checked=runs,
        measured={**rule.measured, "violating_runs": bad, "runs": runs},
        limits=rule.limits,
        violations=violations,
    )


def run_violation(
    run: Any, message: str, ordinals: list[int] | None = None, lines: list[int] | None = None
) -> Violation:
    """A violation of a summarized run (``trace_id``, ``path``, ``scenario_id``), with the
    ordinals and lines of its spans that show it, if any (as abw.findings.violation)."""
    return shared(
        Violation(
            trace_id=run.trace_id,
            trace_file=run.path,
            scenario_id=run.scenario_id,
            span_ordinals=ordinals or [],
            span_lines=lines or [],
            message=message,
        )
    )


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
    rule: RunRule, check: Check, baseline: list[TraceFile], policy: str
) -> tuple[Check, set[str]]:
    """The rule also on the baseline runs of the violating scenarios: each violation marked
    new or already in the baseline (with the baseline rate). ``policy: warn``: runs whose
    violation the baseline already had do not count as failed (they are returned: the trace
    files excused), and a check with only such violations WARNs."""
    from abw.rules.baseline_marks import mark, split_text

    scenarios = {v.scenario_id for v in check.violations}
    rate: dict[str | None, tuple[int, int]] = {}
    for run in baseline:
        sid = run.trace.run.scenario_id
        if sid in scenarios:
            bad, total = rate.get(sid, (0, 0))
            rate[sid] = (bad + (rule.evaluate(run) is not None), total + 1)
    marked = [shared(mark(v, *rate.get(v.scenario_id, (0, 0)))) for v in check.violations]
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
    excused: set[str] = set()
    if policy == "warn" and known:
        excused = known
        if new == 0:
            update["verdict"] = "WARN"
    return check.model_copy(update=update), excused
