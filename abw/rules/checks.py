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
from abw.rules import BaselineRuns, RuleOutcome, applies, evaluate_rules
from abw.rules.assertions import RELATIONAL, assess, observations, relational_baseline
from abw.rules.baseline_marks import KnownPolicy, mark, split_text
from abw.rules.jsonvalue import MISSING, show
from abw.rules.outcome import label
from abw.sharedfields import shared
from abw.text import noun, plural

CATEGORY = {
    "count": "operational_quality",
    "retry_limit": "operational_quality",
    "result_required": "operational_quality",
    "tool_call_growth": "operational_quality",
}
ON_VIOLATED: dict[str, Verdict] = {"hard": "FAIL", "soft": "WARN", "precondition": "INCONCLUSIVE"}
ON_UNKNOWN: dict[str, Verdict] = {
    "hard": "INCONCLUSIVE",
    "soft": "WARN",
    "precondition": "INCONCLUSIVE",
}
#: Rules that compare a run with the baseline runs of its scenario.
RELATIVE = frozenset({"new_tools", "tool_call_growth"})
#: A violation the baseline already had, under ``baseline_violations: warn``.
KNOWN_WARN: dict[str, Verdict] = {"hard": "WARN", "soft": "WARN", "precondition": "INCONCLUSIVE"}
SEVERITY_DRIFTED: dict[str, Verdict] = {"error": "FAIL", "warn": "WARN", "info": "PASS"}
SEVERITY_UNKNOWN: dict[str, Verdict] = {"error": "INCONCLUSIVE", "warn": "WARN", "info": "PASS"}


@dataclass
class RuleChecks:
    """The checks, and per candidate trace file whether it broke a hard rule or assertion."""

    checks: list[Check] = field(default_factory=list)
    run_failed: dict[str, list[str]] = field(default_factory=dict)
    references: dict[str, tuple[Any, ...]] = field(default_factory=dict)  # (gating.vacuity)


#: What one rule (or assertion) found on one run: None where it does not cover the run,
#: SATISFIED, or (status, the violation as report evidence).
SATISFIED = "satisfied"
RunResult = str | tuple[str, Violation] | None


@dataclass(frozen=True, slots=True)
class RunResults:
    """One candidate run's results, one per rule or assertion (the gate's per-run summaries
    carry the same fields)."""

    path: str
    scenario_id: str | None
    results: tuple[RunResult, ...]


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _by_scenario(runs: list[Any]) -> dict[str | None, list[Any]]:
    grouped: dict[str | None, list[Any]] = {}
    for tf in runs:
        grouped.setdefault(tf.trace.run.scenario_id, []).append(tf)
    return grouped


class RuleBaseline:
    """The baseline runs as the rules read them: per scenario, the facts the relative rules
    compare with, and how many baseline runs break each rule (built once, when first asked)."""

    def __init__(self, rules: list[Any], baseline: list[Any] | None) -> None:
        self.rules = rules
        self.given = baseline is not None
        self.groups = _by_scenario(baseline) if baseline is not None else {}
        self.relative = any(rule.kind in RELATIVE for rule in rules)
        self._facts: dict[str | None, BaselineRuns] = {}
        self._outcomes: dict[str | None, list[dict[str, RuleOutcome | None]]] = {}

    def facts(self, scenario: str | None) -> BaselineRuns | None:
        """What the relative rules compare a run of ``scenario`` with (None: not needed)."""
        if not self.given or not self.relative:
            return None
        if scenario not in self._facts:
            runs = self.groups.get(scenario, [])
            self._facts[scenario] = BaselineRuns.of([t.trace for t in runs])
        return self._facts[scenario]

    def rate(self, scenario: str | None, rid: str) -> tuple[int, int]:
        """(baseline runs of ``scenario`` that break rule ``rid``, runs it covers)."""
        if scenario not in self._outcomes:
            self._outcomes[scenario] = [
                evaluate_rules(self.rules, t.trace, self.facts(scenario))
                for t in self.groups.get(scenario, [])
            ]
        found = [o[rid] for o in self._outcomes[scenario] if o[rid] is not None]
        return sum(o.status == "violated" for o in found), len(found)


