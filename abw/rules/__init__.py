"""Rules over one run's path and value assertions between runs (``spec.rules``,
``spec.assertions``); :mod:`abw.rules.checks` turns their results into gate-report checks.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from abw.models.rules import rule_id
from abw.rules.arguments import arguments
from abw.rules.calls import confidence, result_required, tool_allowlist
from abw.rules.outcome import RuleOutcome, combine, matches, uses_llm
from abw.rules.relative import BaselineRuns, new_tools, tool_call_growth
from abw.rules.temporal import (
    absence_after,
    count,
    immediately_before,
    precedence,
    response,
    retry_limit,
)
from abw.text import plural

__all__ = [
    "BaselineRuns",
    "RuleOutcome",
    "RunContext",
    "applies",
    "evaluate_rule",
    "evaluate_rules",
    "rule_spans",
]

_PATTERN_FIELDS = ("before", "after", "stop", "forbidden", "tool", "evidence")


@dataclass(frozen=True)
class RunContext:
    """What some rules need beyond the path: the run's final status and the baseline runs of
    its scenario (None: not given)."""

    final_status: str = "unknown"
    baseline: BaselineRuns | None = None


def rule_spans(rule: Any, trace: Any) -> list[Any]:
    """The spans a rule reads: the path, or every span in ordinal order when one of its
    combined matchers (or its allowlist types) names ``llm``."""
    patterns = [getattr(rule, f, None) for f in _PATTERN_FIELDS]
    patterns += list(getattr(rule, "allowed", None) or []) + list(getattr(rule, "tools", []))
    types = getattr(rule, "types", None) or []
    if uses_llm(p for p in patterns if p is not None) or "llm" in types:
        return sorted(trace.spans, key=lambda s: s.ordinal)
    return trace.path()


def applies(rule: Any, scenario_id: str | None) -> bool:
    """Whether a rule (or assertion) with ``scenarios`` globs covers a run's scenario."""
    if not rule.scenarios:
        return True
    return scenario_id is not None and any(matches(p, scenario_id) for p in rule.scenarios)


def evaluate_rule(rule: Any, path: list[Any], context: RunContext | None = None) -> RuleOutcome:
    """One path rule (not recovery / soft_budget) on one run's path (:func:`rule_spans`)."""
    kind = rule.kind
    context = context or RunContext()
    if kind == "precedence":
        return precedence(path, rule.before, rule.after, rule.subject, rule.within, rule.bind)
    if kind == "response":
        return response(path, rule.trigger, rule.response, rule.within_steps)
    if kind == "immediately_before":
        return immediately_before(path, rule.before, rule.after)
    if kind == "absence_after":
        return absence_after(path, rule.stop, rule.forbidden, rule.allowed)
    if kind == "count":
        return count(path, rule.tool, rule.min, rule.max, rule.count_status)
    if kind == "retry_limit":
        return retry_limit(path, rule.tool, rule.max_retries, rule.group_by, rule.max_attempts)
    if kind == "tool_allowlist":
        return tool_allowlist(path, rule.tools, rule.types)
    if kind == "result_required":
        return result_required(path, rule.tool, context.final_status)
    if kind == "confidence":
        return confidence(path, rule.tool, rule.field, rule.threshold, rule.evidence)
    if kind == "new_tools":
        return new_tools(path, rule.tool, context.baseline)
    if kind == "tool_call_growth":
        return tool_call_growth(
            path, rule.tool, rule.max_increase_percent, rule.baseline, context.baseline
        )
    if kind == "arguments":
        return arguments(path, rule.tool, rule.expected, rule.mode, rule.ignore_fields)
    raise ValueError(f"not a path rule: {kind}")


def recovery(
    path: list[Any], violated: RuleOutcome, actions: list[str], within_steps: int
) -> RuleOutcome:
    """Each violating span of ``violated`` is followed by a successful action within k steps."""
    if violated.status == "unknown":
        return RuleOutcome(
            "unknown",
            "whether the recovered-from rule was violated is not recorded",
            violated.ordinals,
        )
    ordinals = [span.ordinal for span in path]  # (in ordinal order)
    bad: list[int] = []
    maybe: list[int] = []
    for ordinal in violated.ordinals:
        # the first path step after the violating span, which need not be on the path (a rule
        # over llm spans reads every span): a step before it recovers nothing
        start = bisect_right(ordinals, ordinal)
        window = [
            s
            for s in path[start : start + within_steps]
            if any(matches(a, s.name) for a in actions)
        ]
        if any(s.status == "success" for s in window):
            continue
        (maybe if any(s.status == "unknown" for s in window) else bad).append(ordinal)
    names = ", ".join(actions)
    steps = plural(within_steps, "step")
    return combine(
        bad,
        maybe,
        f"every violation was followed by {names} within {steps}"
        if violated.ordinals
        else "nothing to recover from",
        f"a violation was not followed by a successful {names} within {steps}",
        f"whether {names} recovered within {steps} is not recorded",
    )


def soft_budget(outcomes: list[RuleOutcome], max_violations: int) -> RuleOutcome:
    """The listed rules' violations, counted by span, stay within ``max_violations``."""
    events = sum(o.events for o in outcomes if o.status == "violated")
    ordinals = tuple(sorted({n for o in outcomes if o.status == "violated" for n in o.ordinals}))
    if events > max_violations:
        return RuleOutcome(
            "violated", f"{events} soft violations, more than {max_violations}", ordinals, events
        )
    unsure = tuple(sorted({n for o in outcomes if o.status == "unknown" for n in o.ordinals}))
    if unsure:
        return RuleOutcome(
            "unknown",
            f"{events} soft violations and some not recorded (limit {max_violations})",
            unsure,
        )
    return RuleOutcome("satisfied", f"{events} soft violations, within {max_violations}")


def evaluate_rules(
    rules: list[Any], trace: Any, baseline: BaselineRuns | None = None
) -> dict[str, RuleOutcome | None]:
    """Every rule on one run, by rule id; None where the rule does not cover the run.

    ``baseline``: the baseline runs of the run's scenario, for the relative rules."""
    path = trace.path()
    scenario = trace.run.scenario_id
    context = RunContext(trace.run.final_status, baseline)
    results: dict[str, RuleOutcome | None] = {}
    ids = [rule_id(r, i) for i, r in enumerate(rules)]
    for rid, rule in zip(ids, rules, strict=True):
        if rule.kind not in ("recovery", "soft_budget"):
            results[rid] = (
                evaluate_rule(rule, rule_spans(rule, trace), context)
                if applies(rule, scenario)
                else None
            )
    for rid, rule in zip(ids, rules, strict=True):
        if rule.kind == "recovery":
            source = results.get(rule.violation)
            results[rid] = (
                recovery(path, source, rule.actions, rule.within_steps)
                if source is not None and applies(rule, scenario)
                else None
            )
        elif rule.kind == "soft_budget":
            sources = [results.get(r) for r in rule.rules]
            present = [o for o in sources if o is not None]
            results[rid] = (
                soft_budget(present, rule.max_violations) if applies(rule, scenario) else None
            )
    return {rid: results[rid] for rid in ids}
