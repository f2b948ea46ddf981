"""Rule and assertion results as gate-report checks.

Categories: temporal, argument, recovery and soft-budget rules -> ``behavior_contract``;
count and retry rules -> ``operational_quality``; assertions -> ``output_eval``.

Verdicts: a hard rule FAILs on any violating run and is INCONCLUSIVE when some run cannot be
decided; a soft rule WARNs on either; a precondition rule is INCONCLUSIVE on either (the
contract's promise does not apply to that run). An assertion of severity ``error`` FAILs when
any candidate run drifted and is INCONCLUSIVE when one is unknown; ``warn`` WARNs on either;
``info`` is reported and always PASSes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abw.findings import Finding, violation
from abw.models.report import Check, Verdict, Violation, worst_verdict
from abw.models.rules import rule_id
from abw.rules import applies, evaluate_rules
from abw.rules.assertions import RELATIONAL, assess, observations, relational_baseline
from abw.rules.jsonvalue import MISSING, show

CATEGORY = {
    "count": "operational_quality",
    "retry_limit": "operational_quality",
}
ON_VIOLATED: dict[str, Verdict] = {"hard": "FAIL", "soft": "WARN", "precondition": "INCONCLUSIVE"}
ON_UNKNOWN: dict[str, Verdict] = {
    "hard": "INCONCLUSIVE",
    "soft": "WARN",
    "precondition": "INCONCLUSIVE",
}
SEVERITY_DRIFTED: dict[str, Verdict] = {"error": "FAIL", "warn": "WARN", "info": "PASS"}
SEVERITY_UNKNOWN: dict[str, Verdict] = {"error": "INCONCLUSIVE", "warn": "WARN", "info": "PASS"}


@dataclass
class RuleChecks:
    """The checks, and per candidate trace file whether it broke a hard rule or assertion."""

    checks: list[Check] = field(default_factory=list)
    run_failed: dict[str, list[str]] = field(default_factory=dict)


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def rule_checks(rules: list[Any], candidate: list[Any]) -> RuleChecks:
    """One check per rule over every candidate run it covers."""
    result = RuleChecks()
    per_run = [(tf, evaluate_rules(rules, tf.trace)) for tf in candidate]
    for index, rule in enumerate(rules):
        rid = rule_id(rule, index)
        category = CATEGORY.get(rule.kind, "behavior_contract")
        check_id = f"{category}.rules.{rid}"
        violations: list[Violation] = []
        counts = {"satisfied": 0, "violated": 0, "unknown": 0}
        for tf, outcomes in per_run:
            outcome = outcomes[rid]
            if outcome is None:
                continue
            counts[outcome.status] += 1
            if outcome.status != "satisfied":
                prefix = "" if outcome.status == "violated" else "unknown: "
                finding = Finding(prefix + outcome.message, outcome.ordinals)
                violations.append(violation(tf, finding))
                if outcome.status == "violated" and rule.enforcement == "hard":
                    result.run_failed.setdefault(tf.path, []).append(check_id)
        checked = sum(counts.values())
        verdicts: list[Verdict] = []
        if counts["violated"]:
            verdicts.append(ON_VIOLATED[rule.enforcement])
        if counts["unknown"]:
            verdicts.append(ON_UNKNOWN[rule.enforcement])
        verdict = worst_verdict(verdicts)
        label = rule.statement or _describe(rule)
        if counts["violated"]:
            message = f"{counts['violated']} of {checked} candidate runs break: {label}"
        elif counts["unknown"]:
            message = f"{counts['unknown']} of {checked} candidate runs cannot be decided: {label}"
        else:
            message = f"All {checked} candidate runs satisfy: {label}"
        result.checks.append(
            Check(
                id=check_id,
                rule=rule.kind,
                category=category,
                verdict=verdict,
                message=_sentence(message),
                hard=rule.enforcement != "soft",
                runs_checked=checked,
                measured={**counts, "runs": checked},
                limits=rule.model_dump(mode="json", exclude_none=True),
                violations=violations,
            )
        )
    return result


def _describe(rule: Any) -> str:
    kind = rule.kind
    if kind == "precedence":
        return f"every successful {rule.after} needs an earlier successful {rule.before}"
    if kind == "response":
        within = f" within {rule.within_steps} steps" if rule.within_steps else ""
        return (
            f"every successful {rule.trigger} is followed by a successful {rule.response}{within}"
        )
    if kind == "immediately_before":
        return f"every successful {rule.after} directly follows a successful {rule.before}"
    if kind == "absence_after":
        return f"nothing matching {rule.forbidden} runs after {rule.stop}"
    if kind == "count":
        low = "0" if rule.min is None else str(rule.min)
        high = "any" if rule.max is None else str(rule.max)
        return f"{rule.tool} is called between {low} and {high} times"
    if kind == "retry_limit":
        return f"at most {rule.max_retries} retries per {rule.group_by} of {rule.tool}"
    if kind == "arguments":
        return f"{rule.tool} arguments meet the {rule.mode} constraint"
    if kind == "recovery":
        return f"violations of {rule.violation} are recovered within {rule.within_steps} steps"
    return f"at most {rule.max_violations} violations of {', '.join(rule.rules)} per run"


@dataclass
class _Tally:
    """What one assertion found over the candidate runs so far."""

    check_id: str
    counts: dict[str, int] = field(
        default_factory=lambda: {"compatible": 0, "drifted": 0, "unknown": 0}
    )
    violations: list[Violation] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # scenario -> baseline value


def assertion_checks(
    assertions: list[Any], baseline: list[Any], candidate: list[Any]
) -> RuleChecks:
    """One check per assertion; each candidate run is compared with its scenario's baseline.

    Each run's observations are built once, and each baseline value once per assertion and
    scenario, however many assertions and runs there are.
    """
    result = RuleChecks()
    by_scenario: dict[str | None, list[Any]] = {}
    for tf in baseline:
        by_scenario.setdefault(tf.trace.run.scenario_id, []).append(tf)
    base_docs: dict[str | None, list[dict[str, Any]]] = {}  # built for scenarios that need them
    bases: dict[tuple[int, str | None], tuple[Any, str | None]] = {}
    tallies = [_Tally(f"output_eval.assertions.{a.id}") for a in assertions]
    for tf in candidate:
        scenario = tf.trace.run.scenario_id
        doc: dict[str, Any] | None = None
        for index, assertion in enumerate(assertions):
            if not applies(assertion, scenario):
                continue
            if doc is None:
                doc = observations(tf.trace)
            if (index, scenario) not in bases:
                if assertion.matcher.op in RELATIONAL and scenario not in base_docs:
                    runs = by_scenario.get(scenario, [])
                    base_docs[scenario] = [observations(t.trace) for t in runs]
                bases[index, scenario] = relational_baseline(assertion, base_docs.get(scenario, []))
            outcome = assess(assertion, doc, *bases[index, scenario])
            tally = tallies[index]
            tally.counts[outcome.status] += 1
            key = "<none>" if scenario is None else scenario
            if outcome.baseline_value is not MISSING:
                tally.values.setdefault(key, outcome.baseline_value)
            if outcome.status != "compatible":
                text = (
                    f"{outcome.status}: {outcome.reason} (candidate {show(outcome.candidate_value)}"
                    f", baseline {show(outcome.baseline_value)})"
                )
                tally.violations.append(violation(tf, Finding(text)))
                if outcome.status == "drifted" and assertion.severity == "error":
                    result.run_failed.setdefault(tf.path, []).append(tally.check_id)
    for assertion, tally in zip(assertions, tallies, strict=True):
        counts, violations, values = tally.counts, tally.violations, tally.values
        checked = sum(counts.values())
        statement = assertion.statement
        verdicts: list[Verdict] = []
        if counts["drifted"]:
            verdicts.append(SEVERITY_DRIFTED[assertion.severity])
        if counts["unknown"] or not checked:
            verdicts.append(SEVERITY_UNKNOWN[assertion.severity])
        if not checked:
            message = f"No candidate run to check: {assertion.statement}"
        elif counts["drifted"]:
            message = f"{counts['drifted']} of {checked} candidate runs drifted: {statement}"
        elif counts["unknown"]:
            message = f"{counts['unknown']} of {checked} candidate runs unknown: {statement}"
        else:
            message = f"Compatible in all {checked} candidate runs: {assertion.statement}"
        result.checks.append(
            Check(
                id=tally.check_id,
                rule=f"assertion.{assertion.matcher.op}",
                category="output_eval",
                verdict=worst_verdict(verdicts),
                message=_sentence(message),
                hard=assertion.severity == "error",
                runs_checked=checked,
                measured={**counts, "runs": checked, "baseline_values": values},
                limits=assertion.model_dump(mode="json", exclude_none=True),
                violations=violations,
            )
        )
    return result


#: One sentence per rule kind and matcher, for ``abw explain`` (the ``rule`` of a check).
WHY: dict[str, str] = {
    "precedence": "Every successful `after` span needs a successful `before` span at an "
    "earlier ordinal (exists; names may be globs).",
    "response": "Every successful `trigger` span must be followed by a successful `response` "
    "span (within `within_steps` path steps when given).",
    "immediately_before": "The path step directly before every successful `after` span must "
    "be a successful `before` span.",
    "absence_after": "No span matching `forbidden` may run after the first successful `stop`.",
    "count": "The number of spans matching `tool` must stay within [min, max].",
    "retry_limit": "Repeats of a failed call's signature must stay within `max_retries`.",
    "arguments": "The explicitly extracted arguments of each matching call must meet `mode`.",
    "recovery": "Each violation of the named soft rule must be followed by a successful "
    "recovery action within `within_steps`.",
    "soft_budget": "A run's violations of the listed soft rules must stay within the budget.",
    **{
        f"assertion.{op}": text
        for op, text in {
            "exists": "The selected value must be present in every candidate run.",
            "equals": "The selected value must equal the contract's value.",
            "allowlist": "The selected value must be one of the allowed values.",
            "same": "The selected value must equal the baseline's.",
            "contains": "The selected string or array must contain the contract's value.",
            "set_same": "The selected array must hold the baseline's members, in any order.",
            "sequence_same": "The selected array must equal the baseline's, in order.",
            "number_delta": "The selected number may move from the baseline's only within "
            "the absolute / relative budget.",
            "rank_not_lower": "The selected value's rank in `order` must not fall below the "
            "baseline's.",
        }.items()
    },
}
UNKNOWN_WHY = (
    "Some runs lack what the check needs (an unrecorded span result, unextracted arguments, "
    "or no agreed baseline value), so it cannot be decided: INCONCLUSIVE, never PASS."
)