def rule_results(rules: list[Any], tf: Any, facts: BaselineRuns | None) -> tuple[RunResult, ...]:
    """Every rule on one candidate run, in rule order (``facts``: RuleBaseline.facts)."""
    outcomes = evaluate_rules(rules, tf.trace, facts)
    found: list[RunResult] = []
    for index, rule in enumerate(rules):
        outcome = outcomes[rule_id(rule, index)]
        if outcome is None or outcome.status == "satisfied":
            found.append(None if outcome is None else SATISFIED)
            continue
        prefix = "" if outcome.status == "violated" else "unknown: "
        found.append(
            (outcome.status, violation(tf, Finding(prefix + outcome.message, outcome.ordinals)))
        )
    return tuple(found)


def rule_checks(
    rules: list[Any],
    candidate: list[Any],
    baseline: list[Any] | None = None,
    known_policy: KnownPolicy = "fail",
) -> RuleChecks:
    """One check per rule over every candidate run it covers.

    With ``baseline``: the relative rules compare each run with its scenario's baseline runs,
    and the rules are evaluated on those baseline runs too (for the scenarios where a candidate
    run breaks a rule), so each violation is marked new or already in the baseline.
    ``known_policy: warn`` turns a hard violation the baseline already had into a WARN.
    """
    base = RuleBaseline(rules, baseline)
    runs = [
        RunResults(
            tf.path,
            tf.trace.run.scenario_id,
            rule_results(rules, tf, base.facts(tf.trace.run.scenario_id)),
        )
        for tf in candidate
    ]
    return merge_rule_checks(rules, runs, base, known_policy)


def merge_rule_checks(
    rules: list[Any], runs: list[Any], base: RuleBaseline, known_policy: KnownPolicy = "fail"
) -> RuleChecks:
    """The rule checks from each candidate run's :func:`rule_results` (``runs``: anything with
    ``path``, ``scenario_id`` and those ``results``, in run order)."""
    result = RuleChecks()
    for index, rule in enumerate(rules):
        rid = rule_id(rule, index)
        category = CATEGORY.get(rule.kind, "behavior_contract")
        check_id = f"{category}.rules.{rid}"
        result.references[check_id] = rule_references(rules, index)
        violations: list[Violation] = []
        counts = {"satisfied": 0, "violated": 0, "unknown": 0}
        split = {"new": 0, "known": 0}
        for run in runs:
            found = run.results[index]
            if found is None:
                continue
            if found == SATISFIED:
                counts["satisfied"] += 1
                continue
            status, item = found
            counts[status] += 1
            known = False
            if status == "violated" and base.given:
                bad, covered = base.rate(run.scenario_id, rid)
                item = shared(mark(item, bad, covered))
                known = bad > 0
                split["known" if known else "new"] += 1
            violations.append(item)
            excused = known and known_policy == "warn"
            if status == "violated" and rule.enforcement == "hard" and not excused:
                result.run_failed.setdefault(run.path, []).append(check_id)
        checked = sum(counts.values())
        verdicts: list[Verdict] = []
        if counts["violated"] > split["known"] or (split["known"] and known_policy == "fail"):
            verdicts.append(ON_VIOLATED[rule.enforcement])
        elif split["known"]:
            verdicts.append(KNOWN_WARN[rule.enforcement])
        if counts["unknown"] or not checked:  # no candidate run to check: nothing shown
            verdicts.append(ON_UNKNOWN[rule.enforcement])
        verdict = worst_verdict(verdicts)
        label = rule.statement or _describe(rule)
        if not checked:
            message = f"No candidate run to check: {label}"
        elif counts["violated"]:
            message = f"{counts['violated']} of {checked} candidate runs break: {label}"
            message += split_text(split["new"], split["known"])
        elif counts["unknown"]:
            message = f"{counts['unknown']} of {checked} candidate runs cannot be decided: {label}"
        else:
            message = f"All {checked} candidate runs satisfy: {label}"
        measured: dict[str, Any] = {**counts, "runs": checked}
        if base.given and counts["violated"]:
            measured |= {"violated_new": split["new"], "violated_in_baseline": split["known"]}
        result.checks.append(
            Check(
                id=check_id,
                rule=rule.kind,
                category=category,
                verdict=verdict,
                message=_sentence(message),
                hard=rule.enforcement != "soft",
                runs_checked=checked,
                measured=measured,
                limits=rule.model_dump(mode="json", exclude_none=True),
                violations=violations,
            )
        )
    return result


def rule_references(rules: list[Any], index: int) -> tuple[Any, ...]:
    """What rule ``index`` refers to (``Rule.references()``); a recovery or soft budget also
    refers to what the rules it counts violations of do, and to their ``scenarios``: it can
    see a violation only where they check something."""
    rule = rules[index]
    found = rule.references()
    if rule.kind in ("recovery", "soft_budget"):
        ids = {rule_id(r, i): r for i, r in enumerate(rules)}
        for source in [rule.violation] if rule.kind == "recovery" else rule.rules:
            other = ids[source]
            found += other.references()  # (its scenarios among them)
    return found


def _count_sentence(tool: str, low: int, high: int | None, status: str) -> str:
    """A count rule's own sentence: "x is never called", "x is called exactly once",
    "x succeeds at least 2 times", "x is called between 1 and 3 times"."""
    verb = "succeeds" if status == "success" else "is called"
    if high == 0:
        return f"{tool} never succeeds" if status == "success" else f"{tool} is never called"
    if high is None:
        return f"{tool} {verb} at least {_n_times(low)}"
    if low == high:
        return f"{tool} {verb} exactly {_n_times(low)}"
    if low:
        return f"{tool} {verb} between {low} and {high} times"
    return f"{tool} {verb} at most {_n_times(high)}"


def _at_most(limit: int, singular: str) -> str:
    """ "at most 2 retries", "at most 1 retry", "no retries"."""
    return f"no {noun(0, singular)}" if limit == 0 else f"at most {plural(limit, singular)}"


def _n_times(n: int) -> str:
    return "once" if n == 1 else plural(n, "time")


def _describe(rule: Any) -> str:
    kind = rule.kind
    if kind == "precedence":
        noun = "attempt" if rule.subject == "attempts" else "successful call"
        within = f" within {plural(rule.within, 'step')}" if rule.within else ""
        bound = f" with {rule.bind.before} = {rule.bind.after}" if rule.bind else ""
        return (
            f"every {label(rule.after)} {noun} needs an earlier successful {label(rule.before)}"
            f"{within}{bound} (subject: {rule.subject})"
        )
    if kind == "response":
        within = f" within {plural(rule.within_steps, 'step')}" if rule.within_steps else ""
        return (
            f"every successful {rule.trigger} is followed by a successful {rule.response}{within}"
        )
    if kind == "immediately_before":
        return f"every successful {rule.after} directly follows a successful {rule.before}"
    if kind == "absence_after":
        but = f" (except {', '.join(label(a) for a in rule.allowed)})" if rule.allowed else ""
        return f"nothing matching {label(rule.forbidden)}{but} runs after {label(rule.stop)}"
    if kind == "count":
        return _count_sentence(label(rule.tool), rule.min or 0, rule.max, rule.count_status)
    if kind == "retry_limit":
        if rule.max_attempts is not None:
            what = f"at most {plural(rule.max_attempts, 'attempt')}"
        else:
            what = f"{_at_most(rule.max_retries, 'retry')} of a failed call"
        return f"{what} per {rule.group_by} of {label(rule.tool)}"
    if kind == "tool_allowlist":
        return f"every tool called is one of {', '.join(label(t) for t in rule.tools)}"
    if kind == "result_required":
        return f"every {label(rule.tool)} call has a recorded result"
    if kind == "confidence":
        return (
            f"a {label(rule.tool)} with {rule.field} >= {rule.threshold:g} needs an earlier "
            f"successful {label(rule.evidence)}"
        )
    if kind == "new_tools":
        return f"no {label(rule.tool)} tool that the baseline runs of the scenario never used"
    if kind == "tool_call_growth":
        return (
            f"{label(rule.tool)} calls grow at most {rule.max_increase_percent:g}% over the "
            f"baseline {rule.baseline}"
        )
    if kind == "arguments":
        return f"{rule.tool} arguments meet the {rule.mode} constraint"
    if kind == "recovery":
        steps = plural(rule.within_steps, "step")
        return f"violations of {rule.violation} are recovered within {steps}"
    return f"{_at_most(rule.max_violations, 'violation')} of {', '.join(rule.rules)} per run"


@dataclass
class _Tally:
    """What one assertion found over the candidate runs so far."""

    check_id: str
    counts: dict[str, int] = field(
        default_factory=lambda: {"compatible": 0, "drifted": 0, "unknown": 0}
    )
    violations: list[Violation] = field(default_factory=list)
    values: dict[str, Any] = field(default_factory=dict)  # scenario -> baseline value


class AssertionBaseline:
    """Each assertion's baseline value per scenario, from that scenario's baseline runs (built
    once per assertion and scenario, when first asked)."""

    def __init__(self, assertions: list[Any], baseline: list[Any]) -> None:
        self.assertions = assertions
        self.groups = _by_scenario(baseline)
        self._docs: dict[str | None, list[dict[str, Any]]] = {}
        self._values: dict[tuple[int, str | None], tuple[Any, str | None]] = {}

    def value(self, index: int, scenario: str | None) -> tuple[Any, str | None]:
        """:func:`relational_baseline` of assertion ``index`` for ``scenario``."""
        if (index, scenario) not in self._values:
            assertion = self.assertions[index]
            if assertion.matcher.op in RELATIONAL and scenario not in self._docs:
                runs = self.groups.get(scenario, [])
                self._docs[scenario] = [observations(t.trace) for t in runs]
            docs = self._docs.get(scenario, [])
            self._values[index, scenario] = relational_baseline(assertion, docs)
        return self._values[index, scenario]


def assertion_results(
    assertions: list[Any], tf: Any, base: AssertionBaseline
) -> tuple[RunResult, ...]:
    """Every assertion on one candidate run, in order (the run's observations built once)."""
    scenario = tf.trace.run.scenario_id
    doc: dict[str, Any] | None = None
    found: list[RunResult] = []
    for index, assertion in enumerate(assertions):
        if not applies(assertion, scenario):
            found.append(None)
            continue
        if doc is None:
            doc = observations(tf.trace)
        outcome = assess(assertion, doc, *base.value(index, scenario))
        if outcome.status == "compatible":
            found.append(SATISFIED)
            continue
        text = (
            f"{outcome.status}: {outcome.reason} (candidate {show(outcome.candidate_value)}"
            f", baseline {show(outcome.baseline_value)})"
        )
        found.append((outcome.status, violation(tf, Finding(text))))
    return tuple(found)


def assertion_checks(
    assertions: list[Any], baseline: list[Any], candidate: list[Any], strict: bool = False
) -> RuleChecks:
    """One check per assertion; each candidate run is compared with its scenario's baseline.

    ``strict``: every assertion counts as severity ``error`` (behaviorlock's ``--strict``).

    Each run's observations are built once, and each baseline value once per assertion and
    scenario, however many assertions and runs there are.
    """
    base = AssertionBaseline(assertions, baseline)
    runs = [
        RunResults(tf.path, tf.trace.run.scenario_id, assertion_results(assertions, tf, base))
        for tf in candidate
    ]
    return merge_assertion_checks(assertions, runs, base, strict)


def merge_assertion_checks(
    assertions: list[Any], runs: list[Any], base: AssertionBaseline, strict: bool = False
) -> RuleChecks:
    """The assertion checks from each candidate run's :func:`assertion_results` (``runs``:
    anything with ``path``, ``scenario_id`` and those ``results``, in run order)."""
    result = RuleChecks()
    tallies = [_Tally(f"output_eval.assertions.{a.id}") for a in assertions]
    result.references = {
        t.check_id: a.references() for t, a in zip(tallies, assertions, strict=True)
    }
    for run in runs:
        scenario = run.scenario_id
        for index, assertion in enumerate(assertions):
            found = run.results[index]
            if found is None:
                continue
            tally = tallies[index]
            value = base.value(index, scenario)[0]
            if value is not MISSING:
                tally.values.setdefault("<none>" if scenario is None else scenario, value)
            if found == SATISFIED:
                tally.counts["compatible"] += 1
                continue
            status, item = found
            tally.counts[status] += 1
            tally.violations.append(item)
            if status == "drifted" and (strict or assertion.severity == "error"):
                result.run_failed.setdefault(run.path, []).append(tally.check_id)
    for assertion, tally in zip(assertions, tallies, strict=True):
        counts, violations, values = tally.counts, tally.violations, tally.values
        checked = sum(counts.values())
        statement = assertion.statement
        severity = "error" if strict else assertion.severity
        verdicts: list[Verdict] = []
        if counts["drifted"]:
            verdicts.append(SEVERITY_DRIFTED[severity])
        if counts["unknown"] or not checked:
            verdicts.append(SEVERITY_UNKNOWN[severity])
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
                hard=severity == "error",
                runs_checked=checked,
                measured={**counts, "runs": checked, "baseline_values": values},
                limits=assertion.model_dump(mode="json", exclude_none=True),
                violations=violations,
            )
        )
    return result


#: One sentence per rule kind and matcher, for ``abw explain`` (the ``rule`` of a check).
WHY: dict[str, str] = {
    "precedence": "Every `after` span — each attempt whatever its status (subject: attempts, "
    "the default; an unrecorded result is an attempt too) or each success (subject: "
    "successes) — needs a successful `before` span at an earlier ordinal (exists; names may "
    "be globs), at most `within` path steps back and with equal `bind` arguments when given "
    "(unknown when a side's arguments were not extracted).",
    "response": "Every successful `trigger` span must be followed by a successful `response` "
    "span (within `within_steps` path steps when given).",
    "immediately_before": "The path step directly before every successful `after` span must "
    "be a successful `before` span.",
    "absence_after": "No span matching `forbidden` may run after the first successful `stop`, "
    "except those matching an `allowed` pattern.",
    "count": "The number of spans matching `tool` (a name glob, or a matcher of name, span "
    "type and status, e.g. failed tool calls only) must stay within [min, max].",
    "retry_limit": "Per call signature (name, input hash) or per tool: repeats of a failed "
    "call stay within `max_retries`, or all calls (attempts, whatever their status) within "
    "`max_attempts`.",
    "tool_allowlist": "Every span of the governed types (default: tool) must match one of the "
    "allowed tools; any other tool is a violation.",
    "result_required": "Every matching call must have a recorded result; a missing one is a "
    "violation when the run ended, unknown when the recording may be cut off.",
    "confidence": "A matching span whose extracted `field` is at least `threshold` needs an "
    "earlier successful `evidence` span (a confident claim needs proof).",
    "new_tools": "No span of a tool that no baseline run of the same scenario used (tools the "
    "candidate stopped using do not count).",
    "tool_call_growth": "The run's matching calls may exceed the baseline runs' median (or "
    "max / min) count of the same scenario by at most `max_increase_percent`.",
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
